//! Benchmarks for `memeq`, side by side with the standard library.
//!
//! - `memeq/eq` (equal inputs) and `memeq/eq-unequal` (first difference in
//!   the middle), per size: `ours` (`memeq::eq`), `slice-eq` (`[u8] == [u8]`,
//!   which calls `bcmp`), `ours-fixed` (`memeq::eq_fixed::<N>`), `array-eq`
//!   (`[u8; N] == [u8; N]`), and `kernel:<name>` (a kernel called directly,
//!   for a few sizes: shows what a dispatched call would cost).
//! - `memeq/eq-mixed` / `memeq/eq-mixed-unequal`: 4096 pairs of random
//!   lengths 1..=64 per iteration (the length branches are unpredictable, as
//!   in a hash table with mixed key sizes); throughput in compares; also
//!   `kernel:<name>` (each kernel through its handle, an indirect call).
//! - `memeq/cmp`: `ours` (`memeq::cmp`) vs `slice-cmp` (`Ord for [u8]`).
//! - `memeq/lookup` (present keys) / `memeq/lookup-absent`: a DPDK-style
//!   open-addressing table of 1M keys of 16, 32, 64 or mixed 1..=64 bytes,
//!   bulk lookups with prefetching; the same hash and table for both
//!   variants, only the key compare differs (`ours` vs `slice-eq`).

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

/// 4096 pairs of random lengths 1..=64 in two separate arenas.
/// Two arenas and the `(offset in a, offset in b, length)` of each pair.
type Pairs = (Vec<u8>, Vec<u8>, Vec<(u32, u32, u32)>);

