//! Little-endian loads from byte slices at any alignment, bounds-checked.
//!
//! Each compiles to one unaligned load on x86_64 and aarch64 once the bounds
//! check is hoisted or proven; they panic (never read out of bounds) if the
//! caller's index is wrong.

/// The `N` bytes at `at` as an array.
///
/// # Panics
/// If `at + N > bytes.len()`.
#[inline(always)]
#[must_use]
pub fn array<const N: usize>(bytes: &[u8], at: usize) -> [u8; N] {
    match bytes[at..at + N].try_into() {
        Ok(a) => a,
        Err(_) => unreachable!(),
    }
}

/// The little-endian `u64` at `at`.
///
/// ```
/// assert_eq!(simd_core::load::u64_le(&[1, 0, 0, 0, 0, 0, 0, 0, 2], 1), 2 << 56);
/// ```
#[inline(always)]
#[must_use]
pub fn u64_le(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(array(bytes, at))
}

/// The little-endian `u32` at `at`.
#[inline(always)]
#[must_use]
pub fn u32_le(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(array(bytes, at))
}

/// The little-endian `u16` at `at`.
#[inline(always)]
#[must_use]
pub fn u16_le(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(array(bytes, at))
}

/// The big-endian `u64` at `at` (bit 0 of a Redis string is the top bit of
/// byte 0, so big-endian words keep bit order).
#[inline(always)]
#[must_use]
pub fn u64_be(bytes: &[u8], at: usize) -> u64 {
    u64::from_be_bytes(array(bytes, at))
}

/// Up to 8 bytes (`bytes.len() <= 8`) as a little-endian `u64`, zero-extended,
/// with at most two overlapping loads instead of a byte loop.
///
/// ```
/// assert_eq!(simd_core::load::tail_u64_le(&[1, 2, 3]), 0x030201);
/// assert_eq!(simd_core::load::tail_u64_le(&[]), 0);
/// ```
#[inline(always)]
#[must_use]
pub fn tail_u64_le(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    debug_assert!(n <= 8);
    if n >= 4 {
        // Two overlapping 4-byte loads: low covers 0..4, high covers n-4..n.
        let lo = u64::from(u32_le(bytes, 0));
        let hi = u64::from(u32_le(bytes, n - 4));
        lo | (hi << (8 * (n - 4)))
    } else if n >= 2 {
        let lo = u64::from(u16_le(bytes, 0));
        let hi = u64::from(bytes[n - 1]);
        lo | (hi << (8 * (n - 1)))
    } else if n == 1 {
        u64::from(bytes[0])
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_matches_bytewise() {
        let data: [u8; 8] = [0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88];
        for n in 0..=8 {
            let mut want = 0u64;
            for (i, &b) in data[..n].iter().enumerate() {
                want |= u64::from(b) << (8 * i);
            }
            assert_eq!(tail_u64_le(&data[..n]), want, "n = {n}");
        }
    }

    #[test]
    fn loads() {
        let b = [1u8, 2, 3, 4, 5, 6, 7, 8, 9];
        assert_eq!(u16_le(&b, 1), 0x0302);
        assert_eq!(u32_le(&b, 5), 0x09080706);
        assert_eq!(u64_be(&b, 1), 0x0203040506070809);
    }
}
