//! Shared helpers for the criterion benchmarks in `benches/benches/`.
//!
//! # Naming convention (read by `cargo xtask bench --compare`)
//! - group: `"<crate>/<operation>"`, e.g. `"bitcount/count"`;
//! - function: `"ours"` for the public API, `"kernel:<name>"` for one kernel
//!   called directly, or the alternative's name (`"simd-popcnt"`, `"naive"`,
//!   `"siphasher"`, `"std"`, ...);
//! - parameter: the input size in bytes (or the element count), with
//!   `Throughput::Bytes` / `Throughput::Elements` set on the group.

#![deny(clippy::undocumented_unsafe_blocks)]

pub mod bitop;
#[cfg(feature = "cluster")]
pub mod cluster;
pub mod read;

use std::hint::black_box;
use std::time::{Duration, Instant};

/// Criterion settings for the whole suite; `KVPRIMS_BENCH_QUICK=1` (set by
/// `cargo xtask bench --quick`) shortens warm-up and measurement.
pub fn config() -> criterion::Criterion {
    let c = criterion::Criterion::default().configure_from_args();
    if quick() {
        // About 0.4 s per benchmark: the whole quick suite in a few minutes.
        c.warm_up_time(Duration::from_millis(100))
            .measurement_time(Duration::from_millis(250))
            .sample_size(10)
    } else {
        c.warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2))
    }
}

/// Whether the quick mode is on (fewer sizes, shorter measurement).
pub fn quick() -> bool {
    std::env::var_os("KVPRIMS_BENCH_QUICK").is_some_and(|v| v != "0")
}

/// Deterministic pseudo-random bytes for benchmark inputs.
pub fn bytes(seed: u64, len: usize) -> Vec<u8> {
    simd_core::testing::random_bytes(seed, len)
}

/// `n` distinct 16-character hex elements (a splitmix64 sequence from
/// `seed`): the `hll/add_sparse` benchmark's set, shared with the
/// `hll_timing` harness so both add the same elements.
pub fn hex_elements(seed: u64, n: usize) -> Vec<Vec<u8>> {
    (0..n as u64)
        .map(|i| {
            let mut z = (i ^ seed).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            format!("{:016x}", z ^ (z >> 31)).into_bytes()
        })
        .collect()
}

/// The `naive` population count of the bitcount benchmarks: portable
/// `u64::count_ones` over 8-byte words, then the tail bytes, inlined into
/// the caller.
#[inline]
pub fn naive_count(bytes: &[u8]) -> u64 {
    let mut words = bytes.chunks_exact(8);
    let mut n = 0u64;
    for w in &mut words {
        n += u64::from(u64::from_le_bytes(w.try_into().unwrap()).count_ones());
    }
    n + words
        .remainder()
        .iter()
        .map(|b| u64::from(b.count_ones()))
        .sum::<u64>()
}

/// For the min-of-N harnesses in `examples/`: the sizes given as
/// `--sizes=16,128` on the command line, else `default`.
pub fn sizes_arg(default: &[usize]) -> Vec<usize> {
    std::env::args()
        .find_map(|a| {
            a.strip_prefix("--sizes=").map(|s| {
                s.split(',')
                    .map(|x| x.parse().expect("--sizes= takes sizes like 16,128"))
                    .collect()
            })
        })
        .unwrap_or_else(|| default.to_vec())
}

/// For the min-of-N harnesses in `examples/` (machines too busy for
/// criterion's medians): the fastest of `runs` rounds of each of `fs`, in
/// ns per call divided by `per`. The functions take turns within each
/// round, so a busy spell on the machine slows all alike.
pub fn min_ns<R>(runs: usize, per: f64, fs: &[&dyn Fn() -> R]) -> Vec<f64> {
    let mut best = vec![f64::MAX; fs.len()];
    for _ in 0..runs {
        for (f, b) in fs.iter().zip(&mut best) {
            let t = Instant::now();
            black_box(f());
            *b = b.min(t.elapsed().as_nanos() as f64 / per);
        }
    }
    best
}

/// The workspace README's examples, run as doc tests (this crate depends on
/// every primitive crate).
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct WorkspaceReadme;
