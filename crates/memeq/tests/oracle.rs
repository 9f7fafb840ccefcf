//! Every kernel and the public API against `==` / `Ord` (the oracle).
//!
//! Combinatorics kept tight so the suite stays fast under qemu: equal lengths
//! 0..=300 with the first difference at every position (three alignment
//! pairs, both directions of the differing byte); all length pairs up to 300
//! with an equal prefix; unequal lengths with a difference at every position
//! of the shorter; two equal differences a word or vector apart (and, in
//! inputs up to 1089 bytes, any multiple of 32 apart); every
//! start offset 0..64 for lengths up to 130; lengths of 257..=1089 with `a`
//! at every offset from a 64-byte boundary.

use core::cmp::Ordering;
use simd_core::testing::{random_bytes, scaled, Rng};

/// Checks every kernel and the public functions on one pair.
fn check(a: &[u8], b: &[u8]) {
    let want_eq = a == b;
    let want_cmp = a.cmp(b);
    assert_eq!(memeq::eq(a, b), want_eq, "eq len {} {}", a.len(), b.len());
    assert_eq!(
        memeq::cmp(a, b),
        want_cmp,
        "cmp len {} {}",
        a.len(),
        b.len()
    );
    let by = memeq::Comparer::new();
    assert_eq!(
        by.eq(a, b),
        want_eq,
        "Comparer eq len {} {}",
        a.len(),
        b.len()
    );
    assert_eq!(
        by.cmp(a, b),
        want_cmp,
        "Comparer cmp len {} {}",
        a.len(),
        b.len()
    );
    let want_mismatch = a
        .iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    for k in memeq::kernels() {
        assert_eq!(
            k.eq(a, b),
            want_eq,
            "{} eq len {} {}",
            k.name(),
            a.len(),
            b.len()
        );
        assert_eq!(
            k.cmp(a, b),
            want_cmp,
            "{} cmp len {} {}",
            k.name(),
            a.len(),
            b.len()
        );
        assert_eq!(k.mismatch(a, b), want_mismatch, "{} mismatch", k.name());
    }
}

/// A byte that differs from `x`, chosen by `p` so both orders and the sign
/// bit (0x7f vs 0x80) are exercised.
fn other(x: u8, p: usize) -> u8 {
    match p % 4 {
        0 => x ^ 0x80,
        1 => x.wrapping_add(1),
        2 => x.wrapping_sub(1),
        _ => !x,
    }
}

const MAX: usize = 300;

#[test]
fn kernels_listed() {
    let names: Vec<_> = memeq::kernels().map(|k| k.name()).collect();
    assert_eq!(names.last(), Some(&"scalar"));
    #[cfg(target_arch = "x86_64")]
    assert!(names.contains(&"sse2"));
    #[cfg(target_arch = "aarch64")]
    assert!(names.contains(&"neon"));
}

/// The selected kernel is the first listed one the ceiling allows (the
/// list ignores the ceiling), and the one a `Comparer` runs.
#[test]
fn selected_kernel_is_first_allowed() {
    let selected = memeq::selected_kernel();
    let first = memeq::kernels()
        .find(|k| cpu_detect::allows(k.level()))
        .expect("scalar is always allowed");
    assert_eq!(selected.name(), first.name());
    assert!(cpu_detect::allows(selected.level()));
    assert_eq!(memeq::Comparer::new().kernel().name(), selected.name());
    let shown = format!("{:?}", memeq::Comparer::default());
    assert_eq!(
        shown,
        format!("Comparer {{ kernel: {:?} }}", selected.name())
    );
}

#[test]
fn equal_lengths_difference_everywhere() {
    let max = scaled(MAX, 70);
    let buf = random_bytes(1, 2 * max + 64);
    // (offset of a, offset of b): aligned, mutually misaligned, both odd.
    for (oa, ob) in [(0, 0), (1, 7), (13, 3)] {
        for n in 0..=max {
            let a = &buf[oa..oa + n];
            let mut bbuf = vec![0u8; ob + n];
            bbuf[ob..].copy_from_slice(a);
            check(a, &bbuf[ob..]);
            for p in 0..n {
                let x = bbuf[ob + p];
                bbuf[ob + p] = other(x, p);
                // Bytes after p differ too sometimes: only the first counts.
                if p % 3 == 0 && p + 1 < n {
                    bbuf[ob + n - 1] ^= 0x55;
                }
                check(a, &bbuf[ob..]);
                check(&bbuf[ob..], a);
                bbuf[ob + p] = x;
                bbuf[ob + n - 1] = a[n - 1];
            }
        }
    }
}

