//! x86_64 POPCNT over `u64` words with four independent accumulators.
//!
//! POPCNT has a throughput of one or more per cycle but a latency of three,
//! so a single running sum would be latency bound; four sums keep four
//! additions in flight. (Some Intel cores also have a false dependency on
//! POPCNT's destination register; independent chains hide it too.)

use crate::kernels::Fns;
use crate::kernels::{scalar, PREFETCH_AHEAD, PREFETCH_MIN};
use simd_core::load::{tail_u64_le, u64_le};
use simd_core::Features;

#[inline(always)]
fn ones(block: &[u8], at: usize) -> u64 {
    u64::from(u64_le(block, at).count_ones())
}

/// The number of set bits in `bytes`.
///
/// # Safety
/// The CPU must support POPCNT.
#[target_feature(enable = "popcnt")]
pub(crate) unsafe fn count(bytes: &[u8]) -> u64 {
    let (mut a, mut b, mut c, mut d) = (0u64, 0u64, 0u64, 0u64);
    // Software prefetch 8 KB ahead from 1 MB up: DRAM-sized counts then
    // run at the read loop's speed.
    let prefetch = bytes.len() >= PREFETCH_MIN;
    // 128 bytes (16 POPCNTs) per iteration: on Zen 1 (where this kernel
    // replaces the AVX2 one) the loop's own instructions compete with
    // POPCNT and the adds for the four ALUs (4-7% faster than 64 bytes
    // from 4 KB up).
    let mut blocks = bytes.chunks_exact(128);
    for blk in &mut blocks {
        if prefetch {
            let p = blk.as_ptr().wrapping_add(PREFETCH_AHEAD);
            simd_core::prefetch_read(p);
            simd_core::prefetch_read(p.wrapping_add(64));
        }
        a += ones(blk, 0) + ones(blk, 32) + ones(blk, 64) + ones(blk, 96);
        b += ones(blk, 8) + ones(blk, 40) + ones(blk, 72) + ones(blk, 104);
        c += ones(blk, 16) + ones(blk, 48) + ones(blk, 80) + ones(blk, 112);
        d += ones(blk, 24) + ones(blk, 56) + ones(blk, 88) + ones(blk, 120);
    }
    // At most 127 bytes remain: one 64-byte block, then words.
    let mut rest = blocks.remainder();
    if rest.len() >= 64 {
        a += ones(rest, 0) + ones(rest, 32);
        b += ones(rest, 8) + ones(rest, 40);
        c += ones(rest, 16) + ones(rest, 48);
        d += ones(rest, 24) + ones(rest, 56);
        rest = &rest[64..];
    }
    let mut words = rest.chunks_exact(8);
    for w in &mut words {
        a += ones(w, 0);
    }
    b += u64::from(tail_u64_le(words.remainder()).count_ones());
    (a + b) + (c + d)
}

/// The features this kernel needs.
pub(crate) fn supported(f: &Features) -> bool {
    f.popcnt
}

/// Its functions: the count; the scan and BITOP are the SWAR ones.
pub(crate) const FNS: Fns = Fns {
    count,
    ..scalar::FNS
};
