//! The byte encodings against a naive register model: whatever the
//! encoding, chunking or sparse limit, the registers are the max of the
//! added counts, and counts agree.

use hll::{count_union, Hll, REGISTERS};
use proptest::prelude::*;

/// Register index and count of a hash, as the spec defines them.
fn model_add(regs: &mut [u8; REGISTERS], h: u64) {
    let index = (h & 16383) as usize;
    let count = (((h >> 14) | (1 << 50)).trailing_zeros() + 1) as u8;
    regs[index] = regs[index].max(count);
}

fn hashes() -> impl Strategy<Value = Vec<u64>> {
    // Small index ranges make long VAL runs and many splits/merges; high
    // zero runs make values above 32 (promotion by value).
    let one = prop_oneof![
        any::<u64>(),
        (0u64..64, 0u64..4).prop_map(|(i, c)| i | (1 << (14 + c))),
        (0u64..16384).prop_map(|i| i),
    ];
    proptest::collection::vec(one, 0..1500)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: simd_core::testing::scaled(64, 4) as u32, ..ProptestConfig::default() })]

    #[test]
    fn registers_follow_model(hs in hashes(), limit in prop_oneof![Just(3000usize), 0usize..4000]) {
        let mut model = [0u8; REGISTERS];
        let mut h = Hll::new().with_sparse_max_bytes(limit);
        let mut dense = Hll::new().with_sparse_max_bytes(0);
        for &x in &hs {
            let before = model;
            model_add(&mut model, x);
            prop_assert_eq!(h.add_hash(x), before != model);
            dense.add_hash(x);
        }
        prop_assert_eq!(h.registers(), model);
        prop_assert_eq!(dense.registers(), model);
        if h.is_sparse() {
            prop_assert!(h.as_bytes().len() <= limit.max(18));
        }
        for i in [0usize, 1, 100, 16383] {
            prop_assert_eq!(h.register(i), model[i]);
        }
        let e = h.estimate();
        prop_assert_eq!(dense.estimate(), e);
        prop_assert_eq!(count_union(&[&h]), e);
        prop_assert_eq!(h.count(), e);
        prop_assert_eq!(h.cached_count(), Some(e));
    }

    #[test]
    fn merge_follows_model(a in hashes(), b in hashes(), c in hashes()) {
        let mut model = [0u8; REGISTERS];
        let mut hs = Vec::new();
        for (k, set) in [&a, &b, &c].into_iter().enumerate() {
            let mut h = Hll::new().with_sparse_max_bytes(if k == 2 { 0 } else { 3000 });
            for &x in set {
                model_add(&mut model, x);
                h.add_hash(x);
            }
            hs.push(h);
        }
        let refs: Vec<&Hll> = hs.iter().collect();
        let mut dest = Hll::new();
        dest.merge(&refs[..2]);
        dest.merge(&refs[2..]);
        prop_assert_eq!(dest.registers(), model);
        prop_assert_eq!(count_union(&refs), dest.estimate());
        let mut into_first = hs[0].clone();
        into_first.merge(&refs[1..]);
        prop_assert_eq!(into_first.registers(), model);
        prop_assert_eq!(into_first.cached_count(), None);
        // Every rotation: the first dense input (first, middle or last)
        // seeds the union without a zeroed accumulator.
        for r in 0..3 {
            let order: Vec<&Hll> = (0..3).map(|i| refs[(i + r) % 3]).collect();
            let mut m = order[0].clone();
            m.merge(&order[1..]);
            prop_assert_eq!(m.registers(), model);
            prop_assert_eq!(count_union(&order), dest.estimate());
        }
    }
}
