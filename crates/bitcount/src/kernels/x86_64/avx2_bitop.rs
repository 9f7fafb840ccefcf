//! x86_64 AVX2 BITOP: the one-pass fold of `kernels/bitop.rs` over 256-bit
//! vectors (128-byte blocks), with the nibble-table popcount (VPSHUFB) for
//! `bitop_count`: the four vectors' byte counts are added (at most 32 per
//! byte) before one VPSADBW per block.

use core::arch::x86_64::*;

use crate::kernels::bitop::{self, Lanes, UNROLL};
use crate::op::BitOp;

/// Popcount of each byte of `v`.
///
/// # Safety
/// The CPU supports AVX2.
#[inline(always)]
unsafe fn byte_counts(v: __m256i) -> __m256i {
    // SAFETY: register-only AVX2 operations; the caller guarantees AVX2.
    unsafe {
        let lut = _mm256_setr_epi8(
            0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2,
            3, 3, 4,
        );
        let low = _mm256_set1_epi8(0x0f);
        let lo = _mm256_shuffle_epi8(lut, _mm256_and_si256(v, low));
        let hi = _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16::<4>(v), low));
        _mm256_add_epi8(lo, hi)
    }
}

// SAFETY: every method executes AVX2 instructions only, which the trait
// requires of its callers; the pointer conditions are those each states.
unsafe impl Lanes for __m256i {
    const BYTES: usize = 32;
    type Acc = __m256i;

    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the caller guarantees 32 readable bytes; VMOVDQU has no
        // alignment requirement.
        unsafe { _mm256_loadu_si256(p.cast()) }
    }
    #[inline(always)]
    unsafe fn load_partial(p: *const u8, n: usize) -> Self {
        let mut b = [0u8; 32];
        // SAFETY: the caller guarantees `n < 32` readable bytes at `p`; the
        // buffer holds 32.
        unsafe {
            core::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), n);
            _mm256_loadu_si256(b.as_ptr().cast())
        }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut u8) {
        // SAFETY: the caller guarantees 32 writable bytes.
        unsafe { _mm256_storeu_si256(p.cast(), self) }
    }
    #[inline(always)]
    unsafe fn store_partial(self, p: *mut u8, n: usize) {
        let mut b = [0u8; 32];
        // SAFETY: the buffer holds 32 bytes; the caller guarantees `n < 32`
        // writable bytes at `p`.
        unsafe {
            _mm256_storeu_si256(b.as_mut_ptr().cast(), self);
            core::ptr::copy_nonoverlapping(b.as_ptr(), p, n);
        }
    }
    #[inline(always)]
    unsafe fn keep_first(self, n: usize) -> Self {
        // SAFETY: register-only AVX2 operations (`n < 32` fits an i8).
        unsafe {
            let iota = _mm256_setr_epi8(
                0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
                23, 24, 25, 26, 27, 28, 29, 30, 31,
            );
            let keep = _mm256_cmpgt_epi8(_mm256_set1_epi8(n as i8), iota);
            _mm256_and_si256(self, keep)
        }
    }
    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: AVX, implied by the caller's AVX2.
        unsafe { _mm256_setzero_si256() }
    }
    #[inline(always)]
    unsafe fn and(a: Self, b: Self) -> Self {
        // SAFETY: AVX2, the caller's guarantee.
        unsafe { _mm256_and_si256(a, b) }
    }
    #[inline(always)]
    unsafe fn or(a: Self, b: Self) -> Self {
        // SAFETY: AVX2, the caller's guarantee.
        unsafe { _mm256_or_si256(a, b) }
    }
    #[inline(always)]
    unsafe fn xor(a: Self, b: Self) -> Self {
        // SAFETY: AVX2, the caller's guarantee.
        unsafe { _mm256_xor_si256(a, b) }
    }
    #[inline(always)]
    unsafe fn and_not(a: Self, b: Self) -> Self {
        // SAFETY: AVX2, the caller's guarantee (VPANDN computes !first & second).
        unsafe { _mm256_andnot_si256(b, a) }
    }
    #[inline(always)]
    unsafe fn not(a: Self) -> Self {
        // SAFETY: AVX2, the caller's guarantee.
        unsafe { _mm256_xor_si256(a, _mm256_set1_epi8(-1)) }
    }
    #[inline(always)]
    unsafe fn acc_zero() -> Self::Acc {
        // SAFETY: AVX, implied by the caller's AVX2.
        unsafe { _mm256_setzero_si256() }
    }
    #[inline(always)]
    unsafe fn acc_add(acc: Self::Acc, block: &[Self; UNROLL]) -> Self::Acc {
        // SAFETY: register-only AVX2 operations. Each byte count is <= 8, so
        // the sum of four is <= 32 and cannot wrap.
        unsafe {
            let s = _mm256_add_epi8(
                _mm256_add_epi8(byte_counts(block[0]), byte_counts(block[1])),
                _mm256_add_epi8(byte_counts(block[2]), byte_counts(block[3])),
            );
            _mm256_add_epi64(acc, _mm256_sad_epu8(s, _mm256_setzero_si256()))
        }
    }
    #[inline(always)]
    unsafe fn acc_add1(acc: Self::Acc, v: Self) -> Self::Acc {
        // SAFETY: register-only AVX2 operations.
        unsafe { _mm256_add_epi64(acc, _mm256_sad_epu8(byte_counts(v), _mm256_setzero_si256())) }
    }
    #[inline(always)]
    unsafe fn acc_total(acc: Self::Acc) -> u64 {
        // SAFETY: register-only AVX2 operations.
        unsafe {
            let s = _mm_add_epi64(
                _mm256_castsi256_si128(acc),
                _mm256_extracti128_si256::<1>(acc),
            );
            (_mm_cvtsi128_si64(s) as u64).wrapping_add(_mm_extract_epi64::<1>(s) as u64)
        }
    }
}

/// BITOP `op` into `dst` (the contract in `kernels/bitop.rs`).
///
/// # Safety
/// The CPU supports AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn combine(
    op: BitOp,
    dst: &mut [core::mem::MaybeUninit<u8>],
    sources: &[&[u8]],
) -> usize {
    // SAFETY: this function's target feature is the lanes' only condition.
    unsafe { bitop::combine::<__m256i>(op, dst, sources) }
}

/// BITCOUNT of BITOP `op` over `n` bytes.
///
/// # Safety
/// The CPU supports AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn count(op: BitOp, sources: &[&[u8]], n: usize) -> u64 {
    // SAFETY: this function's target feature is the lanes' only condition.
    unsafe { bitop::count::<__m256i>(op, sources, n) }
}
