//! Benchmarks for `siphash-fast`.
//!
//! - `siphash/oneshot-1-2`, `-1-2-nocase`, `-1-3`, `-2-4` (bytes, sizes 8 ..
//!   1024): `ours` (the public one-shot) against `siphasher` through its
//!   `Hasher` (`new_with_keys` + `write` + `finish`, as a map would use it),
//!   `siphasher-hash` (its `hash(&self, bytes)` convenience on a prebuilt
//!   hasher) and `std` (`DefaultHasher`, SipHash-1-3, `write` + `finish`).
//!   siphasher has no SipHash-1-2, so the 1-2 groups list our functions only.
//! - `siphash/batch-1-2`, `-1-3`, `-2-4` (elements: 1024 keys of 16 bytes):
//!   `ours` (dispatched batch), `kernel:<name>` for every kernel the CPU runs,
//!   and `oneshot` (a loop of our one-shot calls, the baseline the batch
//!   targets are stated against).

#![deny(clippy::undocumented_unsafe_blocks)]

use criterion::{BenchmarkId, Criterion, Throughput};
use std::hash::Hasher;
use std::hint::black_box;

const KEY: [u8; 16] = *b"benchmark key 16";

fn sizes() -> &'static [usize] {
    if benches::quick() {
        &[8, 16, 64, 1024]
    } else {
        &[8, 16, 24, 32, 64, 256, 1024]
    }
}

fn k0k1() -> (u64, u64) {
    (
        u64::from_le_bytes(KEY[..8].try_into().unwrap()),
        u64::from_le_bytes(KEY[8..].try_into().unwrap()),
    )
}

fn oneshot_12(c: &mut Criterion) {
    let mut g = c.benchmark_group("siphash/oneshot-1-2");
    for &n in sizes() {
        let data = benches::bytes(n as u64, n);
        g.throughput(Throughput::Bytes(n as u64));
        g.bench_with_input(BenchmarkId::new("ours", n), &data, |b, d| {
            b.iter(|| siphash_fast::siphash12(black_box(&KEY), black_box(d)))
        });
    }
    g.finish();
    let mut g = c.benchmark_group("siphash/oneshot-1-2-nocase");
    for &n in sizes() {
        let data = benches::bytes(n as u64, n);
        g.throughput(Throughput::Bytes(n as u64));
        g.bench_with_input(BenchmarkId::new("ours", n), &data, |b, d| {
            b.iter(|| siphash_fast::siphash12_nocase(black_box(&KEY), black_box(d)))
        });
    }
    g.finish();
}

fn oneshot_13(c: &mut Criterion) {
    let (k0, k1) = k0k1();
    let mut g = c.benchmark_group("siphash/oneshot-1-3");
    for &n in sizes() {
        let data = benches::bytes(n as u64, n);
        g.throughput(Throughput::Bytes(n as u64));
        g.bench_with_input(BenchmarkId::new("ours", n), &data, |b, d| {
            b.iter(|| siphash_fast::siphash13(black_box(&KEY), black_box(d)))
        });
        g.bench_with_input(BenchmarkId::new("siphasher", n), &data, |b, d| {
            b.iter(|| {
                let mut h =
                    siphasher::sip::SipHasher13::new_with_keys(black_box(k0), black_box(k1));
                h.write(black_box(d));
                h.finish()
            })
        });
        g.bench_with_input(BenchmarkId::new("siphasher-hash", n), &data, |b, d| {
            let h = siphasher::sip::SipHasher13::new_with_keys(k0, k1);
            b.iter(|| black_box(&h).hash(black_box(d)))
        });
        g.bench_with_input(BenchmarkId::new("std", n), &data, |b, d| {
            b.iter(|| {
                #[allow(deprecated)]
                let mut h = std::hash::DefaultHasher::new();
                h.write(black_box(d));
                h.finish()
            })
        });
    }
    g.finish();
}

fn oneshot_24(c: &mut Criterion) {
    let (k0, k1) = k0k1();
    let mut g = c.benchmark_group("siphash/oneshot-2-4");
    for &n in sizes() {
        let data = benches::bytes(n as u64, n);
        g.throughput(Throughput::Bytes(n as u64));
        g.bench_with_input(BenchmarkId::new("ours", n), &data, |b, d| {
            b.iter(|| siphash_fast::siphash24(black_box(&KEY), black_box(d)))
        });
        g.bench_with_input(BenchmarkId::new("siphasher", n), &data, |b, d| {
            b.iter(|| {
                let mut h =
                    siphasher::sip::SipHasher24::new_with_keys(black_box(k0), black_box(k1));
                h.write(black_box(d));
                h.finish()
            })
        });
        g.bench_with_input(BenchmarkId::new("siphasher-hash", n), &data, |b, d| {
            let h = siphasher::sip::SipHasher24::new_with_keys(k0, k1);
            b.iter(|| black_box(&h).hash(black_box(d)))
        });
    }
    g.finish();
}

type One = fn(&[u8; 16], &[u8]) -> u64;
type Batch = fn(&[u8; 16], &[&[u8]], &mut [u64]);
type KBatch = fn(&siphash_fast::Kernel, &[u8; 16], &[&[u8]], &mut [u64]);

fn batch(c: &mut Criterion) {
    const COUNT: usize = 1024;
    const LEN: usize = 16;
    let data = benches::bytes(99, COUNT * LEN + 7);
    // Keys at odd offsets, as keys in a buffer would be.
    let inputs: Vec<&[u8]> = (0..COUNT).map(|i| &data[i * LEN + 1..][..LEN]).collect();
    let algs: [(&str, One, Batch, KBatch); 3] = [
        (
            "1-2",
            siphash_fast::siphash12,
            siphash_fast::siphash12_batch,
            siphash_fast::Kernel::siphash12_batch,
        ),
        (
            "1-3",
            siphash_fast::siphash13,
            siphash_fast::siphash13_batch,
            siphash_fast::Kernel::siphash13_batch,
        ),
        (
            "2-4",
            siphash_fast::siphash24,
            siphash_fast::siphash24_batch,
            siphash_fast::Kernel::siphash24_batch,
        ),
    ];
    for (name, one, batch, kbatch) in algs {
        let mut g = c.benchmark_group(format!("siphash/batch-{name}"));
        g.throughput(Throughput::Elements(COUNT as u64));
        let mut out = vec![0u64; COUNT];
        g.bench_function(BenchmarkId::new("ours", COUNT), |b| {
            b.iter(|| batch(black_box(&KEY), black_box(&inputs), &mut out))
        });
        for k in siphash_fast::kernels() {
            g.bench_function(
                BenchmarkId::new(format!("kernel:{}", k.name()), COUNT),
                |b| b.iter(|| kbatch(&k, black_box(&KEY), black_box(&inputs), &mut out)),
            );
        }
        g.bench_function(BenchmarkId::new("oneshot", COUNT), |b| {
            b.iter(|| {
                for (o, d) in out.iter_mut().zip(black_box(&inputs)) {
                    *o = one(black_box(&KEY), d);
                }
            })
        });
        g.finish();
    }
}

criterion::criterion_group! {
    name = benches;
    config = benches::config();
    targets = oneshot_12, oneshot_13, oneshot_24, batch
}
criterion::criterion_main!(benches);
