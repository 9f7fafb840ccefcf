//! AVX-512 kernels (F + BW + VBMI). Unpack: a masked 48-byte load, `vpermb`
//! puts 6 dense bytes in each qword, and one `vpmultishiftqb` pulls the
//! eight 6-bit fields at bit offsets 0, 6, .., 42 into eight bytes: three
//! instructions per 64 registers. Pack: `maddubs`/`madd` fold four bytes
//! into 24-bit words and `vpermb` compacts 64 words' worth into 48 bytes,
//! written with a masked store. Histogram: 16-value window of byte counters
//! (`vpcmpeqb` into a mask, masked `vpsubb`), the dense one fused with the
//! unpack so registers never go through memory.

use crate::{DENSE_BODY, REGISTERS};
use core::arch::x86_64::*;

const REGS: usize = 64;
const BYTES: usize = 48;
/// The 48 low bytes of a vector.
const LOW48: u64 = (1 << 48) - 1;

/// Byte permutation: qword k gets dense bytes 6k..6k+6 (bytes 6, 7 of each
/// qword repeat; the multishift masks them out).
#[inline(always)]
fn spread_index() -> __m512i {
    let mut idx = [0u8; 64];
    let mut k = 0;
    while k < 8 {
        let mut j = 0;
        while j < 8 {
            idx[8 * k + j] = (6 * k + if j < 6 { j } else { 5 }) as u8;
            j += 1;
        }
        k += 1;
    }
    // SAFETY: [u8; 64] and __m512i have the same size; any bits are valid.
    unsafe { core::mem::transmute::<[u8; 64], __m512i>(idx) }
}

/// Multishift control: byte j of each qword takes bits 6j..6j+8.
#[inline(always)]
fn fields() -> __m512i {
    // SAFETY: same size, any bits valid.
    unsafe { core::mem::transmute::<[u64; 8], __m512i>([0x2a24_1e18_120c_0600; 8]) }
}

/// 64 registers from the 48 dense bytes at `p`.
///
/// # Safety
/// AVX-512 F/BW/VBMI; `p + 48 <= dense.len()`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn unpack64(dense: &[u8; DENSE_BODY], p: usize, spread: __m512i, ctl: __m512i) -> __m512i {
    debug_assert!(p + BYTES <= DENSE_BODY);
    // SAFETY: the mask limits the load to p..p + 48, in bounds; masked-off
    // bytes are not accessed (no fault).
    let d = unsafe { _mm512_maskz_loadu_epi8(LOW48, dense.as_ptr().add(p).cast()) };
    let q = _mm512_permutexvar_epi8(spread, d);
    _mm512_and_si512(_mm512_multishift_epi64_epi8(ctl, q), _mm512_set1_epi8(0x3f))
}

/// `raw[i] = max(raw[i], dense register i)`.
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn unpack_max(dense: &[u8; DENSE_BODY], raw: &mut [u8; REGISTERS]) {
    let (spread, ctl) = (spread_index(), fields());
    for c in 0..REGISTERS / REGS {
        // SAFETY: 48c + 48 <= 12288.
        let regs = unsafe { unpack64(dense, c * BYTES, spread, ctl) };
        let out = raw.as_mut_ptr().wrapping_add(c * REGS);
        // SAFETY: 64c + 64 <= 16384: the load and store are in bounds.
        unsafe {
            _mm512_storeu_si512(
                out.cast(),
                _mm512_max_epu8(regs, _mm512_loadu_si512(out.cast())),
            )
        };
    }
}

/// Packs raw registers (low 6 bits of each byte) into the dense body.
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn pack(raw: &[u8; REGISTERS], dense: &mut [u8; DENSE_BODY]) {
    let six = _mm512_set1_epi8(0x3f);
    let pair = _mm512_set1_epi16(0x4001);
    let quad = _mm512_set1_epi32(0x1000_0001);
    let mut idx = [0u8; 64];
    for (i, b) in idx.iter_mut().enumerate().take(BYTES) {
        *b = (i / 3 * 4 + i % 3) as u8;
    }
    // SAFETY: same size, any bits valid.
    let compact = unsafe { core::mem::transmute::<[u8; 64], __m512i>(idx) };
    for c in 0..REGISTERS / REGS {
        // SAFETY: 64c + 64 <= 16384.
        let x = unsafe { _mm512_loadu_si512(raw.as_ptr().add(c * REGS).cast()) };
        let w = _mm512_madd_epi16(_mm512_maddubs_epi16(_mm512_and_si512(x, six), pair), quad);
        let b = _mm512_permutexvar_epi8(compact, w);
        // SAFETY: the mask limits the store to 48c..48c + 48 <= 12288.
        unsafe { _mm512_mask_storeu_epi8(dense.as_mut_ptr().add(c * BYTES).cast(), LOW48, b) };
    }
}

