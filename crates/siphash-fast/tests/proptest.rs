//! Property tests against the `siphasher` crate (SipHash-1-3 and 2-4, 64-
//! and 128-bit, one-shot and streaming with a random split).

//!
//! The 128-bit oracle is the reference's 16 output bytes read as a
//! little-endian `u128` (our documented contract): siphasher's `as_u128`
//! byte-swaps each half on big-endian targets (it applies `to_le` to the
//! numbers), so it differs from ours there although the bytes agree.

use core::hash::Hasher;
use proptest::prelude::*;
use siphash_fast as sf;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 8 } else { 256 }))]

    #[test]
    fn sip13_matches_siphasher(key in any::<[u8; 16]>(), data in proptest::collection::vec(any::<u8>(), 0..600), split in any::<prop::sample::Index>()) {
        let want = siphasher::sip::SipHasher13::new_with_key(&key).hash(&data);
        prop_assert_eq!(sf::siphash13(&key, &data), want);
        let want128 = u128::from_le_bytes(siphasher::sip128::SipHasher13::new_with_key(&key).hash(&data).as_bytes());
        prop_assert_eq!(sf::siphash13_128(&key, &data), want128);
        let at = split.index(data.len() + 1);
        let mut h = sf::SipHasher13::new_with_key(&key);
        h.write(&data[..at]);
        h.write(&data[at..]);
        prop_assert_eq!(h.finish(), want);
        for k in sf::kernels() {
            prop_assert_eq!(k.siphash13(&key, &data), want);
        }
    }

    #[test]
    fn sip24_matches_siphasher(key in any::<[u8; 16]>(), data in proptest::collection::vec(any::<u8>(), 0..600), split in any::<prop::sample::Index>()) {
        let want = siphasher::sip::SipHasher24::new_with_key(&key).hash(&data);
        prop_assert_eq!(sf::siphash24(&key, &data), want);
        let want128 = u128::from_le_bytes(siphasher::sip128::SipHasher24::new_with_key(&key).hash(&data).as_bytes());
        prop_assert_eq!(sf::siphash24_128(&key, &data), want128);
        let at = split.index(data.len() + 1);
        let mut h = sf::SipHasher24::new_with_key(&key);
        h.write(&data[..at]);
        h.write(&data[at..]);
        prop_assert_eq!(h.finish(), want);
        for k in sf::kernels() {
            prop_assert_eq!(k.siphash24(&key, &data), want);
        }
    }

    #[test]
    fn batch_matches_siphasher(key in any::<[u8; 16]>(), inputs in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..80), 0..40)) {
        let refs: Vec<&[u8]> = inputs.iter().map(|v| v.as_slice()).collect();
        let sip = siphasher::sip::SipHasher13::new_with_key(&key);
        let want: Vec<u64> = refs.iter().map(|d| sip.hash(d)).collect();
        let mut out = vec![0; refs.len()];
        sf::siphash13_batch(&key, &refs, &mut out);
        prop_assert_eq!(&out, &want);
        for k in sf::kernels() {
            let mut out = vec![0; refs.len()];
            k.siphash13_batch(&key, &refs, &mut out);
            prop_assert_eq!(&out, &want);
        }
    }
}
