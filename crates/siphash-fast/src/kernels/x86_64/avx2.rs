//! AVX2 batch kernel: four inputs hashed side by side, one per 64-bit lane,
//! three 4-lane groups in lockstep (12 inputs in flight).
//!
//! AVX2 has no 64-bit rotate, so the SipRound rotations are built from what
//! is cheapest for each count: 16 is one `vpshufb`, 32 one `vpshufd`, and 13,
//! 17, 21 are `vpsllq` + `vpsrlq` + `vpor`. A round is then 20 instructions
//! for 4 lanes against 14 scalar instructions for one, and the kernel runs
//! at about 4 vector instructions per cycle on Zen 5: it is bound by
//! instruction count, which is why the speed-up over scalar stays near 2.5x.
//!
//! Three groups in lockstep measured fastest (four no longer fit the 16
//! `ymm` registers with their temporaries); two more inputs hashed in
//! scalar registers alongside measured slower.
//!
//! Inputs that all have the same length take the path of
//! `avx512::uniform`: no blends, 16-byte loads transposed into lane words,
//! a constant final word when the length is a multiple of 8.
//!
//! Lanes of different lengths: every lane absorbs `len / 8 + 1` words (its
//! data blocks, then its final word). All lanes run together up to the
//! shortest count; beyond it each step blends the new state only into the
//! lanes that still have words (`vpcmpgtq` + `vpblendvb`). Leftover inputs
//! (fewer than 4) go through the scalar one-shot.

use core::arch::x86_64::*;

use super::same_len;
use crate::kernels::scalar::{self, final_word, keys, Loader, Native, State};
use crate::kernels::{lane_word, Fns};
use simd_core::Features;

/// AVX2 is all this kernel needs.
pub(crate) fn supported(f: &Features) -> bool {
    f.avx2
}

/// One-shots are scalar; batches use AVX2.
pub(crate) const FNS: Fns = Fns {
    batch12: batch::<1, 2>,
    batch13: batch::<1, 3>,
    batch24: batch::<2, 4>,
    ..scalar::FNS
};

const LANES: usize = 4;

#[derive(Clone, Copy)]
struct V {
    v0: __m256i,
    v1: __m256i,
    v2: __m256i,
    v3: __m256i,
}

#[target_feature(enable = "avx2")]
#[inline]
fn rotl13(x: __m256i) -> __m256i {
    _mm256_or_si256(_mm256_slli_epi64::<13>(x), _mm256_srli_epi64::<51>(x))
}

#[target_feature(enable = "avx2")]
#[inline]
fn rotl17(x: __m256i) -> __m256i {
    _mm256_or_si256(_mm256_slli_epi64::<17>(x), _mm256_srli_epi64::<47>(x))
}

#[target_feature(enable = "avx2")]
#[inline]
fn rotl21(x: __m256i) -> __m256i {
    _mm256_or_si256(_mm256_slli_epi64::<21>(x), _mm256_srli_epi64::<43>(x))
}

