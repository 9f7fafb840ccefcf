//! Benchmarks for `memeq`, side by side with the standard library.
//!
//! - `memeq/eq` (equal inputs) and `memeq/eq-unequal` (first difference in
//!   the middle), per size: `ours` (`memeq::eq`), `slice-eq` (`[u8] == [u8]`,
//!   which calls `bcmp`), `ours-fixed` (`memeq::eq_fixed::<N>`), `array-eq`
//!   (`[u8; N] == [u8; N]`), and `kernel:<name>` (a kernel called directly,
//!   for a few sizes: shows what a dispatched call would cost).
//! - `memeq/eq-mixed` / `memeq/eq-mixed-unequal`: 4096 pairs of random
//!   lengths 1..=64 per iteration; throughput in compares; also
//!   `kernel:<name>` (each kernel through its handle, an indirect call).
//!   Zen 5's branch predictor learns a repeated sequence of 4096 lengths
//!   (a length-branching compare ran ~1.15 ns per pair here and ~5 ns on
//!   65536 pairs), so this set measures predicted length branches.
//! - `memeq/eq-mixed-64k`: the same with 65536 pairs (a 4 MB working set),
//!   too many for the predictor to learn: the length branches mispredict as
//!   in a hash table with mixed key sizes.
//! - `memeq/cmp`: `ours` (`memeq::cmp`) vs `slice-cmp` (`Ord for [u8]`).
//! - `memeq/lookup` (present keys) / `memeq/lookup-absent`: a DPDK-style
//!   open-addressing table of 1M keys of 16, 32, 64 or mixed 1..=64 bytes,
//!   bulk lookups with prefetching; the same hash and table for both
//!   variants, only the key compare differs (`ours` vs `slice-eq`).
//! - `bound:first-byte` (in `memeq/eq-mixed*` and `memeq/lookup`): a
//!   stand-in that compares the lengths and the first byte only. It is not a
//!   correct compare; it shows how far below `==` any compare could get in
//!   that loop (the rest is the loop, the loads and waiting for the data).
//! - `bound:first-last` (in `memeq/eq-mixed*` and `memeq/lookup`): the lengths, the first and the
//!   last byte: it waits for every cache line a key spans, as a correct
//!   compare must, so it bounds a correct compare's saving more tightly
//!   (`first-byte` skips the second line of keys that straddle two).

#![deny(clippy::undocumented_unsafe_blocks)]

