//! MurmurHash64A of eight elements at once with AVX-512F: one element per
//! 64-bit lane, any mix of lengths.
//!
//! The lanes run the 8-byte block loop together while any lane has blocks
//! left (a lane whose blocks are done is masked off), two blocks a step
//! (one 16-byte load per lane, a `vpermt2q` transpose), then the tails
//! (0..7 bytes), then finish together. Blocks and tails are read with
//! bounded loads and put into the lanes through registers: no byte past an
//! element is read. A group holding an element longer than [`LONG`] bytes
//! is hashed by the scalar code, so one long element does not hold seven
//! idle lanes in the block loop.
//!
//! AVX-512F has no 64-bit multiply (`vpmullq` is AVX-512DQ, which the
//! CPU detection does not report), so `x * M` (mod 2^64) is built from
//! 32-bit ones: `vpmuludq` gives `lo(x) * lo(M)` in full, one `vpmulld`
//! the low halves of both cross products, a dword swap and two adds place
//! their sum in the high half: six instructions (three multiply µops on
//! Intel's one 512-bit multiply port) per eight lanes, against eight
//! scalar `imul`s at one a cycle.
//!
//! The dispatchers do not pick this kernel: on Emerald Rapids it measured
//! 0.8-0.9x the scalar loop for 8- and 16-byte elements, 1.0x at 32 and
//! 1.04-1.07x at 64 (in cache, min-of-N); putting the lanes together
//! costs about what the multiplies save. It is listed (so tested and
//! benchmarked) wherever AVX-512F runs.
//!
//! Measured and not kept (same harness): a masked `vpgatherqq` per block
//! (slower than bounded loads), lanes built in a stack array and loaded as
//! one vector (stalls on store forwarding: 3x slower), `vpmullq` in place
//! of the six-instruction multiply (1.07x scalar at 16 bytes, 1.26x at 32).

use crate::kernels::murmur::{M, R, SEED};
use core::arch::x86_64::*;

/// Lanes per vector.
const LANES: usize = 8;

/// Elements longer than this are hashed by the scalar code.
const LONG: usize = 256;

/// `x * M` (mod 2^64) in every lane.
#[inline]
#[target_feature(enable = "avx512f")]
fn mul_m(x: __m512i, m_lo: __m512i, m_swapped: __m512i) -> __m512i {
    // lo(x) * lo(M), all 64 bits.
    let low = _mm512_mul_epu32(x, m_lo);
    // dword 0: lo(x) * hi(M), dword 1: hi(x) * lo(M) (low 32 bits each).
    let cross = _mm512_mullo_epi32(x, m_swapped);
    // Both dwords: the sum of the two cross products (mod 2^32).
    let sum = _mm512_add_epi32(cross, _mm512_shuffle_epi32::<0b10_11_00_01>(cross));
    // Added to the high dwords only: the low dword of `low` carries nothing
    // into them, since nothing is added to it.
    _mm512_mask_add_epi32(low, 0xaaaa, low, sum)
}

/// `x ^ (x >> 47)` in every lane.
#[inline]
#[target_feature(enable = "avx512f")]
fn shift_xor(x: __m512i) -> __m512i {
    _mm512_xor_si512(x, _mm512_srli_epi64::<R>(x))
}

/// `out[i] = hash(elements[i])` for every `i` below both lengths.
///
/// # Safety
/// The CPU must support AVX-512F.
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn hash_batch(elements: &[&[u8]], out: &mut [u64]) {
    let n = elements.len().min(out.len());
    let (elements, out) = (&elements[..n], &mut out[..n]);
    let mut groups = elements.chunks_exact(LANES);
    let mut outs = out.chunks_exact_mut(LANES);
    for (g, o) in (&mut groups).zip(&mut outs) {
        let g: &[&[u8]; LANES] = match g.try_into() {
            Ok(g) => g,
            Err(_) => unreachable!("chunks of LANES"),
        };
        let o: &mut [u64; LANES] = match o.try_into() {
            Ok(o) => o,
            Err(_) => unreachable!("chunks of LANES"),
        };
        *o = hash8(g);
    }
    let rest = groups.remainder();
    if !rest.is_empty() {
        let mut g: [&[u8]; LANES] = [&[]; LANES];
        g[..rest.len()].copy_from_slice(rest);
        let h = hash8(&g);
        outs.into_remainder().copy_from_slice(&h[..rest.len()]);
    }
}