/// Rotating a little-endian u64 left by 16 moves byte `k - 2` to byte `k`:
/// one `vpshufb`.
///
/// Inline assembly because LLVM rewrites `_mm256_shuffle_epi8` with this
/// constant mask into `vpshuflw` + `vpshufhw` (it sees a word shuffle): two
/// shuffle instructions instead of one: one instruction fewer per round,
/// which matters most on cores with a single shuffle port.
#[target_feature(enable = "avx2")]
#[inline]
fn rotl16(x: __m256i) -> __m256i {
    let idx = _mm256_setr_epi8(
        6, 7, 0, 1, 2, 3, 4, 5, 14, 15, 8, 9, 10, 11, 12, 13, //
        6, 7, 0, 1, 2, 3, 4, 5, 14, 15, 8, 9, 10, 11, 12, 13,
    );
    let r: __m256i;
    // SAFETY: `vpshufb ymm` needs AVX2, which this function enables; the
    // instruction reads and writes registers only.
    unsafe {
        core::arch::asm!(
            "vpshufb {r}, {x}, {idx}",
            r = lateout(ymm_reg) r,
            x = in(ymm_reg) x,
            idx = in(ymm_reg) idx,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    r
}

/// Rotating by 32 swaps the two 32-bit halves.
#[target_feature(enable = "avx2")]
#[inline]
fn rotl32(x: __m256i) -> __m256i {
    _mm256_shuffle_epi32::<0b10_11_00_01>(x)
}

#[target_feature(enable = "avx2")]
#[inline]
fn round<const G: usize>(s: &mut [V; G]) {
    // Each step for every group before the next step: the groups are
    // independent chains, and this order hands the core G ready
    // instructions at a time instead of relying on its window to find them.
    for x in s.iter_mut() {
        x.v0 = _mm256_add_epi64(x.v0, x.v1);
        x.v2 = _mm256_add_epi64(x.v2, x.v3);
    }
    for x in s.iter_mut() {
        x.v1 = _mm256_xor_si256(rotl13(x.v1), x.v0);
        x.v3 = _mm256_xor_si256(rotl16(x.v3), x.v2);
        x.v0 = rotl32(x.v0);
    }
    for x in s.iter_mut() {
        x.v2 = _mm256_add_epi64(x.v2, x.v1);
        x.v0 = _mm256_add_epi64(x.v0, x.v3);
    }
    for x in s.iter_mut() {
        x.v1 = _mm256_xor_si256(rotl17(x.v1), x.v2);
        x.v3 = _mm256_xor_si256(rotl21(x.v3), x.v0);
        x.v2 = rotl32(x.v2);
    }
}

/// Absorbs word `m[k]` into group `k`, every group in lockstep.
#[target_feature(enable = "avx2")]
#[inline]
fn compress<const C: usize, const G: usize>(s: &mut [V; G], m: [__m256i; G]) {
    for k in 0..G {
        s[k].v3 = _mm256_xor_si256(s[k].v3, m[k]);
    }
    for _ in 0..C {
        round(s);
    }
    for k in 0..G {
        s[k].v0 = _mm256_xor_si256(s[k].v0, m[k]);
    }
}

/// Finalizes every group and stores its 4 hashes to `out[4k..4k + 4]`.
#[target_feature(enable = "avx2")]
#[inline]
fn finish<const D: usize, const G: usize>(mut s: [V; G], out: &mut [u64]) {
    for x in s.iter_mut() {
        x.v2 = _mm256_xor_si256(x.v2, _mm256_set1_epi64x(0xff));
    }
    for _ in 0..D {
        round(&mut s);
    }
    for (x, o) in s.iter().zip(out.chunks_exact_mut(LANES)) {
        let h = _mm256_xor_si256(_mm256_xor_si256(x.v0, x.v1), _mm256_xor_si256(x.v2, x.v3));
        // SAFETY: `o` is exactly 4 u64 (32 bytes) of writable memory and
        // `vmovdqu` has no alignment requirement.
        unsafe { _mm256_storeu_si256(o.as_mut_ptr().cast::<__m256i>(), h) };
    }
}

/// The initial state in every lane of `G` groups.
#[target_feature(enable = "avx2")]
#[inline]
fn splat<const G: usize>(init: &State) -> [V; G] {
    [V {
        v0: _mm256_set1_epi64x(init.v0 as i64),
        v1: _mm256_set1_epi64x(init.v1 as i64),
        v2: _mm256_set1_epi64x(init.v2 as i64),
        v3: _mm256_set1_epi64x(init.v3 as i64),
    }; G]
}

/// Word `j` of each lane, lane 0 in the low element.
///
/// `inline(always)` (which a `#[target_feature]` function cannot have):
/// LLVM otherwise keeps this out of line and returns the vector through
/// memory, which cost a third of the batch time.
///
/// # Safety
/// The CPU must support AVX2.
#[inline(always)]
unsafe fn words(g: &[&[u8]], nfull: &[usize; LANES], fin: &[u64; LANES], j: usize) -> __m256i {
    // SAFETY: the caller guarantees AVX2.
    unsafe {
        _mm256_set_epi64x(
            lane_word(g[3], nfull[3], fin[3], j) as i64,
            lane_word(g[2], nfull[2], fin[2], j) as i64,
            lane_word(g[1], nfull[1], fin[1], j) as i64,
            lane_word(g[0], nfull[0], fin[0], j) as i64,
        )
    }
}

/// Words `j` and `j + 1` of 4 lanes that all have both as whole blocks: one
/// 16-byte load per lane and a transpose (`vinserti128`,
/// `vpunpcklqdq`/`vpunpckhqdq`) instead of eight scalar loads and inserts.
///
/// `inline(always)`, like `words`: called through a closure or out of line,
/// the pair came back through the stack.
///
/// # Safety
/// The CPU must support AVX2.
#[inline(always)]
unsafe fn pair(g: &[&[u8]], j: usize) -> (__m256i, __m256i) {
    let g: &[&[u8]; LANES] = g.try_into().expect("4 lanes");
    let at = |i: usize| -> __m128i {
        let b: &[u8; 16] = g[i][8 * j..8 * j + 16].try_into().expect("16 bytes");
        // SAFETY: `b` is 16 readable bytes; `movdqu` (SSE2, baseline on
        // x86_64) has no alignment requirement.
        unsafe { _mm_loadu_si128(b.as_ptr().cast::<__m128i>()) }
    };
    // SAFETY: the caller guarantees AVX2.
    unsafe {
        // a = lanes 0 and 2, b = lanes 1 and 3, one lane per 128 bits.
        let a = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(at(0)), at(2));
        let b = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(at(1)), at(3));
        (_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b))
    }
}

