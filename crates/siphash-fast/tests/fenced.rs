//! The one-shot functions on inputs placed flush against inaccessible guard
//! pages (see `simd_core::testing::Guarded`): the overlapping tail loads and
//! the riscv64 word loads must never touch a byte outside the input, or the
//! test process faults. Answers are compared with the same functions on heap
//! copies (checked against the golden vectors elsewhere). The batch kernels'
//! guard-page test is in `batch.rs`.

use simd_core::testing::{for_each_len_fenced, scaled};
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
