//! x86_64 POPCNT over `u64` words with four independent accumulators.
//!
//! POPCNT has a throughput of one or more per cycle but a latency of three,
//! so a single running sum would be latency bound; four sums keep four
//! additions in flight. (Some Intel cores also have a false dependency on
//! POPCNT's destination register; independent chains hide it too.)

use simd_core::load::{tail_u64_le, u64_le};

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
    let mut blocks = bytes.chunks_exact(64);
    // No software prefetch: 1 KB ahead made 125 MB 8-13% slower on Zen 5
    // (min-of-N 4.18-4.50 against 3.83-3.92 ms without), as for the vector
    // kernels.
    for blk in &mut blocks {
        a += ones(blk, 0) + ones(blk, 32);
        b += ones(blk, 8) + ones(blk, 40);
        c += ones(blk, 16) + ones(blk, 48);
        d += ones(blk, 24) + ones(blk, 56);
    }
    let mut words = blocks.remainder().chunks_exact(8);
    for w in &mut words {
        a += ones(w, 0);
    }
    b += u64::from(tail_u64_le(words.remainder()).count_ones());
    (a + b) + (c + d)
}
