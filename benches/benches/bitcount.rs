//! Benchmarks for `bitcount`, side by side with the alternatives.
//!
//! - `bitcount/count`: `ours` (`bitcount::count`), every `kernel:<name>` the
//!   CPU supports, `simd-popcnt` (the Rust port of libpopcnt), `naive` (a
//!   `count_ones` loop over words) and `read-bandwidth`: the same bytes
//!   summed as `u64` words with aligned vector adds over eight accumulators,
//!   the fastest the core can read them, which the count is compared against.
//!   Sizes 16 B .. 256 KB and 12.5 MB (Redis's 100M-bit benchmark key), plus
//!   125 MB (1G bits) outside quick mode.
//! - `bitcount/count-mixed`: 4096 or 65536 strings of random lengths 1..=64
//!   packed back to back in one buffer (a server's short keys), each counted
//!   in order; throughput in strings. Zen 5's branch predictor learns the
//!   4096 lengths (repeated every iteration) but not the 65536, where
//!   branching on the length costs a misprediction per string: `ours`,
//!   `simd-popcnt`, `naive`.
//! - `bitcount/bitpos`: the first set bit at the end of an all-zero buffer
//!   (the whole buffer is scanned): `ours`, each kernel's scan, `naive`.
//! - `bitcount/bitop-<op>-<k>`: BITOP AND, OR, XOR, ONE and DIFF of `k` = 2,
//!   3, 8 and 17 equal-length sources into a reused destination: `ours`
//!   (`bitcount::bitop`), `plain-loop` (one pass per source, as a user would
//!   write it) and `stream-bound` (every source read once, the destination
//!   written once, one add per load: the bandwidth a one-pass BITOP can
//!   reach). Sizes 16 B .. 12.5 MB (quick mode: 64 B, 64 KiB, 12.5 MB).
//! - `bitcount/bitop_count-<op>-<k>`: `bitcount::bitop_count` (`ours`),
//!   `bitop+count` (the result built, then counted) and `read-bound` (the
//!   sources read once, nothing written), AND and OR of 2 and 8 sources.

#![deny(clippy::undocumented_unsafe_blocks)]

use std::hint::black_box;

use benches::naive_count as naive;
use criterion::{BenchmarkId, Criterion, Throughput};

const SMALL_SIZES: [usize; 7] = [16, 32, 64, 256, 1024, 16 << 10, 256 << 10];
const LARGE_SIZES: [usize; 2] = [12_500_000, 125_000_000];

/// Quick mode keeps 12.5 MB (the size the live-server rows of the report are
/// measured at) and drops 125 MB.
fn sizes() -> Vec<usize> {
    let mut v = SMALL_SIZES.to_vec();
    if benches::quick() {
        v.push(LARGE_SIZES[0]);
    } else {
        v.extend(LARGE_SIZES);
    }
    v
}

fn count(c: &mut Criterion) {
    let mut g = c.benchmark_group("bitcount/count");
    let read = benches::read::read_bandwidth();
    for size in sizes() {
        let data = benches::bytes(size as u64, size);
        g.throughput(Throughput::Bytes(size as u64));
        g.bench_with_input(BenchmarkId::new("ours", size), &data, |b, d| {
            b.iter(|| bitcount::count(black_box(d)))
        });
        for k in bitcount::kernels() {
            let id = BenchmarkId::new(format!("kernel:{}", k.name()), size);
            g.bench_with_input(id, &data, |b, d| b.iter(|| k.count(black_box(d))));
        }
        g.bench_with_input(BenchmarkId::new("simd-popcnt", size), &data, |b, d| {
            b.iter(|| simd_popcnt::popcnt(black_box(d)))
        });
        g.bench_with_input(BenchmarkId::new("naive", size), &data, |b, d| {
            b.iter(|| naive(black_box(d)))
        });
        g.bench_with_input(BenchmarkId::new("read-bandwidth", size), &data, |b, d| {
            b.iter(|| read(black_box(d)))
        });
    }
    g.finish();
}

/// `count` strings of random lengths 1..=64, packed back to back in one
/// buffer: the buffer and each string's (offset, length).
fn mixed_strings(count: usize) -> (Vec<u8>, Vec<(usize, usize)>) {
    let mut rng = simd_core::testing::Rng::new(0x5eed);
    let (mut buf, mut spans) = (Vec::new(), Vec::new());
    for _ in 0..count {
        let n = 1 + rng.below(64) as usize;
        spans.push((buf.len(), n));
        buf.extend_from_slice(&benches::bytes(rng.next_u64(), n));
    }
    (buf, spans)
}

/// One `bitcount/count-mixed` row: `f` over every string. Generic, so the
/// count inlines into the loop as a caller's would (a function pointer
/// would measure an indirect call).
fn mixed_row(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    strings: &[&[u8]],
    f: impl Fn(&[u8]) -> u64,
) {
    let id = BenchmarkId::new(name, strings.len());
    g.bench_with_input(id, strings, |b, s| {
        b.iter(|| black_box(s).iter().map(|x| f(x)).sum::<u64>())
    });
}

