//! The dispatch tiers kernels are written for, and their ordering.

use crate::Features;
use core::fmt;
use core::str::FromStr;

/// A tier of kernels. x86 tiers are ordered `Scalar < Sse42 < Avx2 < Avx512`;
/// aarch64 has `Scalar < Neon`, riscv64 `Scalar < Zbb`. The derived order
/// puts `Neon` and `Zbb` last, but comparisons across families mean nothing:
/// use [`Level::includes`] to ask whether a kernel of one level may run under
/// another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
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

/// The error of parsing a [`Level`] from an unknown name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseLevelError(());

impl fmt::Display for ParseLevelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("unknown level; accepted values: scalar, sse4.2, avx2, avx512, neon, zbb")
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ParseLevelError {}

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
        Err(ParseLevelError(()))
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
            e.starts_with("unknown level; accepted values: scalar"),
            "{e}"
        );
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
