//! `serde` support (feature `serde`): an [`Hll`] is its Redis bytes.

use crate::Hll;
use alloc::vec::Vec;
use core::fmt;
use serde::de::{self, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

impl Serialize for Hll {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.as_bytes())
    }
}

struct BytesVisitor;

impl<'de> Visitor<'de> for BytesVisitor {
    type Value = Hll;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the bytes of a Redis/Valkey HyperLogLog string")
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Hll, E> {
        Hll::from_bytes(v).map_err(E::custom)
    }

    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Hll, E> {
        Hll::from_vec(v).map_err(E::custom)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Hll, A::Error> {
        // The size hint comes from the input: cap it at a dense string.
        let cap = seq.size_hint().unwrap_or(0).min(crate::DENSE_BYTES);
        let mut v = Vec::with_capacity(cap);
        while let Some(b) = seq.next_element::<u8>()? {
            v.push(b);
        }
        Hll::from_vec(v).map_err(de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for Hll {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Hll, D::Error> {
        d.deserialize_bytes(BytesVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::value::Error;

    #[test]
    fn owned_bytes_validated() {
        let mut h = Hll::new();
        h.add(b"a");
        let v = h.as_bytes().to_vec();
        assert_eq!(BytesVisitor.visit_byte_buf::<Error>(v.clone()).unwrap(), h);
        assert!(BytesVisitor
            .visit_byte_buf::<Error>(v[..15].to_vec())
            .is_err());
    }
}