/// Word `at..at + 8` of each of 4 inputs, lane `i` from `g[i]`.
///
/// # Safety
/// The CPU must support AVX2.
#[inline(always)]
unsafe fn word_at(g: &[&[u8]], at: usize) -> __m256i {
    let g: &[&[u8]; LANES] = g.try_into().expect("4 lanes");
    let w = |i: usize| -> i64 {
        let b: &[u8; 8] = g[i][at..at + 8].try_into().expect("8 bytes");
        u64::from_le_bytes(*b) as i64
    };
    // SAFETY: the caller guarantees AVX2.
    unsafe { _mm256_set_epi64x(w(3), w(2), w(1), w(0)) }
}

/// Hashes `4 * G` inputs that all have `len` bytes, `G` groups of 4 lanes
/// in lockstep, with nothing to mask (see `avx512::uniform`, the same
/// scheme).
///
/// Plain loops over the groups, no `array::from_fn`/`map` closures: those
/// are generic functions without AVX2 enabled, so LLVM cannot inline the
/// vector closures into them and every word went through memory.
#[target_feature(enable = "avx2")]
#[inline]
fn uniform<const C: usize, const D: usize, const G: usize>(
    init: &State,
    inputs: &[&[u8]],
    len: usize,
    out: &mut [u64],
) {
    let gs: [&[&[u8]]; G] = core::array::from_fn(|k| &inputs[LANES * k..LANES * k + LANES]);
    let mut s = splat::<G>(init);
    let nfull = len / 8;
    let mut w0 = [_mm256_setzero_si256(); G];
    let mut w1 = w0;
    let mut j = 0;
    while j + 1 < nfull {
        for k in 0..G {
            // SAFETY: this function requires AVX2.
            (w0[k], w1[k]) = unsafe { pair(gs[k], j) };
        }
        compress::<C, G>(&mut s, w0);
        compress::<C, G>(&mut s, w1);
        j += 2;
    }
    if j < nfull {
        for k in 0..G {
            // SAFETY: this function requires AVX2.
            w0[k] = unsafe { word_at(gs[k], 8 * j) };
        }
        compress::<C, G>(&mut s, w0);
    }
    let top = _mm256_set1_epi64x(((len as u64) << 56) as i64);
    let rem = len % 8;
    let mut fin = [top; G];
    if rem != 0 && len >= 8 {
        // The last 8 bytes, shifted right past the bytes of the last block.
        let sh = _mm_cvtsi64_si128((64 - 8 * rem) as i64);
        for k in 0..G {
            // SAFETY: this function requires AVX2.
            let w = unsafe { word_at(gs[k], len - 8) };
            fin[k] = _mm256_or_si256(_mm256_srl_epi64(w, sh), top);
        }
    } else if rem != 0 {
        for k in 0..G {
            let t = |i: usize| Native::small(gs[k][i]) as i64;
            fin[k] = _mm256_or_si256(_mm256_set_epi64x(t(3), t(2), t(1), t(0)), top);
        }
    }
    compress::<C, G>(&mut s, fin);
    finish::<D, G>(s, out);
}

