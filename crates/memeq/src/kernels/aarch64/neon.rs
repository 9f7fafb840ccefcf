//! NEON kernels (aarch64's baseline): 16-byte compares, four per loop branch
//! (64 bytes) folded with `orr` of the XORs and reduced with one pairwise
//! `umaxp` to a 64-bit scalar test.
//!
//! The first differing byte of a 16-byte block: `cmeq`, then `shrn #4` packs
//! the 16 byte-lanes into 64 bits (4 bits per byte), whose trailing zeros / 4
//! give the index (no `pmovmskb` on NEON).
//!
//! Below 16 bytes the portable word kernels run.

use crate::kernels::scalar;
use core::arch::aarch64::{
    uint8x16_t, vceqq_u8, veorq_u8, vget_lane_u64, vgetq_lane_u64, vld1q_u8, vorrq_u8, vpmaxq_u8,
    vreinterpret_u64_u8, vreinterpretq_u16_u8, vreinterpretq_u64_u8, vshrn_n_u16,
};

/// The XOR of the 16 bytes at `a + i` and `b + i`.
///
/// # Safety
/// `i..i + 16` must be readable at `a` and at `b`.
#[inline(always)]
unsafe fn xor16(a: *const u8, b: *const u8, i: usize) -> uint8x16_t {
    // SAFETY: the caller guarantees both ranges are readable; NEON is
    // baseline on aarch64; `vld1q_u8` has no alignment requirement.
    unsafe { veorq_u8(vld1q_u8(a.add(i)), vld1q_u8(b.add(i))) }
}

/// Whether any byte of `v` is non-zero.
#[inline(always)]
fn any(v: uint8x16_t) -> bool {
    // SAFETY: NEON is baseline on aarch64. Pairwise max folds 16 lanes into
    // the low 8, read as one u64.
    unsafe { vgetq_lane_u64::<0>(vreinterpretq_u64_u8(vpmaxq_u8(v, v))) != 0 }
}

/// Four bits per byte of `a + i` vs `b + i`: nibble `j` is 0xf where byte `j`
/// is equal.
///
/// # Safety
/// `i..i + 16` must be readable at `a` and at `b`.
#[inline(always)]
unsafe fn eq_nibbles(a: *const u8, b: *const u8, i: usize) -> u64 {
    // SAFETY: the caller guarantees both ranges are readable; NEON baseline.
    unsafe {
        let eq = vceqq_u8(vld1q_u8(a.add(i)), vld1q_u8(b.add(i)));
        vget_lane_u64::<0>(vreinterpret_u64_u8(vshrn_n_u16::<4>(vreinterpretq_u16_u8(
            eq,
        ))))
    }
}

/// Whether the four blocks at `o` differ anywhere.
///
/// # Safety
/// Each `o_k..o_k + 16` must be readable at `a` and at `b`.
#[inline(always)]
unsafe fn differ4(a: *const u8, b: *const u8, o: [usize; 4]) -> bool {
    // SAFETY: the caller gives each block readable at both pointers;
    // NEON is baseline on aarch64.
    unsafe {
        any(vorrq_u8(
            vorrq_u8(xor16(a, b, o[0]), xor16(a, b, o[1])),
            vorrq_u8(xor16(a, b, o[2]), xor16(a, b, o[3])),
        ))
    }
}

/// Equality of two slices of any lengths.
pub(crate) fn eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    if n < 16 {
        // SAFETY: both slices hold n < 16 bytes.
        return unsafe { scalar::eq_below16(pa, pb, n) };
    }
    let mut i = 0;
    while i + 64 < n {
        // SAFETY: i + 64 < n.
        if unsafe { differ4(pa, pb, [i, i + 16, i + 32, i + 48]) } {
            return false;
        }
        i += 64;
    }
    let at = |k: usize| (i + 16 * k).min(n - 16);
    // SAFETY: n >= 16, so every clamped block lies in 0..n.
    !unsafe { differ4(pa, pb, [at(0), at(1), at(2), at(3)]) }
}

/// The index of the first differing byte, or the shorter length.
pub(crate) fn mismatch(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    if n < 16 {
        return scalar::mismatch(a, b);
    }
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    // The first block (in start order) with a difference holds the first one.
    let first = |o: [usize; 4]| -> Option<usize> {
        for at in o {
            // SAFETY: callers pass blocks inside 0..n.
            let ne = !unsafe { eq_nibbles(pa, pb, at) };
            if ne != 0 {
                return Some(at + (ne.trailing_zeros() / 4) as usize);
            }
        }
        None
    };
    let mut i = 0;
    while i + 64 < n {
        let o = [i, i + 16, i + 32, i + 48];
        // SAFETY: i + 64 < n.
        if unsafe { differ4(pa, pb, o) } {
            return first(o).unwrap_or(n);
        }
        i += 64;
    }
    let at = |k: usize| (i + 16 * k).min(n - 16);
    first([at(0), at(1), at(2), at(3)]).unwrap_or(n)
}
