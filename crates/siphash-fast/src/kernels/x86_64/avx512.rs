//! AVX-512 batch kernel: eight inputs hashed side by side, one per 64-bit
//! lane, two 8-lane groups in lockstep (16 inputs in flight).
//!
//! AVX-512F has a native 64-bit rotate (`vprolq`), so a SipRound is exactly
//! the 14 scalar instructions, for 8 lanes. The rounds of the two groups are
//! interleaved step by step, so the core always has independent work while
//! one group's chain waits.
//!
//! Inputs that all have the same length (keys of one size, the common case)
//! take a path with no masks and no gathers: blocks come from one 16-byte
//! load per lane per two words, transposed with `vinserti32x4` and
//! `vpunpck{l,h}qdq`, and when the length is a multiple of 8 the final word
//! is the constant `len << 56`. This path is ~1.6x faster on 16-byte keys:
//! the general path's gather of the last 8 bytes per group is most of it.
//!
//! Lanes of different lengths run together up to the shortest one's word
//! count; after that a mask register (`vpcmpuq` into `k`) lets only the lanes
//! that still have words take the new state (`vmovdqa64` with a merge mask).
//! A remainder of 4 to 7 inputs goes through the AVX2 kernel, fewer through
//! the scalar one-shot.

use core::arch::x86_64::*;

use super::same_len;
use crate::kernels::scalar::{self, keys, Loader, Native, State};
use crate::kernels::Fns;
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
fn round<const G: usize>(s: &mut [V; G]) {
    // Each step for every group before the next step: the groups are
    // independent chains, and this order hands the core G ready
    // instructions at a time instead of relying on its window to find them.
    for x in s.iter_mut() {
        x.v0 = _mm512_add_epi64(x.v0, x.v1);
        x.v2 = _mm512_add_epi64(x.v2, x.v3);
    }
    for x in s.iter_mut() {
        x.v1 = _mm512_xor_si512(_mm512_rol_epi64::<13>(x.v1), x.v0);
        x.v3 = _mm512_xor_si512(_mm512_rol_epi64::<16>(x.v3), x.v2);
        x.v0 = _mm512_rol_epi64::<32>(x.v0);
    }
    for x in s.iter_mut() {
        x.v2 = _mm512_add_epi64(x.v2, x.v1);
        x.v0 = _mm512_add_epi64(x.v0, x.v3);
    }
    for x in s.iter_mut() {
        x.v1 = _mm512_xor_si512(_mm512_rol_epi64::<17>(x.v1), x.v2);
        x.v3 = _mm512_xor_si512(_mm512_rol_epi64::<21>(x.v3), x.v0);
        x.v2 = _mm512_rol_epi64::<32>(x.v2);
    }
}

/// Absorbs word `m[k]` into group `k`, every group in lockstep.
#[target_feature(enable = "avx512f")]
#[inline]
fn compress<const C: usize, const G: usize>(s: &mut [V; G], m: [__m512i; G]) {
    for k in 0..G {
        s[k].v3 = _mm512_xor_si512(s[k].v3, m[k]);
    }
    for _ in 0..C {
        round(s);
    }
    for k in 0..G {
        s[k].v0 = _mm512_xor_si512(s[k].v0, m[k]);
    }
}

/// Finalizes every group and stores its 8 hashes to `out[8k..8k + 8]`.
#[target_feature(enable = "avx512f")]
#[inline]
fn finish<const D: usize, const G: usize>(mut s: [V; G], out: &mut [u64]) {
    for x in s.iter_mut() {
        x.v2 = _mm512_xor_si512(x.v2, _mm512_set1_epi64(0xff));
    }
    for _ in 0..D {
        round(&mut s);
    }
    for (x, o) in s.iter().zip(out.chunks_exact_mut(LANES)) {
        let h = _mm512_xor_si512(_mm512_xor_si512(x.v0, x.v1), _mm512_xor_si512(x.v2, x.v3));
        // SAFETY: `o` is exactly 8 u64 (64 bytes) of writable memory and
        // `vmovdqu64` has no alignment requirement.
        unsafe { _mm512_storeu_epi64(o.as_mut_ptr().cast::<i64>(), h) };
    }
}

