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

/// The read-bandwidth baseline: wrapping sum of the slice's `u64` words.
mod read {
    #[cfg(target_arch = "x86_64")]
    use std::arch::x86_64::*;

    /// Sums with AVX-512 adds, eight 64-byte accumulators (512 bytes per
    /// iteration): one add per load, so loads are the only limit. The bytes
    /// before the first 64-byte boundary are summed separately so that every
    /// vector load is aligned, as in the count kernels (a load that crosses
    /// a cache line costs a second one and would understate the bandwidth).
    ///
    /// # Safety
    /// The CPU must support AVX-512F.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    pub unsafe fn avx512(bytes: &[u8]) -> u64 {
        let (head, bytes) = bytes.split_at(super::to_boundary(bytes, 64));
        let p = bytes.as_ptr();
        let mut acc = [_mm512_setzero_si512(); 8];
        let mut at = 0;
        while at + 512 <= bytes.len() {
            for (k, a) in acc.iter_mut().enumerate() {
                // SAFETY: at + 64 * k + 64 <= at + 512 <= len.
                let v = unsafe { _mm512_loadu_si512(p.add(at + 64 * k).cast()) };
                *a = _mm512_add_epi64(*a, v);
            }
            at += 512;
        }
        let mut s = acc[0];
        for a in &acc[1..] {
            s = _mm512_add_epi64(s, *a);
        }
        (_mm512_reduce_add_epi64(s) as u64)
            .wrapping_add(super::scalar(&bytes[at..]))
            .wrapping_add(super::scalar(head))
    }

    /// Sums with AVX2 adds, eight 32-byte accumulators (256 bytes per
    /// iteration), aligned loads after a 32-byte-boundary head.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    pub unsafe fn avx2(bytes: &[u8]) -> u64 {
        let (head, bytes) = bytes.split_at(super::to_boundary(bytes, 32));
        let p = bytes.as_ptr();
        let mut acc = [_mm256_setzero_si256(); 8];
        let mut at = 0;
        while at + 256 <= bytes.len() {
            for (k, a) in acc.iter_mut().enumerate() {
                // SAFETY: at + 32 * k + 32 <= at + 256 <= len.
                let v = unsafe { _mm256_loadu_si256(p.add(at + 32 * k).cast()) };
                *a = _mm256_add_epi64(*a, v);
            }
            at += 256;
        }
        let mut s = acc[0];
        for a in &acc[1..] {
            s = _mm256_add_epi64(s, *a);
        }
        let mut lanes = [0u64; 4];
        // SAFETY: `lanes` is 32 bytes.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), s) };
        lanes.iter().fold(
            super::scalar(&bytes[at..]).wrapping_add(super::scalar(head)),
            |x, &y| x.wrapping_add(y),
        )
    }
}

/// The number of bytes before the first `align`-byte boundary of `bytes`
/// (all of them if it has none).
fn to_boundary(bytes: &[u8], align: usize) -> usize {
    ((bytes.as_ptr() as usize).wrapping_neg() & (align - 1)).min(bytes.len())
}

/// Four-accumulator scalar word sum (the baseline's tail, and the baseline
/// itself without AVX2).
fn scalar(bytes: &[u8]) -> u64 {
    let mut acc = [0u64; 4];
    let mut blocks = bytes.chunks_exact(32);
    for b in &mut blocks {
        for (k, a) in acc.iter_mut().enumerate() {
            *a = a.wrapping_add(u64::from_le_bytes(b[8 * k..8 * k + 8].try_into().unwrap()));
        }
    }
    let tail: u64 = blocks
        .remainder()
        .iter()
        .fold(0, |x, &y| x.wrapping_add(u64::from(y)));
    acc.iter().fold(tail, |x, &y| x.wrapping_add(y))
}

/// The read-bandwidth function for the best level the ceiling allows.
fn read_bandwidth() -> fn(&[u8]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        use cpu_detect::Level;
        let f = cpu_detect::features();
        let max = cpu_detect::max_level();
        if max.includes(Level::Avx512) && f.avx512f {
            // SAFETY: AVX-512F checked just above.
            return |b| unsafe { read::avx512(b) };
        }
        if max.includes(Level::Avx2) && f.avx2 {
            // SAFETY: AVX2 checked just above.
            return |b| unsafe { read::avx2(b) };
        }
    }
    scalar
}

fn count(c: &mut Criterion) {
    let mut g = c.benchmark_group("bitcount/count");
    let read = read_bandwidth();
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

criterion::criterion_group! {
    name = benches;
    config = benches::config();
    targets = count, count_mixed, bitpos
}
criterion::criterion_main!(benches);
