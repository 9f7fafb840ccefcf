//! The sparse encoding: validation ([`validate`]), the register-set
//! routine PFADD and PFMERGE use (byte for byte the servers' opcode
//! splitting and bounded VAL merge pass; [`edit`]), the checkpoint index
//! that starts a set's walk near its register ([`index`]), and decoding
//! into a histogram or a raw accumulator ([`decode`]).
//!
//! All offsets here are absolute offsets into the whole string (header
//! included), so no sub-slice bookkeeping can drift. This file holds the
//! opcode format the others share.

mod decode;
mod edit;
mod index;
mod validate;

pub(crate) use decode::{decode, get, histogram, max_into};
pub(crate) use edit::{set, Cursor, Set};
pub(crate) use index::{set_indexed, Index};
pub(crate) use validate::{validate, Valid};

/// Largest run a ZERO opcode holds.
const ZERO_MAX_LEN: usize = 64;

/// Largest value a VAL opcode holds.
pub(crate) const VAL_MAX_VALUE: u8 = 32;

/// Largest run a VAL opcode holds.
const VAL_MAX_LEN: usize = 4;

#[inline(always)]
fn is_zero(b: u8) -> bool {
    b & 0xc0 == 0
}

#[inline(always)]
fn is_xzero(b: u8) -> bool {
    b & 0xc0 == 0x40
}

#[inline(always)]
fn is_val(b: u8) -> bool {
    b & 0x80 != 0
}

#[inline(always)]
fn val_value(b: u8) -> u8 {
    ((b >> 2) & 31) + 1
}

#[inline(always)]
fn val_len(b: u8) -> usize {
    usize::from(b & 3) + 1
}

#[inline(always)]
fn val(value: u8, len: usize) -> u8 {
    debug_assert!((1..=32).contains(&value) && (1..=4).contains(&len));
    0x80 | ((value - 1) << 2) | (len - 1) as u8
}

/// Span (registers covered) and byte length of the opcode at `p`. A
/// truncated XZERO reads its missing byte as 0, as C reads the terminator;
/// validated strings never end in one (it is completed on input).
#[inline(always)]
fn op_at(bytes: &[u8], p: usize) -> (usize, usize) {
    let b = bytes[p];
    if is_val(b) {
        (val_len(b), 1)
    } else if is_zero(b) {
        (usize::from(b & 63) + 1, 1)
    } else {
        let lo = bytes.get(p + 1).copied().unwrap_or(0);
        ((usize::from(b & 63) << 8 | usize::from(lo)) + 1, 2)
    }
}
