//! The dispatch tiers kernels are written for, and their ordering.

use crate::Features;
use core::fmt;
use core::str::FromStr;

/// A tier of kernels. x86 tiers build on each other, `Scalar`, `Sse42`,
/// `Avx2`, `Avx512`; aarch64 has `Scalar`, `Neon`; riscv64 `Scalar`, `Zbb`.
/// Levels of different families are not comparable, so `Level` has no
/// `Ord`: [`Level::includes`] asks whether a kernel written for one level may
/// run where another is the best allowed.
///
/// New tiers may be added, so a `match` on a `Level` needs a `_` arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Level {
    /// Portable code, every target.
    Scalar,
    /// x86-64 with POPCNT and SSE4.2 (and SSSE3).
    Sse42,
    /// x86-64 with AVX2 and BMI2 (and the tiers below).
    Avx2,
    /// x86-64 with AVX-512 F, BW, VL and VPOPCNTDQ (and the tiers below).
    Avx512,
    /// aarch64 with Advanced SIMD.
    Neon,
    /// riscv64 with the Zbb basic bit-manipulation extension (`cpop`, `clz`,
    /// `rev8`, ...).
    Zbb,
}

impl Level {
    /// Every level, lowest first within each family.
    pub const ALL: [Level; 6] = [
        Level::Scalar,
        Level::Sse42,
        Level::Avx2,
        Level::Avx512,
        Level::Neon,
        Level::Zbb,
    ];

    /// The name accepted by `CPU_DETECT_MAX_LEVEL` and printed in reports.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Level::Scalar => "scalar",
            Level::Sse42 => "sse4.2",
            Level::Avx2 => "avx2",
            Level::Avx512 => "avx512",
            Level::Neon => "neon",
            Level::Zbb => "zbb",
        }
    }

    /// The best level that `f` supports on the target this was compiled for.
    #[must_use]
    pub fn of(f: &Features) -> Level {
        if f.neon {
            return Level::Neon;
        }
        if f.zbb {
            return Level::Zbb;
        }
        let sse42 = f.sse2 && f.ssse3 && f.sse41 && f.sse42 && f.popcnt;
        let avx2 = sse42 && f.avx && f.avx2 && f.bmi1 && f.bmi2;
        let avx512 = avx2 && f.avx512f && f.avx512bw && f.avx512vl && f.avx512vpopcntdq;
        if avx512 {
            Level::Avx512
        } else if avx2 {
            Level::Avx2
        } else if sse42 {
            Level::Sse42
        } else {
            Level::Scalar
        }
    }

    const fn is_x86(self) -> bool {
        matches!(self, Level::Sse42 | Level::Avx2 | Level::Avx512)
    }

    /// Whether this level belongs to the family of the target this was
    /// compiled for (`Scalar` belongs to every target): a ceiling naming
    /// another architecture's level cannot apply here.
    ///
    /// ```
    /// use cpu_detect::Level;
    /// assert!(Level::Scalar.is_for_this_target());
    /// assert_eq!(Level::Avx2.is_for_this_target(), cfg!(target_arch = "x86_64"));
    /// ```
    #[must_use]
    pub const fn is_for_this_target(self) -> bool {
        match self {
            Level::Scalar => true,
            Level::Neon => cfg!(target_arch = "aarch64"),
            Level::Zbb => cfg!(target_arch = "riscv64"),
            _ => cfg!(any(target_arch = "x86_64", target_arch = "x86")),
        }
    }

    /// Whether a kernel written for `kernel` may run where `self` is the best
    /// allowed level: `Scalar` always; otherwise the same family and not above.
    ///
    /// ```
    /// use cpu_detect::Level;
    /// assert!(Level::Avx2.includes(Level::Sse42));
    /// assert!(!Level::Avx2.includes(Level::Avx512));
    /// assert!(!Level::Neon.includes(Level::Sse42));
    /// assert!(Level::Neon.includes(Level::Scalar));
    /// assert!(!Level::Scalar.includes(Level::Zbb));
    /// ```
    #[must_use]
    pub const fn includes(self, kernel: Level) -> bool {
        match kernel {
            Level::Scalar => true,
            Level::Neon => matches!(self, Level::Neon),
            Level::Zbb => matches!(self, Level::Zbb),
            _ => self.is_x86() && (kernel as u8) <= (self as u8),
        }
    }

    /// `self` lowered by the ceiling `cap`: `Scalar` lowers everything; a cap of
    /// the same family gives the lower of the two; a cap of another family
    /// leaves `self` unchanged.
    #[must_use]
    pub const fn capped_by(self, cap: Level) -> Level {
        match cap {
            Level::Scalar => Level::Scalar,
            Level::Neon | Level::Zbb => self,
            _ if self.is_x86() && (cap as u8) < (self as u8) => cap,
            _ => self,
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing a [`Level`] from an unknown name; it names the input
/// (its first [`ParseLevelError::KEPT`] bytes, cut at a character boundary).
///
/// ```
/// let e = "avx1024".parse::<cpu_detect::Level>().unwrap_err();
/// assert_eq!(e.input(), "avx1024");
/// assert_eq!(
///     e.to_string(),
///     "unknown level \"avx1024\"; accepted values: scalar, sse4.2, avx2, avx512, neon, zbb"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseLevelError {
    kept: [u8; ParseLevelError::KEPT],
    len: u8,
    truncated: bool,
}

impl ParseLevelError {
    /// How many bytes of the input the error keeps (it allocates nothing).
    pub const KEPT: usize = 32;

    fn new(input: &str) -> Self {
        let mut len = input.len().min(Self::KEPT);
        while !input.is_char_boundary(len) {
            len -= 1;
        }
        let mut kept = [0; Self::KEPT];
        kept[..len].copy_from_slice(&input.as_bytes()[..len]);
        ParseLevelError {
            kept,
            len: len as u8,
            truncated: len < input.len(),
        }
    }

    /// The input that is not a level name (cut to [`ParseLevelError::KEPT`]
    /// bytes).
    #[must_use]
    pub fn input(&self) -> &str {
        // `new` copies whole characters of a `str`, so this cannot fail.
        core::str::from_utf8(&self.kept[..usize::from(self.len)]).unwrap_or("")
    }
}

impl fmt::Display for ParseLevelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let more = if self.truncated { "..." } else { "" };
        write!(
            f,
            "unknown level {:?}{more}; accepted values: scalar, sse4.2, avx2, avx512, neon, zbb",
            self.input()
        )
    }
}

