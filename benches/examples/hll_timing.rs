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
//! Flags: `--kernels` or `--add` to run only one part.

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

fn main() {
    let flag = |f: &str| std::env::args().any(|a| a == f);
    let all = !flag("--kernels") && !flag("--add");
    if all || flag("--kernels") {
        kernels();
    }
    if all || flag("--add") {
        adds();
    }
}
