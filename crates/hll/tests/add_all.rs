//! `add_all` against one `add` per element: the same bytes and the same
//! answer ("some register changed") for sparse, dense and sparse-to-dense
//! batches, short and long (the dense path switches to one-byte registers
//! for long batches), with and without a known length; and `Registers`
//! against the packed path.

use hll::{Hll, Registers};
use proptest::prelude::*;

/// `add_all` of `elems` into `start`, three ways (a slice iterator with an
/// exact length, an iterator with no length hint, and one `add` each): all
/// give the same bytes and answer.
fn check(start: &Hll, elems: &[Vec<u8>]) {
    let mut want = start.clone();
    let mut want_changed = false;
    for e in elems {
        want_changed |= want.add(e);
    }
    let mut exact = start.clone();
    assert_eq!(exact.add_all(elems), want_changed, "exact length");
    assert_eq!(exact.as_bytes(), want.as_bytes(), "exact length");
    let mut unknown = start.clone();
    let changed = unknown.add_all(elems.iter().filter(|_| true));
    assert_eq!(changed, want_changed, "no length hint");
    assert_eq!(unknown.as_bytes(), want.as_bytes(), "no length hint");
}

fn elements(seed: u32, n: usize) -> Vec<Vec<u8>> {
    (0..n as u32)
        .map(|i| {
            let x = (i ^ seed).wrapping_mul(2_654_435_761);
            x.to_le_bytes()[..1 + (i as usize % 4)].to_vec()
        })
        .chain((0..n as u64).map(|i| format!("{seed}:{i}").into_bytes()))
        .take(n)
        .collect()
}

fn dense(seed: u32) -> Hll {
    let mut h = Hll::new();
    h.add_all(elements(seed, 6000));
    assert!(!h.is_sparse());
    h
}

#[test]
fn dense_batches_around_the_switch() {
    let base = dense(1);
    let mut cached = base.clone();
    cached.count();
    for n in [
        0, 1, 7, 8, 9, 255, 256, 257, 263, 264, 265, 1000, 1025, 5000, 70_000,
    ] {
        let elems = elements(n as u32 + 7, n);
        check(&base, &elems);
        check(&cached, &elems);
    }
}

/// A batch that changes nothing keeps a valid cache and answers false; one
/// that changes a register invalidates it.
#[test]
fn dense_cache_and_answer() {
    let mut h = dense(2);
    let elems = elements(2, 6000);
    h.count();
    let before = h.clone();
    assert!(!h.add_all(&elems));
    assert_eq!(h, before);
    assert!(h.cached_count().is_some());
    let more = elements(99, 3000);
    assert!(h.add_all(&more));
    assert_eq!(h.cached_count(), None);
    check(&before, &more);
}

/// Sparse batches that convert to dense part-way (the sparse size limit,
/// default and small), so the rest of the batch, long or short, goes to
/// the dense registers; and batches that stay sparse.
#[test]
fn sparse_to_dense_in_the_middle() {
    for limit in [0, 40, 300, 3000] {
        for n in [10, 500, 2000, 5000, 20_000] {
            let start = Hll::new().with_sparse_max_bytes(limit);
            check(&start, &elements(limit as u32 ^ n as u32, n));
            let mut part = Hll::new().with_sparse_max_bytes(limit);
            part.add_all(elements(5, 50));
            check(&part, &elements(6, n));
        }
    }
}

/// `Registers` adds and merges give the packed path's dense bytes.
#[test]
fn registers_give_the_packed_bytes() {
    let mut h = dense(3);
    let mut r = Registers::from_hll(&h);
    let elems = elements(11, 50_000);
    assert_eq!(r.add_all(&elems), h.add_all(&elems));
    assert_eq!(r.to_bytes(), h.as_bytes());
    let mut small = Hll::new();
    small.add_all(elements(12, 100));
    r.merge(&small);
    h.merge(&[&small]);
    assert_eq!(r.to_hll(), h);
    assert_eq!(r.count(), h.count());
    assert_eq!(r.to_bytes(), h.as_bytes());
}

/// `elems` through a `map` (exact length kept) that panics at element `at`.
fn panicking(elems: &[Vec<u8>], at: usize) -> impl Iterator<Item = &Vec<u8>> {
    elems.iter().enumerate().map(move |(i, e)| {
        assert!(i != at, "the caller's iterator panics at {at}");
        e
    })
}

/// Adds of `elems[..n]` one by one into `start`.
fn prefix(start: &Hll, elems: &[Vec<u8>], n: usize) -> Hll {
    let mut h = start.clone();
    for e in &elems[..n] {
        h.add(e);
    }
    h
}

/// A panic in the caller's iterator leaves the adds before it: all of them
/// through one-byte registers (packed back, cache settled), all but at most
/// the last eight through the hashed-ahead ring; the string stays valid.
#[test]
fn a_panicking_iterator_keeps_the_adds_before_it() {
    let elems = elements(3, 2000);
    let mut base = dense(4);
    base.count();
    for at in [0, 1, 300, 1999] {
        let mut h = base.clone();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            h.add_all(panicking(&elems, at))
        }));
        assert!(r.is_err());
        assert_eq!(h, prefix(&base, &elems, at), "dense, panic at {at}");
        assert_eq!(Hll::from_bytes(h.as_bytes()).unwrap(), h);

        let mut regs = Registers::from_hll(&base);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            regs.add_all(panicking(&elems, at))
        }));
        assert!(r.is_err());
        assert_eq!(
            regs.to_hll(),
            prefix(&base, &elems, at),
            "registers, panic at {at}"
        );
    }
    // No length hint: the first 256 dense adds and sparse adds go through
    // the ring.
    for (start, at) in [
        (&base, 100),
        (&base, 700),
        (&Hll::new(), 50),
        (&Hll::new(), 1500),
    ] {
        let mut h = start.clone();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            h.add_all(panicking(&elems, at).filter(|_| true))
        }));
        assert!(r.is_err());
        assert!(
            (at.saturating_sub(8)..=at).any(|n| h == prefix(start, &elems, n)),
            "no length hint, panic at {at}"
        );
        assert_eq!(Hll::from_bytes(h.as_bytes()).unwrap(), h);
    }
}

fn element() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(any::<u8>(), 0..24)
}

fn start() -> impl Strategy<Value = Hll> {
    prop_oneof![
        Just(Hll::new()),
        (0usize..400).prop_map(|l| Hll::new().with_sparse_max_bytes(l)),
        (0u32..1000).prop_map(|s| {
            let mut h = Hll::new();
            h.add_all(elements(s, 30));
            h
        }),
        (0u32..1000, any::<bool>()).prop_map(|(s, cache)| {
            let mut h = dense(s);
            if cache {
                h.count();
            }
            h
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        if cfg!(miri) { 2 } else { 64 }
    ))]

    #[test]
    fn add_all_is_adds(start in start(), elems in proptest::collection::vec(element(), 0..3000)) {
        check(&start, &elems);
    }

    #[test]
    fn registers_are_adds(start in start(), elems in proptest::collection::vec(element(), 0..600)) {
        let mut r = Registers::from_hll(&start);
        let mut h = start.clone();
        for e in &elems {
            prop_assert_eq!(r.add(e), h.add(e));
        }
        prop_assert_eq!(r.as_array(), &h.registers());
        if !h.is_sparse() {
            prop_assert_eq!(r.to_hll(), h.clone());
        }
        let m = r.to_merged_hll();
        prop_assert_eq!(m.registers(), h.registers());
        if h.is_sparse() {
            let mut merged = Hll::new();
            merged.merge(&[&h]);
            prop_assert_eq!(m, merged);
        }
    }
}
