//! The dense encoding: 16384 six-bit registers packed little-endian after
//! the header, 4 registers per 3 bytes.

use crate::{DENSE_BODY, HDR, REGISTERS};

/// Register `i` (`< 16384`) of a dense string. Register 16383 ends exactly
/// at the last byte (bits 2..8), so no pad byte is read: C reads the NUL
/// terminator there and masks it away.
#[inline(always)]
pub(crate) fn get(bytes: &[u8], i: usize) -> u8 {
    let bit = i * 6;
    let b = HDR + bit / 8;
    let s = bit % 8;
    // The next byte is read whatever the shift (no branch on `s`, which
    // would follow the register index and mispredict half the time); when
    // `s <= 2` its bits fall outside the field. Only the last register's
    // byte has no next one (there `s = 2`).
    let lo = u16::from(bytes[b]);
    let hi = u16::from(bytes.get(b + 1).copied().unwrap_or(0));
    (((lo | hi << 8) >> s) & 63) as u8
}

/// Raises register `i` to `count` if that is larger; whether it changed.
///
/// No branch on the registers' values or on the field's position in its
/// bytes: the field is always written back (with the larger of the two
/// counts), so a fresh add, which changes a register or not as the hash
/// falls, costs no mispredicted branch. The field's two bytes are read and
/// written as one `u16` (every register but the last, whose field ends at
/// the string's last byte): two byte-wide read-modify-writes, the second
/// loading right behind the first's store, cost ~40% more an add.
#[inline(always)]
pub(crate) fn set_max(bytes: &mut [u8], i: usize, count: u8) -> bool {
    debug_assert!(i < REGISTERS && count <= 63);
    let bit = i * 6;
    let b = HDR + bit / 8;
    let s = bit % 8;
    if let Some(pair) = bytes.get_mut(b..b + 2) {
        let w = u16::from_le_bytes([pair[0], pair[1]]);
        let old = ((w >> s) & 63) as u8;
        let w = (w & !(63u16 << s)) | (u16::from(old.max(count)) << s);
        pair.copy_from_slice(&w.to_le_bytes());
        return count > old;
    }
    // Only register 16383 gets here (a validated dense string has no byte
    // after its field): bits 2..8 of the last byte.
    debug_assert!(b + 1 == bytes.len() && s == 2);
    let old = get(bytes, i);
    bytes[b] = (bytes[b] & !(63 << s)) | (old.max(count) << s);
    count > old
}

/// The dense body of a validated dense string.
#[inline(always)]
pub(crate) fn body(bytes: &[u8]) -> &[u8; DENSE_BODY] {
    match bytes[HDR..].try_into() {
        Ok(b) => b,
        Err(_) => unreachable!("dense strings are validated to 12304 bytes"),
    }
}

/// The dense body of a validated dense string, mutable.
#[inline(always)]
pub(crate) fn body_mut(bytes: &mut [u8]) -> &mut [u8; DENSE_BODY] {
    match (&mut bytes[HDR..]).try_into() {
        Ok(b) => b,
        Err(_) => unreachable!("dense strings are validated to 12304 bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DENSE_BYTES;

    /// Register `i` written bit by bit at bits `6i..6i+6` of the body, least
    /// significant bit first (the layout `hllDenseSet` writes).
    fn put(bytes: &mut [u8], i: usize, v: u8) {
        for k in 0..6 {
            let bit = 6 * i + k;
            let (byte, shift) = (HDR + bit / 8, bit % 8);
            bytes[byte] = bytes[byte] & !(1 << shift) | ((v >> k) & 1) << shift;
        }
    }

    /// `set_max` and `get` at the first and last registers (16383 ends at
    /// the string's last byte, with no byte after it) and their neighbours,
    /// among random registers, against the bit-by-bit layout.
    #[test]
    fn set_max_at_the_edges() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for i in [0, 1, 2, 3, 4, 5, 16378, 16379, 16380, 16381, 16382, 16383] {
            for _ in 0..simd_core::testing::scaled(64, 1) {
                // Random registers: random body bytes.
                let mut bytes = [0u8; DENSE_BYTES];
                for b in &mut bytes[HDR..] {
                    *b = next() as u8;
                }
                let old = get(&bytes, i);
                let count = (next() % 64) as u8;
                let mut want = bytes;
                put(&mut want, i, old.max(count));
                assert_eq!(set_max(&mut bytes, i, count), count > old, "{i}");
                assert!(bytes == want, "register {i}: {old} raised to {count}");
                assert_eq!(get(&bytes, i), old.max(count));
            }
        }
    }
}
