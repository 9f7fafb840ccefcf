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

/// 256 elements whose registers are all below 16 with counts 1 or 2
/// (found by hashing): added in different orders, they often leave
/// different sparse bytes (VAL runs split and fused differently).
fn window_elements() -> &'static Vec<Vec<u8>> {
    static POOL: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        (0u32..)
            .map(|i| i.to_le_bytes().to_vec())
            .filter(|e| {
                let h = hll::hash(e);
                h & 16383 < 16 && (h >> 14) & 3 != 0
            })
            .take(256)
            .collect()
    })
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

/// `(answer, bytes)` of one `add` per element, in order, then of one
/// `add_all`, each into a new HLL with this sparse limit.
fn adds_then_add_all(elems: &[&[u8]], limit: usize) -> [(bool, Vec<u8>); 2] {
    let mut one_by_one = Hll::new().with_sparse_max_bytes(limit);
    let mut changed = false;
    for e in elems {
        changed |= one_by_one.add(e);
    }
    let mut batch = Hll::new().with_sparse_max_bytes(limit);
    let batch_changed = batch.add_all(elems);
    [
        (changed, one_by_one.into_bytes()),
        (batch_changed, batch.into_bytes()),
    ]
}

/// add_all against one add per element, in order, for every count up to
/// 60: element i sets register i to 1, so the sparse string's VAL runs
/// (at most four registers each) depend on the order of the adds, and any
/// reordering (the ring of hashes computed ahead) shows in the bytes.
#[test]
fn add_all_keeps_the_order() {
    let mut by_register: Vec<Option<Vec<u8>>> = vec![None; 60];
    let mut missing = by_register.len();
    for i in 0u32.. {
        let e = i.to_le_bytes().to_vec();
        let h = hll::hash(&e);
        let r = (h & 16383) as usize;
        if r < by_register.len() && (h >> 14) & 1 == 1 && by_register[r].is_none() {
            by_register[r] = Some(e);
            missing -= 1;
            if missing == 0 {
                break;
            }
        }
    }
    let elems: Vec<Vec<u8>> = by_register.into_iter().flatten().collect();
    for n in 0..=elems.len() {
        for reversed in [false, true] {
            let mut seq: Vec<&[u8]> = elems[..n].iter().map(|e| e.as_slice()).collect();
            if reversed {
                seq.reverse();
            }
            let [adds, add_all] = adds_then_add_all(&seq, hll::DEFAULT_SPARSE_MAX_BYTES);
            assert_eq!(add_all.0, adds.0, "n = {n}, reversed {reversed}");
            assert_eq!(add_all.1, adds.1, "n = {n}, reversed {reversed}");
        }
    }
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
            prop_assert_eq!(dense.add_hash(x), before != model);
        }
        prop_assert_eq!(h.registers(), model);
        prop_assert_eq!(dense.registers(), model);
        // Adding them again changes nothing, and a dense add that changes
        // nothing leaves a valid cached count valid.
        let cached = dense.count();
        for &x in &hs {
            prop_assert!(!dense.add_hash(x));
        }
        prop_assert_eq!(dense.cached_count(), Some(cached));
        // An add that raises a register invalidates a valid cache (sparse
        // or dense): register 0 to one more than it holds, by a hash whose
        // low 14 bits are 0 and whose next set bit gives that run length
        // (none at all for the longest, 51).
        if model[0] < 51 {
            let raise = if model[0] < 50 { 1u64 << (14 + model[0]) } else { 0 };
            let mut both = [h.clone(), dense.clone()];
            for x in &mut both {
                let c = x.count();
                prop_assert_eq!(x.cached_count(), Some(c));
                prop_assert!(x.add_hash(raise));
                prop_assert_eq!(x.cached_count(), None);
                prop_assert_eq!(x.register(0), model[0] + 1);
            }
        }
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
    fn add_all_is_adds_in_order(
        picks in proptest::collection::vec(0usize..256, 0..40),
        limit in prop_oneof![Just(3000usize), 0usize..200],
    ) {
        // add_all hashes ahead of its updates: the bytes and the answer must
        // be those of one add per element, in order, whatever the count. The
        // elements all land in registers 0..16 with counts 1 or 2, so the
        // sparse bytes depend on the order of the updates.
        let pool = window_elements();
        let elems: Vec<&[u8]> = picks.iter().map(|&i| pool[i].as_slice()).collect();
        let [adds, add_all] = adds_then_add_all(&elems, limit);
        prop_assert_eq!(add_all.0, adds.0);
        prop_assert_eq!(add_all.1, adds.1);
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

/// Unions of more dense inputs than one union kernel call takes (16), with
/// sparse ones among them, against one-at-a-time merges and the
/// register-wise max: `count_union`, `merge` (bytes) and the registers.
#[test]
fn wide_unions_match_merges_one_at_a_time() {
    let mut hs = Vec::new();
    for k in 0..22usize {
        let mut h = Hll::new();
        let n = if k % 5 == 2 { 40 } else { 3000 + 50 * k };
        for i in 0..n {
            h.add(format!("{k}:{i}").as_bytes());
        }
        hs.push(h);
    }
    assert!(hs.iter().any(|h| h.is_sparse()));
    assert!(hs.iter().filter(|h| !h.is_sparse()).count() > 16);
    let regs: Vec<[u8; REGISTERS]> = hs.iter().map(|h| h.registers()).collect();
    for take in [0usize, 1, 3, 5, 9, 17, 22] {
        let refs: Vec<&Hll> = hs[..take].iter().collect();
        let want: [u8; REGISTERS] =
            core::array::from_fn(|r| regs[..take].iter().map(|x| x[r]).max().unwrap_or(0));
        let mut one_by_one = Hll::new();
        for h in &refs {
            one_by_one.merge(&[h]);
        }
        assert_eq!(one_by_one.registers()[..], want[..], "{take} inputs");
        let mut all = Hll::new();
        all.merge(&refs);
        assert_eq!(
            all.as_bytes(),
            one_by_one.as_bytes(),
            "{take} inputs: merge"
        );
        assert_eq!(
            count_union(&refs),
            one_by_one.count(),
            "{take} inputs: count_union"
        );
    }
}

/// add_all against one add per element where the batches matter: element
/// counts around the batch size, mixed lengths (0..=40 and some past the
/// hash kernels' long-element cut-over), sparse limits that promote to
/// dense part-way through a batch, and into a dense HLL whose cache is
/// valid (left valid when nothing changes, invalidated otherwise).
#[test]
fn add_all_in_batches_matches_add() {
    let mut rng = simd_core::testing::Rng::new(5454);
    let pool: Vec<Vec<u8>> = (0..700)
        .map(|i| {
            let len = match i % 50 {
                0 => 300 + i,
                _ => rng.below(41) as usize,
            };
            let mut e = simd_core::testing::random_bytes(i as u64, len);
            if len >= 4 {
                e[..4].copy_from_slice(&(i as u32).to_le_bytes());
            }
            e
        })
        .collect();
    for n in [0, 1, 7, 8, 9, 63, 64, 65, 127, 128, 129, 200, 700] {
        let seq: Vec<&[u8]> = pool[..n].iter().map(|e| e.as_slice()).collect();
        for limit in [0, 40, 300, 700, hll::DEFAULT_SPARSE_MAX_BYTES] {
            let [adds, add_all] = adds_then_add_all(&seq, limit);
            assert_eq!(add_all.0, adds.0, "n = {n}, limit {limit}");
            assert_eq!(add_all.1, adds.1, "n = {n}, limit {limit}");
        }
        let mut dense = Hll::new().with_sparse_max_bytes(0);
        dense.add_all(&seq);
        let c = dense.count();
        assert!(!dense.add_all(&seq), "n = {n}");
        assert_eq!(dense.cached_count(), Some(c), "n = {n}");
        let mut more = dense.clone();
        let fresh = simd_core::testing::random_bytes(n as u64 + 1_000_000, 24);
        let mut one = dense.clone();
        let changed = one.add(&fresh);
        assert_eq!(more.add_all([&fresh[..]]), changed);
        assert_eq!(more, one, "n = {n}");
    }
}