fn mixed_pairs(unequal: bool) -> Pairs {
    let mut rng = simd_core::testing::Rng::new(7);
    let mut spans = Vec::new();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..4096 {
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

fn eq_mixed_group(c: &mut Criterion, group: &str, unequal: bool) {
    let (a, b, spans) = mixed_pairs(unequal);
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
    // A kernel called through its handle (an indirect call, as a dispatched
    // short path would be).
    for k in memeq::kernels() {
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

fn eq_mixed(c: &mut Criterion) {
    eq_mixed_group(c, "memeq/eq-mixed", false);
    eq_mixed_group(c, "memeq/eq-mixed-unequal", true);
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
// DPDK-style lookup

/// The table's hash (the same for both variants): 8-byte words (overlapping
/// tail) folded with a multiply, then a final mix.
#[inline(always)]
fn hash(key: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let n = key.len();
    let mut h = (n as u64).wrapping_mul(K);
    let word = |i: usize| u64::from_le_bytes(key[i..i + 8].try_into().unwrap());
    if n >= 8 {
        let mut i = 0;
        while i + 8 < n {
            h = (h ^ word(i)).wrapping_mul(K).rotate_left(29);
            i += 8;
        }
        h = (h ^ word(n - 8)).wrapping_mul(K);
    } else {
        let mut w = 0u64;
        for (i, &x) in key.iter().enumerate() {
            w |= u64::from(x) << (8 * i);
        }
        h = (h ^ w).wrapping_mul(K);
    }
    h ^ (h >> 32)
}

/// Open addressing, linear probing, 2^21 slots for 1M keys (load 0.48).
/// A slot is `offset:32 | len:8 | tag:16` into one key arena (0 = empty;
/// keys are never empty, so an occupied slot is never 0); the 16-bit tag (as
/// DPDK's short signature) skips most key compares of other keys.
struct Table {
    slots: Vec<u64>,
    arena: Vec<u8>,
    mask: usize,
}

fn tag(h: u64) -> u64 {
    (h >> 48) & 0xffff
}

impl Table {
    fn build(keys: &[&[u8]]) -> Table {
        let cap = (keys.len() * 2).next_power_of_two();
        let mut t = Table {
            slots: vec![0; cap],
            arena: Vec::new(),
            mask: cap - 1,
        };
        for k in keys {
            let h = hash(k);
            let mut pos = h as usize & t.mask;
            while t.slots[pos] != 0 {
                pos = (pos + 1) & t.mask;
            }
            let off = t.arena.len() as u64;
            t.arena.extend_from_slice(k);
            t.slots[pos] = off | ((k.len() as u64) << 32) | (tag(h) << 40);
        }
        t
    }

    fn key(&self, slot: u64) -> &[u8] {
        let off = (slot & 0xffff_ffff) as usize;
        let len = ((slot >> 32) & 0xff) as usize;
        &self.arena[off..off + len]
    }

    /// Bulk lookup in batches of 16 (DPDK's pipeline): hash all and prefetch
    /// their first slots; read the first slots and prefetch the candidate
    /// keys; then probe and compare. Returns how many were found.
    #[inline(always)]
    fn lookup_bulk(&self, queries: &[&[u8]], eq: impl Fn(&[u8], &[u8]) -> bool) -> usize {
        const B: usize = 16;
        let mut found = 0;
        for batch in queries.chunks(B) {
            let mut hs = [0u64; B];
            for (h, q) in hs.iter_mut().zip(batch) {
                *h = hash(q);
                simd_core::prefetch_read(
                    self.slots
                        .as_ptr()
                        .wrapping_add(*h as usize & self.mask)
                        .cast(),
                );
            }
            for h in &hs[..batch.len()] {
                let s = self.slots[*h as usize & self.mask];
                if s != 0 && (s >> 40) == tag(*h) {
                    simd_core::prefetch_read(
                        self.arena.as_ptr().wrapping_add((s & 0xffff_ffff) as usize),
                    );
                }
            }
            for (h, q) in hs.iter().zip(batch) {
                let t = tag(*h);
                let mut pos = *h as usize & self.mask;
                loop {
                    let s = self.slots[pos];
                    if s == 0 {
                        break;
                    }
                    if (s >> 40) == t && eq(self.key(s), q) {
                        found += 1;
                        break;
                    }
                    pos = (pos + 1) & self.mask;
                }
            }
        }
        found
    }
}

fn lookup(c: &mut Criterion) {
    const KEYS: usize = 1 << 20;
    const QUERIES: usize = 1 << 14;
    let mut present = c.benchmark_group("memeq/lookup");
    present.throughput(Throughput::Elements(QUERIES as u64));
    type LenFn = Box<dyn Fn(&mut simd_core::testing::Rng) -> usize>;
    let mut cases: Vec<(String, LenFn)> = Vec::new();
    for n in [16usize, 32, 64] {
        cases.push((n.to_string(), Box::new(move |_| n)));
    }
    cases.push(("mixed".to_string(), Box::new(|r| 1 + r.below(64) as usize)));
    let mut tables = Vec::new();
    for (name, len) in &cases {
        let mut rng = simd_core::testing::Rng::new(11);
        let mut raw = Vec::new();
        let mut spans = Vec::new();
        for _ in 0..KEYS {
            let n = len(&mut rng);
            spans.push((raw.len(), n));
            for _ in 0..n {
                raw.push(rng.next_u64() as u8);
            }
        }
        let keys: Vec<&[u8]> = spans.iter().map(|&(o, n)| &raw[o..o + n]).collect();
        let table = Table::build(&keys);
        // Query keys are copies in their own arena (as a request buffer).
        let mut qraw = Vec::new();
        let mut qspans = Vec::new();
        for _ in 0..QUERIES {
            let (o, n) = spans[rng.below(KEYS as u64) as usize];
            qspans.push((qraw.len(), n));
            qraw.extend_from_slice(&raw[o..o + n]);
        }
        // Absent keys: fresh random keys of the same length distribution.
        let mut araw = Vec::new();
        let mut aspans = Vec::new();
        for _ in 0..QUERIES {
            let n = len(&mut rng);
            aspans.push((araw.len(), n));
            for _ in 0..n {
                araw.push(rng.next_u64() as u8);
            }
        }
        tables.push((name.clone(), table, qraw, qspans, araw, aspans));
    }
    for (name, table, qraw, qspans, araw, aspans) in &tables {
        let qs: Vec<&[u8]> = qspans.iter().map(|&(o, n)| &qraw[o..o + n]).collect();
        assert_eq!(table.lookup_bulk(&qs, memeq::eq), QUERIES);
        present.bench_function(BenchmarkId::new("ours", name), |bch| {
            bch.iter(|| table.lookup_bulk(black_box(&qs), memeq::eq))
        });
        present.bench_function(BenchmarkId::new("slice-eq", name), |bch| {
            bch.iter(|| table.lookup_bulk(black_box(&qs), |a, b| a == b))
        });
        let _ = (araw, aspans);
    }
    present.finish();
    let mut absent = c.benchmark_group("memeq/lookup-absent");
    absent.throughput(Throughput::Elements(QUERIES as u64));
    for (name, table, _, _, araw, aspans) in &tables {
        let qs: Vec<&[u8]> = aspans.iter().map(|&(o, n)| &araw[o..o + n]).collect();
        absent.bench_function(BenchmarkId::new("ours", name), |bch| {
            bch.iter(|| table.lookup_bulk(black_box(&qs), memeq::eq))
        });
        absent.bench_function(BenchmarkId::new("slice-eq", name), |bch| {
            bch.iter(|| table.lookup_bulk(black_box(&qs), |a, b| a == b))
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
