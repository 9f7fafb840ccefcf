//! x86_64 AVX-512: VPOPCNTQ over 256-byte blocks into four accumulators,
//! 64-byte-aligned loads from 512 bytes up (from 800 on Intel), masked loads
//! for the head and tail (no scalar tail), and the BITPOS scan with
//! byte-compare masks.
//!
//! VPOPCNTQ counts each 64-bit lane directly, so the accumulators are plain
//! 64-bit lane sums and the only horizontal reduction is the final one (Redis
//! 8.x reduces every 64-byte block instead). VPOPCNTB (BITALG) would give
//! byte counts that still need a VPSADBW to widen, so it does not help here.
//!
//! A masked load (`vmovdqu8` with a `k` mask) suppresses faults on the
//! masked-off bytes, so the final partial vector reads exactly the slice's
//! last bytes and never past its end.

use core::arch::x86_64::*;

use crate::kernels::x86_64::{avx2, avx512_bitop};
use crate::kernels::Fns;
use simd_core::Features;

/// The 64 bytes of `bytes` at `at`.
///
/// # Safety
/// `at + 64 <= bytes.len()`; the CPU supports AVX-512F.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn load(bytes: &[u8], at: usize) -> __m512i {
    debug_assert!(at + 64 <= bytes.len());
    // SAFETY: the caller guarantees the 64 bytes lie inside `bytes`;
    // VMOVDQU64 has no alignment requirement.
    unsafe { _mm512_loadu_si512(bytes.as_ptr().add(at).cast()) }
}

/// The `len - at < 64` bytes of `bytes` from `at`, zero elsewhere, and the
/// mask of the loaded bytes.
///
/// # Safety
/// `at < bytes.len() < at + 64`; the CPU supports AVX-512BW.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn load_tail(bytes: &[u8], at: usize) -> (__m512i, u64) {
    let r = bytes.len() - at;
    debug_assert!(r > 0 && r < 64);
    let mask = u64::MAX >> (64 - r);
    // SAFETY: `at` is inside the slice; the mask enables exactly the bytes
    // at..len, and masked-off bytes are neither read nor able to fault.
    let v = unsafe { _mm512_maskz_loadu_epi8(mask, bytes.as_ptr().add(at).cast()) };
    (v, mask)
}

/// The first `head` bytes of `bytes` (0 < head < 64), zero elsewhere.
///
/// # Safety
/// `0 < head < 64`, `head <= bytes.len()`; the CPU supports AVX-512BW.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn load_head(bytes: &[u8], head: usize) -> __m512i {
    debug_assert!(head > 0 && head < 64 && head <= bytes.len());
    // SAFETY: the mask enables exactly bytes 0..head, inside the slice;
    // masked-off bytes are neither read nor able to fault.
    unsafe { _mm512_maskz_loadu_epi8(u64::MAX >> (64 - head), bytes.as_ptr().cast()) }
}

/// VPOPCNTQ of the 64 bytes of `bytes` at `at`.
///
/// # Safety
/// `at + 64 <= bytes.len()`; the CPU supports AVX-512F and VPOPCNTDQ.
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
#[inline]
unsafe fn pop(bytes: &[u8], at: usize) -> __m512i {
    // SAFETY: the caller guarantees at + 64 <= bytes.len(), so the load
    // stays inside the slice, and AVX-512F, which the load needs.
    _mm512_popcnt_epi64(unsafe { load(bytes, at) })
}

/// VPOPCNTQ of the four vectors of a 256-byte block.
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
#[inline]
fn pop4(block: &[u8; 256]) -> [__m512i; 4] {
    // SAFETY: the four loads lie inside the 256-byte block.
    unsafe {
        [
            pop(block, 0),
            pop(block, 64),
            pop(block, 128),
            pop(block, 192),
        ]
    }
}

/// The lane-wise sums of the four accumulators and four block counts.
#[target_feature(enable = "avx512f")]
#[inline]
fn add4(acc: [__m512i; 4], p: [__m512i; 4]) -> [__m512i; 4] {
    [
        _mm512_add_epi64(acc[0], p[0]),
        _mm512_add_epi64(acc[1], p[1]),
        _mm512_add_epi64(acc[2], p[2]),
        _mm512_add_epi64(acc[3], p[3]),
    ]
}

