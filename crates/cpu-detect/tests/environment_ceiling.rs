//! `CPU_DETECT_MAX_LEVEL` caps what dispatchers may use, and
//! `set_max_level` overrides it. The variable is read once per process, so
//! this file holds a single test, which sets it before anything reads it.
#![cfg(feature = "std")]

use cpu_detect::{allows, ceiling, max_level, set_max_level, Level};

#[test]
fn variable_then_programmatic_ceiling() {
    std::env::set_var("CPU_DETECT_MAX_LEVEL", " scalar ");
    assert_eq!(ceiling(), Some(Level::Scalar));
    assert_eq!(max_level(), Level::Scalar);
    assert!(allows(Level::Scalar));
    assert!(!allows(Level::Sse42) && !allows(Level::Neon) && !allows(Level::Zbb));
    // Read once: a later change of the variable is not seen.
    std::env::set_var("CPU_DETECT_MAX_LEVEL", "avx2");
    assert_eq!(ceiling(), Some(Level::Scalar));

    // The programmatic ceiling wins over the variable, and `None` lifts
    // every ceiling.
    set_max_level(Some(Level::Avx2));
    assert_eq!(ceiling(), Some(Level::Avx2));
    assert_eq!(
        max_level(),
        cpu_detect::detected_level().capped_by(Level::Avx2)
    );
    set_max_level(None);
    assert_eq!(ceiling(), None);
    assert_eq!(max_level(), cpu_detect::detected_level());
    assert!(allows(max_level()));
    // No CPU runs every family's kernels.
    assert!(Level::ALL.iter().any(|&l| !allows(l)));
}
