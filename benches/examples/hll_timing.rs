//! Min-of-N timing of the hll kernels and of `add`, for machines too busy
//! for criterion's medians (the minimum over many runs drops the runs other
//! processes disturbed; everything compared runs in the same rounds, so a
//! slow spell slows all alike).
//!
//! `cargo run --release -p benches --example hll_timing` prints:
//! - ns per call of each kernel's pack, unpack + max and histograms, with
//!   the ratio to the scalar kernel measured in the same rounds;
//! - ns per element of `add` (1000 random elements into an empty HLL, the
//!   `hll/add_sparse` benchmark's set, and 10000 into a clone of a dense
//!   HLL) and of `add_all`, against `hyperloglogplus` in the same rounds;
//! - ns per `add` in windows of 100 of the sparse set, each window repeated
//!   on a clone (short enough for the branch predictor to learn, so the gap
//!   to the first figure is what mispredictions cost).
//!
//! - `--batch`: ns per element of `add_all` (batch hashing) for 1M distinct
//!   16-byte elements into a dense HLL, against the loop of `add`, the
//!   one-at-a-time `add_all` it replaced (hashes eight ahead of the
//!   updates, rebuilt here from `hash` and `add_hash`), `hash_batch` alone
//!   with each hash kernel (the hash-only bound) and `hyperloglogplus`;
//!   and the sparse set (1000 into an empty HLL) through both `add_all`s.
//!
//! Flags: `--kernels`, `--add` or `--batch` to run only one part.

#![deny(clippy::undocumented_unsafe_blocks)]

use std::collections::hash_map::RandomState;
use std::hint::black_box;
use std::time::Instant;

use hll::{Hll, DENSE_BODY, REGISTERS};
use hyperloglogplus::{HyperLogLog, HyperLogLogPlus};
use simd_core::testing::Rng;

#[repr(align(64))]
struct Aligned<T>(T);

fn kernels() {
    let mut rng = Rng::new(0x6b65_726e);
    let mut regs = Aligned([0u8; REGISTERS]);
    for r in regs.0.iter_mut() {
        // Geometric-ish, as in a real sketch, over the whole 0..=63 range.
        *r = (rng.next_u64().trailing_zeros() as u8 + rng.below(4) as u8).min(63);
    }
    let mut dense = [0u8; DENSE_BODY];
    hll::kernels().last().unwrap().pack(&regs.0, &mut dense);
    let ks: Vec<hll::Kernel> = hll::kernels().collect();
    let mut out = [0u8; DENSE_BODY];
    let mut raw = Aligned([0u8; REGISTERS]);
    const REPS: usize = 10;
    let scalar = ks.iter().position(|k| k.name() == "scalar").unwrap();
    let three = [&dense, &dense, &dense];
    for (op, name) in [
        "pack",
        "unpack + max",
        "histogram dense",
        "histogram raw",
        "union of 3",
    ]
    .iter()
    .enumerate()
    {
        let mut best = vec![f64::MAX; ks.len()];
        for _ in 0..300 {
            for (k, b) in ks.iter().zip(&mut best) {
                let t = Instant::now();
                for _ in 0..REPS {
                    match op {
                        0 => k.pack(black_box(&regs.0), black_box(&mut out)),
                        1 => k.unpack_max(black_box(&dense), black_box(&mut raw.0)),
                        2 => {
                            black_box(k.histogram_dense(black_box(&dense)));
                        }
                        3 => {
                            black_box(k.histogram_raw(black_box(&regs.0)));
                        }
                        _ => k.union(black_box(&three), black_box(&mut raw.0)),
                    }
                }
                *b = b.min(t.elapsed().as_nanos() as f64 / REPS as f64);
            }
        }
        print!("{name:<16}");
        for (k, t) in ks.iter().zip(&best) {
            print!("  {}: {:8.1} ns ({:5.1}x)", k.name(), t, best[scalar] / t);
        }
        println!();
    }
}

