//! AVX2 unpack with the pair split done by two `vpmullw`: seven vector
//! µops per 32 registers (with the max) where the `avx2` set's
//! [`split_pairs`](super::avx2::split_pairs) takes eight. The loop, the
//! loads, the union of several bodies, the pack and the raw histogram are
//! the `avx2` set's; only the split of one body's step differs.
//!
//! Per 16-bit lane, after the `avx2` shuffle
//! ([`pair_words`](super::avx2::pair_words)) an even lane holds its pair of
//! registers `lo | hi << 6` at bit 0 and an odd lane at bit 4, with four
//! junk bits on the other side. One `vpmullw` by 16 (even lanes) / 1 (odd
//! lanes) puts every pair at bits 4..16 (the even lanes' junk falls off the
//! top, the odd lanes' stays in bits 0..4), `vpsrlw` by 4 leaves the clean
//! pair `p`, and `p + 3 (p & 0xfc0)` (`vpand`, `vpmullw` by 3, `vpaddw`)
//! is `lo | hi << 8`, the two registers as bytes.
//!
//! Dispatched on Intel only, where the two multiplies, the shift and the
//! max issue on ports 0 and 1 and the shuffle, mask and add on any of
//! three: ~2.3 cycles a step against ~2.7 for the `avx2` form's eight µops.
//! AMD cores keep the `avx2` form, which reaches 20x scalar there.
//!
//! The multipliers pass through [`opaque`]: with them visible, LLVM turns
//! `vpmullw` by 16 / 1 then `vpsrlw` into a shift and two masks and the
//! multiply by 3 into two adds, eight µops again.

use super::avx2::{histogram_dense_with, pair_words, union_with, unpack_to, Split};
use crate::kernels::Uninit;
use crate::{DENSE_BODY, REGISTERS};
use core::arch::x86_64::*;

/// `raw[i] = max(raw[i], dense register i)`.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn unpack_max(dense: &[u8; DENSE_BODY], raw: &mut [u8; REGISTERS]) {
    // SAFETY: raw is 16384 initialised bytes; same CPU requirement.
    unsafe { unpack_to::<true, Mul>(dense, raw.as_mut_ptr()) }
}

/// `raw[i] = dense register i`, every byte of `raw` written.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn unpack(dense: &[u8; DENSE_BODY], raw: &mut Uninit<REGISTERS>) {
    // SAFETY: raw is 16384 writable bytes, only written; same CPU requirement.
    unsafe { unpack_to::<false, Mul>(dense, raw.as_mut_ptr().cast()) }
}

/// The union of dense bodies, as the `avx2` set's.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn union(inputs: &[&[u8; DENSE_BODY]], out: &mut Uninit<REGISTERS>) {
    // SAFETY: same CPU requirement.
    unsafe { union_with::<Mul>(inputs, out) }
}

/// Histogram of the dense registers: unpack into a scratch array, then
/// count it.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn histogram_dense(dense: &[u8; DENSE_BODY]) -> [u32; 64] {
    // SAFETY: same CPU requirement.
    unsafe { histogram_dense_with::<Mul>(dense) }
}

/// This set's split for the `avx2` loop: [`split_pairs`].
pub(super) enum Mul {}

impl Split for Mul {
    #[inline(always)]
    unsafe fn split_pairs(x: __m256i, off0: i8) -> __m256i {
        // SAFETY: the caller guarantees AVX2.
        unsafe { split_pairs(x, off0) }
    }
}

/// The 32 registers of one step as bytes (see the module docs), from the
/// dense bytes loaded in `x` in layout `off0` (see
/// [`pair_words`](super::avx2::pair_words)).
///
/// # Safety
/// The CPU must support AVX2.
#[inline(always)]
unsafe fn split_pairs(x: __m256i, off0: i8) -> __m256i {
    // SAFETY: the callers are AVX2 functions (target features inherited).
    unsafe {
        let t = pair_words(x, off0);
        // Even 16-bit lanes times 16, odd ones times 1.
        let y = _mm256_mullo_epi16(t, opaque(_mm256_set1_epi32(0x0001_0010)));
        let p = _mm256_srli_epi16::<4>(y);
        let hi = _mm256_and_si256(p, _mm256_set1_epi16(0x0fc0));
        _mm256_add_epi16(p, _mm256_mullo_epi16(hi, opaque(_mm256_set1_epi16(3))))
    }
}

/// `m`, unchanged, through an empty `asm!` that LLVM cannot see into (so
/// it cannot rewrite the multiplies by `m`; the block is pure, so it is
/// hoisted out of the loops with the constant).
///
/// # Safety
/// The CPU must support AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn opaque(mut m: __m256i) -> __m256i {
    // SAFETY: the template is empty (a comment naming the register): no
    // instruction runs, no memory or flag is touched, `m` keeps its value.
    unsafe {
        core::arch::asm!(
            "/* {0} */",
            inout(ymm_reg) m,
            options(pure, nomem, nostack, preserves_flags)
        );
    }
    m
}
