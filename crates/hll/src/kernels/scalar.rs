//! Portable kernels and the oracle for every SIMD kernel: dense -> raw
//! unpack (plain, and fused with the register max), raw -> dense pack, and
//! the register histograms. Each 3 dense bytes hold 4 registers as a 24-bit
//! little-endian word `r0 | r1 << 6 | r2 << 12 | r3 << 18`.

use super::Uninit;
use crate::{DENSE_BODY, REGISTERS};

/// 6 dense bytes (8 registers) as one 48-bit word: fewer loads per step.
#[inline(always)]
fn word48(d: &[u8]) -> u64 {
    u64::from(u32::from_le_bytes([d[0], d[1], d[2], d[3]]))
        | u64::from(d[4]) << 32
        | u64::from(d[5]) << 40
}

/// Register `k` (0..8) of a 48-bit word.
#[inline(always)]
fn field(w: u64, k: usize) -> u8 {
    ((w >> (6 * k)) & 63) as u8
}

/// `raw[i] = max(raw[i], dense register i)`.
///
/// # Safety
/// None (safe on every CPU); `unsafe` only to share the kernel signature.
pub(crate) unsafe fn unpack_max(dense: &[u8; DENSE_BODY], raw: &mut [u8; REGISTERS]) {
    for (d, r) in dense.chunks_exact(6).zip(raw.chunks_exact_mut(8)) {
        let w = word48(d);
        for (k, reg) in r.iter_mut().enumerate() {
            *reg = (*reg).max(field(w, k));
        }
    }
}

/// `raw[i] = dense register i`, every byte of `raw` written.
///
/// # Safety
/// None (safe on every CPU); `unsafe` only to share the kernel signature.
pub(crate) unsafe fn unpack(dense: &[u8; DENSE_BODY], raw: &mut Uninit<REGISTERS>) {
    for (d, r) in dense.chunks_exact(6).zip(raw.chunks_exact_mut(8)) {
        let w = word48(d);
        for (k, reg) in r.iter_mut().enumerate() {
            reg.write(field(w, k));
        }
    }
}

/// Packs raw registers (values `0..=63`; higher bits are dropped) into the
/// dense body, every byte of it written.
///
/// # Safety
/// None (safe on every CPU); `unsafe` only to share the kernel signature.
pub(crate) unsafe fn pack(raw: &[u8; REGISTERS], dense: &mut Uninit<DENSE_BODY>) {
    for (d, r) in dense.chunks_exact_mut(6).zip(raw.chunks_exact(8)) {
        let mut w = 0u64;
        for (k, &reg) in r.iter().enumerate() {
            w |= u64::from(reg & 63) << (6 * k);
        }
        for (out, b) in d.iter_mut().zip(w.to_le_bytes()) {
            out.write(b);
        }
    }
}

/// Histogram of the dense registers.
///
/// # Safety
/// None (safe on every CPU); `unsafe` only to share the kernel signature.
pub(crate) unsafe fn histogram_dense(dense: &[u8; DENSE_BODY]) -> [u32; 64] {
    // Four tables so consecutive increments of one value do not wait on
    // each other's store-to-load forwarding.
    let mut t = [[0u32; 64]; 4];
    for d in dense.chunks_exact(3) {
        let w = u32::from(d[0]) | u32::from(d[1]) << 8 | u32::from(d[2]) << 16;
        t[0][(w & 63) as usize] += 1;
        t[1][((w >> 6) & 63) as usize] += 1;
        t[2][((w >> 12) & 63) as usize] += 1;
        t[3][(w >> 18) as usize & 63] += 1;
    }
    fold(&t)
}

/// Histogram of raw registers (values `0..=63`; a larger byte counts as its
/// low 6 bits, which callers never produce).
///
/// # Safety
/// None (safe on every CPU); `unsafe` only to share the kernel signature.
pub(crate) unsafe fn histogram_raw(raw: &[u8; REGISTERS]) -> [u32; 64] {
    let mut t = [[0u32; 64]; 4];
    for r in raw.chunks_exact(4) {
        t[0][usize::from(r[0] & 63)] += 1;
        t[1][usize::from(r[1] & 63)] += 1;
        t[2][usize::from(r[2] & 63)] += 1;
        t[3][usize::from(r[3] & 63)] += 1;
    }
    fold(&t)
}

fn fold(t: &[[u32; 64]; 4]) -> [u32; 64] {
    let mut h = [0u32; 64];
    for (v, out) in h.iter_mut().enumerate() {
        *out = t[0][v] + t[1][v] + t[2][v] + t[3][v];
    }
    h
}

/// The union of dense bodies: `out[i]` = the largest register `i` of
/// `inputs` (0 if none), one `unpack` / `unpack_max` pass per input.
///
/// # Safety
/// None (safe on every CPU); `unsafe` only to share the kernel signature.
pub(crate) unsafe fn union(inputs: &[&[u8; DENSE_BODY]], out: &mut Uninit<REGISTERS>) {
    // SAFETY: this file's unpack and unpack_max, under our own CPU
    // requirement.
    unsafe { crate::kernels::union_with(inputs, out, unpack, unpack_max) }
}

/// `out[i] = hash(elements[i])`, one element after another (the oracle of
/// the multi-lane hash kernels).
///
/// # Safety
/// None (safe on every CPU); `unsafe` only to share the kernel signature.
pub(crate) unsafe fn hash_batch(elements: &[&[u8]], out: &mut [u64]) {
    for (h, e) in out.iter_mut().zip(elements) {
        *h = crate::kernels::murmur::hash(e);
    }
}
