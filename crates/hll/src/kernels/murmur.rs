//! MurmurHash64A, the 64-bit MurmurHash2 Redis uses, one element at a
//! time: the hash behind PFADD, the scalar batch kernel and the tails of
//! the multi-lane ones, so it sits below every kernel (the public API
//! re-exports it from `hash.rs`).

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
