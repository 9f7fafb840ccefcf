//! Min-of-N timing of `bitcount::bitop` and `bitcount::bitop_count` on
//! machines too busy for criterion's medians: in the same rounds, `ours`,
//! the `plain-loop` (one pass per source), the `stream-bound` and, for the
//! count, `bitop`+`count` and the `read-bound` (`benches::bitop`).
//!
//! `cargo run --release -p benches --example bitop_timing` prints one line
//! per operation, source count and size with ns per call and the ratios;
//! `--sizes=64,65536` picks the sizes, `--ops=and,one` the operations,
//! `--keys=2,8` the source counts, `--count` times the count rows instead.

#![deny(clippy::undocumented_unsafe_blocks)]

use std::hint::black_box;

use bitcount::BitOp;

fn list<T>(name: &str, default: Vec<T>, parse: impl Fn(&str) -> T) -> Vec<T> {
    std::env::args()
        .find_map(|a| {
            a.strip_prefix(&format!("--{name}="))
                .map(|s| s.split(',').map(&parse).collect())
        })
        .unwrap_or(default)
}

fn main() {
    let sizes = benches::sizes_arg(&[16, 64, 256, 1024, 16 << 10, 64 << 10, 1 << 20, 12_500_000]);
    let ops = list(
        "ops",
        vec![BitOp::And, BitOp::Or, BitOp::Xor, BitOp::One, BitOp::Diff],
        |s| s.parse().expect("--ops= takes BITOP names"),
    );
    let keys = list("keys", vec![2usize, 3, 8, 17], |s| {
        s.parse().expect("--keys= takes numbers")
    });
    let counting = std::env::args().any(|a| a == "--count");
    for &k in &keys {
        for &n in &sizes {
            let data: Vec<Vec<u8>> = (0..k)
                .map(|j| benches::bytes((n * 41 + j) as u64, n))
                .collect();
            let sources: Vec<&[u8]> = data.iter().map(Vec::as_slice).collect();
            let s = &sources[..];
            // Enough rounds for ~0.3 s per line, at least 7.
            let runs = (3e8 / (n as f64 * k as f64 + 2000.0)).clamp(7.0, 20000.0) as usize;
            // Calls per round for small sizes (the timer's resolution).
            let per = (4096 / n.max(1)).max(1);
            for &op in &ops {
                let mut d = Vec::with_capacity(n);
                let d = std::cell::RefCell::new(&mut d);
                if counting {
                    let t = benches::min_ns(
                        runs,
                        per as f64,
                        &[
                            &|| {
                                (0..per)
                                    .map(|_| bitcount::bitop_count(op, black_box(s)).unwrap())
                                    .sum::<u64>()
                            },
                            &|| {
                                let mut d = d.borrow_mut();
                                (0..per)
                                    .map(|_| {
                                        bitcount::bitop(op, &mut d, black_box(s)).unwrap();
                                        bitcount::count(&d)
                                    })
                                    .sum::<u64>()
                            },
                            &|| {
                                (0..per)
                                    .map(|_| benches::bitop::read_bound(black_box(s)))
                                    .sum::<u64>()
                            },
                        ],
                    );
                    println!(
                        "count {:>5} x{k:<2} {n:>9} B  ours {:>11.1} ns  bitop+count {:>11.1}  read-bound {:>11.1}  | vs bitop+count {:.2}x  ours/bound {:.2}",
                        op.name(), t[0], t[1], t[2], t[1] / t[0], t[0] / t[2]
                    );
                } else {
                    let t = benches::min_ns(
                        runs,
                        per as f64,
                        &[
                            &|| {
                                let mut d = d.borrow_mut();
                                for _ in 0..per {
                                    bitcount::bitop(op, &mut d, black_box(s)).unwrap();
                                }
                            },
                            &|| {
                                let mut d = d.borrow_mut();
                                for _ in 0..per {
                                    benches::bitop::plain(op, &mut d, black_box(s));
                                }
                            },
                            &|| {
                                let mut d = d.borrow_mut();
                                for _ in 0..per {
                                    benches::bitop::stream_bound(&mut d, black_box(s));
                                }
                            },
                        ],
                    );
                    println!(
                        "bitop {:>5} x{k:<2} {n:>9} B  ours {:>11.1} ns  plain {:>11.1}  bound {:>11.1}  | vs plain {:.2}x  ours/bound {:.2}",
                        op.name(), t[0], t[1], t[2], t[1] / t[0], t[0] / t[2]
                    );
                }
            }
        }
    }
}
