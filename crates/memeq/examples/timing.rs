//! Min-of-N timing of `memeq::eq` / `memeq::cmp` against `==` / `Ord`, for
//! machines too busy for criterion's medians (the minimum over many runs
//! drops the runs other processes disturbed).
//!
//! `cargo run --release -p memeq --example timing` prints ns per compare for
//! a mixed 1..=64-byte set and fixed sizes, and ns per lookup in an
//! open-addressing table of 1M keys (the `memeq/lookup` benchmark's design).

use std::hint::black_box;
use std::time::Instant;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// The fastest of `runs` timings of each of `fs`, in ns; the functions take
/// turns within each run, so a busy spell on the machine slows all alike.
fn min_ns_interleaved(runs: usize, fs: &[Box<dyn Fn() -> usize + '_>]) -> Vec<f64> {
    let mut best = vec![f64::MAX; fs.len()];
    for _ in 0..runs {
        for (f, b) in fs.iter().zip(&mut best) {
            let t = Instant::now();
            black_box(f());
            *b = b.min(t.elapsed().as_nanos() as f64);
        }
    }
    best
}

fn compares(label: &str, lo: usize, hi: usize, unequal: bool) {
    let mut rng = Rng(0x1234_5678 + lo as u64 * 31 + hi as u64);
    let count = if hi <= 256 { 512 } else { 64 };
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for _ in 0..count {
        let n = lo + (rng.next() as usize % (hi - lo + 1));
        let a = rng.bytes(n);
        let mut b = a.clone();
        if unequal {
            let p = rng.next() as usize % n;
            b[p] ^= 1;
        }
        xs.push(a);
        ys.push(b);
    }
    let pairs: Vec<(&[u8], &[u8])> = xs.iter().zip(&ys).map(|(a, b)| (&a[..], &b[..])).collect();
    let per = |t: f64| t / pairs.len() as f64;
    let runs = 3000;
    let kernels: Vec<memeq::Kernel> = if std::env::args().any(|a| a == "--kernels") {
        memeq::kernels().collect()
    } else {
        Vec::new()
    };
    let pairs = &pairs;
    type Pass<'a> = Box<dyn Fn() -> usize + 'a>;
    let mut passes: Vec<Pass<'_>> = vec![
        Box::new(|| {
            black_box(&pairs)
                .iter()
                .filter(|(a, b)| memeq::eq(a, b))
                .count()
        }),
        Box::new(|| black_box(&pairs).iter().filter(|(a, b)| a == b).count()),
        Box::new(|| {
            black_box(&pairs)
                .iter()
                .filter(|(a, b)| memeq::cmp(a, b).is_lt())
                .count()
        }),
        Box::new(|| {
            black_box(&pairs)
                .iter()
                .filter(|(a, b)| a.cmp(b).is_lt())
                .count()
        }),
    ];
    for k in &kernels {
        passes.push(Box::new(move || {
            black_box(&pairs).iter().filter(|(a, b)| k.eq(a, b)).count()
        }));
    }
    let t = min_ns_interleaved(runs, &passes);
    let (ours, std, ocmp, scmp) = (per(t[0]), per(t[1]), per(t[2]), per(t[3]));
    for (k, t) in kernels.iter().zip(&t[4..]) {
        print!("{}: {:.2}  ", k.name(), per(*t));
    }
    if !kernels.is_empty() {
        println!();
    }
    println!(
        "{label:<22} eq: ours {ours:6.2}  == {std:6.2}  ({:.2}x)   cmp: ours {ocmp:6.2}  Ord {scmp:6.2}  ({:.2}x)",
        std / ours,
        scmp / ocmp
    );
}

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

/// Linear probing; slot = offset:32 | len:8 | tag:16 (0 = empty). Bulk
/// lookups in batches of 16: hash and prefetch the slots, prefetch the
/// candidate keys, then probe and compare (DPDK's pipeline).
struct Table {
    slots: Vec<u64>,
    arena: Vec<u8>,
    mask: usize,
}

