//! `cpu_detect::set_max_level` before the first call caps memeq's choice
//! (nothing detects before `main`). The only test in this binary, so no
//! other call runs first.

use cpu_detect::Level;

#[test]
fn set_max_level_before_the_first_call_applies() {
    cpu_detect::set_max_level(Some(Level::Scalar));
    let by = memeq::Comparer::new();
    assert_eq!(by.kernel().level(), Level::Scalar, "{}", by.kernel().name());
    assert_eq!(memeq::selected_kernel().name(), by.kernel().name());
    #[cfg(target_arch = "x86_64")]
    assert_eq!(by.kernel().name(), "sse2");
    for n in [0, 1, 17, 33, 64, 65, 128, 129, 1000] {
        let a = simd_core::testing::random_bytes(n as u64, n);
        let mut b = a.clone();
        assert!(memeq::eq(&a, &b) && by.eq(&a, &b), "{n}");
        assert_eq!(memeq::cmp(&a, &b), a.cmp(&b), "{n}");
        if n > 0 {
            b[n - 1] ^= 1;
            assert!(!memeq::eq(&a, &b) && !by.eq(&a, &b), "{n}");
            assert_eq!(by.cmp(&a, &b), a.cmp(&b), "{n}");
        }
    }
    cpu_detect::set_max_level(None);
}