use criterion::{BenchmarkGroup, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;

const QUICK_SIZES: &[usize] = &[1, 4, 8, 15, 16, 32, 48, 64];
const LONG_SIZES: &[usize] = &[128, 1024, 65536];
const KERNEL_SIZES: &[usize] = &[16, 32, 64, 128, 1024, 65536];

type Group<'a> = BenchmarkGroup<'a, criterion::measurement::WallTime>;

fn sizes() -> Vec<usize> {
    let mut s: Vec<usize> = if benches::quick() {
        QUICK_SIZES.to_vec()
    } else {
        (1..=64).collect()
    };
    s.extend_from_slice(LONG_SIZES);
    s
}

/// `ours-fixed` and `array-eq` for one compile-time size.
fn fixed<const N: usize>(g: &mut Group<'_>, a: &[u8], b: &[u8]) {
    let a: Box<[u8; N]> = a.to_vec().into_boxed_slice().try_into().unwrap();
    let b: Box<[u8; N]> = b.to_vec().into_boxed_slice().try_into().unwrap();
    g.bench_function(BenchmarkId::new("ours-fixed", N), |bch| {
        bch.iter(|| memeq::eq_fixed::<N>(black_box(&a), black_box(&b)))
    });
    g.bench_function(BenchmarkId::new("array-eq", N), |bch| {
        bch.iter(|| black_box(&*a) == black_box(&*b))
    });
}

macro_rules! fixed_sizes {
    ($g:expr, $n:expr, $a:expr, $b:expr; $($size:literal)*) => {
        match $n {
            $($size => fixed::<$size>($g, $a, $b),)*
            _ => {}
        }
    };
}

fn eq_sizes(c: &mut Criterion, group: &str, unequal: bool) {
    let mut g = c.benchmark_group(group);
    for n in sizes() {
        let a = benches::bytes(n as u64, n);
        let mut b = a.clone();
        if unequal {
            b[n / 2] ^= 1;
        }
        g.throughput(Throughput::Bytes(n as u64));
        g.bench_function(BenchmarkId::new("ours", n), |bch| {
            bch.iter(|| memeq::eq(black_box(&a), black_box(&b)))
        });
        g.bench_function(BenchmarkId::new("slice-eq", n), |bch| {
            bch.iter(|| black_box(&a[..]) == black_box(&b[..]))
        });
        fixed_sizes!(&mut g, n, &a, &b;
            1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
            33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60
            61 62 63 64 128 1024 65536);
        if KERNEL_SIZES.contains(&n) {
            for k in memeq::kernels() {
                g.bench_function(BenchmarkId::new(format!("kernel:{}", k.name()), n), |bch| {
                    bch.iter(|| k.eq(black_box(&a), black_box(&b)))
                });
            }
        }
    }
    g.finish();
}

fn eq_equal(c: &mut Criterion) {
    eq_sizes(c, "memeq/eq", false);
}

fn eq_unequal(c: &mut Criterion) {
    eq_sizes(c, "memeq/eq-unequal", true);
}

/// `count` pairs of random lengths 1..=64 in two separate arenas.
/// Two arenas and the `(offset in a, offset in b, length)` of each pair.
type Pairs = (Vec<u8>, Vec<u8>, Vec<(u32, u32, u32)>);

fn mixed_pairs(unequal: bool, count: usize) -> Pairs {
    let mut rng = simd_core::testing::Rng::new(7);
    let mut spans = Vec::new();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..count {
        let n = 1 + rng.below(64) as usize;
        let key = benches::bytes(rng.next_u64(), n);
        let (oa, ob) = (a.len() as u32, b.len() as u32);
        a.extend_from_slice(&key);
        let mut other = key.clone();
        if unequal {
            other[rng.below(n as u64) as usize] ^= 1;
        }
        b.extend_from_slice(&other);
        // Vary the alignment of the second arena.
        b.push(0);
        spans.push((oa, ob, n as u32));
    }
    (a, b, spans)
}

fn eq_mixed_group(c: &mut Criterion, group: &str, unequal: bool, count: usize, kernels: bool) {
    let (a, b, spans) = mixed_pairs(unequal, count);
    // Slices built once: the timed loop is the compares (plus loading each
    // pair's pointers and lengths), not slicing and bounds checks.
    let pairs: Vec<(&[u8], &[u8])> = spans
        .iter()
        .map(|&(oa, ob, n)| {
            (
                &a[oa as usize..][..n as usize],
                &b[ob as usize..][..n as usize],
            )
        })
        .collect();
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(pairs.len() as u64));
    g.bench_function(BenchmarkId::new("ours", 64), |bch| {
        bch.iter(|| {
            let p = black_box(&pairs);
            p.iter().filter(|(x, y)| memeq::eq(x, y)).count()
        })
    });
    g.bench_function(BenchmarkId::new("slice-eq", 64), |bch| {
        bch.iter(|| {
            let p = black_box(&pairs);
            p.iter().filter(|(x, y)| x == y).count()
        })
    });
    // Not correct compares: what the loop and touching each pair cost, and
    // with the last byte too (every line a pair spans, as a correct compare
    // must touch).
    bound_row(&mut g, "bound:first-byte", &pairs, memeq_lookup::first_byte);
    bound_row(&mut g, "bound:first-last", &pairs, memeq_lookup::first_last);
    // A kernel called through its handle (an indirect call, as a dispatched
    // short path would be).
    for k in memeq::kernels().filter(|_| kernels) {
        g.bench_function(
            BenchmarkId::new(format!("kernel:{}", k.name()), 64),
            |bch| {
                bch.iter(|| {
                    let p = black_box(&pairs);
                    p.iter().filter(|(x, y)| k.eq(x, y)).count()
                })
            },
        );
    }
    g.finish();
}

