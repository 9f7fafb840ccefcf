//! The standard traits of [`Hll`]: equality and hashing by the bytes,
//! `Default`, `Display` (`PFDEBUG DECODE`) and `Debug`, the conversions to
//! and from bytes, and `Extend`/`FromIterator` (`PFADD` of many elements).

use crate::{sparse, Error, Hll};
use alloc::vec::Vec;
use core::fmt;

impl Default for Hll {
    fn default() -> Hll {
        Hll::new()
    }
}

impl PartialEq for Hll {
    fn eq(&self, other: &Hll) -> bool {
        self.bytes == other.bytes
    }
}
impl Eq for Hll {}

impl core::hash::Hash for Hll {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.bytes.hash(state)
    }
}

/// `PFDEBUG DECODE` for sparse HLLs (`z:N` ZERO, `Z:N` XZERO, `v:V,N` VAL,
/// space separated); for dense ones `dense` and the number of non-zero
/// registers.
///
/// ```
/// let mut h = hll::Hll::new();
/// h.add(b"a");
/// assert_eq!(h.to_string(), "Z:12711 v:2,1 Z:3672");
/// ```
impl fmt::Display for Hll {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_sparse() {
            sparse::decode(&self.bytes, f)
        } else {
            let set = self.registers().iter().filter(|&&r| r != 0).count();
            write!(f, "dense ({set} registers set)")
        }
    }
}

impl fmt::Debug for Hll {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hll")
            .field(
                "encoding",
                &if self.is_sparse() { "sparse" } else { "dense" },
            )
            .field("len", &self.bytes.len())
            .field("cached_count", &self.cached_count())
            .field("sparse_max_bytes", &self.sparse_max_bytes)
            .finish()
    }
}

impl AsRef<[u8]> for Hll {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl TryFrom<&[u8]> for Hll {
    type Error = Error;
    fn try_from(bytes: &[u8]) -> Result<Hll, Error> {
        Hll::from_bytes(bytes)
    }
}

impl TryFrom<Vec<u8>> for Hll {
    type Error = Error;
    fn try_from(bytes: Vec<u8>) -> Result<Hll, Error> {
        Hll::from_vec(bytes)
    }
}

impl From<Hll> for Vec<u8> {
    fn from(h: Hll) -> Vec<u8> {
        h.bytes
    }
}

/// Adds every element in order, as [`Hll::add_all`] (`PFADD key e1 e2 ...`;
/// the same bytes as one [`add`](Hll::add) per element).
///
/// ```
/// let mut h = hll::Hll::new();
/// h.extend(["a", "b"]);
/// h.extend(vec![b"c".to_vec()]);
/// let mut one_by_one = hll::Hll::new();
/// for e in ["a", "b", "c"] {
///     one_by_one.add(e.as_bytes());
/// }
/// assert_eq!(h, one_by_one);
/// ```
impl<T: AsRef<[u8]>> Extend<T> for Hll {
    fn extend<I: IntoIterator<Item = T>>(&mut self, elements: I) {
        self.add_all(elements);
    }
}

/// A new HLL holding the elements, added in order as by [`Hll::add_all`]
/// (sparse until it outgrows the sparse size limit, as on a server).
///
/// ```
/// let h: hll::Hll = ["apple", "pear", "apple"].into_iter().collect();
/// let mut by_add = hll::Hll::new();
/// by_add.add_all(["apple", "pear", "apple"]);
/// assert_eq!(h, by_add);
/// assert_eq!(h.estimate(), 2);
/// ```
impl<T: AsRef<[u8]>> FromIterator<T> for Hll {
    fn from_iter<I: IntoIterator<Item = T>>(elements: I) -> Hll {
        let mut h = Hll::new();
        h.add_all(elements);
        h
    }
}

#[cfg(test)]
mod tests {
    use crate::Hll;
    use alloc::vec::Vec;

    /// Equality and hashing follow the bytes: equal strings are equal and
    /// hash alike, one more register set makes them differ.
    #[test]
    fn eq_and_hash_follow_the_bytes() {
        extern crate std;
        use core::hash::BuildHasher;
        let (mut a, mut b) = (Hll::new(), Hll::new());
        a.add(b"x");
        b.add(b"x");
        assert!(a == b);
        let fixed = std::collections::hash_map::RandomState::new();
        let h = |x: &Hll| fixed.hash_one(x);
        assert_eq!(h(&a), h(&b));
        b.add(b"y");
        assert!(a != b);
        assert_ne!(h(&a), h(&b));
    }

    /// The conversions and formatting traits say what the type's docs say.
    #[test]
    fn conversions_and_formatting() {
        extern crate std;
        use std::format;
        let mut h = Hll::new();
        h.add(b"a");
        let bytes = h.as_bytes().to_vec();
        assert_eq!(AsRef::<[u8]>::as_ref(&h), &bytes[..]);
        assert_eq!(Hll::try_from(&bytes[..]).unwrap(), h);
        assert_eq!(Hll::try_from(bytes.clone()).unwrap(), h);
        assert!(Hll::try_from(&bytes[..15]).is_err());
        assert!(Hll::try_from(bytes[..15].to_vec()).is_err());
        assert_eq!(Vec::from(h.clone()), bytes);
        assert_eq!(
            format!("{h:?}"),
            "Hll { encoding: \"sparse\", len: 21, cached_count: None, sparse_max_bytes: 3000 }"
        );
        let mut d = Hll::new().with_sparse_max_bytes(0);
        d.add(b"a");
        d.add(b"b");
        assert_eq!(format!("{d}"), "dense (2 registers set)");
        let e = Hll::from_bytes(b"HYL").unwrap_err();
        assert_eq!(e.reason(), "shorter than the 16-byte header");
        assert_eq!(
            format!("{e}"),
            "WRONGTYPE not a valid HyperLogLog string: shorter than the 16-byte header (at byte offset 3)"
        );
    }
}