fn count_mixed(c: &mut Criterion) {
    let mut g = c.benchmark_group("bitcount/count-mixed");
    for count in [4096usize, 65536] {
        let (buf, spans) = mixed_strings(count);
        let strings: Vec<&[u8]> = spans.iter().map(|&(at, n)| &buf[at..at + n]).collect();
        g.throughput(Throughput::Elements(count as u64));
        mixed_row(&mut g, "ours", &strings, bitcount::count);
        mixed_row(&mut g, "simd-popcnt", &strings, simd_popcnt::popcnt);
        mixed_row(&mut g, "naive", &strings, naive);
    }
    g.finish();
}

fn bitpos(c: &mut Criterion) {
    let mut g = c.benchmark_group("bitcount/bitpos");
    let mut sizes = vec![64, 1024, 256 << 10];
    if !benches::quick() {
        sizes.push(12_500_000);
    }
    for size in sizes {
        let mut data = vec![0u8; size];
        data[size - 1] = 1;
        g.throughput(Throughput::Bytes(size as u64));
        let range = bitcount::BitposRange::All;
        g.bench_with_input(BenchmarkId::new("ours", size), &data, |b, d| {
            b.iter(|| bitcount::bitpos(black_box(d), true, range))
        });
        for k in bitcount::kernels() {
            let id = BenchmarkId::new(format!("kernel:{}", k.name()), size);
            g.bench_with_input(id, &data, |b, d| {
                b.iter(|| k.bitpos(black_box(d), true, range))
            });
        }
        g.bench_with_input(BenchmarkId::new("naive", size), &data, |b, d| {
            b.iter(|| {
                let d = black_box(d);
                d.iter()
                    .position(|&x| x != 0)
                    .map_or(-1, |i| 8 * i as i64 + i64::from(d[i].leading_zeros() as u8))
            })
        });
    }
    g.finish();
}

/// BITOP sizes: 16 B .. 12.5 MB; quick mode three of them.
fn bitop_sizes() -> Vec<usize> {
    if benches::quick() {
        vec![64, 64 << 10, 12_500_000]
    } else {
        vec![16, 64, 256, 1024, 16 << 10, 64 << 10, 1 << 20, 12_500_000]
    }
}

/// `k` sources of every size (generated once per `k`).
fn bitop_inputs(k: usize) -> Vec<(usize, Vec<Vec<u8>>)> {
    bitop_sizes()
        .into_iter()
        .map(|n| {
            (
                n,
                (0..k)
                    .map(|j| benches::bytes((n * 41 + j) as u64, n))
                    .collect(),
            )
        })
        .collect()
}

fn bitop(c: &mut Criterion) {
    use bitcount::BitOp;
    for k in [2usize, 3, 8, 17] {
        let inputs = bitop_inputs(k);
        for op in [BitOp::And, BitOp::Or, BitOp::Xor, BitOp::One, BitOp::Diff] {
            let name = format!("bitcount/bitop-{}-{k}", op.name().to_lowercase());
            let mut g = c.benchmark_group(name);
            for (n, data) in &inputs {
                let sources: Vec<&[u8]> = data.iter().map(Vec::as_slice).collect();
                let mut dest = Vec::with_capacity(*n);
                g.throughput(Throughput::Bytes((n * k) as u64));
                g.bench_with_input(BenchmarkId::new("ours", n), &sources, |b, s| {
                    b.iter(|| bitcount::bitop(op, &mut dest, black_box(s)))
                });
                g.bench_with_input(BenchmarkId::new("plain-loop", n), &sources, |b, s| {
                    b.iter(|| benches::bitop::plain(op, &mut dest, black_box(s)))
                });
                g.bench_with_input(BenchmarkId::new("stream-bound", n), &sources, |b, s| {
                    b.iter(|| benches::bitop::stream_bound(&mut dest, black_box(s)))
                });
            }
            g.finish();
        }
        if k == 2 || k == 8 {
            for op in [BitOp::And, BitOp::Or] {
                let name = format!("bitcount/bitop_count-{}-{k}", op.name().to_lowercase());
                let mut g = c.benchmark_group(name);
                for (n, data) in &inputs {
                    let sources: Vec<&[u8]> = data.iter().map(Vec::as_slice).collect();
                    let mut dest = Vec::with_capacity(*n);
                    g.throughput(Throughput::Bytes((n * k) as u64));
                    g.bench_with_input(BenchmarkId::new("ours", n), &sources, |b, s| {
                        b.iter(|| bitcount::bitop_count(op, black_box(s)))
                    });
                    g.bench_with_input(BenchmarkId::new("bitop+count", n), &sources, |b, s| {
                        b.iter(|| {
                            bitcount::bitop(op, &mut dest, black_box(s)).unwrap();
                            bitcount::count(&dest)
                        })
                    });
                    g.bench_with_input(BenchmarkId::new("read-bound", n), &sources, |b, s| {
                        b.iter(|| benches::bitop::read_bound(black_box(s)))
                    });
                }
                g.finish();
            }
        }
    }
}

criterion::criterion_group! {
    name = benches;
    config = benches::config();
    targets = count, count_mixed, bitpos, bitop
}
criterion::criterion_main!(benches);
