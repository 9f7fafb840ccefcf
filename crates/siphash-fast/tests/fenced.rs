//! The one-shot functions and every batch kernel on inputs placed flush
//! against inaccessible guard pages (see `simd_core::testing::Guarded`):
//! the overlapping tail loads, the riscv64 word loads and the AVX-512
//! masked gathers must never touch a byte outside an input, or the test
//! process faults. Answers are compared with the same functions on heap
//! copies (checked against the golden vectors elsewhere).

use simd_core::testing::{for_each_len_fenced, random_bytes, scaled, Guarded};
use siphash_fast as sf;

const KEY: [u8; 16] = *b"fenced-input-key";

#[test]
fn one_shot_stays_inside_the_input() {
    for_each_len_fenced(scaled(300, 40), 9, |b| {
        let copy = b.to_vec();
        assert_eq!(sf::siphash12(&KEY, b), sf::siphash12(&KEY, &copy));
        assert_eq!(
            sf::siphash12_nocase(&KEY, b),
            sf::siphash12_nocase(&KEY, &copy)
        );
        assert_eq!(sf::siphash13(&KEY, b), sf::siphash13(&KEY, &copy));
        assert_eq!(sf::siphash24(&KEY, b), sf::siphash24(&KEY, &copy));
        assert_eq!(sf::siphash13_128(&KEY, b), sf::siphash13_128(&KEY, &copy));
        assert_eq!(sf::siphash24_128(&KEY, b), sf::siphash24_128(&KEY, &copy));
    });
}

#[test]
fn batches_stay_inside_every_input() {
    // 19 inputs (more than two of the widest kernel step, plus a
    // remainder), each in its own fenced buffer.
    const LANES: usize = 19;
    let mut fences: Vec<Guarded> = (0..LANES).map(|_| Guarded::new(64)).collect();
    let bytes = random_bytes(4, 64);
    for round in 0..scaled(130, 6) {
        // Equal lengths (the transposing path), then mixed lengths (the
        // gather path), each input against its upper or lower fence.
        let lens: Vec<usize> = (0..LANES)
            .map(|i| {
                if round < 65 {
                    round
                } else {
                    (round + 7 * i) % 65
                }
            })
            .collect();
        let inputs: Vec<&[u8]> = fences
            .iter_mut()
            .zip(&lens)
            .enumerate()
            .map(|(i, (g, &n))| {
                let s = if (i + round) % 2 == 0 {
                    g.back(n)
                } else {
                    g.front(n)
                };
                s.copy_from_slice(&bytes[..n]);
                &*s
            })
            .collect();
        let copies: Vec<Vec<u8>> = inputs.iter().map(|i| i.to_vec()).collect();
        let want13: Vec<u64> = copies.iter().map(|c| sf::siphash13(&KEY, c)).collect();
        let want12: Vec<u64> = copies.iter().map(|c| sf::siphash12(&KEY, c)).collect();
        let want24: Vec<u64> = copies.iter().map(|c| sf::siphash24(&KEY, c)).collect();
        for k in sf::kernels() {
            let mut out = [0u64; LANES];
            k.siphash13_batch(&KEY, &inputs, &mut out);
            assert_eq!(out.to_vec(), want13, "{} 1-3 round {round}", k.name());
            k.siphash12_batch(&KEY, &inputs, &mut out);
            assert_eq!(out.to_vec(), want12, "{} 1-2 round {round}", k.name());
            k.siphash24_batch(&KEY, &inputs, &mut out);
            assert_eq!(out.to_vec(), want24, "{} 2-4 round {round}", k.name());
        }
    }
}
