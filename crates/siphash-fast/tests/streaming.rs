//! The streaming hashers give the one-shot result for every split of the
//! input (inputs up to 300 bytes, every split point, plus three-way splits
//! and byte-at-a-time feeding).

use core::hash::{BuildHasher, Hasher};
use simd_core::testing::{random_bytes, scaled};
use siphash_fast as sf;

const KEY: [u8; 16] = *b"streaming-key-16";

fn check<H: Hasher>(one: fn(&[u8; 16], &[u8]) -> u64, new: fn(&[u8; 16]) -> H) {
    let data = random_bytes(7, 300);
    let max = scaled(300, 20);
    for len in 0..=max {
        let input = &data[..len];
        let want = one(&KEY, input);
        for split in 0..=len {
            let mut h = new(&KEY);
            h.write(&input[..split]);
            h.write(&input[split..]);
            assert_eq!(h.finish(), want, "len {len} split {split}");
        }
        // Three pieces with a short middle, which exercises the pending-byte
        // path on both sides.
        for a in 0..len.min(20) {
            for b in a..len.min(a + 10) {
                let mut h = new(&KEY);
                h.write(&input[..a]);
                h.write(&input[a..b]);
                h.write(&input[b..]);
                assert_eq!(h.finish(), want, "len {len} splits {a},{b}");
            }
        }
        let mut h = new(&KEY);
        for byte in input {
            h.write(core::slice::from_ref(byte));
        }
        assert_eq!(h.finish(), want, "len {len} bytewise");
        // finish() does not consume: more writes continue the stream.
        if len > 0 {
            let mut h = new(&KEY);
            h.write(&input[..len / 2]);
            let _ = h.finish();
            h.write(&input[len / 2..]);
            assert_eq!(h.finish(), want, "len {len} finish mid-stream");
        }
    }
}

#[test]
fn sip12_every_split() {
    check(sf::siphash12, sf::SipHasher12::new_with_key);
}

#[test]
fn sip13_every_split() {
    check(sf::siphash13, sf::SipHasher13::new_with_key);
}

#[test]
fn sip24_every_split() {
    check(sf::siphash24, sf::SipHasher24::new_with_key);
}

#[test]
fn keys_and_builders_agree() {
    let k0 = u64::from_le_bytes(KEY[..8].try_into().unwrap());
    let k1 = u64::from_le_bytes(KEY[8..].try_into().unwrap());
    let mut a = sf::SipHasher13::new_with_keys(k0, k1);
    a.write(b"abc");
    let b = sf::BuildSipHasher13::with_key(&KEY);
    assert_eq!(b.key(), KEY);
    assert_eq!(sf::BuildSipHasher13::with_keys(k0, k1), b);
    let mut h = b.build_hasher();
    h.write(b"abc");
    assert_eq!(a.finish(), h.finish());
    assert_eq!(a.finish(), sf::siphash13(&KEY, b"abc"));
    // Debug never shows the key.
    let shown = format!("{b:?} {a:?}");
    assert!(!shown.contains(&k0.to_string()) && !shown.contains(&format!("{k0:x}")));
}

#[test]
fn hashmap_with_builders() {
    use std::collections::HashMap;
    let mut m: HashMap<String, usize, sf::BuildSipHasher13> = HashMap::default();
    let mut m12: HashMap<u64, usize, sf::BuildSipHasher12> = HashMap::default();
    let mut m24: HashMap<Vec<u8>, usize, sf::BuildSipHasher24> =
        HashMap::with_hasher(sf::BuildSipHasher24::with_key(&[0; 16]));
    for i in 0..1000 {
        m.insert(format!("key:{i}"), i);
        m12.insert(i as u64, i);
        m24.insert(i.to_string().into_bytes(), i);
    }
    for i in 0..1000 {
        assert_eq!(m[&format!("key:{i}")], i);
        assert_eq!(m12[&(i as u64)], i);
        assert_eq!(m24[i.to_string().as_bytes()], i);
    }
    // Random keys differ between builders.
    assert_ne!(
        sf::BuildSipHasher13::new().key(),
        sf::BuildSipHasher13::new().key()
    );
    // Same key, same hash: the builder is deterministic.
    let b = sf::BuildSipHasher13::default();
    assert_eq!(b.hash_one("x"), b.hash_one("x"));
}
