//! `features_if_detected` before and after the first detection. Its own test
//! binary with one test, so that nothing has detected before it runs.

#[test]
fn none_until_detected_then_the_same_features() {
    assert_eq!(cpu_detect::features_if_detected(), None);
    let f = cpu_detect::features();
    assert_eq!(cpu_detect::features_if_detected(), Some(f));
    // The same cached value, not a copy.
    assert!(core::ptr::eq(
        cpu_detect::features_if_detected().unwrap(),
        f
    ));
}
