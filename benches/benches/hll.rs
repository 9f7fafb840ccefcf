//! Benchmarks for `hll`, side by side with the alternatives.
//!
//! - `hll/unpack_max`, `hll/pack`, `hll/histogram_dense`,
//!   `hll/histogram_raw`: every `kernel:<name>` the CPU supports on one
//!   whole HLL (16384 registers; throughput in registers).
//! - `hll/count_union`: `ours` = `count_union` of 3 dense HLLs
//!   (`PFCOUNT k1 k2 k3`); `hll/merge`: `ours` = `merge` of 3 dense HLLs
//!   into a new key (`PFMERGE dest k1 k2 k3`). The server side of these is
//!   `usec_per_call` from `INFO commandstats` (see the crate README).
//! - `hll/add_sparse` (1000 distinct random 16-byte elements into an empty
//!   HLL: stays sparse; ~98% of the adds change a register) and
//!   `hll/add_dense` (10000 elements into a dense HLL): `ours` vs
//!   `hyperloglogplus` (p = 14, std `RandomState`), throughput in elements;
//!   `bound:add_hash` in `hll/add_sparse` is the same adds with the hashes
//!   computed before timing (not the benchmark's work: what `add` would
//!   cost if hashing were free).
//! - `hll/count`: `ours` = `count` of one dense HLL whose cache is invalid;
//!   `hyperloglogplus` = its `count` of a dense sketch.
//! - `hll/add_all_dense` (1M distinct 16-byte elements into a clone of a
//!   dense HLL; throughput in elements): `ours` = `add_all`, `ours-add` =
//!   one `add` per element, `bound:hash_batch` = the same hashing with no
//!   register update (`hash_batch` over the elements, 4096 at a time),
//!   `hyperloglogplus`.
//! - `hll/add_all_column`: the same elements in one buffer (as a table's
//!   column holds them; `chunks_exact(16)`), same rows, `bound:hash` the
//!   hash loop alone.
//! - `hll/hash_batch`: every `kernel:<name>` the CPU supports on 4096
//!   16-byte elements (in cache; throughput in elements).

#![deny(clippy::undocumented_unsafe_blocks)]

use std::collections::hash_map::RandomState;
use std::hint::black_box;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput};
use hll::{Hll, DENSE_BODY, REGISTERS};
use hyperloglogplus::{HyperLogLog, HyperLogLogPlus};

fn elems(tag: &str, n: usize) -> Vec<Vec<u8>> {
    (0..n).map(|i| format!("{tag}:{i}").into_bytes()).collect()
}

fn dense_hll(tag: &str, n: usize) -> Hll {
    let mut h = Hll::new();
    h.add_all(elems(tag, n));
    assert!(!h.is_sparse());
    h
}

/// 64-byte alignment for the register arrays, as the crate gives its own
/// accumulators (a 64-byte access that straddles a cache line costs two
/// on Intel cores). The dense body stays where a `Vec` puts it.
#[repr(align(64))]
struct Aligned<T>(T);

fn kernels(c: &mut Criterion) {
    let h = dense_hll("k", 100_000);
    let dense: [u8; DENSE_BODY] = h.as_bytes()[16..].try_into().unwrap();
    let regs = Aligned(h.registers());
    let regs = &regs.0;
    let n = REGISTERS as u64;

    let mut g = c.benchmark_group("hll/unpack_max");
    g.throughput(Throughput::Elements(n));
    for k in hll::kernels() {
        let mut raw = Aligned([0u8; REGISTERS]);
        g.bench_function(
            BenchmarkId::new(format!("kernel:{}", k.name()), REGISTERS),
            |b| b.iter(|| k.unpack_max(black_box(&dense), black_box(&mut raw.0))),
        );
    }
    g.finish();

    let mut g = c.benchmark_group("hll/pack");
    g.throughput(Throughput::Elements(n));
    for k in hll::kernels() {
        let mut out = [0u8; DENSE_BODY];
        g.bench_function(
            BenchmarkId::new(format!("kernel:{}", k.name()), REGISTERS),
            |b| b.iter(|| k.pack(black_box(regs), black_box(&mut out))),
        );
    }
    g.finish();

    let mut g = c.benchmark_group("hll/histogram_dense");
    g.throughput(Throughput::Elements(n));
    for k in hll::kernels() {
        g.bench_function(
            BenchmarkId::new(format!("kernel:{}", k.name()), REGISTERS),
            |b| b.iter(|| k.histogram_dense(black_box(&dense))),
        );
    }
    g.finish();

    let mut g = c.benchmark_group("hll/histogram_raw");
    g.throughput(Throughput::Elements(n));
    for k in hll::kernels() {
        g.bench_function(
            BenchmarkId::new(format!("kernel:{}", k.name()), REGISTERS),
            |b| b.iter(|| k.histogram_raw(black_box(regs))),
        );
    }
    g.finish();
}

