//! x86_64 AVX2: Harley-Seal carry-save adders over 256-bit vectors for large
//! inputs, a plain nibble-table loop for medium ones, and the BITPOS scan.
//!
//! AVX2 has no vector popcount: VPSHUFB looks up both nibbles of every byte
//! in 16-entry tables, one giving `4 + count` for the low nibble and one
//! `4 - count` for the high nibble, and VPSADBW sums the absolute
//! differences of each 8 bytes into a 64-bit lane (the byte counts, with no
//! separate add; Muła's trick). That costs ~6 operations per vector.
//! Harley-Seal (Muła, Kurz, Lemire, "Faster population
//! counts using AVX2 instructions") runs 16 vectors through a tree of
//! carry-save adders (5 bitwise operations per pair) so that only one vector
//! per 16, the "sixteens", needs the table popcount; the partial sums
//! (ones, twos, fours, eights) are counted once at the end. That loop is
//! bound by the vector ALUs, so each 512-byte block comes with 192 bytes
//! counted with scalar POPCNT (in two halves, one in the middle of the
//! vector work), which runs on the integer pipes alongside.
//!
//! Tails never read past the slice: the last partial vector is an
//! overlapping load of the slice's final 32 bytes with the already-counted
//! bytes masked off.

use core::arch::x86_64::*;

use crate::kernels::scalar;
use crate::kernels::x86_64::avx2_bitop;
use crate::kernels::x86_64::popcnt_pair;
use crate::kernels::Fns;
use crate::kernels::{PREFETCH_AHEAD, PREFETCH_MIN};
use simd_core::load::{tail_u64_le, u64_le};
use simd_core::Features;

/// Inputs of at least this many bytes (one block with its POPCNT side
/// stream) use Harley-Seal: with the side stream one block already beats
/// the medium loop.
const HARLEY_SEAL_MIN: usize = VECTOR_BLOCK + SIDE_BLOCK;

/// 32 zero bytes then 32 0xff bytes: the 32 bytes at offset `r` keep the
/// last `r` bytes of a vector.
static TAIL_MASK: [u8; 64] = {
    let mut m = [0u8; 64];
    let mut i = 32;
    while i < 64 {
        m[i] = 0xff;
        i += 1;
    }
    m
};

/// The 32 bytes of `bytes` at `at`.
///
/// # Safety
/// `at + 32 <= bytes.len()`; the CPU supports AVX2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn load(bytes: &[u8], at: usize) -> __m256i {
    debug_assert!(at + 32 <= bytes.len());
    // SAFETY: the caller guarantees the 32 bytes lie inside `bytes`;
    // VMOVDQU has no alignment requirement.
    unsafe { _mm256_loadu_si256(bytes.as_ptr().add(at).cast()) }
}

/// Per byte of `v`: `4 + popcount(low nibble)` and `4 - popcount(high
/// nibble)` (the two always differ by the byte's popcount, the lower one
/// never above the higher).
#[target_feature(enable = "avx2")]
#[inline]
fn nibble_counts(v: __m256i) -> (__m256i, __m256i) {
    let up = _mm256_setr_epi8(
        4, 5, 5, 6, 5, 6, 6, 7, 5, 6, 6, 7, 6, 7, 7, 8, //
        4, 5, 5, 6, 5, 6, 6, 7, 5, 6, 6, 7, 6, 7, 7, 8,
    );
    let down = _mm256_setr_epi8(
        4, 3, 3, 2, 3, 2, 2, 1, 3, 2, 2, 1, 2, 1, 1, 0, //
        4, 3, 3, 2, 3, 2, 2, 1, 3, 2, 2, 1, 2, 1, 1, 0,
    );
    let low = _mm256_set1_epi8(0x0f);
    let lo = _mm256_and_si256(v, low);
    let hi = _mm256_and_si256(_mm256_srli_epi16::<4>(v), low);
    (_mm256_shuffle_epi8(up, lo), _mm256_shuffle_epi8(down, hi))
}

/// The popcount of `v` as four 64-bit lanes: VPSADBW sums the differences
/// of the two lookups of [`nibble_counts`], which are the byte counts.
#[target_feature(enable = "avx2")]
#[inline]
fn popcnt64(v: __m256i) -> __m256i {
    let (up, down) = nibble_counts(v);
    _mm256_sad_epu8(up, down)
}