/// Inputs of at least this many bytes take [`count_long`], which first
/// counts the bytes before the next 64-byte boundary with one masked load so
/// that every full load of its loop is aligned: on Zen 5 a 64-byte load that
/// crosses a cache line halves the load throughput. Below it the extra masked load and address arithmetic cost more
/// than the few split loads. On Intel inputs below [`MID_MAX`] take
/// [`count_mid`] instead.
const ALIGN_MIN: usize = 512;

// `count_short` counts at most one 256-byte block.
const _: () = assert!(ALIGN_MIN <= 512);

/// The number of set bits in `bytes`.
///
/// Straight VPOPCNTQ over 256-byte blocks into four accumulators (one
/// VPADDQ chain per vector of the block), then the last 0..=255 bytes with
/// one 128-byte step, one 64-byte step and one masked tail load chosen by
/// bit tests of the length, and the single horizontal sum; no Harley-Seal
/// or other setup. Below [`ALIGN_MIN`] bytes ([`count_short`]) the call at
/// 256 bytes is ~30 instructions; below [`MID_MAX`] on Intel
/// ([`count_mid`]) straight-line code with no alignment; then
/// [`count_long`]'s aligned loop, and from [`NEAR_MIN`] the same loop with
/// software prefetch ([`count_streamed`]), kept apart so that the call
/// into the CPU detection that the prefetch test makes costs the shorter
/// inputs no register saves.
///
/// # Safety
/// The CPU must support AVX-512F, AVX-512BW and AVX-512 VPOPCNTDQ.
#[target_feature(enable = "avx512f,avx512bw,avx512vpopcntdq")]
pub(crate) unsafe fn count(bytes: &[u8]) -> u64 {
    if bytes.len() < ALIGN_MIN {
        // SAFETY: same CPU features.
        unsafe { count_short(bytes) }
    } else if bytes.len() < MID_MAX && split_loads_cheap() {
        // SAFETY: same CPU features; ALIGN_MIN <= len < MID_MAX.
        unsafe { count_mid(bytes) }
    } else if bytes.len() < NEAR_MIN {
        // SAFETY: same CPU features.
        unsafe { count_long(bytes) }
    } else {
        // SAFETY: same CPU features.
        unsafe { count_streamed(bytes) }
    }
}

/// [`count`] below [`ALIGN_MIN`] bytes: the 256-byte block, if any, starts
/// the accumulators instead of adding to zeros.
///
/// # Safety
/// As for [`count`], and `bytes.len() < 512` (one block at most; not a
/// memory-safety condition, longer inputs would be miscounted).
#[target_feature(enable = "avx512f,avx512bw,avx512vpopcntdq")]
#[inline]
unsafe fn count_short(bytes: &[u8]) -> u64 {
    let (blocks, _) = bytes.as_chunks::<256>();
    let acc = match blocks.first() {
        Some(block) => pop4(block),
        None => [_mm512_setzero_si512(); 4],
    };
    // SAFETY: same CPU features.
    unsafe { finish(blocks.len() * 256, bytes, acc) }
}

/// Inputs below this many bytes (and from [`ALIGN_MIN`]) take [`count_mid`]
/// where [`split_loads_cheap`] holds.
const MID_MAX: usize = 800;

// `count_mid` counts at most three 256-byte blocks, at least two.
const _: () = assert!(ALIGN_MIN >= 512 && MID_MAX <= 1024);

/// Whether a 64-byte load that crosses a cache line costs no more than the
/// VPOPCNTQ it feeds, so that [`count_mid`]'s unaligned loads beat
/// [`count_long`]'s aligning head: Intel cores, where VPOPCNTQ issues on
/// one port (one per cycle) while two 64-byte loads issue per cycle, so a
/// split load's second access fits in the spare load slot. Not on AMD: Zen 5
/// halves its load throughput on split 64-byte loads (see [`ALIGN_MIN`]),
/// and Zen 4 was not measured with [`count_mid`]. A speed choice only, both
/// paths count the same. Two loads and compares: the kernel runs only after
/// the CPU check that detected the features, so no detection call (whose
/// register saves cost 0.3-0.5 ns per 512-1000-byte count in this path).
#[inline]
fn split_loads_cheap() -> bool {
    cpu_detect::features_if_detected().is_some_and(|f| f.vendor == cpu_detect::Vendor::Intel)
}