/// The initial state in every lane of `G` groups.
#[target_feature(enable = "avx512f")]
#[inline]
fn splat<const G: usize>(init: &State) -> [V; G] {
    [V {
        v0: _mm512_set1_epi64(init.v0 as i64),
        v1: _mm512_set1_epi64(init.v1 as i64),
        v2: _mm512_set1_epi64(init.v2 as i64),
        v3: _mm512_set1_epi64(init.v3 as i64),
    }; G]
}

/// The address distance from `base` to `lane`'s data, as a gather offset.
#[inline(always)]
fn rel(lane: &[u8], base: *const u8) -> i64 {
    (lane.as_ptr() as usize).wrapping_sub(base as usize) as i64
}

/// One vector of 8 lanes prepared for hashing.
#[derive(Clone, Copy)]
struct Lanes {
    /// Gather offset of each lane's data from the shared base pointer.
    off: __m512i,
    /// Whole blocks per lane (`len / 8`).
    nfull: __m512i,
    /// Each lane's final word.
    fin: __m512i,
}

/// Loads the lengths and final words of 8 inputs.
#[target_feature(enable = "avx512f")]
#[inline]
fn prepare(g: &[&[u8]], base: *const u8) -> Lanes {
    let g: &[&[u8]; LANES] = g.try_into().expect("8 lanes");
    let lens: [usize; LANES] = core::array::from_fn(|i| g[i].len());
    let len = _mm512_set_epi64(
        lens[7] as i64,
        lens[6] as i64,
        lens[5] as i64,
        lens[4] as i64,
        lens[3] as i64,
        lens[2] as i64,
        lens[1] as i64,
        lens[0] as i64,
    );
    let off = _mm512_set_epi64(
        rel(g[7], base),
        rel(g[6], base),
        rel(g[5], base),
        rel(g[4], base),
        rel(g[3], base),
        rel(g[2], base),
        rel(g[1], base),
        rel(g[0], base),
    );
    // Final words. Lanes with at least 8 bytes: one gathered load of their
    // last 8 bytes, shifted right by 64 - 8 * (len % 8) (`vpsrlvq` gives 0
    // for a shift of 64: the empty tail). Shorter lanes (rare with real
    // keys) take the scalar small load.
    let long = _mm512_cmpge_epu64_mask(len, _mm512_set1_epi64(8));
    let last = _mm512_add_epi64(off, _mm512_sub_epi64(len, _mm512_set1_epi64(8)));
    // SAFETY: only lanes with len >= 8 load, each the last 8 bytes of its
    // own slice (base + off is the lane's pointer).
    let tail = unsafe {
        _mm512_mask_i64gather_epi64::<1>(_mm512_setzero_si512(), long, last, base.cast())
    };
    let shift = _mm512_sub_epi64(
        _mm512_set1_epi64(64),
        _mm512_slli_epi64::<3>(_mm512_and_si512(len, _mm512_set1_epi64(7))),
    );
    let mut tail = _mm512_srlv_epi64(tail, shift);
    if long != 0xff {
        let mut small = [0u64; LANES];
        for (i, s) in small.iter_mut().enumerate() {
            if lens[i] < 8 {
                *s = Native::small(g[i]);
            }
        }
        // SAFETY: `small` is 8 readable u64.
        tail = unsafe { _mm512_mask_loadu_epi64(tail, !long, small.as_ptr().cast::<i64>()) };
    }
    Lanes {
        off,
        nfull: _mm512_srli_epi64::<3>(len),
        fin: _mm512_or_si512(tail, _mm512_slli_epi64::<56>(len)),
    }
}

/// Word `j` of every lane: a gather of block `j` where `j < nfull`, the
/// final word elsewhere (the gather's merge source).
///
/// # Safety
/// The CPU must support AVX-512F, and `l` must come from `prepare` with the
/// same `base`.
#[inline(always)]
unsafe fn word(l: &Lanes, base: *const u8, j: usize) -> __m512i {
    // SAFETY: the caller guarantees AVX-512F; lanes with j < nfull read
    // bytes 8j..8j+8 of their own slice (base + off is the lane's pointer),
    // the others do not load.
    unsafe {
        let has = _mm512_cmpgt_epu64_mask(l.nfull, _mm512_set1_epi64(j as i64));
        if has == 0 {
            return l.fin;
        }
        let at = _mm512_add_epi64(l.off, _mm512_set1_epi64(8 * j as i64));
        _mm512_mask_i64gather_epi64::<1>(l.fin, has, at, base.cast())
    }
}

