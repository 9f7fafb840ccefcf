//! x86_64 SSE2 BITOP lanes (128-bit vectors, part of every x86_64 CPU): the
//! inlined path for small results, where a call into the AVX2 or AVX-512
//! kernel costs more than it saves. The popcount (small results only) is
//! the portable one on the two 64-bit halves.

use core::arch::x86_64::*;

use crate::kernels::bitop::{Lanes, UNROLL};

// SAFETY: SSE2 is part of the x86_64 baseline (statically enabled), so
// every method runs on every x86_64 CPU; the pointer conditions are those
// each method states.
unsafe impl Lanes for __m128i {
    const BYTES: usize = 16;
    type Acc = u64;

    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the caller guarantees 16 readable bytes.
        unsafe { _mm_loadu_si128(p.cast()) }
    }
    #[inline(always)]
    unsafe fn load_partial(p: *const u8, n: usize) -> Self {
        let mut b = [0u8; 16];
        // SAFETY: the caller guarantees `n < 16` readable bytes at `p`.
        unsafe {
            core::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), n);
            _mm_loadu_si128(b.as_ptr().cast())
        }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut u8) {
        // SAFETY: the caller guarantees 16 writable bytes.
        unsafe { _mm_storeu_si128(p.cast(), self) }
    }
    #[inline(always)]
    unsafe fn store_partial(self, p: *mut u8, n: usize) {
        let mut b = [0u8; 16];
        // SAFETY: the buffer holds 16 bytes; the caller guarantees `n < 16`
        // writable bytes at `p`.
        unsafe {
            _mm_storeu_si128(b.as_mut_ptr().cast(), self);
            core::ptr::copy_nonoverlapping(b.as_ptr(), p, n);
        }
    }
    #[inline(always)]
    unsafe fn keep_first(self, n: usize) -> Self {
        let mut b = [0u8; 16];
        // SAFETY: the buffer holds 16 bytes; `n < 16`.
        unsafe {
            _mm_storeu_si128(b.as_mut_ptr().cast(), self);
            b[n..].fill(0);
            _mm_loadu_si128(b.as_ptr().cast())
        }
    }
    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: SSE2 (baseline).
        unsafe { _mm_setzero_si128() }
    }
    #[inline(always)]
    unsafe fn and(a: Self, b: Self) -> Self {
        // SAFETY: SSE2 (baseline).
        unsafe { _mm_and_si128(a, b) }
    }
    #[inline(always)]
    unsafe fn or(a: Self, b: Self) -> Self {
        // SAFETY: SSE2 (baseline).
        unsafe { _mm_or_si128(a, b) }
    }
    #[inline(always)]
    unsafe fn xor(a: Self, b: Self) -> Self {
        // SAFETY: SSE2 (baseline).
        unsafe { _mm_xor_si128(a, b) }
    }
    #[inline(always)]
    unsafe fn and_not(a: Self, b: Self) -> Self {
        // SAFETY: SSE2 (baseline); PANDN computes !first & second.
        unsafe { _mm_andnot_si128(b, a) }
    }
    #[inline(always)]
    unsafe fn not(a: Self) -> Self {
        // SAFETY: SSE2 (baseline).
        unsafe { _mm_xor_si128(a, _mm_set1_epi8(-1)) }
    }
    #[inline(always)]
    unsafe fn acc_zero() -> u64 {
        0
    }
    #[inline(always)]
    unsafe fn acc_add(acc: u64, block: &[Self; UNROLL]) -> u64 {
        // SAFETY: SSE2 (baseline).
        block
            .iter()
            .fold(acc, |a, &v| unsafe { Self::acc_add1(a, v) })
    }
    #[inline(always)]
    unsafe fn acc_add1(acc: u64, v: Self) -> u64 {
        // SAFETY: SSE2 (baseline).
        let (lo, hi) = unsafe {
            (
                _mm_cvtsi128_si64(v),
                _mm_cvtsi128_si64(_mm_unpackhi_epi64(v, v)),
            )
        };
        acc + u64::from(lo.count_ones()) + u64::from(hi.count_ones())
    }
    #[inline(always)]
    unsafe fn acc_total(acc: u64) -> u64 {
        acc
    }
}