/// [`count`] from [`ALIGN_MIN`] to below [`MID_MAX`] bytes on CPUs where
/// [`split_loads_cheap`] holds: unaligned loads from the slice's start (no
/// head), two or three whole 256-byte blocks with no loop, then [`finish`].
///
/// On Intel the aligning head's extra VPOPCNTQ costs more than the split
/// loads it avoids at these sizes (VPOPCNTQ sets the pace there).
///
/// # Safety
/// As for [`count`], and `512 <= bytes.len() < 1024` (below 512 an
/// out-of-bounds index panics; from 1024 bytes the count would be wrong:
/// neither is a memory-safety condition).
#[target_feature(enable = "avx512f,avx512bw,avx512vpopcntdq")]
#[inline(never)]
unsafe fn count_mid(bytes: &[u8]) -> u64 {
    debug_assert!((512..1024).contains(&bytes.len()));
    let (blocks, _) = bytes.as_chunks::<256>();
    let mut acc = pop4(&blocks[0]);
    acc = add4(acc, pop4(&blocks[1]));
    let mut done = 512;
    if let Some(block) = blocks.get(2) {
        acc = add4(acc, pop4(block));
        done = 768;
    }
    // SAFETY: same CPU features.
    unsafe { finish(done, bytes, acc) }
}

/// [`count`] from [`ALIGN_MIN`] bytes (from [`MID_MAX`] on Intel) to below
/// [`NEAR_MIN`]: a masked load of the bytes before the first 64-byte
/// boundary, then aligned 256-byte blocks; no prefetch.
///
/// Longer inputs take the same loop in [`count_streamed`], with software
/// prefetch from [`PREFETCH_MIN`] bytes: into L2
/// (`prefetcht1`) [`PREFETCH_AHEAD`] bytes ahead: it keeps DRAM-sized counts
/// level with a read loop, while inside the L3 the same prefetch was
/// slower (hence the threshold), and `prefetcht0` or other distances
/// measured slower.
///
/// On CPUs that run 512-bit operations as two halves (AMD Zen 4) inputs
/// from [`NEAR_MIN`] bytes also get `prefetcht0` [`NEAR_AHEAD`] bytes ahead,
/// see [`near_prefetch`].
///
/// # Safety
/// As for [`count`].
#[target_feature(enable = "avx512f,avx512bw,avx512vpopcntdq")]
#[inline(never)]
unsafe fn count_long(bytes: &[u8]) -> u64 {
    // SAFETY: same CPU features.
    unsafe { count_aligned::<false>(bytes) }
}

/// [`count_long`] from [`NEAR_MIN`] bytes, with the software prefetches.
///
/// # Safety
/// As for [`count`].
#[target_feature(enable = "avx512f,avx512bw,avx512vpopcntdq")]
#[inline(never)]
unsafe fn count_streamed(bytes: &[u8]) -> u64 {
    // SAFETY: same CPU features.
    unsafe { count_aligned::<true>(bytes) }
}

/// The body of [`count_long`] (`STREAM` false: no prefetch, no call, so
/// no callee-saved registers to spill) and [`count_streamed`] (`STREAM`
/// true: the prefetches their sizes call for).
///
/// # Safety
/// As for [`count`], and `bytes.len() >= 64`.
#[target_feature(enable = "avx512f,avx512bw,avx512vpopcntdq")]
#[inline]
unsafe fn count_aligned<const STREAM: bool>(bytes: &[u8]) -> u64 {
    let zero = _mm512_setzero_si512();
    let head = (bytes.as_ptr() as usize).wrapping_neg() & 63;
    let mut first = zero;
    if head != 0 {
        // SAFETY: 0 < head < 64 <= len.
        first = _mm512_popcnt_epi64(unsafe { load_head(bytes, head) });
    }
    let body = &bytes[head..];
    let (blocks, _) = body.as_chunks::<256>();
    let mut acc = [zero, zero, zero, first];
    let prefetch = STREAM && body.len() >= PREFETCH_MIN;
    let near = STREAM && near_prefetch(body.len());
    for (b, block) in blocks.iter().enumerate() {
        let at = body.as_ptr().wrapping_add(256 * b);
        if near {
            prefetch_block::<_MM_HINT_T0>(at.wrapping_add(NEAR_AHEAD));
        }
        if prefetch {
            prefetch_block::<_MM_HINT_T1>(at.wrapping_add(PREFETCH_AHEAD));
        }
        acc = add4(acc, pop4(block));
    }
    // SAFETY: same CPU features.
    unsafe { finish(blocks.len() * 256, body, acc) }
}

/// Inputs of at least this many bytes (past the 32 MB L3 of the Zen 4 and
/// Zen 5 parts measured) are prefetched; see [`count_long`].
const PREFETCH_MIN: usize = 32 << 20;
/// How far ahead of the loads [`count_long`] prefetches.
const PREFETCH_AHEAD: usize = 4096;

