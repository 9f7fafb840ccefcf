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

/// Formats that hand the deserializer bytes rather than a sequence (here
/// serde's own in-memory deserializer) reach the bytes visitor, which
/// validates too; a wrong type names what was expected. (The owned-bytes
/// visitor has a unit test: serde has no in-memory deserializer for it.)
#[test]
fn bytes_visitors() {
    use serde::de::value::{BytesDeserializer, Error, U32Deserializer};
    use serde::Deserialize;
    let mut h = Hll::new();
    h.add_all(["a", "b"]);
    let bytes = h.as_bytes().to_vec();
    let back = Hll::deserialize(BytesDeserializer::<Error>::new(&bytes)).unwrap();
    assert_eq!(back, h);
    let err = Hll::deserialize(BytesDeserializer::<Error>::new(&bytes[..15])).unwrap_err();
    assert!(err.to_string().contains("WRONGTYPE"), "{err}");
    let err = Hll::deserialize(U32Deserializer::<Error>::new(5)).unwrap_err();
    assert!(
        err.to_string()
            .contains("the bytes of a Redis/Valkey HyperLogLog string"),
        "{err}"
    );
}
