//! The `serde` feature: an `Hll` serializes as its Redis bytes and
//! deserializes through the validator.
#![cfg(feature = "serde")]

use hll::Hll;

#[test]
fn round_trip_and_validation() {
    let mut h = Hll::new();
    h.add_all(["a", "b", "c"]);
    let json = serde_json::to_string(&h).unwrap();
    assert_eq!(json, serde_json::to_string(&h.as_bytes()).unwrap());
    let back: Hll = serde_json::from_str(&json).unwrap();
    assert_eq!(back, h);
    let err = serde_json::from_str::<Hll>("[1,2,3]").unwrap_err();
    assert!(err.to_string().contains("WRONGTYPE"), "{err}");
}
