//! bitcount's BITOP (public API, slice form, count, and every kernel)
//! against the scalar kernel and a byte-at-a-time model.
//!
//! Input layout: one byte (low 3 bits the operation, high 5 bits how many
//! times each source's bytes repeat, so sources reach the block loops), then
//! sources, each a length byte and that many bytes (the last one cut short
//! by the input's end).
#![no_main]

use bitcount::BitOp;
use libfuzzer_sys::fuzz_target;

fn model(op: BitOp, sources: &[&[u8]]) -> Vec<u8> {
    let n = sources.iter().map(|s| s.len()).max().unwrap_or(0);
    (0..n)
        .map(|i| {
            let b: Vec<u8> = sources.iter().map(|s| s.get(i).copied().unwrap_or(0)).collect();
            let ys = b[1..].iter().fold(0u8, |a, &y| a | y);
            match op {
                BitOp::And => b.iter().fold(0xff, |a, &y| a & y),
                BitOp::Or => b.iter().fold(0, |a, &y| a | y),
                BitOp::Xor => b.iter().fold(0, |a, &y| a ^ y),
                BitOp::Not => !b[0],
                BitOp::Diff => b[0] & !ys,
                BitOp::Diff1 => !b[0] & ys,
                BitOp::AndOr => b[0] & ys,
                BitOp::One => (0..8).fold(0u8, |a, bit| {
                    let set = b.iter().filter(|&&y| y >> bit & 1 == 1).count();
                    a | u8::from(set == 1) << bit
                }),
            }
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let Some((&head, mut rest)) = data.split_first() else {
        return;
    };
    let op = BitOp::ALL[usize::from(head & 7)];
    let repeat = usize::from(head >> 3) + 1;
    let mut owned: Vec<Vec<u8>> = Vec::new();
    while let Some((&len, tail)) = rest.split_first() {
        let take = usize::from(len).min(tail.len());
        owned.push(tail[..take].repeat(repeat));
        rest = &tail[take..];
        if owned.len() == 64 {
            break;
        }
    }
    let sources: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
    let mut dest = Vec::new();
    let got = bitcount::bitop(op, &mut dest, &sources);
    if let Err(e) = got {
        assert!(op.check(sources.len()).is_err());
        for k in bitcount::kernels() {
            assert_eq!(k.bitop(op, &mut Vec::new(), &sources), Err(e));
            assert_eq!(k.bitop_count(op, &sources), Err(e));
        }
        assert_eq!(bitcount::bitop_count(op, &sources), Err(e));
        return;
    }
    let want = model(op, &sources);
    assert_eq!(got, Ok(want.len()));
    assert_eq!(dest, want, "{op} of {} sources", sources.len());
    let ones = bitcount::count(&want);
    assert_eq!(bitcount::bitop_count(op, &sources), Ok(ones));
    let mut buf = vec![0x5au8; want.len() + 3];
    assert_eq!(bitcount::bitop_into(op, &mut buf, &sources), Ok(want.len()));
    assert_eq!(&buf[..want.len()], &want[..]);
    assert_eq!(&buf[want.len()..], &[0x5a; 3]);
    for k in bitcount::kernels() {
        let mut d = vec![1, 2, 3];
        assert_eq!(k.bitop(op, &mut d, &sources), Ok(want.len()));
        assert_eq!(d, want, "kernel {} {op}", k.name());
        assert_eq!(k.bitop_count(op, &sources), Ok(ones), "kernel {} {op}", k.name());
    }
});
