//! Batch hashing equals one-shot hashing, through the dispatcher and every
//! kernel: every batch size 0..=40 (70 for equal lengths: two chunks of
//! every kernel's widest step plus every remainder of every lane count),
//! equal lengths, mixed lengths, one long lane among short ones.

use simd_core::testing::{random_bytes, scaled, Guarded, Rng};
use siphash_fast as sf;

const KEY: [u8; 16] = *b"batch-hash-key!!";

type One = fn(&[u8; 16], &[u8]) -> u64;
type Batch = fn(&[u8; 16], &[&[u8]], &mut [u64]);
type KBatch = fn(&sf::Kernel, &[u8; 16], &[&[u8]], &mut [u64]);

const ALGS: [(&str, One, Batch, KBatch); 3] = [
    (
        "1-2",
        sf::siphash12,
        sf::siphash12_batch,
        sf::Kernel::siphash12_batch,
    ),
    (
        "1-3",
        sf::siphash13,
        sf::siphash13_batch,
        sf::Kernel::siphash13_batch,
    ),
    (
        "2-4",
        sf::siphash24,
        sf::siphash24_batch,
        sf::Kernel::siphash24_batch,
    ),
];

fn check(what: &str, inputs: &[&[u8]]) {
    for (alg, one, batch, kbatch) in ALGS {
        let want: Vec<u64> = inputs.iter().map(|i| one(&KEY, i)).collect();
        let mut out = vec![0; inputs.len()];
        batch(&KEY, inputs, &mut out);
        assert_eq!(out, want, "{alg} {what} dispatched");
        for k in sf::kernels() {
            let mut out = vec![0; inputs.len()];
            kbatch(&k, &KEY, inputs, &mut out);
            assert_eq!(out, want, "{alg} {what} kernel {}", k.name());
        }
    }
}

#[test]
fn every_count_equal_lengths() {
    let data = random_bytes(1, 4096);
    for len in [0usize, 1, 7, 8, 9, 15, 16, 17, 24, 31, 64, 100] {
        for count in 0..=scaled(70, 9) {
            let inputs: Vec<&[u8]> = (0..count).map(|i| &data[i * 3 % 512..][..len]).collect();
            check(&format!("count {count} len {len}"), &inputs);
        }
    }
}

#[test]
fn every_count_mixed_lengths() {
    let data = random_bytes(2, 4096);
    let mut rng = Rng::new(3);
    for count in 0..=scaled(40, 9) {
        for round in 0..scaled(8, 1) {
            let inputs: Vec<&[u8]> = (0..count)
                .map(|_| {
                    let len = rng.below(70) as usize;
                    let at = rng.below(1000) as usize;
                    &data[at..at + len]
                })
                .collect();
            check(&format!("count {count} round {round}"), &inputs);
        }
    }
}

#[test]
fn one_long_lane_in_each_position() {
    let data = random_bytes(4, 2048);
    for lanes in [2usize, 4, 8, 16] {
        for long in 0..lanes {
            let inputs: Vec<&[u8]> = (0..lanes)
                .map(|i| {
                    if i == long {
                        &data[1..1001]
                    } else {
                        &data[i..i + 3]
                    }
                })
                .collect();
            check(&format!("lanes {lanes} long {long}"), &inputs);
            // And the reverse: one short lane among long ones.
            let inputs: Vec<&[u8]> = (0..lanes)
                .map(|i| {
                    if i == long {
                        &data[5..5]
                    } else {
                        &data[i..i + 77]
                    }
                })
                .collect();
            check(&format!("lanes {lanes} short {long}"), &inputs);
        }
    }
}

#[test]
#[should_panic(expected = "one output per input")]
fn length_mismatch_panics() {
    let mut out = [0u64; 3];
    sf::siphash13_batch(&KEY, &[b"a", b"b"], &mut out);
}

/// Batches whose inputs each sit flush against an inaccessible guard page
/// (see `simd_core::testing::Guarded`): the transposing loads and the
/// AVX-512 masked gathers must never touch a byte outside an input, or the
/// test process faults (the one-shot oracle is guard-page tested in
/// `fenced.rs`).
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
        let inputs: Vec<&[u8]> = fences
            .iter_mut()
            .enumerate()
            .map(|(i, g)| {
                let n = if round < 65 {
                    round
                } else {
                    (round + 7 * i) % 65
                };
                &*g.place(&bytes[..n], (i + round) % 2 == 0)
            })
            .collect();
        check(&format!("fenced round {round}"), &inputs);
    }
}