/// Hashes `4 * G` inputs of any lengths as `G` independent 4-lane groups in
/// lockstep, so the core has independent rounds to overlap (one group is a
/// serial chain).
#[target_feature(enable = "avx2")]
#[inline]
fn groups<const C: usize, const D: usize, const G: usize>(
    init: &State,
    inputs: &[&[u8]],
    out: &mut [u64],
) {
    let gs: [&[&[u8]]; G] = core::array::from_fn(|k| &inputs[LANES * k..LANES * k + LANES]);
    let nfull: [[usize; LANES]; G] =
        core::array::from_fn(|k| core::array::from_fn(|i| gs[k][i].len() / 8));
    let fin: [[u64; LANES]; G] =
        core::array::from_fn(|k| core::array::from_fn(|i| final_word::<Native, false>(gs[k][i])));
    let lo = nfull.iter().flatten().copied().min().unwrap_or(0);
    let hi = nfull.iter().flatten().copied().max().unwrap_or(0);
    let mut s = splat::<G>(init);
    // Words 0..=lo: every lane is still absorbing; below lo they are whole
    // blocks in every lane, loaded two at a time.
    let mut w0 = [_mm256_setzero_si256(); G];
    let mut w1 = w0;
    let mut j = 0;
    while j + 1 < lo {
        for k in 0..G {
            // SAFETY: this function requires AVX2.
            (w0[k], w1[k]) = unsafe { pair(gs[k], j) };
        }
        compress::<C, G>(&mut s, w0);
        compress::<C, G>(&mut s, w1);
        j += 2;
    }
    while j <= lo {
        for k in 0..G {
            // SAFETY: this function requires AVX2.
            w0[k] = unsafe { words(gs[k], &nfull[k], &fin[k], j) };
        }
        compress::<C, G>(&mut s, w0);
        j += 1;
    }
    if hi > lo {
        let mut nf = [_mm256_setzero_si256(); G];
        for k in 0..G {
            nf[k] = _mm256_set_epi64x(
                nfull[k][3] as i64,
                nfull[k][2] as i64,
                nfull[k][1] as i64,
                nfull[k][0] as i64,
            );
        }
        for j in lo + 1..=hi {
            // Lane i absorbs word j while j <= nfull[i].
            let jm1 = _mm256_set1_epi64x(j as i64 - 1);
            let mut t = s;
            for k in 0..G {
                // SAFETY: this function requires AVX2.
                w0[k] = unsafe { words(gs[k], &nfull[k], &fin[k], j) };
            }
            compress::<C, G>(&mut t, w0);
            for k in 0..G {
                let active = _mm256_cmpgt_epi64(nf[k], jm1);
                s[k].v0 = _mm256_blendv_epi8(s[k].v0, t[k].v0, active);
                s[k].v1 = _mm256_blendv_epi8(s[k].v1, t[k].v1, active);
                s[k].v2 = _mm256_blendv_epi8(s[k].v2, t[k].v2, active);
                s[k].v3 = _mm256_blendv_epi8(s[k].v3, t[k].v3, active);
            }
        }
    }
    finish::<D, G>(s, out);
}

/// Hashes `4 * G` inputs: the equal-length path when they allow it.
#[target_feature(enable = "avx2")]
#[inline]
fn chunk<const C: usize, const D: usize, const G: usize>(
    init: &State,
    inputs: &[&[u8]],
    out: &mut [u64],
) {
    match same_len(inputs) {
        Some(len) => uniform::<C, D, G>(init, inputs, len, out),
        None => groups::<C, D, G>(init, inputs, out),
    }
}

/// How many 4-lane groups run in lockstep.
const G: usize = 3;

/// SipHash-C-D of each input into `out` (up to the shorter of the two).
#[target_feature(enable = "avx2")]
pub(crate) fn batch<const C: usize, const D: usize>(
    key: &[u8; 16],
    inputs: &[&[u8]],
    out: &mut [u64],
) {
    let n = inputs.len().min(out.len());
    let (k0, k1) = keys(key);
    let init = State::new(k0, k1, false);
    let step = LANES * G;
    let mut done = 0;
    while n - done >= step {
        chunk::<C, D, G>(
            &init,
            &inputs[done..done + step],
            &mut out[done..done + step],
        );
        done += step;
    }
    while n - done >= LANES {
        chunk::<C, D, 1>(
            &init,
            &inputs[done..done + LANES],
            &mut out[done..done + LANES],
        );
        done += LANES;
    }
    scalar::batch::<Native, C, D>(key, &inputs[done..n], &mut out[done..n]);
}
