//! Random inputs against `==` / `Ord`, for the public API and every kernel.

use proptest::prelude::*;

fn check(a: &[u8], b: &[u8]) {
    assert_eq!(memeq::eq(a, b), a == b);
    assert_eq!(memeq::cmp(a, b), a.cmp(b));
    for k in memeq::kernels() {
        assert_eq!(k.eq(a, b), a == b, "{}", k.name());
        assert_eq!(k.cmp(a, b), a.cmp(b), "{}", k.name());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 8 } else { 512 }))]

    #[test]
    fn random_pairs(a in proptest::collection::vec(any::<u8>(), 0..600),
                    b in proptest::collection::vec(any::<u8>(), 0..600)) {
        check(&a, &b);
    }

    /// Mostly-equal pairs: the interesting case for eq.
    #[test]
    fn mutated_copies(a in proptest::collection::vec(any::<u8>(), 0..600),
                      edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..3),
                      cut in 0usize..3) {
        let mut b = a.clone();
        for (at, v) in edits {
            if !b.is_empty() {
                let i = at % b.len();
                b[i] = v;
            }
        }
        b.truncate(b.len().saturating_sub(cut));
        check(&a, &b);
        check(&b, &a);
        let mut c = a.clone();
        c.extend_from_slice(&b);
        check(&a, &c);
    }
}
