//! MurmurHash64A (the 64-bit MurmurHash2 Redis uses) and the derivation of a
//! register index and run length from a hash.

use crate::{P, Q, REGISTERS};

/// The seed Redis and Valkey pass to MurmurHash64A for PFADD.
pub const SEED: u64 = 0xadc8_3b19;

/// The multiplier.
pub(crate) const M: u64 = 0xc6a4_a793_5bd1_e995;
/// The shift.
pub(crate) const R: u32 = 47;

/// MurmurHash64A of `data` with `seed` (blocks read little-endian on every
/// target, as Redis does on the little-endian machines it runs on).
///
/// ```
/// assert_eq!(hll::murmurhash64a(b"7", hll::SEED), 5554161992923675127);
/// ```
#[inline]
#[must_use]
pub fn murmurhash64a(data: &[u8], seed: u64) -> u64 {
    // Redis passes the length as a C `int`; strings over 2 GiB cannot be
    // server values (proto-max-bulk-len is at most 512 MiB by default), so
    // the plain length is used.
    let mut h = seed ^ (data.len() as u64).wrapping_mul(M);
    let mut blocks = data.chunks_exact(8);
    for block in &mut blocks {
        let mut k = simd_core::load::u64_le(block, 0);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h ^= k;
        h = h.wrapping_mul(M);
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        h ^= simd_core::load::tail_u64_le(tail);
        h = h.wrapping_mul(M);
    }
    h ^= h >> R;
    h = h.wrapping_mul(M);
    h ^= h >> R;
    h
}

/// The hash PFADD computes for an element: MurmurHash64A with [`SEED`].
#[inline]
#[must_use]
pub fn hash(element: &[u8]) -> u64 {
    murmurhash64a(element, SEED)
}

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
