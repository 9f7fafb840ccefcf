//! The hashes PFADD computes (MurmurHash64A, the 64-bit MurmurHash2 Redis
//! uses: one element in `kernels/murmur.rs`, a batch through the
//! dispatcher) and the derivation of a register index and run length from
//! a hash.

pub use crate::kernels::murmur::{hash, murmurhash64a, SEED};
use crate::{P, Q, REGISTERS};

/// [`hash`] of every element: `out[i] = hash(elements[i])` (only the first
/// `min(elements.len(), out.len())` are hashed), elements of any length in
/// any mix, with the kernel the dispatcher picks ([`selected_hash_kernel`];
/// the scalar loop on every CPU measured so far, see
/// [`hash_kernels`] for the others).
///
/// [`selected_hash_kernel`]: crate::selected_hash_kernel
/// [`hash_kernels`]: crate::hash_kernels
///
/// ```
/// let elements: [&[u8]; 3] = [b"a", b"some longer element", b""];
/// let mut out = [0u64; 3];
/// hll::hash_batch(&elements, &mut out);
/// assert_eq!(out, elements.map(hll::hash));
/// ```
#[inline]
pub fn hash_batch(elements: &[&[u8]], out: &mut [u64]) {
    let n = elements.len().min(out.len());
    crate::dispatch::hash_batch(&elements[..n], &mut out[..n]);
}

/// Register index (low 14 bits) and run length (1..=51) of a hash.
#[inline(always)]
pub(crate) fn index_count(h: u64) -> (usize, u8) {
    let index = (h & (REGISTERS as u64 - 1)) as usize;
    // The sentinel bit bounds the count at Q + 1 = 51.
    let rest = (h >> P) | (1u64 << Q);
    (index, rest.trailing_zeros() as u8 + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_vectors() {
        assert_eq!(hash(b"7"), 5554161992923675127);
        assert_eq!(index_count(hash(b"a")), (12711, 2));
        assert_eq!(index_count(hash(b"b")), (15780, 1));
        assert_eq!(index_count(hash(b"c")), (8436, 1));
        assert_eq!(index_count(0), (0, 51));
        assert_eq!(index_count(u64::MAX), (16383, 1));
    }

    /// The dispatched batch hash (scalar under Miri) is `hash` per element,
    /// and stops at the shorter of its two slices.
    #[test]
    fn hash_batch_is_hash() {
        let data: alloc::vec::Vec<u8> = (0..40u8).collect();
        let elements: alloc::vec::Vec<&[u8]> = (0..=20).map(|n| &data[n..n + n]).collect();
        let mut out = [0u64; 21];
        hash_batch(&elements, &mut out);
        for (e, h) in elements.iter().zip(out) {
            assert_eq!(h, hash(e));
        }
        let mut short = [0u64; 2];
        hash_batch(&elements, &mut short);
        assert_eq!(short, [out[0], out[1]]);
    }
}