/// A row of `eq_mixed_group` for a stand-in compare (a function item, so
/// it inlines into the loop as `eq` and `==` do).
fn bound_row(
    g: &mut Group<'_>,
    name: &str,
    pairs: &[(&[u8], &[u8])],
    f: impl Fn(&[u8], &[u8]) -> bool,
) {
    g.bench_function(BenchmarkId::new(name, 64), |bch| {
        bch.iter(|| black_box(pairs).iter().filter(|(x, y)| f(x, y)).count())
    });
}

fn eq_mixed(c: &mut Criterion) {
    eq_mixed_group(c, "memeq/eq-mixed", false, 4096, true);
    eq_mixed_group(c, "memeq/eq-mixed-unequal", true, 4096, true);
    eq_mixed_group(c, "memeq/eq-mixed-64k", false, 65536, false);
}

fn cmp(c: &mut Criterion) {
    let mut g = c.benchmark_group("memeq/cmp");
    for &n in &[8usize, 16, 32, 64, 128, 1024] {
        let a = benches::bytes(n as u64, n);
        let mut b = a.clone();
        b[n - 1] = b[n - 1].wrapping_add(1);
        g.throughput(Throughput::Bytes(n as u64));
        g.bench_function(BenchmarkId::new("ours", n), |bch| {
            bch.iter(|| memeq::cmp(black_box(&a), black_box(&b)))
        });
        g.bench_function(BenchmarkId::new("slice-cmp", n), |bch| {
            bch.iter(|| black_box(&a[..]).cmp(black_box(&b[..])))
        });
    }
    g.finish();
}

// ---------------------------------------------------------------------------
// DPDK-style lookup (the table, hash and key sets live in `memeq_lookup`,
// shared with `examples/memeq_timing.rs`).

mod memeq_lookup;

fn lookup(c: &mut Criterion) {
    let cases = memeq_lookup::cases();
    let mut present = c.benchmark_group("memeq/lookup");
    present.throughput(Throughput::Elements(memeq_lookup::QUERIES as u64));
    for case in &cases {
        let qs = case.present.slices();
        assert_eq!(case.table.lookup_bulk(&qs, memeq::eq), qs.len());
        assert_eq!(case.table.lookup_bulk(&qs, |a, b| a == b), qs.len());
        present.bench_function(BenchmarkId::new("ours", &case.name), |bch| {
            bch.iter(|| case.table.lookup_bulk(black_box(&qs), memeq::eq))
        });
        present.bench_function(BenchmarkId::new("slice-eq", &case.name), |bch| {
            bch.iter(|| case.table.lookup_bulk(black_box(&qs), |a, b| a == b))
        });
        // Not correct compares: bounds on what any compare can save here.
        present.bench_function(BenchmarkId::new("bound:first-byte", &case.name), |bch| {
            bch.iter(|| {
                case.table
                    .lookup_bulk(black_box(&qs), memeq_lookup::first_byte)
            })
        });
        present.bench_function(BenchmarkId::new("bound:first-last", &case.name), |bch| {
            bch.iter(|| {
                case.table
                    .lookup_bulk(black_box(&qs), memeq_lookup::first_last)
            })
        });
    }
    present.finish();
    let mut absent = c.benchmark_group("memeq/lookup-absent");
    absent.throughput(Throughput::Elements(memeq_lookup::QUERIES as u64));
    for case in &cases {
        let qs = case.absent.slices();
        absent.bench_function(BenchmarkId::new("ours", &case.name), |bch| {
            bch.iter(|| case.table.lookup_bulk(black_box(&qs), memeq::eq))
        });
        absent.bench_function(BenchmarkId::new("slice-eq", &case.name), |bch| {
            bch.iter(|| case.table.lookup_bulk(black_box(&qs), |a, b| a == b))
        });
    }
    absent.finish();
}

criterion::criterion_group! {
    name = benches;
    config = benches::config();
    targets = eq_equal, eq_unequal, eq_mixed, cmp, lookup
}
criterion::criterion_main!(benches);
