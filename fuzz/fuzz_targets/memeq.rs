//! memeq against `==` and `Ord`: the public functions and every kernel, on
//! two slices cut from the input at a split point it chooses.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&cut, rest)) = data.split_first() else {
        return;
    };
    // Either two halves of the input, or the same bytes with one flipped, so
    // that long equal prefixes (the interesting case) are common.
    let (a, b): (&[u8], Vec<u8>) = if cut & 1 == 0 {
        let at = usize::from(cut >> 1).min(rest.len());
        (&rest[..at], rest[at..].to_vec())
    } else {
        let mut b = rest.to_vec();
        if !b.is_empty() {
            let i = usize::from(cut) % b.len();
            b[i] ^= 1 << (cut % 8);
        }
        if cut & 2 != 0 {
            b.truncate(b.len().saturating_sub(usize::from(cut >> 4)));
        }
        (rest, b)
    };
    let b = &b[..];
    assert_eq!(memeq::eq(a, b), a == b);
    assert_eq!(memeq::cmp(a, b), a.cmp(b));
    for k in memeq::kernels() {
        assert_eq!(k.eq(a, b), a == b, "kernel {}", k.name());
        assert_eq!(k.cmp(a, b), a.cmp(b), "kernel {}", k.name());
    }
    if let (Ok(x), Ok(y)) = (<&[u8; 16]>::try_from(a), <&[u8; 16]>::try_from(b)) {
        assert_eq!(memeq::eq_fixed(x, y), x == y);
    }
});