/// Prefetches the four cache lines from `p` with hint `HINT`.
#[inline(always)]
fn prefetch_block<const HINT: i32>(p: *const u8) {
    for line in 0..4 {
        // SAFETY: a prefetch is a hint that never faults, past the end of an
        // allocation included (unsafe to call before Rust 1.90).
        #[allow(unused_unsafe)]
        unsafe {
            _mm_prefetch::<HINT>(p.wrapping_add(64 * line).cast())
        };
    }
}

/// Inputs of at least this many bytes get the L1 prefetch [`NEAR_AHEAD`]
/// bytes ahead where [`near_prefetch`] holds.
const NEAR_MIN: usize = 4 << 20;

// Every prefetch starts at or above `NEAR_MIN`, where `count_streamed` runs.
const _: () = assert!(NEAR_MIN <= PREFETCH_MIN);

/// How far ahead of the loads the L1 prefetch reaches.
const NEAR_AHEAD: usize = 256;

/// Whether [`count_long`] prefetches `len` bytes into L1 [`NEAR_AHEAD`]
/// bytes ahead: from [`NEAR_MIN`] bytes on CPUs that run 512-bit
/// operations as two halves (AMD Zen 4), where it makes 12.5 MB 4-6%
/// faster; below [`NEAR_MIN`] the data is in L2 or L3 and it gains nothing.
#[inline]
fn near_prefetch(len: usize) -> bool {
    len >= NEAR_MIN && cpu_detect::features().splits_512bit_ops()
}

/// Adds `bytes[done..]` (`done` a multiple of 256, fewer than 256 bytes
/// left) to the four accumulators and returns the total: one 128-byte and
/// one 64-byte step and one masked tail load, each behind one bit test of
/// the length.
///
/// # Safety
/// The CPU supports AVX-512F, AVX-512BW and VPOPCNTDQ.
#[target_feature(enable = "avx512f,avx512bw,avx512vpopcntdq")]
#[inline]
unsafe fn finish(done: usize, bytes: &[u8], acc: [__m512i; 4]) -> u64 {
    let rest = &bytes[done..];
    debug_assert!(rest.len() < 256);
    let r = rest.len();
    let [mut a0, mut a1, mut a2, mut a3] = acc;
    // One test skips all three steps for whole blocks (the common sizes).
    if r != 0 {
        let mut at = 0;
        if r & 128 != 0 {
            // SAFETY: 128 <= r.
            unsafe {
                a0 = _mm512_add_epi64(a0, pop(rest, 0));
                a1 = _mm512_add_epi64(a1, pop(rest, 64));
            }
            at = 128;
        }
        if r & 64 != 0 {
            // SAFETY: at + 64 <= r (at is the 128 bit of r, or 0).
            a2 = _mm512_add_epi64(a2, unsafe { pop(rest, at) });
            at += 64;
        }
        if r & 63 != 0 {
            // SAFETY: at = r & !63, so at < r < at + 64.
            let (v, _) = unsafe { load_tail(rest, at) };
            a3 = _mm512_add_epi64(a3, _mm512_popcnt_epi64(v));
        }
    }
    let sum = _mm512_add_epi64(_mm512_add_epi64(a0, a1), _mm512_add_epi64(a2, a3));
    _mm512_reduce_add_epi64(sum) as u64
}

/// The number of set bits in the `n <= 64` bytes at `p` with one 512-bit
/// masked load: the mask `bzhi(!0, n)`, a zero-masked `vmovdqu8` of 64
/// bytes, VPOPCNTQ, then the eight lane counts (each at most 64) narrowed
/// to bytes (`vpmovqb`) and summed by one `vpsadbw`; nine instructions, no
/// branch on `n`. Inline assembly, so it inlines into baseline-compiled
/// callers. The short path of [`crate::count`] on CPUs in the `avx512`
/// class with AVX-512VL and BMI2: faster at every length than POPCNT on
/// words or two 256-bit halves, on AMD and Intel, and no length branch to
/// mispredict on strings of random lengths.
///
/// # Safety
/// `n <= 64` and the `n` bytes at `p` are readable; the CPU has AVX-512F,
/// AVX-512BW, AVX-512VL, AVX-512 VPOPCNTDQ and BMI2 (any caller: this is
/// inline assembly, not a `#[target_feature]` function).
#[inline(always)]
pub(crate) unsafe fn count_upto64_zmm(p: *const u8, n: usize) -> u64 {
    debug_assert!(n <= 64);
    let count: u64;
    // SAFETY: the features by contract; the load is masked to bytes 0..n,
    // which are readable (masked-off bytes are not accessed and cannot
    // fault, so it never reaches past the slice); the clobbered vector and
    // mask registers are declared.
    unsafe {
        core::arch::asm!(
            "mov {m}, -1",
            "bzhi {m}, {m}, {n}",
            "kmovq k1, {m}",
            "vmovdqu8 zmm16{{k1}}{{z}}, [{p}]",
            "vpopcntq zmm16, zmm16",
            "vpmovqb xmm16, zmm16",
            "vpxord xmm17, xmm17, xmm17",
            "vpsadbw xmm16, xmm16, xmm17",
            "vmovq {m}, xmm16",
            p = in(reg) p,
            n = in(reg) n,
            m = out(reg) count,
            out("zmm16") _,
            out("zmm17") _,
            out("k1") _,
            options(pure, readonly, nostack),
        );
    }
    count
}

