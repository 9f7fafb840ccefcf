//! AVX2 kernels. Unpack: each 128-bit lane gets 12 dense bytes (two 16-byte
//! loads, at `p` and `p + 8`, so the last chunk stays in bounds), an in-lane
//! byte shuffle puts each 3-byte group in a 32-bit word, and shifts/masks
//! spread its four 6-bit fields into four bytes. Pack: `maddubs` and `madd`
//! fold four bytes into a 24-bit word, a shuffle and a cross-lane dword
//! permute compact 32 words' worth into 24 bytes, stored as 16 + 8.
//! Histogram: byte counters per value for a 12-value window picked from the
//! mean register, `cmpeq` + `sub` per value; bytes outside the window
//! (rare: the geometric tail) are counted one by one.

use crate::{DENSE_BODY, REGISTERS};
use core::arch::x86_64::*;

/// Registers per 32-byte vector, dense bytes per vector of registers.
const REGS: usize = 32;
const BYTES: usize = 24;

/// `raw[i] = max(raw[i], dense register i)`.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn unpack_max(dense: &[u8; DENSE_BODY], raw: &mut [u8; REGISTERS]) {
    // Lane 0 reads its groups at 0,3,6,9 of the load at p; lane 1 at
    // 4,7,10,13 of the load at p + 8 (= p + 12, 15, 18, 21).
    let shuf = _mm256_setr_epi8(
        0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1, //
        4, 5, 6, -1, 7, 8, 9, -1, 10, 11, 12, -1, 13, 14, 15, -1,
    );
    let m0 = _mm256_set1_epi32(0x3f);
    let m1 = _mm256_set1_epi32(0x3f00);
    let m2 = _mm256_set1_epi32(0x3f_0000);
    let m3 = _mm256_set1_epi32(0x3f00_0000);
    for c in 0..REGISTERS / REGS {
        let p = c * BYTES;
        // SAFETY: p + 8 + 16 = 24c + 24 <= 12288: both loads are in bounds.
        let lo = unsafe { _mm_loadu_si128(dense.as_ptr().add(p).cast()) };
        // SAFETY: as above.
        let hi = unsafe { _mm_loadu_si128(dense.as_ptr().add(p + 8).cast()) };
        let w = _mm256_shuffle_epi8(
            _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi),
            shuf,
        );
        let regs = _mm256_or_si256(
            _mm256_or_si256(
                _mm256_and_si256(w, m0),
                _mm256_and_si256(_mm256_slli_epi32::<2>(w), m1),
            ),
            _mm256_or_si256(
                _mm256_and_si256(_mm256_slli_epi32::<4>(w), m2),
                _mm256_and_si256(_mm256_slli_epi32::<6>(w), m3),
            ),
        );
        let out = raw.as_mut_ptr().wrapping_add(c * REGS).cast::<__m256i>();
        // SAFETY: 32c + 32 <= 16384: the load and store are in bounds.
        unsafe { _mm256_storeu_si256(out, _mm256_max_epu8(regs, _mm256_loadu_si256(out))) };
    }
}

/// Packs raw registers (low 6 bits of each byte) into the dense body.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn pack(raw: &[u8; REGISTERS], dense: &mut [u8; DENSE_BODY]) {
    let six = _mm256_set1_epi8(0x3f);
    let pair = _mm256_set1_epi16(0x4001); // bytes (1, 64): r0 + 64 r1
    let quad = _mm256_set1_epi32(0x1000_0001); // words (1, 4096)
    let shuf = _mm256_setr_epi8(
        0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1, //
        0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1,
    );
    let compact = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 3, 7);
    for c in 0..REGISTERS / REGS {
        // SAFETY: 32c + 32 <= 16384.
        let x = unsafe { _mm256_loadu_si256(raw.as_ptr().add(c * REGS).cast()) };
        let x = _mm256_and_si256(x, six);
        let w = _mm256_madd_epi16(_mm256_maddubs_epi16(x, pair), quad);
        let b = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(w, shuf), compact);
        let out = dense.as_mut_ptr().wrapping_add(c * BYTES);
        // SAFETY: 24c + 24 <= 12288: 16 bytes at 24c, 8 at 24c + 16.
        unsafe {
            _mm_storeu_si128(out.cast(), _mm256_castsi256_si128(b));
            _mm_storel_epi64(out.add(16).cast(), _mm256_extracti128_si256::<1>(b));
        }
    }
}

/// Histogram of the dense registers: unpack into a scratch array, then
/// count it.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn histogram_dense(dense: &[u8; DENSE_BODY]) -> [u32; 64] {
    let mut raw = [0u8; REGISTERS];
    // SAFETY: same CPU requirement as ours.
    unsafe { unpack_max(dense, &mut raw) };
    // SAFETY: same CPU requirement as ours.
    unsafe { histogram_raw(&raw) }
}

/// Values counted per pass with byte counters (12 accumulators, the data,
/// a compare result and some constants fit the 16 ymm registers).
const WINDOW: u8 = 12;

/// Histogram of raw registers (values `0..=63`).
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn histogram_raw(raw: &[u8; REGISTERS]) -> [u32; 64] {
    let vecs = REGISTERS / REGS;
    let load = |i: usize| {
        // SAFETY: i < 512, so 32i + 32 <= 16384.
        unsafe { _mm256_loadu_si256(raw.as_ptr().add(i * REGS).cast()) }
    };
    // Window start: the mean minus 4 (register values are roughly geometric
    // around log2(n / m), so most fall in [mean - 4, mean + 8)).
    let zero = _mm256_setzero_si256();
    let mut sums = zero;
    for i in 0..vecs {
        sums = _mm256_add_epi64(sums, _mm256_sad_epu8(load(i), zero));
    }
    let mut s = [0u64; 4];
    // SAFETY: `s` is 32 bytes.
    unsafe { _mm256_storeu_si256(s.as_mut_ptr().cast(), sums) };
    let mean = (s.iter().sum::<u64>() / REGISTERS as u64) as u8;
    let base = mean.saturating_sub(4).min(64 - WINDOW);

    let mut h = [0u32; 64];
    let basev = _mm256_set1_epi8(base as i8);
    let top = _mm256_set1_epi8((WINDOW - 1) as i8);
    let mut acc = [zero; WINDOW as usize];
    let mut since_flush = 0;
    for i in 0..vecs {
        let x = load(i);
        // y = x - base; outside the window iff y > WINDOW - 1 (unsigned).
        let y = _mm256_sub_epi8(x, basev);
        let outside = _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_max_epu8(y, top), y))
            & !_mm256_movemask_epi8(_mm256_cmpeq_epi8(y, top));
        if outside != 0 {
            let mut bits = outside as u32;
            while bits != 0 {
                let j = bits.trailing_zeros() as usize;
                h[usize::from(raw[i * REGS + j] & 63)] += 1;
                bits &= bits - 1;
            }
        }
        for (k, a) in acc.iter_mut().enumerate() {
            *a = _mm256_sub_epi8(*a, _mm256_cmpeq_epi8(y, _mm256_set1_epi8(k as i8)));
        }
        since_flush += 1;
        if since_flush == 255 || i == vecs - 1 {
            for (k, a) in acc.iter_mut().enumerate() {
                let t = _mm256_sad_epu8(*a, zero);
                let mut q = [0u64; 4];
                // SAFETY: `q` is 32 bytes.
                unsafe { _mm256_storeu_si256(q.as_mut_ptr().cast(), t) };
                h[usize::from(base) + k] += q.iter().sum::<u64>() as u32;
                *a = zero;
            }
            since_flush = 0;
        }
    }
    h
}