/// Words `j` and `j + 1` of 8 lanes that all have both as whole blocks:
/// one 16-byte load per lane and a transpose (`vinserti32x4`,
/// `vpunpcklqdq`/`vpunpckhqdq`), about half the cost of two gathers.
///
/// `inline(always)` (not possible with `#[target_feature]`): out of line,
/// LLVM returned the two vectors through the stack.
///
/// # Safety
/// The CPU must support AVX-512F.
#[inline(always)]
unsafe fn pair(g: &[&[u8]], j: usize) -> (__m512i, __m512i) {
    let g: &[&[u8]; LANES] = g.try_into().expect("8 lanes");
    let at = |i: usize| -> __m128i {
        let b: &[u8; 16] = g[i][8 * j..8 * j + 16].try_into().expect("16 bytes");
        // SAFETY: `b` is 16 readable bytes; `movdqu` (SSE2, baseline on
        // x86_64) has no alignment requirement.
        unsafe { _mm_loadu_si128(b.as_ptr().cast::<__m128i>()) }
    };
    // SAFETY: the caller guarantees AVX-512F.
    unsafe {
        // a = lanes 0, 2, 4, 6 and b = lanes 1, 3, 5, 7, one lane per 128 bits.
        let a = _mm512_inserti32x4::<3>(
            _mm512_inserti32x4::<2>(
                _mm512_inserti32x4::<1>(_mm512_castsi128_si512(at(0)), at(2)),
                at(4),
            ),
            at(6),
        );
        let b = _mm512_inserti32x4::<3>(
            _mm512_inserti32x4::<2>(
                _mm512_inserti32x4::<1>(_mm512_castsi128_si512(at(1)), at(3)),
                at(5),
            ),
            at(7),
        );
        (_mm512_unpacklo_epi64(a, b), _mm512_unpackhi_epi64(a, b))
    }
}

/// Word `at..at + 8` of each of 8 inputs, lane `i` from `g[i]`: scalar
/// loads and inserts, for the odd block and the partial tail of the
/// equal-length path.
///
/// # Safety
/// The CPU must support AVX-512F.
#[inline(always)]
unsafe fn word_at(g: &[&[u8]], at: usize) -> __m512i {
    let g: &[&[u8]; LANES] = g.try_into().expect("8 lanes");
    let w = |i: usize| -> i64 {
        let b: &[u8; 8] = g[i][at..at + 8].try_into().expect("8 bytes");
        u64::from_le_bytes(*b) as i64
    };
    // SAFETY: the caller guarantees AVX-512F.
    unsafe { _mm512_set_epi64(w(7), w(6), w(5), w(4), w(3), w(2), w(1), w(0)) }
}

/// Hashes `8 * G` inputs that all have `len` bytes, `G` groups of 8 lanes
/// in lockstep. Every lane absorbs the same number of words, so there is
/// nothing to mask: blocks come two at a time from one 16-byte load per
/// lane (`pair`), an odd block and a partial tail from one 8-byte load per
/// lane, and a tail-less final word (lengths divisible by 8, such as 16-byte
/// keys) is the constant `len << 56`.
#[target_feature(enable = "avx512f")]
#[inline]
fn uniform<const C: usize, const D: usize, const G: usize>(
    init: &State,
    inputs: &[&[u8]],
    len: usize,
    out: &mut [u64],
) {
    let gs: [&[&[u8]]; G] = core::array::from_fn(|k| &inputs[8 * k..8 * k + 8]);
    let mut s = splat::<G>(init);
    let nfull = len / 8;
    // Plain loops over the groups, no `array::from_fn`/`map` closures: those
    // are generic functions without AVX-512 enabled, so LLVM cannot inline
    // the vector closures into them and every word went through memory.
    let mut w0 = [_mm512_setzero_si512(); G];
    let mut w1 = w0;
    let mut j = 0;
    while j + 1 < nfull {
        for k in 0..G {
            // SAFETY: this function requires AVX-512F.
            (w0[k], w1[k]) = unsafe { pair(gs[k], j) };
        }
        compress::<C, G>(&mut s, w0);
        compress::<C, G>(&mut s, w1);
        j += 2;
    }
    if j < nfull {
        for k in 0..G {
            // SAFETY: this function requires AVX-512F.
            w0[k] = unsafe { word_at(gs[k], 8 * j) };
        }
        compress::<C, G>(&mut s, w0);
    }
    let top = _mm512_set1_epi64(((len as u64) << 56) as i64);
    let rem = len % 8;
    let mut fin = [top; G];
    if rem != 0 && len >= 8 {
        // The last 8 bytes, shifted right past the bytes of the last block.
        let sh = _mm_cvtsi64_si128((64 - 8 * rem) as i64);
        for k in 0..G {
            // SAFETY: this function requires AVX-512F.
            let w = unsafe { word_at(gs[k], len - 8) };
            fin[k] = _mm512_or_si512(_mm512_srl_epi64(w, sh), top);
        }
    } else if rem != 0 {
        for k in 0..G {
            let t = |i: usize| Native::small(gs[k][i]) as i64;
            let w = _mm512_set_epi64(t(7), t(6), t(5), t(4), t(3), t(2), t(1), t(0));
            fin[k] = _mm512_or_si512(w, top);
        }
    }
    compress::<C, G>(&mut s, fin);
    finish::<D, G>(s, out);
}