fn adds() {
    let sparse = benches::hex_elements(0x5eed, 1000);
    let t = benches::min_ns(
        2000,
        sparse.len() as f64,
        &[
            &|| {
                let mut h = Hll::new();
                for e in &sparse {
                    h.add(black_box(e));
                }
                black_box(&h);
            },
            &|| {
                let mut h = Hll::new();
                h.add_all(black_box(&sparse));
                black_box(&h);
            },
            &|| {
                let mut h: HyperLogLogPlus<Vec<u8>, _> =
                    HyperLogLogPlus::new(14, RandomState::new()).unwrap();
                for e in &sparse {
                    h.insert(black_box(e));
                }
                black_box(&h);
            },
        ],
    );
    println!(
        "sparse (1000 into empty) ns/element: add {:.2}  add_all {:.2}  hyperloglogplus {:.2}  ({:.2}x, {:.2}x)",
        t[0],
        t[1],
        t[2],
        t[2] / t[0],
        t[2] / t[1]
    );

    let base_elems: Vec<Vec<u8>> = (0..20_000)
        .map(|i| format!("base:{i}").into_bytes())
        .collect();
    let dense_elems: Vec<Vec<u8>> = (0..10_000).map(|i| format!("d:{i}").into_bytes()).collect();
    let mut base = Hll::new();
    base.add_all(&base_elems);
    assert!(!base.is_sparse());
    let mut theirs: HyperLogLogPlus<Vec<u8>, _> =
        HyperLogLogPlus::new(14, RandomState::new()).unwrap();
    for e in &base_elems {
        theirs.insert(e);
    }
    theirs.count(); // settle into its dense form
    let t = benches::min_ns(
        30,
        dense_elems.len() as f64,
        &[
            &|| {
                let mut h = base.clone();
                for e in &dense_elems {
                    h.add(black_box(e));
                }
                black_box(&h);
            },
            &|| {
                let mut h = theirs.clone();
                for e in &dense_elems {
                    h.insert(black_box(e));
                }
                black_box(&h);
            },
        ],
    );
    println!(
        "dense (10000 into a clone) ns/element: add {:.2}  hyperloglogplus {:.2}  ({:.2}x; the clone is in both)",
        t[0],
        t[1],
        t[1] / t[0]
    );

    print!("sparse add in windows of 100, each repeated (ns/add):");
    let hashes: Vec<u64> = sparse.iter().map(|e| hll::hash(e)).collect();
    for k in (0..sparse.len()).step_by(200) {
        let mut base = Hll::new();
        for &x in &hashes[..k] {
            base.add_hash(x);
        }
        let window = &hashes[k..k + 100];
        let t = benches::min_ns(
            2000,
            window.len() as f64,
            &[&|| {
                let mut h = base.clone();
                for &x in window {
                    h.add_hash(black_box(x));
                }
                black_box(&h);
            }],
        );
        print!("  {k}..{}: {:.1}", k + 100, t[0]);
    }
    println!("  (add_hash; the clone is inside the timing)");
}

/// The `add_all` before batch hashing: each element hashed eight ahead of
/// its update, the updates one by one through `add_hash`.
fn add_all_ring(h: &mut Hll, elements: &[Vec<u8>]) -> bool {
    const AHEAD: usize = 8;
    let mut changed = false;
    let mut it = elements.iter();
    let mut ring = [0u64; AHEAD];
    let mut queued = 0;
    for e in it.by_ref().take(AHEAD) {
        ring[queued] = hll::hash(e);
        queued += 1;
    }
    let mut next = 0;
    for e in it {
        let x = ring[next];
        ring[next] = hll::hash(e);
        changed |= h.add_hash(x);
        next = (next + 1) % AHEAD;
    }
    for k in 0..queued {
        changed |= h.add_hash(ring[(next + k) % AHEAD]);
    }
    changed
}

/// Every element's bytes loaded and folded (the memory traffic of a hash
/// pass without the hashing).
fn read_only<'a>(elements: impl IntoIterator<Item = &'a [u8]>) -> u64 {
    let mut acc = 0u64;
    for e in elements {
        let mut words = e.chunks_exact(8);
        for w in &mut words {
            acc ^= u64::from_le_bytes(w.try_into().unwrap());
        }
        acc ^= words
            .remainder()
            .iter()
            .fold(0, |a, &b| a << 8 | u64::from(b));
    }
    acc
}

