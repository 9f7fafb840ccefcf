//! MurmurHash64A of eight elements at once with AVX-512F: one element per
//! 64-bit lane, any mix of lengths.
//!
//! The lanes run the 8-byte block loop together while any lane has blocks
//! left, each block fetched by a masked gather (a lane whose blocks are
//! done is masked off, so no byte past its element is read); the tails
//! (0..7 bytes) are assembled with bounded scalar loads, then the lanes
//! finish together. Elements longer than [`LONG`] bytes are hashed on
//! their own with the scalar code, so one long element does not hold seven
//! idle lanes in the block loop.
//!
//! AVX-512F has no 64-bit multiply (`vpmullq` is AVX-512DQ), so `x * M`
//! (mod 2^64) is built from 32-bit ones: `vpmuludq` gives `lo(x) * lo(M)`
//! in full, one `vpmulld` the low halves of both cross products, and a
//! dword swap and two adds place their sum in the high half. That is one
//! `vpmuludq`, one `vpmulld` (two µops on Intel) and three single-µop
//! shuffles/adds per eight multiplies, against eight scalar `imul`s at one
//! a cycle; on Intel cores `vpmullq` itself is three µops on the one
//! 512-bit multiply port, so it would save little there.

use crate::hash::{M, R, SEED};
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

/// `out[i] = hash(elements[i])` for every `i < min(len, len)`.
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

/// The hashes of eight elements.
#[inline]
#[target_feature(enable = "avx512f")]
fn hash8(g: &[&[u8]; LANES]) -> [u64; LANES] {
    let mut addr = [0u64; LANES];
    let mut len = [0u64; LANES];
    let mut tail = [0u64; LANES];
    let mut blocks = 0;
    let mut long = false;
    for (l, e) in g.iter().enumerate() {
        if e.len() > LONG {
            // Hashed below; an empty lane here.
            long = true;
            continue;
        }
        // The gather reads through these plain addresses.
        addr[l] = e.as_ptr() as u64;
        len[l] = e.len() as u64;
        let b = e.len() / 8;
        blocks = blocks.max(b);
        tail[l] = simd_core::load::tail_u64_le(&e[8 * b..]);
    }
    let m_lo = _mm512_set1_epi64((M & 0xffff_ffff) as i64);
    let m_swapped = _mm512_set1_epi64(M.rotate_left(32) as i64);
    // SAFETY (three loads): each array is 8 u64s, 64 bytes.
    let addr = unsafe { _mm512_loadu_si512(addr.as_ptr().cast()) };
    let lens = unsafe { _mm512_loadu_si512(len.as_ptr().cast()) };
    let tails = unsafe { _mm512_loadu_si512(tail.as_ptr().cast()) };
    let nblocks = _mm512_srli_epi64::<3>(lens);
    let mut h = _mm512_xor_si512(_mm512_set1_epi64(SEED as i64), mul_m(lens, m_lo, m_swapped));
    for j in 0..blocks {
        let live = _mm512_cmpgt_epu64_mask(nblocks, _mm512_set1_epi64(j as i64));
        let at = _mm512_add_epi64(addr, _mm512_set1_epi64(8 * j as i64));
        // SAFETY: a live lane has more than j blocks, so its 8 bytes at
        // e.as_ptr() + 8j lie inside its element (its address in `addr`,
        // read from the slice, with a null base); masked-off lanes are not
        // read.
        let k = unsafe {
            _mm512_mask_i64gather_epi64::<1>(
                _mm512_setzero_si512(),
                live,
                at,
                core::ptr::null::<i64>().cast(),
            )
        };
        let k = mul_m(shift_xor(mul_m(k, m_lo, m_swapped)), m_lo, m_swapped);
        let next = mul_m(_mm512_xor_si512(h, k), m_lo, m_swapped);
        h = _mm512_mask_mov_epi64(h, live, next);
    }
    let has_tail = _mm512_test_epi64_mask(lens, _mm512_set1_epi64(7));
    if has_tail != 0 {
        let next = mul_m(_mm512_xor_si512(h, tails), m_lo, m_swapped);
        h = _mm512_mask_mov_epi64(h, has_tail, next);
    }
    let h = shift_xor(mul_m(shift_xor(h), m_lo, m_swapped));
    let mut out = [0u64; LANES];
    // SAFETY: out is 8 u64s, 64 bytes.
    unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), h) };
    if long {
        for (o, e) in out.iter_mut().zip(g) {
            if e.len() > LONG {
                *o = murmur_long(e);
            }
        }
    }
    out
}

/// The scalar hash, out of line: long elements are rare.
#[cold]
#[inline(never)]
fn murmur_long(e: &[u8]) -> u64 {
    crate::hash::hash(e)
}
