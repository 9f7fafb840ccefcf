//! The dispatch ceiling: `CPU_DETECT_MAX_LEVEL` or [`set_max_level`].

use crate::Level;
use core::sync::atomic::{AtomicU8, Ordering};

// Encoding shared by both cells: 0 = not set / not read yet, 1 = no ceiling,
// 2 + index into `Level::ALL` = that ceiling.
const UNSET: u8 = 0;
const NONE: u8 = 1;

static PROGRAMMATIC: AtomicU8 = AtomicU8::new(UNSET);
#[cfg(feature = "std")]
static ENVIRONMENT: AtomicU8 = AtomicU8::new(UNSET);

fn encode(level: Option<Level>) -> u8 {
    match level {
        None => NONE,
        Some(l) => 2 + Level::ALL.iter().position(|&x| x == l).unwrap_or(0) as u8,
    }
}

fn decode(v: u8) -> Option<Level> {
    match v {
        UNSET | NONE => None,
        _ => Level::ALL.get(usize::from(v - 2)).copied(),
    }
}

/// Sets (or with `None` clears) a ceiling on the level dispatchers choose,
/// overriding `CPU_DETECT_MAX_LEVEL`. It lowers, never raises, what the CPU
/// supports.
///
/// Dispatchers resolve once, on their first call, and keep the kernel they
/// picked: set the ceiling before the first call into a kvprims crate (at the
/// start of `main`, say). Tests that need every kernel should
/// enumerate the kernels instead (each crate's `kernels()`).
///
/// ```
/// use cpu_detect::{set_max_level, max_level, Level};
/// set_max_level(Some(Level::Scalar));
/// assert_eq!(max_level(), Level::Scalar);
/// set_max_level(None);
/// ```
pub fn set_max_level(ceiling: Option<Level>) {
    PROGRAMMATIC.store(encode(ceiling), Ordering::Relaxed);
}

/// The ceiling in force: the one given to [`set_max_level`] if any, else the
/// `CPU_DETECT_MAX_LEVEL` environment variable (read once; with `std` only).
///
/// An unknown value in the variable, or a level of another architecture
/// (`neon` on x86-64, say), is reported once on stderr, with the accepted
/// values, and ignored.
pub fn ceiling() -> Option<Level> {
    let p = PROGRAMMATIC.load(Ordering::Relaxed);
    if p != UNSET {
        return decode(p);
    }
    environment()
}

#[cfg(feature = "std")]
fn environment() -> Option<Level> {
    let v = ENVIRONMENT.load(Ordering::Relaxed);
    if v != UNSET {
        return decode(v);
    }
    let parsed = read_environment();
    // Several threads may race here; they compute the same value, and only the
    // first one to store reports a bad value.
    if ENVIRONMENT
        .compare_exchange(
            UNSET,
            encode(parsed.0),
            Ordering::Relaxed,
            Ordering::Relaxed,
        )
        .is_ok()
    {
        if let Some(why) = parsed.1 {
            std::eprintln!("cpu-detect: ignoring CPU_DETECT_MAX_LEVEL: {why}");
        }
    }
    parsed.0
}

/// The names a ceiling may take.
#[cfg(feature = "std")]
const ACCEPTED: &str = "accepted values: scalar, sse4.2, avx2, avx512, neon, zbb";

#[cfg(feature = "std")]
fn read_environment() -> (Option<Level>, Option<std::string::String>) {
    parse_environment(std::env::var("CPU_DETECT_MAX_LEVEL"))
}

/// The ceiling a value of `CPU_DETECT_MAX_LEVEL` sets, and why the value is
/// ignored if it is (to report): not a level name, or a level of another
/// architecture.
#[cfg(feature = "std")]
fn parse_environment(
    var: Result<std::string::String, std::env::VarError>,
) -> (Option<Level>, Option<std::string::String>) {
    use std::string::ToString;
    match var {
        Ok(s) if s.trim().is_empty() => (None, None),
        Ok(s) => match s.parse::<Level>() {
            Ok(level) if level.is_for_this_target() => (Some(level), None),
            Ok(_) => (
                None,
                Some(std::format!(
                    "{s:?} is a level of another architecture than {}; {ACCEPTED}",
                    std::env::consts::ARCH
                )),
            ),
            Err(e) => (None, Some(e.to_string())),
        },
        Err(std::env::VarError::NotPresent) => (None, None),
        Err(std::env::VarError::NotUnicode(s)) => (
            None,
            Some(std::format!(
                "{:?} is not UTF-8; {ACCEPTED}",
                s.to_string_lossy()
            )),
        ),
    }
}

#[cfg(not(feature = "std"))]
fn environment() -> Option<Level> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_round_trips() {
        assert_eq!(decode(encode(None)), None);
        assert_eq!(decode(UNSET), None);
        for level in Level::ALL {
            assert_eq!(decode(encode(Some(level))), Some(level), "{level}");
        }
    }

    #[test]
    #[cfg(feature = "std")]
    fn environment_values() {
        extern crate std;
        use std::env::VarError;
        use std::string::ToString;
        let parse = |s: &str| parse_environment(Ok(s.to_string()));
        assert_eq!(parse(" Scalar\n"), (Some(Level::Scalar), None));
        #[cfg(target_arch = "x86_64")]
        {
            assert_eq!(parse("avx2"), (Some(Level::Avx2), None));
            assert_eq!(parse(" SSE42\n"), (Some(Level::Sse42), None));
        }
        #[cfg(target_arch = "aarch64")]
        assert_eq!(parse("neon"), (Some(Level::Neon), None));
        assert_eq!(parse(""), (None, None));
        assert_eq!(parse("  "), (None, None));
        let (level, why) = parse("avx3");
        assert_eq!(level, None);
        assert!(why.unwrap().starts_with("unknown level \"avx3\"; accepted"));
        assert_eq!(parse_environment(Err(VarError::NotPresent)), (None, None));
        // A level of another architecture is ignored and reported, like a
        // bogus value.
        let foreign = if cfg!(target_arch = "aarch64") {
            "avx2"
        } else {
            "neon"
        };
        let (level, why) = parse(foreign);
        assert_eq!(level, None);
        let why = why.unwrap();
        assert!(why.contains("another architecture"), "{why}");
        assert!(why.contains(foreign), "{why}");
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStringExt;
            let bad = std::ffi::OsString::from_vec(std::vec![b'a', 0xff]);
            let (level, why) = parse_environment(Err(VarError::NotUnicode(bad)));
            assert_eq!(level, None);
            assert!(why.unwrap().starts_with("\"a\u{fffd}\" is not UTF-8"));
        }
    }
}