fn batch() {
    let runs: usize = std::env::args()
        .find_map(|a| a.strip_prefix("--runs=").map(|r| r.parse().unwrap()))
        .unwrap_or(15);
    let len: usize = std::env::args()
        .find_map(|a| a.strip_prefix("--len=").map(|r| r.parse().unwrap()))
        .unwrap_or(16);
    let elems: Vec<Vec<u8>> = benches::hex_elements(0xba7c, 1_000_000)
        .into_iter()
        .map(|e| e.iter().copied().cycle().take(len).collect())
        .collect();
    let slices: Vec<&[u8]> = elems.iter().map(|e| e.as_slice()).collect();
    let mut base = Hll::new();
    base.add_all(benches::hex_elements(0xba5e, 20_000));
    assert!(!base.is_sparse());
    {
        let (mut a, mut b) = (base.clone(), base.clone());
        a.add_all(&elems);
        add_all_ring(&mut b, &elems);
        assert_eq!(a, b);
    }
    let mut theirs: HyperLogLogPlus<Vec<u8>, _> =
        HyperLogLogPlus::new(14, RandomState::new()).unwrap();
    for e in benches::hex_elements(0xba5e, 20_000) {
        theirs.insert(&e);
    }
    theirs.count(); // settle into its dense form
    let hk: Vec<hll::HashKernel> = hll::hash_kernels().collect();
    let hot = std::env::args().any(|a| a == "--hot");
    let hash_only = |k: &hll::HashKernel| {
        let mut out = [0u64; 4096];
        if hot {
            for _ in 0..244 {
                k.hash_batch(black_box(&slices[..4096]), &mut out);
            }
        } else {
            for c in slices.chunks(4096) {
                k.hash_batch(black_box(c), &mut out);
            }
        }
        black_box(&out);
    };
    if std::env::args().any(|a| a == "--hash-only") {
        let fs: Vec<Box<dyn Fn()>> = hk
            .iter()
            .map(|k| Box::new(move || hash_only(k)) as Box<dyn Fn()>)
            .collect();
        let refs: Vec<&dyn Fn()> = fs.iter().map(|f| f.as_ref()).collect();
        let t = benches::min_ns(runs, elems.len() as f64, &refs);
        for (k, x) in hk.iter().zip(&t) {
            print!("  hash_batch {} {:.2}", k.name(), x);
        }
        println!("  len {len}{}", if hot { " (in cache)" } else { "" });
        return;
    }
    let mut fs: Vec<Box<dyn Fn()>> = vec![
        Box::new(|| {
            let mut h = base.clone();
            h.add_all(black_box(&elems));
            black_box(&h);
        }),
        Box::new(|| {
            let mut h = base.clone();
            for e in &elems {
                h.add(black_box(e));
            }
            black_box(&h);
        }),
        Box::new(|| {
            let mut h = base.clone();
            add_all_ring(&mut h, black_box(&elems));
            black_box(&h);
        }),
        Box::new(|| {
            let mut h = theirs.clone();
            for e in &elems {
                h.insert(black_box(e));
            }
            black_box(&h);
        }),
    ];
    for k in &hk {
        fs.push(Box::new(move || hash_only(k)));
    }
    // The loads alone: each element's bytes folded into one word.
    fs.push(Box::new(|| {
        black_box(read_only(black_box(&slices).iter().copied()));
    }));
    let refs: Vec<&dyn Fn()> = fs.iter().map(|f| f.as_ref()).collect();
    let t = benches::min_ns(runs, elems.len() as f64, &refs);
    println!(
        "dense (1M 16-byte into a clone) ns/element: add_all {:.2}  add {:.2}  add_all (ring) {:.2}  hyperloglogplus {:.2}",
        t[0], t[1], t[2], t[3]
    );
    println!(
        "  add_all vs add {:.2}x, vs ring {:.2}x, vs hyperloglogplus {:.2}x",
        t[1] / t[0],
        t[2] / t[0],
        t[3] / t[0]
    );
    for (k, x) in hk.iter().zip(&t[4..]) {
        print!("  hash_batch {} {:.2}", k.name(), x);
    }
    println!(
        "  (hash only; selected {})",
        hll::selected_hash_kernel().name()
    );
    println!(
        "  read only {:.2} (each element's bytes loaded, no hash)",
        t[4 + hk.len()]
    );

    // The same elements in one buffer (as an Arrow column holds them): no
    // per-element heap chunk and `Vec` header to read.
    let flat: Vec<u8> = elems.concat();
    let t = benches::min_ns(
        runs,
        elems.len() as f64,
        &[
            &|| {
                let mut h = base.clone();
                h.add_all(black_box(flat.chunks_exact(len)));
                black_box(&h);
            },
            &|| {
                let mut h = base.clone();
                for e in flat.chunks_exact(len) {
                    h.add(black_box(e));
                }
                black_box(&h);
            },
            &|| {
                let mut h = theirs.clone();
                for e in flat.chunks_exact(len) {
                    h.insert(black_box(e));
                }
                black_box(&h);
            },
            &|| {
                let mut a = 0u64;
                for e in black_box(&flat).chunks_exact(len) {
                    simd_core::prefetch_read(e.as_ptr().wrapping_add(2048));
                    a ^= hll::hash(e);
                }
                black_box(a);
            },
            &|| {
                black_box(read_only(black_box(&flat).chunks_exact(len)));
            },
        ],
    );
    let hot = &flat[..4096 * len];
    let th = benches::min_ns(
        runs * 20,
        4096.0 * 16.0,
        &[
            &|| {
                let mut h = base.clone();
                for _ in 0..16 {
                    h.add_all(black_box(hot.chunks_exact(len)));
                }
                black_box(&h);
            },
            &|| {
                let mut a = 0u64;
                for _ in 0..16 {
                    for e in black_box(hot).chunks_exact(len) {
                        a ^= hll::hash(e);
                    }
                }
                black_box(a);
            },
        ],
    );
    println!(
        "in cache (4096 16-byte, 16 times): add_all {:.2}  hash only {:.2}",
        th[0], th[1]
    );
    // Short dense batches: add_all switches to one-byte registers from
    // 256 elements on; the ring (packed updates) is the other side.
    let hot_vecs = &elems[..4096];
    for n in [128usize, 256, 1024, 4096] {
        let t = benches::min_ns(
            runs * 50,
            n as f64,
            &[
                &|| {
                    let mut h = base.clone();
                    h.add_all(black_box(&hot_vecs[..n]));
                    black_box(&h);
                },
                &|| {
                    let mut h = base.clone();
                    add_all_ring(&mut h, black_box(&hot_vecs[..n]));
                    black_box(&h);
                },
            ],
        );
        print!("  {n}: add_all {:.2} ring {:.2}", t[0], t[1]);
    }
    println!("  (dense batches in cache, ns/element, the clone included)");
    println!(
        "dense, one buffer (1M 16-byte into a clone) ns/element: add_all {:.2}  add {:.2}  hyperloglogplus {:.2}  hash only {:.2}  read only {:.2}",
        t[0], t[1], t[2], t[3], t[4]
    );
    println!(
        "  add_all vs add {:.2}x, vs hyperloglogplus {:.2}x",
        t[1] / t[0],
        t[2] / t[0]
    );

    let sparse = benches::hex_elements(0x5eed, 1000);
    let t = benches::min_ns(
        runs * 100,
        sparse.len() as f64,
        &[
            &|| {
                let mut h = Hll::new();
                h.add_all(black_box(&sparse));
                black_box(&h);
            },
            &|| {
                let mut h = Hll::new();
                add_all_ring(&mut h, black_box(&sparse));
                black_box(&h);
            },
        ],
    );
    println!(
        "sparse (1000 into empty) ns/element: add_all {:.2}  add_all (ring) {:.2}  ({:.2}x)",
        t[0],
        t[1],
        t[1] / t[0]
    );
}

fn main() {
    let flag = |f: &str| std::env::args().any(|a| a == f);
    let all = !flag("--kernels") && !flag("--add") && !flag("--batch");
    if all || flag("--kernels") {
        kernels();
    }
    if all || flag("--add") {
        adds();
    }
    if all || flag("--batch") {
        batch();
    }
}