/// Carry-save adder: per bit, `a + b + c = 2 * high + low`.
///
/// `a` is the running accumulator (`ones`, `twos`, ...), the one operand
/// that depends on the previous adder: it enters last, so each adder adds
/// one operation to the chain through `low` (two when it enters first:
/// ~30% slower).
#[target_feature(enable = "avx2")]
#[inline]
fn csa(a: __m256i, b: __m256i, c: __m256i) -> (__m256i, __m256i) {
    let u = _mm256_xor_si256(b, c);
    let high = _mm256_or_si256(_mm256_and_si256(b, c), _mm256_and_si256(u, a));
    (high, _mm256_xor_si256(u, a))
}

/// The sum of the four 64-bit lanes.
#[target_feature(enable = "avx2")]
#[inline]
fn hsum(v: __m256i) -> u64 {
    let s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
    (_mm_cvtsi128_si64(s) as u64).wrapping_add(_mm_extract_epi64::<1>(s) as u64)
}

/// Bytes per Harley-Seal step through the carry-save adders (16 vectors).
const VECTOR_BLOCK: usize = 512;

/// Bytes counted with scalar POPCNT per [`VECTOR_BLOCK`] (below
/// [`SIDE_MAX`]), half after the first eight vectors and half after the
/// last. The Harley-Seal loop keeps the vector ALUs busy (~83 operations
/// per 512 bytes) while the integer pipes idle; 192 bytes split in two
/// halves measured best (16 KB 199 -> 150 ns on Zen 5). POPCNT's false
/// dependency on its destination (Intel before Cannon Lake) is not broken:
/// zeroing it first cost 5-10% on Zen 5.
const SIDE_BLOCK: usize = 192;

/// From this size on the scalar side stream is left out: at 125 MB (far
/// past the L3, bound by memory) it made the count 2-8% slower.
const SIDE_MAX: usize = 64 << 20;

/// The running state of [`harley_seal`]: the carry-save accumulators, the
/// counted sixteens and the two POPCNT sums of the side stream.
struct Hs {
    ones: __m256i,
    twos: __m256i,
    fours: __m256i,
    eights: __m256i,
    total: __m256i,
    side: [u64; 2],
}

/// One Harley-Seal step: the 16 vectors at `at` through the adders, then
/// the `SIDE` bytes after them with POPCNT, in two halves interleaved with
/// the vector work.
///
/// # Safety
/// The CPU supports AVX2 and POPCNT; `at + VECTOR_BLOCK + SIDE <=
/// bytes.len()`.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
unsafe fn hs_block<const SIDE: usize>(hs: &mut Hs, bytes: &[u8], at: usize) {
    const { assert!(SIDE.is_multiple_of(64)) };
    debug_assert!(at + VECTOR_BLOCK + SIDE <= bytes.len());
    // POPCNT of the `len` bytes at `from` (a multiple of 32) into the two
    // sums.
    let count_side = |side: &mut [u64; 2], from: usize, len: usize| {
        for w in (from..from + len).step_by(32) {
            // SAFETY: from + len <= at + VECTOR_BLOCK + SIDE <= bytes.len()
            // at both calls below; POPCNT by contract.
            unsafe {
                let p = bytes.as_ptr().add(w);
                side[0] += popcnt_pair::<0>(p);
                side[1] += popcnt_pair::<16>(p);
            }
        }
    };
    // SAFETY: at + VECTOR_BLOCK <= len and every load below is at
    // at + 32 * k with k < 16, so its 32 bytes lie inside the slice; AVX2
    // by this function's contract.
    let v = |k: usize| unsafe { load(bytes, at + 32 * k) };
    let (twos_a, o) = csa(hs.ones, v(0), v(1));
    let (twos_b, o) = csa(o, v(2), v(3));
    let (fours_a, t) = csa(hs.twos, twos_a, twos_b);
    let (twos_a, o) = csa(o, v(4), v(5));
    let (twos_b, o) = csa(o, v(6), v(7));
    let (fours_b, t) = csa(t, twos_a, twos_b);
    let (eights_a, f) = csa(hs.fours, fours_a, fours_b);
    count_side(&mut hs.side, at + VECTOR_BLOCK, SIDE / 2);
    let (twos_a, o) = csa(o, v(8), v(9));
    let (twos_b, o) = csa(o, v(10), v(11));
    let (fours_a, t) = csa(t, twos_a, twos_b);
    let (twos_a, o) = csa(o, v(12), v(13));
    let (twos_b, o) = csa(o, v(14), v(15));
    let (fours_b, t) = csa(t, twos_a, twos_b);
    let (eights_b, f) = csa(f, fours_a, fours_b);
    let (sixteens, e) = csa(hs.eights, eights_a, eights_b);
    hs.total = _mm256_add_epi64(hs.total, popcnt64(sixteens));
    (hs.ones, hs.twos, hs.fours, hs.eights) = (o, t, f, e);
    count_side(&mut hs.side, at + VECTOR_BLOCK + SIDE / 2, SIDE / 2);
}

