//! The cached count in a string's header: bytes 8..16, little-endian,
//! valid while bit 7 of byte 15 (the top bit of the `u64`) is clear. Shared
//! by [`Hll`](crate::Hll), [`Registers`](crate::Registers) and the sparse
//! editor.

/// The cached count, if the cache is valid.
#[inline]
pub(crate) fn get(header: &[u8]) -> Option<u64> {
    let c = simd_core::load::u64_le(header, 8);
    (c >> 63 == 0).then_some(c)
}

/// Writes `count` (below 2^63, so the cache becomes valid).
#[inline]
pub(crate) fn set(header: &mut [u8], count: u64) {
    header[8..16].copy_from_slice(&count.to_le_bytes());
}

/// Marks the cache invalid.
#[inline]
pub(crate) fn invalidate(header: &mut [u8]) {
    header[15] |= 0x80;
}

/// Marks the cache invalid if `changed`, for the adds: the header byte is
/// stored to only while the cache is still valid, not on every add, so
/// that each add's load of it does not wait for the previous add's store
/// (a chain through memory from add to add, about 2 ns an add). The test
/// is true once per run of adds that changes something, so it is
/// predicted; the store itself is arithmetic on `changed`, no branch.
#[inline(always)]
pub(crate) fn invalidate_if(header: &mut [u8], changed: bool) {
    if header[15] & 0x80 == 0 {
        header[15] |= u8::from(changed) << 7;
    }
}
