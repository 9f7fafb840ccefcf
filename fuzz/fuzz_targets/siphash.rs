//! siphash-fast: streaming at arbitrary split points and batch hashing (mixed
//! and equal lengths) against the one-shot functions, on every kernel.
//!
//! Input layout: 16 key bytes, one byte choosing split points, then data.
#![no_main]

use core::hash::Hasher;
use libfuzzer_sys::fuzz_target;
use siphash_fast::{SipHasher12, SipHasher13, SipHasher24};

fn streamed<H: Hasher>(mut h: H, data: &[u8], cuts: &[usize]) -> u64 {
    let mut at = 0;
    for &c in cuts {
        let c = c.min(data.len()).max(at);
        h.write(&data[at..c]);
        at = c;
    }
    h.write(&data[at..]);
    h.finish()
}

fuzz_target!(|input: &[u8]| {
    if input.len() < 17 {
        return;
    }
    let key: [u8; 16] = input[..16].try_into().unwrap();
    let sel = usize::from(input[16]);
    let data = &input[17..];
    let cuts = [sel % 9, sel % 9 + sel / 9, data.len() / 2 + sel % 5];

    let h12 = siphash_fast::siphash12(&key, data);
    let h13 = siphash_fast::siphash13(&key, data);
    let h24 = siphash_fast::siphash24(&key, data);
    assert_eq!(streamed(SipHasher12::new_with_key(&key), data, &cuts), h12);
    assert_eq!(streamed(SipHasher13::new_with_key(&key), data, &cuts), h13);
    assert_eq!(streamed(SipHasher24::new_with_key(&key), data, &cuts), h24);
    let lower = data.to_ascii_lowercase();
    assert_eq!(siphash_fast::siphash12_nocase(&key, data), siphash_fast::siphash12(&key, &lower));

    // A batch of prefixes of the data (mixed lengths), against one-shots.
    let n = 1 + sel % 19;
    let inputs: Vec<&[u8]> = (0..n).map(|i| &data[..data.len() * i / n]).collect();
    // And a batch of equal-length slices (the kernels' fast path).
    let width = sel % 33;
    let equal: Vec<&[u8]> = if width == 0 { Vec::new() } else { data.chunks_exact(width).collect() };
    let mut out_equal = vec![0u64; equal.len()];
    siphash_fast::siphash12_batch(&key, &equal, &mut out_equal);
    for (inp, &o) in equal.iter().zip(&out_equal) {
        assert_eq!(o, siphash_fast::siphash12(&key, inp));
    }
    let mut out = vec![0u64; n];
    siphash_fast::siphash13_batch(&key, &inputs, &mut out);
    for (inp, &o) in inputs.iter().zip(&out) {
        assert_eq!(o, siphash_fast::siphash13(&key, inp));
    }
    for k in siphash_fast::kernels() {
        assert_eq!(k.siphash12(&key, data), h12, "kernel {}", k.name());
        assert_eq!(k.siphash13(&key, data), h13, "kernel {}", k.name());
        assert_eq!(k.siphash24(&key, data), h24, "kernel {}", k.name());
        assert_eq!(k.siphash13_128(&key, data), siphash_fast::siphash13_128(&key, data));
        k.siphash12_batch(&key, &inputs, &mut out);
        for (inp, &o) in inputs.iter().zip(&out) {
            assert_eq!(o, siphash_fast::siphash12(&key, inp), "kernel {}", k.name());
        }
        k.siphash24_batch(&key, &inputs, &mut out);
        for (inp, &o) in inputs.iter().zip(&out) {
            assert_eq!(o, siphash_fast::siphash24(&key, inp), "kernel {}", k.name());
        }
        k.siphash13_batch(&key, &equal, &mut out_equal);
        for (inp, &o) in equal.iter().zip(&out_equal) {
            assert_eq!(o, siphash_fast::siphash13(&key, inp), "kernel {}", k.name());
        }
    }
});