/// Harley-Seal over the whole blocks of [`VECTOR_BLOCK`] + `SIDE` bytes of
/// `bytes` (the last `SIDE` of each counted with POPCNT), then, where
/// `SIDE > 0`, at most one more [`VECTOR_BLOCK`] without a side stream
/// (less is left to the medium loop); returns the per-lane counts and the
/// number of bytes consumed. The closing plain block saves the medium
/// loop up to 511 bytes (1280-4096 B 5-10% faster on Zen 3).
///
/// # Safety
/// The CPU supports AVX2 and POPCNT.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
unsafe fn harley_seal<const SIDE: usize>(bytes: &[u8]) -> (__m256i, usize) {
    let block = VECTOR_BLOCK + SIDE;
    let zero = _mm256_setzero_si256();
    let mut hs = Hs {
        ones: zero,
        twos: zero,
        fours: zero,
        eights: zero,
        total: zero,
        // Two independent scalar sums (no chain through one register).
        side: [0; 2],
    };
    // Software prefetch 8 KB ahead from 1 MB up (see `PREFETCH_AHEAD`).
    let prefetch = bytes.len() >= PREFETCH_MIN;
    let mut at = 0;
    while at + block <= bytes.len() {
        if prefetch {
            let p = bytes.as_ptr().wrapping_add(at + PREFETCH_AHEAD);
            for line in 0..block / 64 {
                simd_core::prefetch_read(p.wrapping_add(64 * line));
            }
        }
        // SAFETY: at + block <= len; AVX2 and POPCNT by contract.
        unsafe { hs_block::<SIDE>(&mut hs, bytes, at) };
        at += block;
    }
    if SIDE > 0 && at + VECTOR_BLOCK <= bytes.len() {
        // SAFETY: at + VECTOR_BLOCK <= len (the test above); AVX2 and POPCNT
        // by contract.
        unsafe { hs_block::<0>(&mut hs, bytes, at) };
        at += VECTOR_BLOCK;
    }
    let mut total = _mm256_slli_epi64::<4>(hs.total);
    total = _mm256_add_epi64(total, _mm256_slli_epi64::<3>(popcnt64(hs.eights)));
    total = _mm256_add_epi64(total, _mm256_slli_epi64::<2>(popcnt64(hs.fours)));
    total = _mm256_add_epi64(total, _mm256_slli_epi64::<1>(popcnt64(hs.twos)));
    total = _mm256_add_epi64(total, popcnt64(hs.ones));
    let side = hs.side.iter().sum::<u64>();
    total = _mm256_add_epi64(total, _mm256_set_epi64x(0, 0, 0, side as i64));
    (total, at)
}