fn union_merge(c: &mut Criterion) {
    let a = dense_hll("a", 20_000);
    let b = dense_hll("b", 50_000);
    let d = dense_hll("c", 10_000);

    let mut g = c.benchmark_group("hll/count_union");
    g.throughput(Throughput::Elements(3));
    g.bench_function(BenchmarkId::new("ours", 3), |bn| {
        bn.iter(|| hll::count_union(black_box(&[&a, &b, &d])))
    });
    g.finish();

    let mut g = c.benchmark_group("hll/merge");
    g.throughput(Throughput::Elements(3));
    g.bench_function(BenchmarkId::new("ours", 3), |bn| {
        bn.iter(|| {
            let mut dest = Hll::new();
            dest.merge(black_box(&[&a, &b, &d]));
            dest
        })
    });
    g.finish();
}

fn add(c: &mut Criterion) {
    let sparse_elems = benches::hex_elements(0x5eed, 1000);
    {
        // How many of these adds change a register (the rest return early
        // on a server too): printed so the benchmark's mix is visible.
        let mut h = Hll::new();
        let changed = sparse_elems.iter().filter(|e| h.add(e)).count();
        assert!(h.is_sparse());
        eprintln!(
            "hll/add_sparse: {changed} of {} adds change a register; final sparse string {} bytes",
            sparse_elems.len(),
            h.as_bytes().len()
        );
    }
    let mut g = c.benchmark_group("hll/add_sparse");
    g.throughput(Throughput::Elements(sparse_elems.len() as u64));
    g.bench_function(BenchmarkId::new("ours", sparse_elems.len()), |b| {
        b.iter(|| {
            let mut h = Hll::new();
            for e in &sparse_elems {
                h.add(black_box(e));
            }
            h
        })
    });
    g.bench_function(BenchmarkId::new("ours-add_all", sparse_elems.len()), |b| {
        b.iter(|| {
            let mut h = Hll::new();
            h.add_all(black_box(&sparse_elems));
            h
        })
    });
    // Not the benchmark's work: the same adds with every hash computed
    // before timing (`add_hash`), i.e. what `add` would cost if hashing
    // took no time at all.
    let sparse_hashes: Vec<u64> = sparse_elems.iter().map(|e| hll::hash(e)).collect();
    g.bench_function(
        BenchmarkId::new("bound:add_hash", sparse_elems.len()),
        |b| {
            b.iter(|| {
                let mut h = Hll::new();
                for &x in &sparse_hashes {
                    h.add_hash(black_box(x));
                }
                h
            })
        },
    );
    g.bench_function(
        BenchmarkId::new("hyperloglogplus", sparse_elems.len()),
        |b| {
            b.iter(|| {
                let mut h: HyperLogLogPlus<Vec<u8>, _> =
                    HyperLogLogPlus::new(14, RandomState::new()).unwrap();
                for e in &sparse_elems {
                    h.insert(black_box(e));
                }
                h
            })
        },
    );
    g.finish();

    let base = dense_hll("base", 20_000);
    let mut theirs: HyperLogLogPlus<Vec<u8>, _> =
        HyperLogLogPlus::new(14, RandomState::new()).unwrap();
    for e in elems("base", 20_000) {
        theirs.insert(&e);
    }
    theirs.count(); // settle into its dense form
    let dense_elems = elems("d", 10_000);
    let mut g = c.benchmark_group("hll/add_dense");
    g.throughput(Throughput::Elements(dense_elems.len() as u64));
    g.bench_function(BenchmarkId::new("ours", dense_elems.len()), |b| {
        b.iter_batched_ref(
            || base.clone(),
            |h| {
                for e in &dense_elems {
                    h.add(black_box(e));
                }
            },
            BatchSize::SmallInput,
        )
    });
    g.bench_function(
        BenchmarkId::new("hyperloglogplus", dense_elems.len()),
        |b| {
            b.iter_batched_ref(
                || theirs.clone(),
                |h| {
                    for e in &dense_elems {
                        h.insert(black_box(e));
                    }
                },
                BatchSize::SmallInput,
            )
        },
    );
    g.finish();

    let mut g = c.benchmark_group("hll/count");
    g.throughput(Throughput::Elements(1));
    let one = dense_hll("one", 100_000);
    assert!(one.cached_count().is_none());
    g.bench_function(BenchmarkId::new("ours", REGISTERS), |b| {
        b.iter_batched_ref(|| one.clone(), |h| h.count(), BatchSize::SmallInput)
    });
    g.bench_function(BenchmarkId::new("hyperloglogplus", REGISTERS), |b| {
        b.iter_batched_ref(|| theirs.clone(), |h| h.count(), BatchSize::SmallInput)
    });
    g.finish();
}

