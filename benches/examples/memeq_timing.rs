//! Min-of-N timing of `memeq::eq` / `memeq::cmp` against `==` / `Ord`, for
//! machines too busy for criterion's medians (the minimum over many runs
//! drops the runs other processes disturbed).
//!
//! `cargo run --release -p benches --example memeq_timing` prints ns per
//! compare (`eq`, a `Comparer`'s `eq`, `==`, `cmp`, `Ord`) for mixed
//! 1..=64-byte sets of 512, 4096 and 65536 pairs (the larger ones too many
//! for a branch predictor to learn their lengths) and fixed sizes (with the
//! two bounds below on the same pairs), and ns per lookup in the `memeq/lookup`
//! benchmark's table (the same module, `memeq_lookup`): with `eq`, `==`, two
//! bounds that are not correct compares (first byte; first and last byte)
//! and, for the fixed-length tables, `eq_fixed`.

#![deny(clippy::undocumented_unsafe_blocks)]

use std::hint::black_box;

use simd_core::testing::Rng;

fn compares(label: &str, lo: usize, hi: usize, unequal: bool, count: usize) {
    let mut rng = Rng::new(0x1234_5678 + lo as u64 * 31 + hi as u64);
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for _ in 0..count {
        let n = lo + rng.below((hi - lo + 1) as u64) as usize;
        let a = benches::bytes(rng.next_u64(), n);
        let mut b = a.clone();
        if unequal {
            let p = rng.below(n as u64) as usize;
            b[p] ^= 1;
        }
        xs.push(a);
        ys.push(b);
    }
    let pairs: Vec<(&[u8], &[u8])> = xs.iter().zip(&ys).map(|(a, b)| (&a[..], &b[..])).collect();
    let per = |t: f64| t / pairs.len() as f64;
    // About the same time per set: 3000 passes over 512 pairs.
    let runs = (3000 * 512 / count.max(512)).max(40);
    let kernels: Vec<memeq::Kernel> = if std::env::args().any(|a| a == "--kernels") {
        memeq::kernels().collect()
    } else {
        Vec::new()
    };
    let pairs = &pairs;
    let by = memeq::Comparer::new();
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
        // Not correct compares: the loop with the lengths and the first
        // byte, and with the last byte too (every line a pair spans).
        Box::new(|| {
            black_box(&pairs)
                .iter()
                .filter(|(a, b)| memeq_lookup::first_byte(a, b))
                .count()
        }),
        Box::new(|| {
            black_box(&pairs)
                .iter()
                .filter(|(a, b)| memeq_lookup::first_last(a, b))
                .count()
        }),
        Box::new(move || {
            black_box(&pairs)
                .iter()
                .filter(|(a, b)| by.eq(a, b))
                .count()
        }),
    ];
    for k in &kernels {
        passes.push(Box::new(move || {
            black_box(&pairs).iter().filter(|(a, b)| k.eq(a, b)).count()
        }));
        passes.push(Box::new(move || {
            black_box(&pairs)
                .iter()
                .map(|(a, b)| k.mismatch(a, b))
                .sum()
        }));
    }
    let t = benches::min_ns(runs, 1.0, &passes.iter().map(|f| &**f).collect::<Vec<_>>());
    let (ours, std, ocmp, scmp) = (per(t[0]), per(t[1]), per(t[2]), per(t[3]));
    let (first, last, handle) = (per(t[4]), per(t[5]), per(t[6]));
    for (k, t) in kernels.iter().zip(t[7..].chunks(2)) {
        print!("{}: {:.2} / {:.2}  ", k.name(), per(t[0]), per(t[1]));
    }
    if !kernels.is_empty() {
        println!();
    }
    println!(
        "{label:<26} eq: ours {ours:6.2}  Comparer {handle:6.2}  == {std:6.2}  ({:.2}x, {:.2}x)   cmp: ours {ocmp:6.2}  Ord {scmp:6.2}  ({:.2}x)   bounds: first byte {first:5.2}, first+last {last:5.2}",
        std / ours,
        std / handle,
        scmp / ocmp
    );
}

#[path = "../benches/memeq_lookup/mod.rs"]
mod memeq_lookup;