/// Two differences with the same bit pattern a word or a vector apart: a
/// kernel that folds the XORs of several loads with `^` instead of `|` (or
/// lets two lanes cancel) sees them as equal; one difference never can.
#[test]
fn twin_differences() {
    let max = scaled(MAX, 40);
    let a = random_bytes(5, max);
    for n in 2..=max {
        let a = &a[..n];
        let mut b = a.to_vec();
        for s in [1, 4, 8, 16, 24, 32, 48, 64] {
            let mut p = 0;
            while p + s < n {
                let d = 1u8 << (p % 8);
                b[p] ^= d;
                b[p + s] ^= d;
                check(a, &b);
                b[p] ^= d;
                b[p + s] ^= d;
                p += if n <= 80 { 1 } else { 3 };
            }
        }
    }
}

/// Twin differences past `twin_differences`' 300 bytes, where the long
/// loops fold their blocks (AVX2: four 32-byte blocks per 128-byte step;
/// AVX-512: four 64-byte blocks per 256-byte step from 512 bytes, then the
/// blocks of the remainder): the second difference at every multiple of 32
/// bytes after the first, and at every byte of the last 64 (where the last
/// block, which ends at `n`, lines up with the others at no fixed
/// distance). With `^` in place of `|` between the AVX-512 blocks' masks
/// (found with cargo-mutants) the twins cancel; the shorter test never
/// reaches that loop.
#[test]
fn twin_differences_long() {
    let lens = [300usize, 513, 700, 1089];
    let lens = &lens[..scaled(lens.len(), 1)];
    let buf = random_bytes(13, 1200 + 128);
    let base = buf.as_ptr().align_offset(64);
    for &n in lens {
        // `a` 64-byte aligned and not (the loops align their loads to it).
        for oa in [0, 24] {
            let a = &buf[base + oa..base + oa + n];
            let mut b = a.to_vec();
            for p in (0..n).step_by(scaled(5, 97)) {
                let d = 1u8 << (p % 8);
                for q in p + 1..n {
                    if (q - p) % 32 != 0 && q + 64 < n {
                        continue;
                    }
                    b[p] ^= d;
                    b[q] ^= d;
                    check(a, &b);
                    b[p] ^= d;
                    b[q] ^= d;
                }
            }
        }
    }
}

#[test]
fn all_length_pairs_equal_prefix() {
    let max = scaled(MAX, 40);
    let buf = random_bytes(2, max + 8);
    let other_buf: Vec<u8> = buf.clone();
    for la in 0..=max {
        for lb in 0..=max {
            check(&buf[..la], &other_buf[1..][..0]); // keep a cheap b == ""
            check(&buf[..la], &other_buf[..lb]);
        }
    }
}

#[test]
fn unequal_lengths_difference_everywhere() {
    let max = scaled(MAX, 70);
    let buf = random_bytes(3, max + 80);
    for n in 0..=max {
        for extra in [1, 7, 64] {
            let long = &buf[..n + extra];
            let mut short = buf[..n].to_vec();
            check(&short, long);
            for p in 0..n {
                let x = short[p];
                short[p] = other(x, p);
                check(&short, long);
                check(long, &short);
                short[p] = x;
            }
        }
    }
}

#[test]
fn every_offset() {
    let buf = random_bytes(4, 260);
    simd_core::testing::for_each_len_offset(130, 5, |s, off| {
        let n = s.len();
        // b at another alignment than a.
        let b = &buf[(off * 7) % 64..][..n];
        check(s, b);
        let mut c = s.to_vec();
        check(s, &c);
        for p in [0, n / 2, n.saturating_sub(1)] {
            if p < n {
                c[p] = other(c[p], p);
                check(s, &c);
                check(&c, s);
                c[p] = s[p];
            }
        }
    });
}

