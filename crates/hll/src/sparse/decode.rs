//! Reading a validated sparse string: one register, the register-wise max
//! into a raw accumulator, the histogram, and the `PFDEBUG DECODE` text.

use super::{is_val, is_zero, op_at, val_len, val_value};
use crate::{HDR, REGISTERS};

/// Calls `run(first_register, len, value)` for every VAL opcode of a
/// validated sparse string; zero runs are skipped. Stops (never panics) if
/// a run would pass register 16383.
#[inline(always)]
fn for_each_val(bytes: &[u8], mut run: impl FnMut(usize, usize, u8)) {
    let mut p = HDR;
    let mut i = 0usize;
    while p < bytes.len() {
        let b = bytes[p];
        if is_val(b) {
            let len = val_len(b);
            if i + len > REGISTERS {
                return;
            }
            run(i, len, val_value(b));
            i += len;
            p += 1;
        } else if is_zero(b) {
            i += usize::from(b & 63) + 1;
            p += 1;
        } else {
            let (span, len) = op_at(bytes, p);
            i += span;
            p += len;
        }
    }
}

/// Register `i` of a validated sparse string (linear in its length).
pub(crate) fn get(bytes: &[u8], i: usize) -> u8 {
    let mut out = 0;
    for_each_val(bytes, |first, len, v| {
        if (first..first + len).contains(&i) {
            out = v;
        }
    });
    out
}

/// Register-wise max of a sparse string into a raw accumulator, straight
/// from the opcodes (no dense copy).
pub(crate) fn max_into(bytes: &[u8], raw: &mut [u8; REGISTERS]) {
    for_each_val(bytes, |first, len, v| {
        for r in &mut raw[first..first + len] {
            *r = (*r).max(v);
        }
    });
}

/// Register histogram of a sparse string.
pub(crate) fn histogram(bytes: &[u8]) -> [u32; 64] {
    let mut h = [0u32; 64];
    let mut nonzero = 0u32;
    for_each_val(bytes, |_, len, v| {
        h[usize::from(v)] += len as u32;
        nonzero += len as u32;
    });
    h[0] = REGISTERS as u32 - nonzero;
    h
}

/// Writes the PFDEBUG DECODE form: `z:N` (ZERO), `Z:N` (XZERO), `v:V,N`
/// (VAL), separated by single spaces.
pub(crate) fn decode(bytes: &[u8], f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
    let mut p = HDR;
    let mut sep = "";
    while p < bytes.len() {
        let b = bytes[p];
        let (span, len) = op_at(bytes, p);
        if is_val(b) {
            write!(f, "{sep}v:{},{}", val_value(b), span)?;
        } else if is_zero(b) {
            write!(f, "{sep}z:{span}")?;
        } else {
            write!(f, "{sep}Z:{span}")?;
        }
        sep = " ";
        p += len;
    }
    Ok(())
}
