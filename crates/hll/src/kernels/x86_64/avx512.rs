//! AVX-512 kernels (F + BW + VBMI). Unpack: a 64-byte load (a masked
//! 48-byte one where 64 would pass the end), `vpermb` puts 6 dense bytes in
//! each qword, and one `vpmultishiftqb` pulls the eight 6-bit fields at bit
//! offsets 0, 6, .., 42 into eight bytes: three instructions per 64
//! registers. Pack: `maddubs`/`madd` fold four bytes into 24-bit words;
//! four such steps (192 dense bytes) go out as three full 64-byte stores,
//! each assembled by one two-source `vpermt2b`. Plain unpack (no max) is the
//! same loop without the accumulator load. Histogram: the AVX-512 unpack
//! feeding the AVX2 windowed nibble-counter histogram (faster than an AVX-512 one on
//! Zen 5, measured).
//!
//! Plain loads (masked only on the last step) and the three-store pack
//! measured faster than a masked load on every step and than one `vpermb`
//! plus a masked 48-byte store per step.

use crate::kernels::{assume_init, uninit, Aligned, Uninit};
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
    let d = if p + 64 <= DENSE_BODY {
        // SAFETY: p + 64 <= 12288 (the 16 bytes past the step's 48 are
        // never selected by the permute).
        unsafe { _mm512_loadu_si512(dense.as_ptr().add(p).cast()) }
    } else {
        // SAFETY: the mask limits the load to p..p + 48, in bounds;
        // masked-off bytes are not accessed (no fault).
        unsafe { _mm512_maskz_loadu_epi8(LOW48, dense.as_ptr().add(p).cast()) }
    };
    let q = _mm512_permutexvar_epi8(spread, d);
    _mm512_and_si512(_mm512_multishift_epi64_epi8(ctl, q), _mm512_set1_epi8(0x3f))
}

/// `raw[i] = max(raw[i], dense register i)`.
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn unpack_max(dense: &[u8; DENSE_BODY], raw: &mut [u8; REGISTERS]) {
    // SAFETY: raw is 16384 initialised bytes; same CPU requirement.
    unsafe { unpack_to::<true>(dense, raw.as_mut_ptr()) }
}

/// `raw[i] = dense register i`, every byte of `raw` written.
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn unpack(dense: &[u8; DENSE_BODY], raw: &mut Uninit<REGISTERS>) {
    // SAFETY: raw is 16384 writable bytes, only written; same CPU requirement.
    unsafe { unpack_to::<false>(dense, raw.as_mut_ptr().cast()) }
}

/// The unpack loop: with `MAX`, `out[i] = max(out[i], register i)`, else
/// `out[i] = register i`.
///
/// # Safety
/// AVX-512 F/BW/VBMI; `out` valid for 16384 bytes of writes, and of reads
/// of initialised bytes when `MAX`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn unpack_to<const MAX: bool>(dense: &[u8; DENSE_BODY], out: *mut u8) {
    let (spread, ctl) = (spread_index(), fields());
    for c in 0..REGISTERS / REGS {
        // SAFETY: 48c + 48 <= 12288; same CPU requirement.
        let regs = unsafe { unpack64(dense, c * BYTES, spread, ctl) };
        // SAFETY: 64c + 64 <= 16384: the load and store are in bounds
        // (caller); the load only when the bytes are initialised.
        unsafe {
            let o = out.add(c * REGS).cast::<__m512i>();
            let v = if MAX {
                _mm512_max_epu8(regs, _mm512_loadu_si512(o.cast()))
            } else {
                regs
            };
            _mm512_storeu_si512(o.cast(), v)
        };
    }
}

/// The `vpermt2b` indices of the three 64-byte stores of a pack
/// iteration: output byte j of store t is compacted byte k = 16t + j of
/// the steps t and t + 1 (step k / 48, byte k % 48 of it, which is byte
/// (k % 48) / 3 * 4 + k % 3 of that step's 24-bit words; the second step's
/// words are bytes 64.. of the two-source index).
const STORE_INDEX: [[u8; 64]; 3] = {
    let mut t = [[0u8; 64]; 3];
    let mut s = 0;
    while s < 3 {
        let mut j = 0;
        while j < 64 {
            let k = 16 * s + j;
            let (step, m) = (k / BYTES, k % BYTES);
            t[s][j] = (step * 64 + m / 3 * 4 + m % 3) as u8;
            j += 1;
        }
        s += 1;
    }
    t
};

/// Packs raw registers (low 6 bits of each byte) into the dense body,
/// every byte of it written.
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn pack(raw: &[u8; REGISTERS], dense: &mut Uninit<DENSE_BODY>) {
    let six = _mm512_set1_epi8(0x3f);
    let pair = _mm512_set1_epi16(0x4001);
    let quad = _mm512_set1_epi32(0x1000_0001);
    // Four steps (256 registers, 192 dense bytes) per iteration: their
    // four 48-byte results go out as three full 64-byte stores, each
    // assembled by one two-source byte permute (`vpermt2b`) from the
    // uncompacted words of two neighbouring steps.
    // SAFETY: same size, any bits valid.
    let [i0, i1, i2] = STORE_INDEX.map(|v| unsafe { core::mem::transmute::<[u8; 64], __m512i>(v) });
    let word = |c: usize| {
        // SAFETY: 64c + 64 <= 16384 (c < 256).
        let x = unsafe { _mm512_loadu_si512(raw.as_ptr().add(c * REGS).cast()) };
        _mm512_madd_epi16(_mm512_maddubs_epi16(_mm512_and_si512(x, six), pair), quad)
    };
    let out = dense.as_mut_ptr().cast::<u8>();
    for q in 0..REGISTERS / (4 * REGS) {
        let c = 4 * q;
        let (w0, w1, w2, w3) = (word(c), word(c + 1), word(c + 2), word(c + 3));
        // SAFETY: 192q + 192 <= 12288 (q < 64).
        unsafe {
            let o = out.add(q * 4 * BYTES);
            _mm512_storeu_si512(o.cast(), _mm512_permutex2var_epi8(w0, i0, w1));
            _mm512_storeu_si512(o.add(64).cast(), _mm512_permutex2var_epi8(w1, i1, w2));
            _mm512_storeu_si512(o.add(128).cast(), _mm512_permutex2var_epi8(w2, i2, w3));
        }
    }
}

/// Histogram of the dense registers: the AVX-512 unpack into a scratch
/// array, then the AVX2 windowed nibble-counter histogram (a 16-value
/// AVX-512 version with compares into masks measured slower).
///
/// # Safety
/// The CPU must support AVX-512 F, BW, VBMI and AVX2.
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn histogram_dense(dense: &[u8; DENSE_BODY]) -> [u32; 64] {
    let mut raw = Aligned(uninit());
    // SAFETY: same CPU requirement as ours.
    unsafe { unpack(dense, &mut raw.0) };
    // SAFETY: unpack wrote every byte; AVX2 is part of our requirement.
    unsafe { super::avx2::histogram_raw(assume_init(&mut raw.0)) }
}

/// The union of dense bodies: `out[i]` = the largest register `i` of
/// `inputs` (0 if none), one `unpack` / `unpack_max` pass per input.
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI.
pub(crate) unsafe fn union(inputs: &[&[u8; DENSE_BODY]], out: &mut Uninit<REGISTERS>) {
    // SAFETY: this file's unpack and unpack_max, under our own CPU
    // requirement.
    unsafe { crate::kernels::union_with(inputs, out, unpack, unpack_max) }
}
