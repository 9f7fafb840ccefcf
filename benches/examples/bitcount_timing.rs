//! Min-of-N timing of `bitcount::count` on short inputs (1..=64 bytes and a
//! mixed-length set) against the `scalar` kernel called through its handle,
//! the best dispatched kernel called through its handle, `simd-popcnt`, and
//! `naive` (portable `count_ones` code inlined into the caller's loop), on
//! machines too busy for criterion's medians.
//!
//! `cargo run --release -p benches --example bitcount_timing` prints ns per
//! count for each length; `--sizes=1,8,64` picks the lengths. With `--long`
//! it times one buffer per size from 256 B to 12.5 MB instead (default
//! sizes; `--sizes=` works there too): `count`, every kernel the CPU
//! supports through its handle, `simd-popcnt` and the benchmarks'
//! `read-bandwidth` baseline (`benches::read`), in the same rounds;
//! `--offset=K` starts each buffer K bytes past a 64-byte boundary (the
//! answer at DRAM sizes depends on it: see bitcount's PERFORMANCE.md).

#![deny(clippy::undocumented_unsafe_blocks)]

use std::hint::black_box;

use simd_core::testing::Rng;

/// 512 strings of lengths `lo..=hi`, each at a random offset (0..64) of a
/// shared buffer, as keys sit in memory.
fn strings(lo: usize, hi: usize) -> (Vec<u8>, Vec<(usize, usize)>) {
    let mut rng = Rng::new(0xb17c + lo as u64 * 131 + hi as u64);
    let buf = benches::bytes(rng.next_u64(), 512 * (64 + 64));
    let spans = (0..512)
        .map(|i| {
            let n = lo + rng.below((hi - lo + 1) as u64) as usize;
            (i * 128 + rng.below(64) as usize, n)
        })
        .collect();
    (buf, spans)
}

fn row(label: &str, lo: usize, hi: usize, best: &bitcount::Kernel, scalar: &bitcount::Kernel) {
    let (buf, spans) = strings(lo, hi);
    let (buf, spans) = (&buf, &spans);
    // Generic, so that `count` inlines into the loop as into a caller's.
    fn sum(buf: &[u8], spans: &[(usize, usize)], f: impl Fn(&[u8]) -> u64) -> u64 {
        black_box(spans)
            .iter()
            .map(|&(at, n)| f(&buf[at..at + n]))
            .sum()
    }
    let t = benches::min_ns(
        3000,
        spans.len() as f64,
        &[
            &|| sum(buf, spans, bitcount::count),
            &|| sum(buf, spans, |s| scalar.count(s)),
            &|| sum(buf, spans, |s| best.count(s)),
            &|| sum(buf, spans, simd_popcnt::popcnt),
            &|| sum(buf, spans, benches::naive_count),
        ],
    );
    println!(
        "{label:<14} count {:6.2}  kernel:scalar {:6.2} ({:.2}x)  kernel:{} {:6.2} ({:.2}x)  simd-popcnt {:6.2} ({:.2}x)  naive {:6.2} ({:.2}x)",
        t[0],
        t[1],
        t[1] / t[0],
        best.name(),
        t[2],
        t[2] / t[0],
        t[3],
        t[3] / t[0],
        t[4],
        t[4] / t[0],
    );
}

/// One buffer of each size counted again and again (repeated so that each
/// timed pass takes microseconds): `count`, each kernel, `simd-popcnt`.
fn long(ks: &[bitcount::Kernel]) {
    println!("ns per count of one buffer; (Nx) = that time over `count`'s");
    let read = benches::read::read_bandwidth();
    let offset = std::env::args().find_map(|a| {
        a.strip_prefix("--offset=")
            .map(|k| k.parse::<usize>().expect("--offset= takes 0..=63") % 64)
    });
    println!(
        "buffers {}",
        match offset {
            Some(k) => format!("{k} bytes past a 64-byte boundary (--offset)"),
            None => "where the allocator puts them".to_string(),
        }
    );
    for n in benches::sizes_arg(&[256, 1024, 4096, 16384, 262_144, 12_500_000]) {
        let owned = benches::bytes(n as u64, n + 64);
        let buf = match offset {
            // `offset` bytes past a 64-byte boundary.
            Some(k) => {
                let at = (k + 64 - (owned.as_ptr() as usize & 63)) & 63;
                &owned[at..at + n]
            }
            None => &owned[..n],
        };
        // Enough repetitions per timing that the clock's step (some 20 ns in
        // a KVM guest) stays under 1% of it.
        let reps = ((1 << 18) / n).max(1);
        let runs = if n >= 1 << 20 { 60 } else { 3000 };
        let times =
            |f: &dyn Fn(&[u8]) -> u64| -> u64 { (0..reps).map(|_| f(black_box(buf))).sum() };
        let mut fs: Vec<Box<dyn Fn() -> u64 + '_>> = vec![Box::new(|| times(&bitcount::count))];
        for k in ks {
            fs.push(Box::new(move || times(&|b| k.count(b))));
        }
        fs.push(Box::new(|| times(&simd_popcnt::popcnt)));
        fs.push(Box::new(|| times(&read)));
        let refs: Vec<&dyn Fn() -> u64> = fs.iter().map(|f| f.as_ref()).collect();
        let t = benches::min_ns(runs, reps as f64, &refs);
        let mut line = format!("{n:>9} B  count {:.1}", t[0]);
        let names = ks.iter().map(|k| format!("kernel:{}", k.name()));
        let others = ["simd-popcnt".to_string(), "read-bandwidth".to_string()];
        for (name, ns) in names.chain(others).zip(&t[1..]) {
            line += &format!("  {name} {ns:.1} ({:.2}x)", ns / t[0]);
        }
        println!("{line}");
    }
}

fn main() {
    let ks: Vec<bitcount::Kernel> = bitcount::kernels().collect();
    if std::env::args().any(|a| a == "--long") {
        long(&ks);
        return;
    }
    let scalar = ks.iter().find(|k| k.name() == "scalar").unwrap();
    let best = &ks[0];
    println!(
        "ns per count; (Nx) = that row's time over `count`'s (above 1: `count` is faster); first listed kernel: {}",
        best.name()
    );
    row("mixed 1..=64", 1, 64, best, scalar);
    for n in benches::sizes_arg(&[1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 48, 63, 64]) {
        row(&format!("{n} B"), n, n, best, scalar);
    }
}
