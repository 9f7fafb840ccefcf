//! Lookups by `&[u8]` in `hashbrown` maps through `hashbrown::Equivalent`,
//! compared with [`crate::eq`], allocating nothing.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::hash::{Hash, Hasher};

/// A borrowed key to look up with: it hashes as `[u8]` (as `Vec<u8>`,
/// `Box<[u8]>` and `[u8; N]` keys do) and compares with [`crate::eq`]
/// through `hashbrown::Equivalent`, so a lookup allocates nothing.
///
/// ```
/// let mut m: hashbrown::HashMap<Box<[u8]>, u32> = hashbrown::HashMap::new();
/// m.insert(b"user:1000".to_vec().into_boxed_slice(), 7);
/// let key: &[u8] = b"user:1000";
/// assert_eq!(m.get(&memeq::Bytes(key)), Some(&7));
/// assert_eq!(m.get(&memeq::Bytes(b"user:1001")), None);
/// ```
///
/// A key type of your own that hashes its bytes as `[u8]` can take part
/// too: `impl hashbrown::Equivalent<MyKey> for memeq::Bytes<'_>` is allowed
/// in your crate.
#[derive(Clone, Copy, Debug)]
pub struct Bytes<'a>(pub &'a [u8]);

impl Hash for Bytes<'_> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.0.hash(h)
    }
}

impl hashbrown::Equivalent<Vec<u8>> for Bytes<'_> {
    #[inline]
    fn equivalent(&self, key: &Vec<u8>) -> bool {
        crate::eq(self.0, key)
    }
}

impl hashbrown::Equivalent<Box<[u8]>> for Bytes<'_> {
    #[inline]
    fn equivalent(&self, key: &Box<[u8]>) -> bool {
        crate::eq(self.0, key)
    }
}

impl<const N: usize> hashbrown::Equivalent<[u8; N]> for Bytes<'_> {
    #[inline]
    fn equivalent(&self, key: &[u8; N]) -> bool {
        crate::eq(self.0, key)
    }
}

impl<'k> hashbrown::Equivalent<&'k [u8]> for Bytes<'_> {
    #[inline]
    fn equivalent(&self, key: &&'k [u8]) -> bool {
        crate::eq(self.0, key)
    }
}