fn add_all_dense(c: &mut Criterion) {
    let n = if benches::quick() { 100_000 } else { 1_000_000 };
    let elems = benches::hex_elements(0xba7c, n);
    let base = {
        let mut h = Hll::new();
        h.add_all(benches::hex_elements(0xba5e, 20_000));
        assert!(!h.is_sparse());
        h
    };
    let mut theirs: HyperLogLogPlus<Vec<u8>, _> =
        HyperLogLogPlus::new(14, RandomState::new()).unwrap();
    for e in benches::hex_elements(0xba5e, 20_000) {
        theirs.insert(&e);
    }
    theirs.count(); // settle into its dense form
    let mut g = c.benchmark_group("hll/add_all_dense");
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function(BenchmarkId::new("ours", n), |b| {
        b.iter_batched_ref(
            || base.clone(),
            |h| h.add_all(black_box(&elems)),
            BatchSize::SmallInput,
        )
    });
    g.bench_function(BenchmarkId::new("ours-add", n), |b| {
        b.iter_batched_ref(
            || base.clone(),
            |h| {
                for e in &elems {
                    h.add(black_box(e));
                }
            },
            BatchSize::SmallInput,
        )
    });
    // Not the benchmark's work: the hashing alone, what add_all would cost
    // if register updates were free.
    let slices: Vec<&[u8]> = elems.iter().map(|e| e.as_slice()).collect();
    let mut out = vec![0u64; 4096];
    g.bench_function(BenchmarkId::new("bound:hash_batch", n), |b| {
        b.iter(|| {
            for chunk in slices.chunks(4096) {
                hll::hash_batch(black_box(chunk), &mut out);
            }
            black_box(&out);
        })
    });
    g.bench_function(BenchmarkId::new("hyperloglogplus", n), |b| {
        b.iter_batched_ref(
            || theirs.clone(),
            |h| {
                for e in &elems {
                    h.insert(black_box(e));
                }
            },
            BatchSize::SmallInput,
        )
    });
    g.finish();

    // The same elements in one buffer, as a column of a table holds them.
    let flat: Vec<u8> = elems.concat();
    let mut g = c.benchmark_group("hll/add_all_column");
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function(BenchmarkId::new("ours", n), |b| {
        b.iter_batched_ref(
            || base.clone(),
            |h| h.add_all(black_box(flat.chunks_exact(16))),
            BatchSize::SmallInput,
        )
    });
    g.bench_function(BenchmarkId::new("ours-add", n), |b| {
        b.iter_batched_ref(
            || base.clone(),
            |h| {
                for e in flat.chunks_exact(16) {
                    h.add(black_box(e));
                }
            },
            BatchSize::SmallInput,
        )
    });
    // Not the benchmark's work: the hashing alone, with the prefetch
    // `add_all` issues (2 KiB ahead).
    g.bench_function(BenchmarkId::new("bound:hash", n), |b| {
        b.iter(|| {
            let mut a = 0u64;
            for e in black_box(&flat).chunks_exact(16) {
                simd_core::prefetch_read(e.as_ptr().wrapping_add(2048));
                a ^= hll::hash(e);
            }
            black_box(a)
        })
    });
    g.bench_function(BenchmarkId::new("hyperloglogplus", n), |b| {
        b.iter_batched_ref(
            || theirs.clone(),
            |h| {
                for e in flat.chunks_exact(16) {
                    h.insert(black_box(e));
                }
            },
            BatchSize::SmallInput,
        )
    });
    g.finish();

    let hot = &slices[..4096];
    let mut g = c.benchmark_group("hll/hash_batch");
    g.throughput(Throughput::Elements(hot.len() as u64));
    for k in hll::hash_kernels() {
        g.bench_function(
            BenchmarkId::new(format!("kernel:{}", k.name()), hot.len()),
            |b| b.iter(|| k.hash_batch(black_box(hot), black_box(&mut out))),
        );
    }
    g.finish();
}

criterion::criterion_group! {
    name = benches;
    config = benches::config();
    targets = kernels, union_merge, add, add_all_dense
}
criterion::criterion_main!(benches);