/// `eq_fixed` for every `N` in 0..=70 and a few longer ones.
#[test]
fn fixed_sizes() {
    fn one<const N: usize>(rng: &mut Rng) {
        let a: [u8; N] = core::array::from_fn(|_| rng.next_u64() as u8);
        let mut b = a;
        assert!(memeq::eq_fixed(&a, &b), "N = {N}");
        for p in 0..N {
            b[p] = other(b[p], p);
            assert!(!memeq::eq_fixed(&a, &b), "N = {N}, p = {p}");
            b[p] = a[p];
        }
    }
    macro_rules! sizes {
        ($rng:ident: $($n:literal)*) => { $(one::<$n>(&mut $rng);)* };
    }
    let mut rng = Rng::new(6);
    sizes!(rng: 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29
           30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56
           57 58 59 60 61 62 63 64 65 66 67 68 69 70 96 127 128 129 200 256 300 1024);
}

#[test]
fn cmp_edge_bytes() {
    // Unsigned order: 0x80 > 0x7f, 0xff > 0x00, at every position of a 40-byte key.
    for n in 1..=80 {
        for p in 0..n {
            let mut a = vec![0x7fu8; n];
            let mut b = a.clone();
            b[p] = 0x80;
            check(&a, &b);
            a[p] = 0xff;
            b[p] = 0x00;
            check(&a, &b);
        }
    }
    assert_eq!(memeq::cmp(b"a", b"b"), Ordering::Less);
}

/// Lengths around the long kernels' thresholds (AVX-512: 128, 512 and its
/// 256-byte loop; AVX2: 128-byte loop), difference at every position near
/// both ends and every 7th in between.
#[test]
fn long_lengths() {
    let lens = [
        129usize, 255, 256, 257, 383, 511, 512, 513, 600, 767, 768, 769, 1023, 1024, 1025, 1100,
    ];
    let lens = &lens[..scaled(lens.len(), 2)];
    let buf = random_bytes(8, 1200);
    for &n in lens {
        let a = &buf[3..3 + n];
        let mut b = a.to_vec();
        check(a, &b);
        let mut p = 0;
        while p < n {
            b[p] = other(b[p], p);
            check(a, &b);
            check(&b, a);
            b[p] = a[p];
            p += if p < 300 || p + 300 > n { 1 } else { 7 };
        }
    }
}

/// Long inputs with `a` at every offset from a 64-byte boundary (the AVX2
/// and AVX-512 loops align their loads from `a` to 32 / 64 bytes after a
/// checked first block, so the offset decides where the loop starts and
/// how much the clamped tail blocks overlap), `b` at three offsets,
/// lengths that leave 1..=128 bytes after the loop; the first difference
/// at every byte of the first 40 and the last 140, and every 11th in
/// between. (`long_lengths` keeps
/// `a` where the allocator put it.)
#[test]
fn long_lengths_every_alignment() {
    let lens: &[usize] = &[
        257, 300, 320, 352, 383, 384, 385, 416, 449, 512, 600, 1024, 1089,
    ];
    let lens = &lens[..scaled(lens.len(), 2)];
    let offsets = scaled(64, 3);
    let buf = random_bytes(11, 1200 + 128);
    // The first 64-byte boundary in `buf`.
    let base = buf.as_ptr().align_offset(64);
    let mut bbuf = vec![0u8; 1200 + 128];
    let bbase = bbuf.as_ptr().align_offset(64);
    for &n in lens {
        for oa in 0..offsets {
            for ob in [0, 16, 5] {
                let a = &buf[base + oa..base + oa + n];
                let (lo, hi) = (bbase + ob, bbase + ob + n);
                bbuf[lo..hi].copy_from_slice(a);
                check(a, &bbuf[lo..hi]);
                let mut p = 0;
                while p < n {
                    let x = bbuf[lo + p];
                    bbuf[lo + p] = other(x, p);
                    check(a, &bbuf[lo..hi]);
                    check(&bbuf[lo..hi], a);
                    bbuf[lo + p] = x;
                    p += if p < 40 || p + 140 > n { 1 } else { 11 };
                }
            }
        }
    }
}
