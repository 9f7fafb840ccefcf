//! AVX-512 batch kernel: eight inputs hashed side by side, one per 64-bit
//! lane.
//!
//! AVX-512F has a native 64-bit rotate (`vprolq`), so a SipRound is exactly
//! the 14 scalar instructions, for 8 lanes. Lanes of different lengths run
//! together up to the shortest one's word count; after that a mask register
//! (`vpcmpuq` into `k`) lets only the lanes that still have words take the new
//! state (`vmovdqa64` with a merge mask), which costs nothing extra when all
//! lengths agree. A remainder of 4 to 7 inputs goes through the AVX2 kernel,
//! fewer through the scalar one-shot.

use core::arch::x86_64::*;

use crate::kernels::scalar::{self, final_word, keys, Native, State};
use crate::kernels::{lane_word, Fns};
use simd_core::Features;

/// AVX-512F for the 512-bit work, AVX2 for the remainder.
pub(crate) fn supported(f: &Features) -> bool {
    f.avx512f && f.avx2
}

/// One-shots are scalar; batches use AVX-512.
pub(crate) const FNS: Fns = Fns {
    batch12: batch::<1, 2>,
    batch13: batch::<1, 3>,
    batch24: batch::<2, 4>,
    ..scalar::FNS
};

const LANES: usize = 8;

#[derive(Clone, Copy)]
struct V {
    v0: __m512i,
    v1: __m512i,
    v2: __m512i,
    v3: __m512i,
}

#[target_feature(enable = "avx512f")]
#[inline]
fn round(s: &mut V) {
    s.v0 = _mm512_add_epi64(s.v0, s.v1);
    s.v2 = _mm512_add_epi64(s.v2, s.v3);
    s.v1 = _mm512_xor_si512(_mm512_rol_epi64::<13>(s.v1), s.v0);
    s.v3 = _mm512_xor_si512(_mm512_rol_epi64::<16>(s.v3), s.v2);
    s.v0 = _mm512_rol_epi64::<32>(s.v0);
    s.v2 = _mm512_add_epi64(s.v2, s.v1);
    s.v0 = _mm512_add_epi64(s.v0, s.v3);
    s.v1 = _mm512_xor_si512(_mm512_rol_epi64::<17>(s.v1), s.v2);
    s.v3 = _mm512_xor_si512(_mm512_rol_epi64::<21>(s.v3), s.v0);
    s.v2 = _mm512_rol_epi64::<32>(s.v2);
}

#[target_feature(enable = "avx512f")]
#[inline]
fn compress<const C: usize>(s: &mut V, m: __m512i) {
    s.v3 = _mm512_xor_si512(s.v3, m);
    for _ in 0..C {
        round(s);
    }
    s.v0 = _mm512_xor_si512(s.v0, m);
}

#[target_feature(enable = "avx512f")]
#[inline]
fn finish<const D: usize>(mut s: V) -> __m512i {
    s.v2 = _mm512_xor_si512(s.v2, _mm512_set1_epi64(0xff));
    for _ in 0..D {
        round(&mut s);
    }
    _mm512_xor_si512(_mm512_xor_si512(s.v0, s.v1), _mm512_xor_si512(s.v2, s.v3))
}

/// Word `j` of each lane, lane 0 in the low element.
#[target_feature(enable = "avx512f")]
#[inline]
fn words(g: &[&[u8]], nfull: &[usize; LANES], fin: &[u64; LANES], j: usize) -> __m512i {
    _mm512_set_epi64(
        lane_word(g[7], nfull[7], fin[7], j) as i64,
        lane_word(g[6], nfull[6], fin[6], j) as i64,
        lane_word(g[5], nfull[5], fin[5], j) as i64,
        lane_word(g[4], nfull[4], fin[4], j) as i64,
        lane_word(g[3], nfull[3], fin[3], j) as i64,
        lane_word(g[2], nfull[2], fin[2], j) as i64,
        lane_word(g[1], nfull[1], fin[1], j) as i64,
        lane_word(g[0], nfull[0], fin[0], j) as i64,
    )
}

/// SipHash-C-D of each input into `out` (up to the shorter of the two).
#[target_feature(enable = "avx512f,avx2")]
pub(crate) fn batch<const C: usize, const D: usize>(
    key: &[u8; 16],
    inputs: &[&[u8]],
    out: &mut [u64],
) {
    let n = inputs.len().min(out.len());
    let whole = n - n % LANES;
    let (k0, k1) = keys(key);
    let init = State::new(k0, k1, false);
    for (g, o) in inputs[..whole]
        .chunks_exact(LANES)
        .zip(out[..whole].chunks_exact_mut(LANES))
    {
        let nfull: [usize; LANES] = core::array::from_fn(|i| g[i].len() / 8);
        let fin: [u64; LANES] = core::array::from_fn(|i| final_word::<Native, false>(g[i]));
        let lo = nfull.iter().copied().min().unwrap_or(0);
        let hi = nfull.iter().copied().max().unwrap_or(0);
        let mut s = V {
            v0: _mm512_set1_epi64(init.v0 as i64),
            v1: _mm512_set1_epi64(init.v1 as i64),
            v2: _mm512_set1_epi64(init.v2 as i64),
            v3: _mm512_set1_epi64(init.v3 as i64),
        };
        // Words 0..=lo: every lane is still absorbing.
        for j in 0..=lo {
            compress::<C>(&mut s, words(g, &nfull, &fin, j));
        }
        if hi > lo {
            let nf = _mm512_set_epi64(
                nfull[7] as i64,
                nfull[6] as i64,
                nfull[5] as i64,
                nfull[4] as i64,
                nfull[3] as i64,
                nfull[2] as i64,
                nfull[1] as i64,
                nfull[0] as i64,
            );
            for j in lo + 1..=hi {
                // Lane i absorbs word j while j <= nfull[i].
                let active = _mm512_cmpge_epu64_mask(nf, _mm512_set1_epi64(j as i64));
                let mut t = s;
                compress::<C>(&mut t, words(g, &nfull, &fin, j));
                s.v0 = _mm512_mask_mov_epi64(s.v0, active, t.v0);
                s.v1 = _mm512_mask_mov_epi64(s.v1, active, t.v1);
                s.v2 = _mm512_mask_mov_epi64(s.v2, active, t.v2);
                s.v3 = _mm512_mask_mov_epi64(s.v3, active, t.v3);
            }
        }
        let h = finish::<D>(s);
        // SAFETY: `o` is exactly 8 u64 (64 bytes) of writable memory and
        // `vmovdqu64` has no alignment requirement.
        unsafe { _mm512_storeu_epi64(o.as_mut_ptr().cast::<i64>(), h) };
    }
    super::avx2::batch::<C, D>(key, &inputs[whole..n], &mut out[whole..n]);
}
