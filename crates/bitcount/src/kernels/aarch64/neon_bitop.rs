//! aarch64 NEON BITOP: the one-pass fold of `kernels/bitop.rs` over 128-bit
//! vectors (64-byte blocks); `bitop_count` adds the four vectors' CNT byte
//! counts (at most 32 per byte) and widens once per block (UADDLP, UADALP).

use core::arch::aarch64::*;

use crate::kernels::bitop::{self, Lanes, UNROLL};
use crate::op::BitOp;

// SAFETY: every method executes NEON instructions only, which the trait
// requires of its callers; the pointer conditions are those each states.
unsafe impl Lanes for uint8x16_t {
    const BYTES: usize = 16;
    type Acc = uint64x2_t;

    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the caller guarantees 16 readable bytes.
        unsafe { vld1q_u8(p) }
    }
    #[inline(always)]
    unsafe fn load_partial(p: *const u8, n: usize) -> Self {
        let mut b = [0u8; 16];
        // SAFETY: the caller guarantees `n < 16` readable bytes at `p`; the
        // buffer holds 16.
        unsafe {
            core::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), n);
            vld1q_u8(b.as_ptr())
        }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut u8) {
        // SAFETY: the caller guarantees 16 writable bytes.
        unsafe { vst1q_u8(p, self) }
    }
    #[inline(always)]
    unsafe fn store_partial(self, p: *mut u8, n: usize) {
        let mut b = [0u8; 16];
        // SAFETY: the buffer holds 16 bytes; the caller guarantees `n < 16`
        // writable bytes at `p`.
        unsafe {
            vst1q_u8(b.as_mut_ptr(), self);
            core::ptr::copy_nonoverlapping(b.as_ptr(), p, n);
        }
    }
    #[inline(always)]
    unsafe fn keep_first(self, n: usize) -> Self {
        let mut b = [0u8; 16];
        // SAFETY: the buffer holds 16 bytes; `n < 16`.
        unsafe {
            vst1q_u8(b.as_mut_ptr(), self);
            b[n..].fill(0);
            vld1q_u8(b.as_ptr())
        }
    }
    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: NEON, the caller's guarantee.
        unsafe { vdupq_n_u8(0) }
    }
    #[inline(always)]
    unsafe fn and(a: Self, b: Self) -> Self {
        // SAFETY: NEON, the caller's guarantee.
        unsafe { vandq_u8(a, b) }
    }
    #[inline(always)]
    unsafe fn or(a: Self, b: Self) -> Self {
        // SAFETY: NEON, the caller's guarantee.
        unsafe { vorrq_u8(a, b) }
    }
    #[inline(always)]
    unsafe fn xor(a: Self, b: Self) -> Self {
        // SAFETY: NEON, the caller's guarantee.
        unsafe { veorq_u8(a, b) }
    }
    #[inline(always)]
    unsafe fn and_not(a: Self, b: Self) -> Self {
        // SAFETY: NEON, the caller's guarantee (BIC: first & !second).
        unsafe { vbicq_u8(a, b) }
    }
    #[inline(always)]
    unsafe fn not(a: Self) -> Self {
        // SAFETY: NEON, the caller's guarantee.
        unsafe { vmvnq_u8(a) }
    }
    #[inline(always)]
    unsafe fn acc_zero() -> Self::Acc {
        // SAFETY: NEON, the caller's guarantee.
        unsafe { vdupq_n_u64(0) }
    }
    #[inline(always)]
    unsafe fn acc_add(acc: Self::Acc, block: &[Self; UNROLL]) -> Self::Acc {
        // SAFETY: NEON, the caller's guarantee; byte counts <= 8 each, four
        // of them <= 32.
        unsafe {
            let s = vaddq_u8(
                vaddq_u8(vcntq_u8(block[0]), vcntq_u8(block[1])),
                vaddq_u8(vcntq_u8(block[2]), vcntq_u8(block[3])),
            );
            vpadalq_u32(acc, vpaddlq_u16(vpaddlq_u8(s)))
        }
    }
    #[inline(always)]
    unsafe fn acc_add1(acc: Self::Acc, v: Self) -> Self::Acc {
        // SAFETY: NEON, the caller's guarantee.
        unsafe { vpadalq_u32(acc, vpaddlq_u16(vpaddlq_u8(vcntq_u8(v)))) }
    }
    #[inline(always)]
    unsafe fn acc_total(acc: Self::Acc) -> u64 {
        // SAFETY: NEON, the caller's guarantee.
        unsafe { vaddvq_u64(acc) }
    }
}

/// BITOP `op` into `dst` (the contract in `kernels/bitop.rs`).
///
/// # Safety
/// The CPU supports NEON.
#[target_feature(enable = "neon")]
pub(crate) unsafe fn combine(
    op: BitOp,
    dst: &mut [core::mem::MaybeUninit<u8>],
    sources: &[&[u8]],
) -> usize {
    // SAFETY: this function's target feature is the lanes' only condition.
    unsafe { bitop::combine::<uint8x16_t>(op, dst, sources) }
}

/// BITCOUNT of BITOP `op` over `n` bytes.
///
/// # Safety
/// The CPU supports NEON.
#[target_feature(enable = "neon")]
pub(crate) unsafe fn count(op: BitOp, sources: &[&[u8]], n: usize) -> u64 {
    // SAFETY: this function's target feature is the lanes' only condition.
    unsafe { bitop::count::<uint8x16_t>(op, sources, n) }
}
