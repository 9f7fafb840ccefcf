//! Min-of-N timing of siphash-fast's dispatched calls, for machines too busy
//! for criterion's medians: one-shot SipHash-1-2 / 1-3 / 2-4 at a few key
//! sizes (inlined scalar code on x86_64 and aarch64) and the three batch
//! functions over 256 keys of 8..=40 bytes (a cached function pointer to the
//! widest kernel).
//!
//! `cargo run --release -p benches --example siphash_timing` prints ns per
//! hash.

#![deny(clippy::undocumented_unsafe_blocks)]

use std::hint::black_box;

use simd_core::testing::Rng;

fn main() {
    let key = *b"0123456789abcdef";
    let mut rng = Rng::new(0x5eed);
    for n in [8usize, 16, 32, 64] {
        let data: Vec<Vec<u8>> = (0..256).map(|i| benches::bytes(i, n)).collect();
        let data = &data;
        let per = |t: f64| t / data.len() as f64;
        let passes: Vec<Box<dyn Fn() -> u64 + '_>> = vec![
            Box::new(move || {
                black_box(data)
                    .iter()
                    .fold(0, |h, d| h ^ siphash_fast::siphash12(&key, d))
            }),
            Box::new(move || {
                black_box(data)
                    .iter()
                    .fold(0, |h, d| h ^ siphash_fast::siphash13(&key, d))
            }),
            Box::new(move || {
                black_box(data)
                    .iter()
                    .fold(0, |h, d| h ^ siphash_fast::siphash24(&key, d))
            }),
        ];
        let t = benches::min_ns(2000, 1.0, &passes.iter().map(|f| &**f).collect::<Vec<_>>());
        println!(
            "one-shot {n:>3} B  ns/hash: sip12 {:6.2}  sip13 {:6.2}  sip24 {:6.2}",
            per(t[0]),
            per(t[1]),
            per(t[2])
        );
    }
    let keys: Vec<Vec<u8>> = (0..256)
        .map(|i| benches::bytes(i, 8 + rng.below(33) as usize))
        .collect();
    let inputs: Vec<&[u8]> = keys.iter().map(|k| k.as_slice()).collect();
    let inputs = &inputs;
    let out = std::cell::RefCell::new(vec![0u64; inputs.len()]);
    let out = &out;
    let passes: Vec<Box<dyn Fn() -> u64 + '_>> = vec![
        Box::new(move || {
            let mut o = out.borrow_mut();
            siphash_fast::siphash12_batch(&key, black_box(inputs), &mut o);
            o[0]
        }),
        Box::new(move || {
            let mut o = out.borrow_mut();
            siphash_fast::siphash13_batch(&key, black_box(inputs), &mut o);
            o[0]
        }),
        Box::new(move || {
            let mut o = out.borrow_mut();
            siphash_fast::siphash24_batch(&key, black_box(inputs), &mut o);
            o[0]
        }),
    ];
    let t = benches::min_ns(2000, 1.0, &passes.iter().map(|f| &**f).collect::<Vec<_>>());
    let per = |t: f64| t / inputs.len() as f64;
    println!(
        "batch 256 x 8..=40 B  ns/hash: sip12 {:6.2}  sip13 {:6.2}  sip24 {:6.2}  ({})",
        per(t[0]),
        per(t[1]),
        per(t[2]),
        siphash_fast::selected_kernel().name()
    );
}