/// The number of set bits in `bytes`.
///
/// # Safety
/// The CPU must support AVX2 and POPCNT.
#[target_feature(enable = "avx2,popcnt")]
pub(crate) unsafe fn count(bytes: &[u8]) -> u64 {
    let len = bytes.len();
    if len < 32 {
        // No whole vector: POPCNT on words (this target feature enables it).
        let mut n = 0u64;
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            n += u64::from(u64_le(w, 0).count_ones());
        }
        return n + u64::from(tail_u64_le(words.remainder()).count_ones());
    }
    let (mut total, mut at) = if len >= SIDE_MAX {
        // SAFETY: AVX2 and POPCNT are enabled in this function.
        unsafe { harley_seal::<0>(bytes) }
    } else if len >= HARLEY_SEAL_MIN {
        // SAFETY: as above.
        unsafe { harley_seal::<SIDE_BLOCK>(bytes) }
    } else {
        (_mm256_setzero_si256(), 0)
    };
    // Medium loop: two vectors per VPSADBW (per byte lane the two `up`
    // lookups add to 8 + their counts, the `down` ones to 8 - theirs).
    while at + 64 <= len {
        // SAFETY: at + 64 <= len.
        let (a, b) = unsafe { (load(bytes, at), load(bytes, at + 32)) };
        let (a_lo, a_hi) = nibble_counts(a);
        let (b_lo, b_hi) = nibble_counts(b);
        let up = _mm256_add_epi8(a_lo, b_lo);
        let down = _mm256_add_epi8(a_hi, b_hi);
        total = _mm256_add_epi64(total, _mm256_sad_epu8(up, down));
        at += 64;
    }
    if at + 32 <= len {
        // SAFETY: at + 32 <= len.
        total = _mm256_add_epi64(total, popcnt64(unsafe { load(bytes, at) }));
        at += 32;
    }
    let r = len - at;
    if r > 0 {
        // The last 32 bytes of the slice (len >= 32), of which only the last
        // r < 32 are new.
        // SAFETY: len >= 32, so len - 32 + 32 <= len; the mask table has 64
        // bytes and r + 32 < 64.
        let (v, keep) = unsafe { (load(bytes, len - 32), load(&TAIL_MASK, r)) };
        total = _mm256_add_epi64(total, popcnt64(_mm256_and_si256(v, keep)));
    }
    hsum(total)
}

/// Scans of at least this many bytes align [`find_not`]'s loop to 32 bytes
/// (so that no load crosses a cache line), the `avx512` scan's threshold.
const FIND_ALIGN_MIN: usize = 512;

// The aligned start needs the first 32 bytes to be in the slice.
const _: () = assert!(FIND_ALIGN_MIN >= 32);

/// The index of the first byte of `bytes` that is not `skip`, or
/// `bytes.len()`.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn find_not(bytes: &[u8], skip: u8) -> usize {
    let len = bytes.len();
    if len < 32 {
        return scalar::find_not(bytes, skip);
    }
    let pattern = _mm256_set1_epi8(skip as i8);
    // Bit k set: byte k of the vector at `at` is `skip`.
    // SAFETY: callers pass at + 32 <= len.
    let same = |at: usize| unsafe { _mm256_cmpeq_epi8(load(bytes, at), pattern) };
    let first_other = |eq: __m256i| (!(_mm256_movemask_epi8(eq) as u32)).trailing_zeros() as usize;
    let mut at = 0;
    if len >= FIND_ALIGN_MIN {
        // The first 32 bytes unaligned, then the loop from the first 32-byte
        // boundary after the start (at most 32 bytes in, so no byte is
        // skipped): its loads then never cross a cache line. `same(0)`:
        // 32 <= FIND_ALIGN_MIN <= len.
        let e = same(0);
        if _mm256_movemask_epi8(e) != -1 {
            return first_other(e);
        }
        at = 32 - (bytes.as_ptr() as usize & 31);
    }
    // Four vectors per test: AND the comparisons, one movemask and branch.
    while at + 128 <= len {
        let (e0, e1, e2, e3) = (same(at), same(at + 32), same(at + 64), same(at + 96));
        let all = _mm256_and_si256(_mm256_and_si256(e0, e1), _mm256_and_si256(e2, e3));
        if _mm256_movemask_epi8(all) != -1 {
            for (k, e) in [e0, e1, e2, e3].into_iter().enumerate() {
                if _mm256_movemask_epi8(e) != -1 {
                    return at + 32 * k + first_other(e);
                }
            }
        }
        at += 128;
    }
    while at + 32 <= len {
        let e = same(at);
        if _mm256_movemask_epi8(e) != -1 {
            return at + first_other(e);
        }
        at += 32;
    }
    if at < len {
        // Overlapping last vector: its bytes before `at` are all `skip`, so
        // its first other byte is the answer.
        let e = same(len - 32);
        if _mm256_movemask_epi8(e) != -1 {
            return len - 32 + first_other(e);
        }
    }
    len
}

/// The features this kernel needs (POPCNT for the count's side stream).
pub(crate) fn supported(f: &Features) -> bool {
    f.avx2 && f.popcnt
}

/// Its functions: the count, the scan, and the AVX2 BITOP.
pub(crate) const FNS: Fns = Fns {
    count,
    find_not,
    bitop: avx2_bitop::combine,
    bitop_count: avx2_bitop::count,
};