impl core::error::Error for ParseLevelError {}

impl FromStr for Level {
    type Err = ParseLevelError;

    /// Parses a level name, case-insensitively; `sse42` is accepted for `sse4.2`.
    fn from_str(s: &str) -> Result<Level, ParseLevelError> {
        let s = s.trim();
        for level in Level::ALL {
            if s.eq_ignore_ascii_case(level.name()) {
                return Ok(level);
            }
        }
        if s.eq_ignore_ascii_case("sse42") {
            return Ok(Level::Sse42);
        }
        Err(ParseLevelError::new(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for level in Level::ALL {
            assert_eq!(level.name().parse::<Level>(), Ok(level));
        }
        assert_eq!("AVX2".parse::<Level>(), Ok(Level::Avx2));
        assert!("avx1024".parse::<Level>().is_err());
    }

    #[test]
    fn capping() {
        assert_eq!(Level::Avx512.capped_by(Level::Avx2), Level::Avx2);
        assert_eq!(Level::Sse42.capped_by(Level::Avx512), Level::Sse42);
        assert_eq!(Level::Neon.capped_by(Level::Scalar), Level::Scalar);
        assert_eq!(Level::Neon.capped_by(Level::Avx2), Level::Neon);
        assert_eq!(Level::Avx2.capped_by(Level::Neon), Level::Avx2);
        assert_eq!(Level::Scalar.capped_by(Level::Avx512), Level::Scalar);
        assert_eq!(Level::Zbb.capped_by(Level::Scalar), Level::Scalar);
        assert_eq!(Level::Zbb.capped_by(Level::Avx2), Level::Zbb);
        assert_eq!(Level::Zbb.capped_by(Level::Zbb), Level::Zbb);
        assert!(Level::Zbb.includes(Level::Scalar));
        assert!(!Level::Zbb.includes(Level::Neon));
        assert!(!Level::Avx512.includes(Level::Zbb));
    }

    /// Every pair, against a table written out by hand.
    #[test]
    fn includes_table() {
        use Level::*;
        let x86 = [Scalar, Sse42, Avx2, Avx512];
        for a in Level::ALL {
            for b in Level::ALL {
                let want = b == Scalar
                    || a == b
                    || matches!((a, b), (Avx2, Sse42) | (Avx512, Sse42) | (Avx512, Avx2));
                assert_eq!(a.includes(b), want, "{a}.includes({b})");
                // A cap lowers only within the x86 family, or to scalar.
                let capped = a.capped_by(b);
                let want = if b == Scalar {
                    Scalar
                } else if x86.contains(&a) && x86.contains(&b) && (b as u8) < (a as u8) {
                    b
                } else {
                    a
                };
                assert_eq!(capped, want, "{a}.capped_by({b})");
            }
        }
    }

    #[test]
    fn display() {
        extern crate std;
        use std::string::ToString;
        assert_eq!(Level::Sse42.to_string(), "sse4.2");
        assert_eq!(Level::Avx512.to_string(), "avx512");
        let e = "avx1024".parse::<Level>().unwrap_err().to_string();
        assert!(
            e.starts_with("unknown level \"avx1024\"; accepted values: scalar"),
            "{e}"
        );
        let long = "x".repeat(40) + "\u{e9}";
        let e = long.parse::<Level>().unwrap_err();
        assert_eq!(e.input(), &long[..ParseLevelError::KEPT]);
        assert!(e.to_string().contains("xxx\"..."), "{e}");
        // A cut inside a character keeps only whole characters.
        let wide = "\u{e9}".repeat(20);
        let e = wide.parse::<Level>().unwrap_err();
        assert_eq!(e.input(), "\u{e9}".repeat(16));
        let _: &dyn core::error::Error = &e;
    }

    #[test]
    fn families_of_this_target() {
        extern crate std;
        let native: std::vec::Vec<Level> = Level::ALL
            .into_iter()
            .filter(|l| l.is_for_this_target())
            .collect();
        #[cfg(target_arch = "x86_64")]
        assert_eq!(
            native,
            [Level::Scalar, Level::Sse42, Level::Avx2, Level::Avx512]
        );
        #[cfg(target_arch = "aarch64")]
        assert_eq!(native, [Level::Scalar, Level::Neon]);
        #[cfg(target_arch = "riscv64")]
        assert_eq!(native, [Level::Scalar, Level::Zbb]);
        assert!(native.contains(&Level::Scalar));
    }

    #[test]
    fn level_of_features() {
        let mut f = Features::default();
        assert_eq!(Level::of(&f), Level::Scalar);
        f.sse2 = true;
        f.ssse3 = true;
        f.sse41 = true;
        f.sse42 = true;
        assert_eq!(
            Level::of(&f),
            Level::Scalar,
            "POPCNT is part of sse4.2 tier"
        );
        f.popcnt = true;
        assert_eq!(Level::of(&f), Level::Sse42);
        f.avx = true;
        f.avx2 = true;
        f.bmi1 = true;
        assert_eq!(Level::of(&f), Level::Sse42, "BMI2 is part of the avx2 tier");
        f.bmi2 = true;
        assert_eq!(Level::of(&f), Level::Avx2);
        f.avx512f = true;
        f.avx512bw = true;
        f.avx512vl = true;
        assert_eq!(
            Level::of(&f),
            Level::Avx2,
            "VPOPCNTDQ is part of the avx512 tier"
        );
        f.avx512vpopcntdq = true;
        assert_eq!(Level::of(&f), Level::Avx512);
    }

    #[test]
    fn level_of_riscv_features() {
        let mut f = Features {
            v: true,
            ..Features::default()
        };
        assert_eq!(Level::of(&f), Level::Scalar, "V alone has no tier yet");
        f.zbb = true;
        assert_eq!(Level::of(&f), Level::Zbb);
    }
}
