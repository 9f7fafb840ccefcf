//! AVX2 batch kernel: four inputs hashed side by side, one per 64-bit lane.
//!
//! AVX2 has no 64-bit rotate, so the SipRound rotations are built from what
//! is cheapest for each count: 16 is one `vpshufb`, 32 one `vpshufd`, and 13,
//! 17, 21 are `vpsllq` + `vpsrlq` + `vpor`. A round is then 20 instructions
//! for 4 lanes against 14 scalar instructions for one.
//!
//! Lanes of different lengths: every lane absorbs `len / 8 + 1` words (its
//! data blocks, then its final word). All lanes run together up to the
//! shortest count; beyond it each step blends the new state only into the
//! lanes that still have words (`vpcmpgtq` + `vpblendvb`), so a group of
//! equal lengths (the common case: keys of one size) never blends. Leftover
//! inputs (fewer than 4) go through the scalar one-shot.

use core::arch::x86_64::*;

use crate::kernels::scalar::{self, final_word, keys, Native, State};
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

/// Rotating a little-endian u64 left by 16 moves byte `k - 2` to byte `k`.
#[target_feature(enable = "avx2")]
#[inline]
fn rotl16(x: __m256i) -> __m256i {
    let idx = _mm256_setr_epi8(
        6, 7, 0, 1, 2, 3, 4, 5, 14, 15, 8, 9, 10, 11, 12, 13, //
        6, 7, 0, 1, 2, 3, 4, 5, 14, 15, 8, 9, 10, 11, 12, 13,
    );
    _mm256_shuffle_epi8(x, idx)
}

/// Rotating by 32 swaps the two 32-bit halves.
#[target_feature(enable = "avx2")]
#[inline]
fn rotl32(x: __m256i) -> __m256i {
    _mm256_shuffle_epi32::<0b10_11_00_01>(x)
}

#[target_feature(enable = "avx2")]
#[inline]
fn round(s: &mut V) {
    s.v0 = _mm256_add_epi64(s.v0, s.v1);
    s.v2 = _mm256_add_epi64(s.v2, s.v3);
    s.v1 = _mm256_xor_si256(rotl13(s.v1), s.v0);
    s.v3 = _mm256_xor_si256(rotl16(s.v3), s.v2);
    s.v0 = rotl32(s.v0);
    s.v2 = _mm256_add_epi64(s.v2, s.v1);
    s.v0 = _mm256_add_epi64(s.v0, s.v3);
    s.v1 = _mm256_xor_si256(rotl17(s.v1), s.v2);
    s.v3 = _mm256_xor_si256(rotl21(s.v3), s.v0);
    s.v2 = rotl32(s.v2);
}

#[target_feature(enable = "avx2")]
#[inline]
fn compress<const C: usize>(s: &mut V, m: __m256i) {
    s.v3 = _mm256_xor_si256(s.v3, m);
    for _ in 0..C {
        round(s);
    }
    s.v0 = _mm256_xor_si256(s.v0, m);
}

#[target_feature(enable = "avx2")]
#[inline]
fn finish<const D: usize>(mut s: V) -> __m256i {
    s.v2 = _mm256_xor_si256(s.v2, _mm256_set1_epi64x(0xff));
    for _ in 0..D {
        round(&mut s);
    }
    _mm256_xor_si256(_mm256_xor_si256(s.v0, s.v1), _mm256_xor_si256(s.v2, s.v3))
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
#[target_feature(enable = "avx2")]
#[inline]
fn pair(g: &[&[u8]], j: usize) -> (__m256i, __m256i) {
    let g: &[&[u8]; LANES] = g.try_into().expect("4 lanes");
    let at = |i: usize| -> __m128i {
        let b: &[u8; 16] = g[i][8 * j..8 * j + 16].try_into().expect("16 bytes");
        // SAFETY: `b` is 16 readable bytes; `movdqu` (SSE2, baseline on
        // x86_64) has no alignment requirement.
        unsafe { _mm_loadu_si128(b.as_ptr().cast::<__m128i>()) }
    };
    // a = lanes 0 and 2, b = lanes 1 and 3, one lane per 128 bits.
    let a = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(at(0)), at(2));
    let b = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(at(1)), at(3));
    (_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b))
}