/// Hashes `8 * G` inputs of any lengths as `G` independent 8-lane groups in
/// lockstep: one group is a serial chain of rounds (about 5 cycles each),
/// several give the core independent work to overlap.
#[target_feature(enable = "avx512f")]
#[inline]
fn groups<const C: usize, const D: usize, const G: usize>(
    init: &State,
    inputs: &[&[u8]],
    out: &mut [u64],
) {
    let base = inputs[0].as_ptr();
    let mut lanes = [Lanes {
        off: _mm512_setzero_si512(),
        nfull: _mm512_setzero_si512(),
        fin: _mm512_setzero_si512(),
    }; G];
    for (k, l) in lanes.iter_mut().enumerate() {
        *l = prepare(&inputs[8 * k..8 * k + 8], base);
    }
    let blocks = || inputs.iter().map(|i| i.len() / 8);
    let lo = blocks().min().unwrap_or(0);
    let hi = blocks().max().unwrap_or(0);
    let mut s = splat::<G>(init);
    // Words 0..=lo: every lane is still absorbing; below lo they are whole
    // blocks in every lane, loaded two at a time.
    let mut w0 = [_mm512_setzero_si512(); G];
    let mut w1 = w0;
    let mut j = 0;
    while j + 1 < lo {
        for k in 0..G {
            // SAFETY: this function requires AVX-512F.
            (w0[k], w1[k]) = unsafe { pair(&inputs[8 * k..8 * k + 8], j) };
        }
        compress::<C, G>(&mut s, w0);
        compress::<C, G>(&mut s, w1);
        j += 2;
    }
    while j <= lo {
        for k in 0..G {
            // SAFETY: this function requires AVX-512F; `lanes[k]` was
            // prepared with `base`.
            w0[k] = unsafe { word(&lanes[k], base, j) };
        }
        compress::<C, G>(&mut s, w0);
        j += 1;
    }
    for j in lo + 1..=hi {
        let mut t = s;
        for k in 0..G {
            // SAFETY: as above.
            w0[k] = unsafe { word(&lanes[k], base, j) };
        }
        compress::<C, G>(&mut t, w0);
        for k in 0..G {
            // Lane i absorbs word j while j <= nfull[i].
            let active = _mm512_cmpge_epu64_mask(lanes[k].nfull, _mm512_set1_epi64(j as i64));
            s[k].v0 = _mm512_mask_mov_epi64(s[k].v0, active, t[k].v0);
            s[k].v1 = _mm512_mask_mov_epi64(s[k].v1, active, t[k].v1);
            s[k].v2 = _mm512_mask_mov_epi64(s[k].v2, active, t[k].v2);
            s[k].v3 = _mm512_mask_mov_epi64(s[k].v3, active, t[k].v3);
        }
    }
    finish::<D, G>(s, out);
}

/// Hashes `8 * G` inputs: the equal-length path when they allow it.
#[target_feature(enable = "avx512f")]
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

/// How many 8-lane groups run in lockstep.
const G: usize = 2;

/// SipHash-C-D of each input into `out` (up to the shorter of the two).
#[target_feature(enable = "avx512f,avx2")]
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
    super::avx2::batch::<C, D>(key, &inputs[done..n], &mut out[done..n]);
}