/// Scans of at least this many bytes align [`find_not`]'s loop to 64
/// bytes, as [`ALIGN_MIN`] does for the count (with the loop's
/// `vpternlogd` fold, ~20% faster on Zen 4).
const FIND_ALIGN_MIN: usize = 512;

/// The VPTERNLOGD truth table of `(a ^ c) | (b ^ c)` (bit `4a + 2b + c`
/// of the immediate is the result for those input bits): set where `a` or
/// `b` differs from `c`, i.e. everywhere but where all three agree.
const EITHER_DIFFERS: i32 = 0x7E;

// The aligned start needs the first 64 bytes to be in the slice.
const _: () = assert!(FIND_ALIGN_MIN >= 64);

/// The index of the first byte of `bytes` that is not `skip`, or
/// `bytes.len()`.
///
/// # Safety
/// The CPU must support AVX-512F and AVX-512BW.
#[target_feature(enable = "avx512f,avx512bw")]
pub(crate) unsafe fn find_not(bytes: &[u8], skip: u8) -> usize {
    let len = bytes.len();
    let pattern = _mm512_set1_epi8(skip as i8);
    let mut at = 0;
    if len >= FIND_ALIGN_MIN {
        // The first 64 bytes unaligned, then the loop from the first 64-byte
        // boundary after the start (at most 64 bytes in, so no byte is
        // skipped): its loads then never cross a cache line.
        // SAFETY: 64 <= FIND_ALIGN_MIN <= len.
        let m = _mm512_cmpneq_epi8_mask(unsafe { load(bytes, 0) }, pattern);
        if m != 0 {
            return m.trailing_zeros() as usize;
        }
        at = 64 - (bytes.as_ptr() as usize & 63);
    }
    // Four vectors per branch: two VPTERNLOGDs mark the bytes where either
    // of a pair differs from `skip`, one VPTESTMB of their OR gives the
    // branch; only a block with a hit compares its vectors one by one.
    while at + 256 <= len {
        // SAFETY: at + 256 <= len.
        let v = unsafe {
            [
                load(bytes, at),
                load(bytes, at + 64),
                load(bytes, at + 128),
                load(bytes, at + 192),
            ]
        };
        let t0 = _mm512_ternarylogic_epi32::<EITHER_DIFFERS>(v[0], v[1], pattern);
        let t1 = _mm512_ternarylogic_epi32::<EITHER_DIFFERS>(v[2], v[3], pattern);
        let any = _mm512_or_si512(t0, t1);
        if _mm512_test_epi8_mask(any, any) != 0 {
            for (k, vk) in v.into_iter().enumerate() {
                let m = _mm512_cmpneq_epi8_mask(vk, pattern);
                if m != 0 {
                    return at + 64 * k + m.trailing_zeros() as usize;
                }
            }
        }
        at += 256;
    }
    while at + 64 <= len {
        // SAFETY: at + 64 <= len.
        let m = _mm512_cmpneq_epi8_mask(unsafe { load(bytes, at) }, pattern);
        if m != 0 {
            return at + m.trailing_zeros() as usize;
        }
        at += 64;
    }
    if at < len {
        // SAFETY: at < len < at + 64.
        let (v, valid) = unsafe { load_tail(bytes, at) };
        let m = _mm512_mask_cmpneq_epi8_mask(valid, v, pattern);
        if m != 0 {
            return at + m.trailing_zeros() as usize;
        }
    }
    len
}

