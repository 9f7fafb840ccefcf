//! Every kernel, and the public `eq` / `cmp` (whose inlined short paths use
//! masked loads on AVX-512 CPUs), on inputs placed flush against
//! inaccessible guard pages: a read of even one byte before or after either
//! slice faults instead of going unnoticed.

use simd_core::testing::{random_bytes, Guarded};

const MAX: usize = 300;

/// Runs `check(a, b)` for every length up to `MAX` with `a` and `b` equal,
/// each placed against the upper or the lower fence of its own buffer, then
/// with one byte of `b` changed (first, middle, last).
fn for_each_fenced_pair(mut check: impl FnMut(&[u8], &[u8])) {
    let (mut ga, mut gb) = (Guarded::new(MAX), Guarded::new(MAX));
    let bytes = random_bytes(11, MAX);
    let max = simd_core::testing::scaled(MAX, 40);
    for n in 0..=max {
        for (a_back, b_back) in [(true, true), (false, false), (true, false), (false, true)] {
            ga.place(&bytes[..n], a_back);
            gb.place(&bytes[..n], b_back);
            let a = if a_back { ga.back(n) } else { ga.front(n) };
            let b = if b_back { gb.back(n) } else { gb.front(n) };
            check(a, b);
            for at in [0, n / 2, n.wrapping_sub(1)] {
                if at < n {
                    b[at] ^= 0x20;
                    check(a, b);
                    b[at] ^= 0x20;
                }
            }
        }
    }
}

#[test]
fn public_eq_and_cmp_stay_inside_both_slices() {
    for_each_fenced_pair(|a, b| {
        assert_eq!(memeq::eq(a, b), a == b, "eq, len {}", a.len());
        assert_eq!(memeq::cmp(a, b), a.cmp(b), "cmp, len {}", a.len());
        if !a.is_empty() {
            // Different lengths, both still flush against their fences.
            let short = &b[1..];
            assert!(!memeq::eq(a, short));
            assert_eq!(memeq::cmp(a, short), a.cmp(short));
        }
    });
}

#[test]
fn every_kernel_stays_inside_both_slices() {
    for k in memeq::kernels() {
        for_each_fenced_pair(|a, b| {
            assert_eq!(k.eq(a, b), a == b, "{} eq, len {}", k.name(), a.len());
            assert_eq!(k.cmp(a, b), a.cmp(b), "{} cmp, len {}", k.name(), a.len());
        });
    }
}