fn lookups(case: &memeq_lookup::Case) {
    for (kind, keys) in [("present", &case.present), ("absent", &case.absent)] {
        let qs = keys.slices();
        let per = |t: f64| t / qs.len() as f64;
        let table = &case.table;
        let passes: Vec<Box<dyn Fn() -> usize + '_>> = vec![
            Box::new(|| table.lookup_bulk(black_box(&qs), memeq::eq)),
            Box::new(|| table.lookup_bulk(black_box(&qs), |a, b| a == b)),
            // Not a correct compare: how much less than `==` any compare
            // could take here.
            Box::new(|| table.lookup_bulk(black_box(&qs), memeq_lookup::first_byte)),
            // Nor this, but it waits for every line of the key, as a
            // correct compare must: a tighter bound.
            Box::new(|| table.lookup_bulk(black_box(&qs), memeq_lookup::first_last)),
            // Correct for a table whose keys all have one length, which it
            // knows at compile time (`eq_fixed`): what a correct compare
            // saves here at best. Only for the fixed-length cases.
            Box::new(|| match case.name.as_str() {
                "16" => table.lookup_bulk(black_box(&qs), known_length::<16>),
                "32" => table.lookup_bulk(black_box(&qs), known_length::<32>),
                "64" => table.lookup_bulk(black_box(&qs), known_length::<64>),
                _ => 0,
            }),
            // The capability handle, made once outside the probe loop.
            Box::new(|| {
                let by = memeq::Comparer::new();
                table.lookup_bulk(black_box(&qs), |a, b| by.eq(a, b))
            }),
        ];
        let t = benches::min_ns(60, 1.0, &passes.iter().map(|f| &**f).collect::<Vec<_>>());
        let (ours, std, first, first_last) = (per(t[0]), per(t[1]), per(t[2]), per(t[3]));
        let known = if case.name == "mixed" {
            String::new()
        } else {
            let k = per(t[4]);
            format!(
                "  known-length {k:6.2} ({:.1}% fewer)",
                100.0 * (1.0 - k / std)
            )
        };
        let handle = per(t[5]);
        println!(
            "lookup {:<6} {kind:<8} ns/lookup: ours {ours:6.2}  Comparer {handle:6.2}  == {std:6.2}  ({:.1}% fewer ns)  bound:first-byte {first:6.2} ({:.1}% fewer)  bound:first-last {first_last:6.2} ({:.1}% fewer){known}",
            case.name,
            100.0 * (1.0 - ours / std),
            100.0 * (1.0 - first / std),
            100.0 * (1.0 - first_last / std)
        );
    }
}

/// Equality of two `N`-byte keys through `eq_fixed` (false for any other
/// length: right only where every key has `N` bytes).
#[inline(always)]
fn known_length<const N: usize>(a: &[u8], b: &[u8]) -> bool {
    match (<&[u8; N]>::try_from(a), <&[u8; N]>::try_from(b)) {
        (Ok(a), Ok(b)) => memeq::eq_fixed(a, b),
        _ => false,
    }
}

/// Flags: `--no-lookup` skips the table, `--lookup-only` runs only it,
/// `--sizes=16,128` picks the fixed sizes, `--kernels` adds each kernel
/// through its handle (ns per `eq` / per `mismatch`), `--mixed-long` adds
/// three sets of random lengths (129..=512, 257..=512 and 513..=1024
/// bytes, where the long loops' remainders vary).
fn main() {
    let flag = |f: &str| std::env::args().any(|a| a == f);
    if !flag("--lookup-only") {
        compares("mixed 1..=64 equal", 1, 64, false, 512);
        compares("mixed 1..=64 unequal", 1, 64, true, 512);
        compares("mixed 1..=64, 4096 pairs", 1, 64, false, 4096);
        compares("mixed 1..=64, 65536 pairs", 1, 64, false, 65536);
        if flag("--mixed-long") {
            compares("mixed 129..=512 equal", 129, 512, false, 64);
            compares("mixed 257..=512 equal", 257, 512, false, 64);
            compares("mixed 513..=1024 equal", 513, 1024, false, 64);
        }
        let all = [
            0, 1, 2, 3, 4, 7, 8, 15, 16, 24, 31, 32, 33, 48, 63, 64, 128, 1024, 65536,
        ];
        for n in benches::sizes_arg(&all) {
            let count = if n <= 256 { 512 } else { 64 };
            compares(&format!("{n} B equal"), n, n, false, count);
        }
    }
    if flag("--no-lookup") {
        return;
    }
    for case in memeq_lookup::cases() {
        lookups(&case);
    }
}