/// The features this kernel needs: VPOPCNTDQ for the counts, BMI2 for the
/// BITOP masks (every CPU with VPOPCNTDQ has BMI2).
pub(crate) fn supported(f: &Features) -> bool {
    f.avx512f && f.avx512bw && f.avx512vpopcntdq && f.bmi2
}

/// Its functions: the count, the scan, and the AVX-512 BITOP.
pub(crate) const FNS: Fns = Fns {
    count,
    find_not,
    bitop: avx512_bitop::combine,
    bitop_count: avx512_bitop::count,
};

/// The features of the `avx512bw` kernel: AVX-512F/BW without VPOPCNTDQ
/// (Skylake-SP, Cascade Lake), which every such CPU pairs with AVX2 and
/// POPCNT.
pub(crate) fn supported_bw(f: &Features) -> bool {
    f.avx512f && f.avx512bw && f.avx2 && f.popcnt
}

/// The `avx512bw` kernel: this file's scan (it needs only AVX-512BW), the
/// `avx2` count and BITOP (VPSHUFB popcounts: no VPOPCNTQ there).
pub(crate) const FNS_BW: Fns = Fns {
    find_not,
    ..avx2::FNS
};

#[cfg(test)]
mod tests {
    extern crate std;
    use crate::kernels::scalar::count as oracle;
    use simd_core::testing::{for_each_len_fenced, for_each_len_offset};

    /// The short path, called directly (the dispatcher takes it only on
    /// CPUs in its class): every length up to 64 at every offset, and flush
    /// against guard pages.
    #[test]
    fn short_path_counts_every_length() {
        let f = cpu_detect::features();
        if !(f.avx512f && f.avx512bw && f.avx512vl && f.avx512vpopcntdq && f.bmi2) {
            std::eprintln!("skipped: no AVX-512 VPOPCNTDQ/VL or BMI2 on this CPU");
            return;
        }
        // SAFETY: the features were checked above; each slice's `len <= 64`
        // bytes are readable at its pointer.
        let run = |b: &[u8]| unsafe { super::count_upto64_zmm(b.as_ptr(), b.len()) };
        for_each_len_offset(64, 5, |b, off| {
            assert_eq!(run(b), oracle(b), "len {} offset {off}", b.len());
        });
        for_each_len_fenced(64, 6, |b| assert_eq!(run(b), oracle(b), "len {}", b.len()));
        let ones = [0xffu8; 64];
        for len in 0..=64 {
            assert_eq!(run(&ones[..len]), 8 * len as u64, "all ones, len {len}");
        }
    }

    /// The path choice follows its documented rule once the features are
    /// detected: [`super::count_mid`] on Intel cores, the aligned loop
    /// elsewhere (a speed choice only, so the counting tests cannot see it).
    #[test]
    fn split_loads_cheap_only_on_intel() {
        let f = cpu_detect::features();
        assert!(cpu_detect::features_if_detected().is_some());
        assert_eq!(
            super::split_loads_cheap(),
            f.vendor == cpu_detect::Vendor::Intel,
            "vendor {:?}",
            f.vendor
        );
    }

    /// Both paths for 512..1024 bytes, called directly (the kernel picks
    /// one by vendor, so either may never run on the CI machine): every
    /// length at every offset, and against guard pages.
    #[test]
    fn mid_and_aligned_paths_count_every_length() {
        let f = cpu_detect::features();
        if !(f.avx512f && f.avx512bw && f.avx512vpopcntdq) {
            std::eprintln!("skipped: no AVX-512 VPOPCNTDQ on this CPU");
            return;
        }
        for_each_len_offset(1023, 7, |b, off| {
            if b.len() < super::ALIGN_MIN {
                return;
            }
            // SAFETY: the features were checked above; 512 <= len.
            let long = unsafe { super::count_long(b) };
            assert_eq!(long, oracle(b), "count_long len {} offset {off}", b.len());
            if b.len() < super::MID_MAX {
                // SAFETY: as above, and len < MID_MAX <= 1024.
                let mid = unsafe { super::count_mid(b) };
                assert_eq!(mid, oracle(b), "count_mid len {} offset {off}", b.len());
            }
        });
        for_each_len_fenced(super::MID_MAX - 1, 8, |b| {
            if b.len() >= super::ALIGN_MIN {
                // SAFETY: as above.
                let (mid, long) = unsafe { (super::count_mid(b), super::count_long(b)) };
                assert_eq!((mid, long), (oracle(b), oracle(b)), "len {}", b.len());
            }
        });
    }
}