impl Table {
    fn build(keys: &[Vec<u8>]) -> Table {
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
            t.slots[pos] = off | ((k.len() as u64) << 32) | ((h >> 48) << 40);
        }
        t
    }

    #[inline(always)]
    fn lookup_bulk(&self, queries: &[&[u8]], eq: impl Fn(&[u8], &[u8]) -> bool) -> usize {
        const B: usize = 16;
        let mut found = 0;
        for batch in queries.chunks(B) {
            let mut hs = [0u64; B];
            for (h, q) in hs.iter_mut().zip(batch) {
                *h = hash(q);
                let slot = self.slots.as_ptr().wrapping_add(*h as usize & self.mask);
                simd_core::prefetch_read(slot.cast());
            }
            for h in &hs[..batch.len()] {
                let s = self.slots[*h as usize & self.mask];
                if s != 0 && (s >> 40) == (h >> 48) {
                    let key = self.arena.as_ptr().wrapping_add((s & 0xffff_ffff) as usize);
                    simd_core::prefetch_read(key);
                }
            }
            for (h, q) in hs.iter().zip(batch) {
                let mut pos = *h as usize & self.mask;
                loop {
                    let s = self.slots[pos];
                    if s == 0 {
                        break;
                    }
                    if (s >> 40) == (h >> 48) {
                        let off = (s & 0xffff_ffff) as usize;
                        let len = ((s >> 32) & 0xff) as usize;
                        if eq(&self.arena[off..off + len], q) {
                            found += 1;
                            break;
                        }
                    }
                    pos = (pos + 1) & self.mask;
                }
            }
        }
        found
    }
}

fn lookups(label: &str, len: &dyn Fn(&mut Rng) -> usize) {
    let mut rng = Rng(99);
    let keys: Vec<Vec<u8>> = (0..1 << 20)
        .map(|_| {
            let n = len(&mut rng);
            rng.bytes(n)
        })
        .collect();
    let table = Table::build(&keys);
    let present: Vec<Vec<u8>> = (0..1 << 14)
        .map(|_| keys[rng.next() as usize % keys.len()].clone())
        .collect();
    let absent: Vec<Vec<u8>> = (0..1 << 14)
        .map(|_| {
            let n = len(&mut rng);
            rng.bytes(n)
        })
        .collect();
    for (kind, qs) in [("present", &present), ("absent", &absent)] {
        let qs: Vec<&[u8]> = qs.iter().map(|q| &q[..]).collect();
        let per = |t: f64| t / qs.len() as f64;
        let passes: Vec<Box<dyn Fn() -> usize + '_>> = vec![
            Box::new(|| table.lookup_bulk(black_box(&qs), memeq::eq)),
            Box::new(|| table.lookup_bulk(black_box(&qs), |a, b| a == b)),
        ];
        let t = min_ns_interleaved(60, &passes);
        let (ours, std) = (per(t[0]), per(t[1]));
        println!(
            "lookup {label:<6} {kind:<8} ns/lookup: ours {ours:6.2}  == {std:6.2}  ({:.1}% fewer ns)",
            100.0 * (1.0 - ours / std)
        );
    }
}

/// Flags: `--no-lookup` skips the table, `--lookup-only` runs only it,
/// `--sizes=16,128` picks the fixed sizes, `--kernels` adds each kernel
/// through its handle.
fn main() {
    let flag = |f: &str| std::env::args().any(|a| a == f);
    if !flag("--lookup-only") {
        compares("mixed 1..=64 equal", 1, 64, false);
        compares("mixed 1..=64 unequal", 1, 64, true);
        let only: Option<Vec<usize>> = std::env::args().find_map(|a| {
            a.strip_prefix("--sizes=")
                .map(|s| s.split(',').map(|x| x.parse().unwrap()).collect())
        });
        let all = vec![
            1, 2, 3, 4, 7, 8, 15, 16, 24, 31, 32, 48, 63, 64, 128, 1024, 65536,
        ];
        for n in only.unwrap_or(all) {
            compares(&format!("{n} B equal"), n, n, false);
        }
    }
    if flag("--no-lookup") {
        return;
    }
    for n in [16usize, 32, 64] {
        lookups(&n.to_string(), &move |_| n);
    }
    lookups("mixed", &|r| 1 + (r.next() % 64) as usize);
}