/// Eight values, one per lane (lane 0 first), each put in by a masked
/// broadcast from a general register (one µop each).
#[inline]
#[target_feature(enable = "avx512f")]
fn lanes(f: impl Fn(usize) -> u64) -> __m512i {
    let mut v = _mm512_setzero_si512();
    for l in 0..LANES {
        v = _mm512_mask_set1_epi64(v, 1 << l, f(l) as i64);
    }
    v
}

/// Bytes `8j..8j + 16` of `e` as they lie, or as many of them as whole
/// blocks of `e` hold (8 bytes, or none), the rest zero.
#[inline]
#[target_feature(enable = "avx512f")]
fn two_blocks(e: &[u8], j: usize) -> __m128i {
    if 8 * j + 16 <= e.len() {
        // SAFETY: bytes 8j..8j + 16 are inside `e`.
        unsafe { _mm_loadu_si128(e.as_ptr().add(8 * j).cast()) }
    } else if 8 * j + 8 <= e.len() {
        // SAFETY: bytes 8j..8j + 8 are inside `e`.
        unsafe { _mm_loadl_epi64(e.as_ptr().add(8 * j).cast()) }
    } else {
        _mm_setzero_si128()
    }
}

/// Lanes `4 * half ..` of a group: blocks j and j + 1 of four elements, as
/// qwords `[e0 bj, e0 bj+1, e1 bj, ..]`.
#[inline]
#[target_feature(enable = "avx512f")]
fn four_pairs(e: [&[u8]; 4], j: usize) -> __m512i {
    let v = _mm512_castsi128_si512(two_blocks(e[0], j));
    let v = _mm512_inserti32x4::<1>(v, two_blocks(e[1], j));
    let v = _mm512_inserti32x4::<2>(v, two_blocks(e[2], j));
    _mm512_inserti32x4::<3>(v, two_blocks(e[3], j))
}

/// The hashes of eight elements.
#[inline]
#[target_feature(enable = "avx512f")]
fn hash8(g: &[&[u8]; LANES]) -> [u64; LANES] {
    if g.iter().any(|e| e.len() > LONG) {
        return g.map(murmur_long);
    }
    let m_lo = _mm512_set1_epi64((M & 0xffff_ffff) as i64);
    let m_swapped = _mm512_set1_epi64(M.rotate_left(32) as i64);
    let lens = lanes(|l| g[l].len() as u64);
    let blocks = g.iter().map(|e| e.len() / 8).max().unwrap_or(0);
    let nblocks = _mm512_srli_epi64::<3>(lens);
    let mut h = _mm512_xor_si512(_mm512_set1_epi64(SEED as i64), mul_m(lens, m_lo, m_swapped));
    let step = |h: __m512i, k: __m512i, j: usize| {
        let live = _mm512_cmpgt_epu64_mask(nblocks, _mm512_set1_epi64(j as i64));
        let k = mul_m(shift_xor(mul_m(k, m_lo, m_swapped)), m_lo, m_swapped);
        let next = mul_m(_mm512_xor_si512(h, k), m_lo, m_swapped);
        _mm512_mask_mov_epi64(h, live, next)
    };
    // Two blocks a step: one 16-byte load per lane, then a transpose.
    let even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
    let odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
    let mut j = 0;
    while j + 2 <= blocks {
        let lo = four_pairs([g[0], g[1], g[2], g[3]], j);
        let hi = four_pairs([g[4], g[5], g[6], g[7]], j);
        h = step(h, _mm512_permutex2var_epi64(lo, even, hi), j);
        h = step(h, _mm512_permutex2var_epi64(lo, odd, hi), j + 1);
        j += 2;
    }
    if j < blocks {
        let k = lanes(|l| {
            g[l].get(8 * j..8 * j + 8)
                .map_or(0, |b| simd_core::load::u64_le(b, 0))
        });
        h = step(h, k, j);
    }
    let has_tail = _mm512_test_epi64_mask(lens, _mm512_set1_epi64(7));
    if has_tail != 0 {
        let tails = lanes(|l| {
            let e = g[l];
            simd_core::load::tail_u64_le(&e[e.len() / 8 * 8..])
        });
        let next = mul_m(_mm512_xor_si512(h, tails), m_lo, m_swapped);
        h = _mm512_mask_mov_epi64(h, has_tail, next);
    }
    let h = shift_xor(mul_m(shift_xor(h), m_lo, m_swapped));
    let mut out = [0u64; LANES];
    // SAFETY: out is 8 u64s, 64 bytes.
    unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), h) };
    out
}

/// The scalar hash, out of line: groups with a long element are rare.
#[cold]
#[inline(never)]
fn murmur_long(e: &[u8]) -> u64 {
    crate::kernels::murmur::hash(e)
}
