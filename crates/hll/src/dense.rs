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
    let lo = u16::from(bytes[b]);
    let hi = if s > 2 { u16::from(bytes[b + 1]) } else { 0 };
    (((lo | hi << 8) >> s) & 63) as u8
}

/// Raises register `i` to `count` if that is larger; whether it changed.
#[inline(always)]
pub(crate) fn set_max(bytes: &mut [u8], i: usize, count: u8) -> bool {
    debug_assert!(i < REGISTERS && count <= 63);
    if get(bytes, i) >= count {
        return false;
    }
    let bit = i * 6;
    let b = HDR + bit / 8;
    let s = bit % 8;
    let v = u16::from(count) << s;
    let mask = 63u16 << s;
    bytes[b] = (bytes[b] & !(mask as u8)) | v as u8;
    if s > 2 {
        bytes[b + 1] = (bytes[b + 1] & !((mask >> 8) as u8)) | (v >> 8) as u8;
    }
    true
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