/// Hashes `4 * G` inputs as `G` independent 4-lane groups in lockstep, so
/// the core has independent rounds to overlap (one group is a serial chain).
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
    let mut s = [V {
        v0: _mm256_set1_epi64x(init.v0 as i64),
        v1: _mm256_set1_epi64x(init.v1 as i64),
        v2: _mm256_set1_epi64x(init.v2 as i64),
        v3: _mm256_set1_epi64x(init.v3 as i64),
    }; G];
    // Words 0..=lo: every lane is still absorbing; below lo they are whole
    // blocks in every lane, loaded two at a time.
    let mut j = 0;
    while j + 1 < lo {
        for k in 0..G {
            let (w0, w1) = pair(gs[k], j);
            compress::<C>(&mut s[k], w0);
            compress::<C>(&mut s[k], w1);
        }
        j += 2;
    }
    while j <= lo {
        for k in 0..G {
            // SAFETY: this function requires AVX2.
            compress::<C>(&mut s[k], unsafe { words(gs[k], &nfull[k], &fin[k], j) });
        }
        j += 1;
    }
    for j in lo + 1..=hi {
        for k in 0..G {
            let nf = _mm256_set_epi64x(
                nfull[k][3] as i64,
                nfull[k][2] as i64,
                nfull[k][1] as i64,
                nfull[k][0] as i64,
            );
            // Lane i absorbs word j while j <= nfull[i].
            let active = _mm256_cmpgt_epi64(nf, _mm256_set1_epi64x(j as i64 - 1));
            let mut t = s[k];
            // SAFETY: this function requires AVX2.
            compress::<C>(&mut t, unsafe { words(gs[k], &nfull[k], &fin[k], j) });
            s[k].v0 = _mm256_blendv_epi8(s[k].v0, t.v0, active);
            s[k].v1 = _mm256_blendv_epi8(s[k].v1, t.v1, active);
            s[k].v2 = _mm256_blendv_epi8(s[k].v2, t.v2, active);
            s[k].v3 = _mm256_blendv_epi8(s[k].v3, t.v3, active);
        }
    }
    for k in 0..G {
        let h = finish::<D>(s[k]);
        let o = &mut out[LANES * k..LANES * k + LANES];
        // SAFETY: `o` is exactly 4 u64 (32 bytes) of writable memory and
        // `vmovdqu` has no alignment requirement.
        unsafe { _mm256_storeu_si256(o.as_mut_ptr().cast::<__m256i>(), h) };
    }
}

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
    let mut done = 0;
    // Two groups in lockstep pay off for 2-4 (10 rounds per 16-byte key, a
    // long serial chain: 5.5 instead of 6.4 ns/key); with one compression
    // round the single-group loop below measured faster (3.2 vs 3.7 ns/key).
    if C >= 2 {
        while n - done >= 2 * LANES {
            let step = done..done + 2 * LANES;
            groups::<C, D, 2>(&init, &inputs[step.clone()], &mut out[step]);
            done += 2 * LANES;
        }
    }
    let whole = n - (n - done) % LANES;
    for (g, o) in inputs[done..whole]
        .chunks_exact(LANES)
        .zip(out[done..whole].chunks_exact_mut(LANES))
    {
        let nfull: [usize; LANES] = core::array::from_fn(|i| g[i].len() / 8);
        let fin: [u64; LANES] = core::array::from_fn(|i| final_word::<Native, false>(g[i]));
        let lo = nfull.iter().copied().min().unwrap_or(0);
        let hi = nfull.iter().copied().max().unwrap_or(0);
        let mut s = V {
            v0: _mm256_set1_epi64x(init.v0 as i64),
            v1: _mm256_set1_epi64x(init.v1 as i64),
            v2: _mm256_set1_epi64x(init.v2 as i64),
            v3: _mm256_set1_epi64x(init.v3 as i64),
        };
        // Words 0..=lo: every lane is still absorbing; below lo they are
        // whole blocks in every lane, loaded two at a time.
        let mut j = 0;
        while j + 1 < lo {
            let (w0, w1) = pair(g, j);
            compress::<C>(&mut s, w0);
            compress::<C>(&mut s, w1);
            j += 2;
        }
        while j <= lo {
            // SAFETY: this function requires AVX2.
            compress::<C>(&mut s, unsafe { words(g, &nfull, &fin, j) });
            j += 1;
        }
        if hi > lo {
            let nf = _mm256_set_epi64x(
                nfull[3] as i64,
                nfull[2] as i64,
                nfull[1] as i64,
                nfull[0] as i64,
            );
            for j in lo + 1..=hi {
                // Lane i absorbs word j while j <= nfull[i].
                let active = _mm256_cmpgt_epi64(nf, _mm256_set1_epi64x(j as i64 - 1));
                let mut t = s;
                // SAFETY: this function requires AVX2.
                compress::<C>(&mut t, unsafe { words(g, &nfull, &fin, j) });
                s.v0 = _mm256_blendv_epi8(s.v0, t.v0, active);
                s.v1 = _mm256_blendv_epi8(s.v1, t.v1, active);
                s.v2 = _mm256_blendv_epi8(s.v2, t.v2, active);
                s.v3 = _mm256_blendv_epi8(s.v3, t.v3, active);
            }
        }
        let h = finish::<D>(s);
        // SAFETY: `o` is exactly 4 u64 (32 bytes) of writable memory and
        // `vmovdqu` has no alignment requirement.
        unsafe { _mm256_storeu_si256(o.as_mut_ptr().cast::<__m256i>(), h) };
    }
    scalar::batch::<Native, C, D>(key, &inputs[whole..n], &mut out[whole..n]);
}