const WINDOW: usize = 16;

/// Byte-counter histogram over 256 vectors of 64 registers produced by
/// `next(i)`; values outside `[base, base + 16)` are counted one by one.
#[inline(always)]
fn histogram(base: u8, mut next: impl FnMut(usize) -> __m512i) -> [u32; 64] {
    let mut h = [0u32; 64];
    // SAFETY (all intrinsics below): the callers are AVX-512 F/BW functions
    // this is inlined into.
    unsafe {
        let zero = _mm512_setzero_si512();
        let ones = _mm512_set1_epi8(-1);
        let basev = _mm512_set1_epi8(base as i8);
        let top = _mm512_set1_epi8((WINDOW - 1) as i8);
        let mut acc = [zero; WINDOW];
        let vecs = REGISTERS / REGS;
        for i in 0..vecs {
            let x = next(i);
            let y = _mm512_sub_epi8(x, basev);
            let outside = _mm512_cmpgt_epu8_mask(y, top);
            if outside != 0 {
                let mut bytes = [0u8; 64];
                _mm512_storeu_si512(bytes.as_mut_ptr().cast(), x);
                let mut bits = outside;
                while bits != 0 {
                    h[usize::from(bytes[bits.trailing_zeros() as usize] & 63)] += 1;
                    bits &= bits - 1;
                }
            }
            for (k, a) in acc.iter_mut().enumerate() {
                let m = _mm512_cmpeq_epi8_mask(y, _mm512_set1_epi8(k as i8));
                *a = _mm512_mask_sub_epi8(*a, m, *a, ones);
            }
            if i % 255 == 254 || i == vecs - 1 {
                for (k, a) in acc.iter_mut().enumerate() {
                    h[usize::from(base) + k] +=
                        _mm512_reduce_add_epi64(_mm512_sad_epu8(*a, zero)) as u32;
                    *a = zero;
                }
            }
        }
    }
    h
}

/// The window start from the sum of all registers (see avx2.rs).
#[inline(always)]
fn window_base(sum: u64) -> u8 {
    ((sum / REGISTERS as u64) as u8)
        .saturating_sub(4)
        .min((64 - WINDOW) as u8)
}

/// Histogram of the dense registers, unpacked in registers.
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn histogram_dense(dense: &[u8; DENSE_BODY]) -> [u32; 64] {
    let (spread, ctl) = (spread_index(), fields());
    let zero = _mm512_setzero_si512();
    let mut sums = zero;
    for c in 0..REGISTERS / REGS {
        // SAFETY: 48c + 48 <= 12288.
        let x = unsafe { unpack64(dense, c * BYTES, spread, ctl) };
        sums = _mm512_add_epi64(sums, _mm512_sad_epu8(x, zero));
    }
    let base = window_base(_mm512_reduce_add_epi64(sums) as u64);
    // SAFETY: 48i + 48 <= 12288 for i < 256.
    histogram(base, |i| unsafe { unpack64(dense, i * BYTES, spread, ctl) })
}

/// Histogram of raw registers (values `0..=63`; larger bytes count as their
/// low 6 bits, like the scalar kernel).
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn histogram_raw(raw: &[u8; REGISTERS]) -> [u32; 64] {
    let load = |i: usize| {
        // SAFETY: i < 256, so 64i + 64 <= 16384.
        unsafe { _mm512_loadu_si512(raw.as_ptr().add(i * REGS).cast()) }
    };
    let zero = _mm512_setzero_si512();
    let mut sums = zero;
    for i in 0..REGISTERS / REGS {
        sums = _mm512_add_epi64(sums, _mm512_sad_epu8(load(i), zero));
    }
    histogram(window_base(_mm512_reduce_add_epi64(sums) as u64), load)
}
