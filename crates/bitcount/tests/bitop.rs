//! BITOP: every kernel the CPU supports, and the public (dispatched)
//! functions, against a byte-at-a-time reference whose every byte equals the
//! bit-at-a-time oracle written from the spec (checked here too): every
//! operation, 1-40 sources, every length 0..=300 and lengths around the
//! vector and block widths, unequal lengths, start offsets, all-zero and
//! all-one data, sources flush against guard pages; `bitop_count` equal to
//! the count of `bitop`'s result everywhere; errors and names.
#![cfg(feature = "alloc")]

use bitcount::{BitOp, BitopError, Kernel};
use proptest::prelude::*;
use simd_core::testing::{random_bytes, scaled, Guarded, Rng};

/// The result as the spec defines it, one byte and one bit at a time.
fn oracle(op: BitOp, sources: &[&[u8]]) -> Vec<u8> {
    let n = sources.iter().map(|s| s.len()).max().unwrap_or(0);
    (0..n)
        .map(|i| {
            let b = |s: &[u8]| s.get(i).copied().unwrap_or(0);
            let mut out = 0u8;
            for bit in 0..8 {
                let on = |s: &&[u8]| b(s) >> bit & 1 == 1;
                let x = on(&sources[0]);
                let any_y = sources[1..].iter().any(on);
                let set = sources.iter().filter(|s| on(s)).count();
                let r = match op {
                    BitOp::And => set == sources.len(),
                    BitOp::Or => set > 0,
                    BitOp::Xor => set % 2 == 1,
                    BitOp::Not => !x,
                    BitOp::Diff => x && !any_y,
                    BitOp::Diff1 => !x && any_y,
                    BitOp::AndOr => x && any_y,
                    BitOp::One => set == 1,
                };
                out |= u8::from(r) << bit;
            }
            out
        })
        .collect()
}

/// The same result with whole-byte logic (the oracle above costs a few
/// hundred operations a byte; this one a few a source): what the kernels
/// are compared with. `reference_is_the_oracle` and the property test hold
/// it to the oracle.
fn reference(op: BitOp, sources: &[&[u8]]) -> Vec<u8> {
    let n = sources.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![0u8; n];
    for (i, o) in out.iter_mut().enumerate() {
        let byte = |s: &[u8]| s.get(i).copied().unwrap_or(0);
        let x = byte(sources[0]);
        // `rest`: OR of the sources after the first; `once`/`twice`: bits
        // set in at least one / at least two of all sources.
        let (mut and, mut xor, mut rest, mut once, mut twice) = (x, x, 0u8, x, 0u8);
        for s in &sources[1..] {
            let v = byte(s);
            and &= v;
            xor ^= v;
            rest |= v;
            twice |= once & v;
            once |= v;
        }
        *o = match op {
            BitOp::And => and,
            BitOp::Or => once,
            BitOp::Xor => xor,
            BitOp::Not => !x,
            BitOp::Diff => x & !rest,
            BitOp::Diff1 => !x & rest,
            BitOp::AndOr => x & rest,
            BitOp::One => once & !twice,
        };
    }
    out
}

fn popcount(b: &[u8]) -> u64 {
    b.iter().map(|x| u64::from(x.count_ones())).sum()
}

/// The smallest valid number of sources for `op`, and whether `k` fits it.
fn fits(op: BitOp, k: usize) -> bool {
    op.check(k).is_ok()
}

/// Checks one kernel (and the public functions) on `sources` against the
/// reference, through the `Vec`, slice and count forms.
fn check(k: &Kernel, op: BitOp, sources: &[&[u8]], what: &dyn Fn() -> String) {
    let want = reference(op, sources);
    let mut dest = vec![0xa5; 3];
    assert_eq!(
        k.bitop(op, &mut dest, sources),
        Ok(want.len()),
        "{}",
        what()
    );
    assert!(dest == want, "{} {op}: {}", k.name(), what());
    // The slice form writes the result's bytes and nothing after them.
    let mut buf = vec![0x5a; want.len() + 9];
    assert_eq!(k.bitop_into(op, &mut buf, sources), Ok(want.len()));
    assert!(
        buf[..want.len()] == want[..],
        "{} {op} into: {}",
        k.name(),
        what()
    );
    assert!(
        buf[want.len()..].iter().all(|&b| b == 0x5a),
        "{} {op}: wrote past the result",
        k.name()
    );
    assert_eq!(
        k.bitop_count(op, sources),
        Ok(popcount(&want)),
        "{} {op} count: {}",
        k.name(),
        what()
    );
}

/// The dispatched functions (small inline path and dispatcher).
fn check_public(op: BitOp, sources: &[&[u8]], what: &dyn Fn() -> String) {
    let want = reference(op, sources);
    let mut dest = Vec::new();
    assert_eq!(bitcount::bitop(op, &mut dest, sources), Ok(want.len()));
    assert!(dest == want, "public {op}: {}", what());
    assert_eq!(
        bitcount::bitop_count(op, sources),
        Ok(popcount(&want)),
        "public {op} count: {}",
        what()
    );
    assert_eq!(bitcount::count(&dest), popcount(&want));
}

fn kernels() -> Vec<Kernel> {
    bitcount::kernels().collect()
}

#[test]
fn kernel_list_ends_with_scalar() {
    let names: Vec<_> = kernels().iter().map(|k| k.name()).collect();
    assert_eq!(names.last(), Some(&"scalar"));
    eprintln!("BITOP kernels on this CPU: {names:?}");
}

/// The spec's documented example.
#[test]
fn documented_example() {
    let (a, b, c) = (
        &[0b1101_1000u8][..],
        &[0b0001_1001u8][..],
        &[0b0110_1100u8][..],
    );
    let cases: [(BitOp, &[&[u8]], u8); 8] = [
        (BitOp::And, &[a, b, c], 0b0000_1000),
        (BitOp::Or, &[a, b, c], 0b1111_1101),
        (BitOp::Xor, &[a, b], 0b1100_0001),
        (BitOp::Not, &[a], 0b0010_0111),
        (BitOp::Diff, &[a, b, c], 0b1000_0000),
        (BitOp::Diff1, &[a, b, c], 0b0010_0101),
        (BitOp::AndOr, &[a, b, c], 0b0101_1000),
        (BitOp::One, &[a, b, c], 0b1010_0101),
    ];
    for (op, sources, want) in cases {
        assert_eq!(oracle(op, sources), [want], "oracle {op}");
        assert_eq!(reference(op, sources), [want], "reference {op}");
        for k in kernels() {
            check(&k, op, sources, &|| "documented example".into());
        }
        check_public(op, sources, &|| "documented example".into());
    }
}

/// The reference equals the spec's oracle on every operation, 1 to 17
/// sources of unequal lengths, all-zero, all-one and random bytes.
#[test]
fn reference_is_the_oracle() {
    let mut rng = Rng::new(11);
    let rounds = scaled(40, 3);
    for round in 0..rounds {
        for nsrc in [1usize, 2, 3, 4, 5, 8, 17] {
            let data: Vec<Vec<u8>> = (0..nsrc)
                .map(|j| {
                    let len = rng.below(100) as usize;
                    match rng.below(4) {
                        0 => vec![0; len],
                        1 => vec![0xff; len],
                        _ => random_bytes(round as u64 * 50 + j as u64, len),
                    }
                })
                .collect();
            let sources: Vec<&[u8]> = data.iter().map(Vec::as_slice).collect();
            for op in BitOp::ALL {
                if fits(op, nsrc) {
                    assert_eq!(reference(op, &sources), oracle(op, &sources), "{op} {nsrc}");
                }
            }
        }
    }
}

/// Equal lengths 0..=300 (every tail shape of every block width) for the
/// source counts that exercise the pairwise folds' remainders.
#[test]
fn every_length_equal_sources() {
    let counts: &[usize] = if cfg!(miri) {
        &[1, 2, 3]
    } else {
        &[1, 2, 3, 4, 5, 8, 9, 17]
    };
    let max = scaled(300, 40);
    let buf = random_bytes(1, 17 * 301 + 64);
    for k in kernels() {
        for &nsrc in counts {
            for len in 0..=max {
                // Each source at its own (odd) offset in the buffer.
                let sources: Vec<&[u8]> =
                    (0..nsrc).map(|j| &buf[j * 301 + j % 7..][..len]).collect();
                for op in BitOp::ALL {
                    if fits(op, nsrc) {
                        check(&k, op, &sources, &|| {
                            format!("{nsrc} sources of {len} bytes")
                        });
                    }
                }
            }
        }
    }
    for &nsrc in counts {
        for len in 0..=max {
            let sources: Vec<&[u8]> = (0..nsrc).map(|j| &buf[j * 301..][..len]).collect();
            for op in BitOp::ALL {
                if fits(op, nsrc) {
                    check_public(op, &sources, &|| format!("{nsrc} sources of {len} bytes"));
                }
            }
        }
    }
}

/// 1-40 sources of unequal random lengths (some empty), random data.
#[test]
fn unequal_lengths_1_to_40_sources() {
    let mut rng = Rng::new(7);
    let rounds = scaled(60, 2);
    for round in 0..rounds {
        for nsrc in 1..=40 {
            if cfg!(miri) && nsrc > 5 {
                break;
            }
            let max = [0, 1, 40, 300, 700, 2100][rng.below(6) as usize];
            let data: Vec<Vec<u8>> = (0..nsrc)
                .map(|j| {
                    let len = if max == 0 {
                        0
                    } else {
                        rng.below(max + 1) as usize
                    };
                    random_bytes(round as u64 * 100 + j as u64, len)
                })
                .collect();
            let sources: Vec<&[u8]> = data.iter().map(Vec::as_slice).collect();
            let lens: Vec<usize> = sources.iter().map(|s| s.len()).collect();
            for op in BitOp::ALL {
                if !fits(op, nsrc) {
                    continue;
                }
                for k in kernels() {
                    check(&k, op, &sources, &|| format!("lengths {lens:?}"));
                }
                check_public(op, &sources, &|| format!("lengths {lens:?}"));
            }
        }
    }
}

/// Lengths around the vector (8/16/32/64 bytes) and block (32/64/128/256)
/// widths and their multiples, equal and with one source a little shorter
/// or longer.
#[test]
fn lengths_around_block_widths() {
    let mut lens = Vec::new();
    for base in [256usize, 512, 1024, 4096] {
        for d in [
            -65i64, -64, -63, -33, -32, -31, -1, 0, 1, 31, 32, 33, 63, 64, 65, 255,
        ] {
            lens.push((base as i64 + d) as usize);
        }
    }
    if cfg!(miri) {
        lens.truncate(6);
    }
    let buf = random_bytes(3, 70_000 * 3);
    for &len in &lens {
        for nsrc in [2usize, 3, 8, 17] {
            for skew in [0usize, 1, 37, 300] {
                let sources: Vec<&[u8]> = (0..nsrc)
                    .map(|j| {
                        let l = if j == nsrc / 2 {
                            len.saturating_sub(skew)
                        } else {
                            len
                        };
                        &buf[(j * 11_003) % 140_000..][..l]
                    })
                    .collect();
                for op in BitOp::ALL {
                    if !fits(op, nsrc) {
                        continue;
                    }
                    for k in kernels() {
                        check(&k, op, &sources, &|| format!("{nsrc} x {len}, skew {skew}"));
                    }
                }
            }
        }
    }
}

/// Every start offset 0..64 of two and three sources, over the lengths
/// where the block loop and the tail meet.
#[test]
fn every_start_offset() {
    let buf = random_bytes(4, 1200);
    let offsets = scaled(64, 3);
    let lens: &[usize] = if cfg!(miri) {
        &[0, 9, 33]
    } else {
        &[0, 1, 7, 8, 9, 63, 64, 65, 255, 256, 257, 300, 513]
    };
    for k in kernels() {
        for off in 0..offsets {
            for &len in lens {
                for nsrc in [2usize, 3] {
                    let sources: Vec<&[u8]> = (0..nsrc)
                        .map(|j| &buf[off + j * (64 - off % 5)..][..len])
                        .collect();
                    for op in BitOp::ALL {
                        if fits(op, nsrc) {
                            check(&k, op, &sources, &|| {
                                format!("offset {off}, {nsrc} x {len}")
                            });
                        }
                    }
                }
            }
        }
    }
}

/// All-zero and all-one sources (AND/OR saturate, NOT and DIFF1 set whole
/// vectors), mixed with random ones.
#[test]
fn all_zero_and_all_one() {
    let lens: &[usize] = if cfg!(miri) {
        &[0, 5, 40]
    } else {
        &[0, 5, 64, 200, 257, 1000, 4099]
    };
    for k in kernels() {
        for &len in lens {
            let (z, o, r) = (
                vec![0u8; len],
                vec![0xffu8; len],
                random_bytes(len as u64, len),
            );
            let sets: [&[&[u8]]; 7] = [
                &[&z],
                &[&o],
                &[&o, &o, &o],
                &[&z, &o],
                &[&o, &z, &r],
                &[&o, &r, &r, &o, &z],
                &[&o, &o[..len / 2]],
            ];
            for sources in sets {
                for op in BitOp::ALL {
                    if fits(op, sources.len()) {
                        check(&k, op, sources, &|| format!("0/1 sources of {len} bytes"));
                    }
                }
            }
        }
    }
}

/// Sources whose last (or first) byte touches an inaccessible page: any
/// read past a slice faults.
#[test]
fn no_read_past_any_source() {
    let max = scaled(300, 20);
    let mut g1 = Guarded::new(max);
    let mut g2 = Guarded::new(max);
    let bytes = random_bytes(5, max);
    let other = random_bytes(6, 2 * max);
    for len in 0..=max {
        for short in [0usize, 1, 9, 65] {
            let l2 = len.saturating_sub(short);
            let a = g1.back(len);
            a.copy_from_slice(&bytes[..len]);
            let a: &[u8] = a;
            let b = g2.back(l2);
            b.copy_from_slice(&bytes[..l2]);
            let b: &[u8] = b;
            let sources: [&[u8]; 3] = [a, &other[..len + short], b];
            for k in kernels() {
                for op in BitOp::ALL {
                    check(
                        &k,
                        op,
                        &sources[..if op == BitOp::Not { 1 } else { 3 }],
                        &|| format!("fenced {len}/{l2}"),
                    );
                    check(
                        &k,
                        op,
                        &[b, a][..if op == BitOp::Not { 1 } else { 2 }],
                        &|| format!("fenced {l2}/{len}"),
                    );
                }
            }
        }
    }
}

/// A few megabytes, where prefetching and the block loop run long.
#[test]
fn large_inputs() {
    let n = scaled(3 << 20, 1000) + 77;
    let data: Vec<Vec<u8>> = (0..9)
        .map(|j| random_bytes(j, n - j as usize * 1000))
        .collect();
    let sources: Vec<&[u8]> = data.iter().map(Vec::as_slice).collect();
    for op in BitOp::ALL {
        let s = if op == BitOp::Not {
            &sources[..1]
        } else {
            &sources[..]
        };
        let want = reference(op, s);
        let mut dest = Vec::new();
        for k in kernels() {
            k.bitop(op, &mut dest, s).unwrap();
            assert!(dest == want, "{} {op} large", k.name());
            assert_eq!(
                k.bitop_count(op, s),
                Ok(popcount(&want)),
                "{} {op} large",
                k.name()
            );
        }
    }
}

#[test]
fn errors_match_the_server() {
    let a: &[u8] = b"ab";
    for op in BitOp::ALL {
        assert_eq!(bitcount::bitop_count(op, &[]), Err(BitopError::NoSources));
        assert_eq!(
            bitcount::bitop(op, &mut Vec::new(), &[]),
            Err(BitopError::NoSources)
        );
    }
    assert_eq!(
        bitcount::bitop_count(BitOp::Not, &[a, a]),
        Err(BitopError::NotSingleSource)
    );
    for op in [BitOp::Diff, BitOp::Diff1, BitOp::AndOr] {
        assert_eq!(
            bitcount::bitop_count(op, &[a]),
            Err(BitopError::TooFewSources(op))
        );
    }
    for op in [BitOp::And, BitOp::Or, BitOp::Xor, BitOp::One] {
        // One source: a copy.
        let mut d = Vec::new();
        assert_eq!(bitcount::bitop(op, &mut d, &[a]), Ok(2));
        assert_eq!(d, a);
    }
    assert_eq!(
        BitopError::NoSources.to_string(),
        "ERR wrong number of arguments for 'bitop' command"
    );
    assert_eq!(
        BitopError::NotSingleSource.to_string(),
        "ERR BITOP NOT must be called with a single source key."
    );
    assert_eq!(
        BitopError::TooFewSources(BitOp::Diff1).to_string(),
        "ERR BITOP DIFF1 must be called with at least two source keys."
    );
    assert_eq!(BitopError::Syntax.to_string(), "ERR syntax error");
    // A failed call leaves the destination as it was.
    let mut d = vec![1, 2, 3];
    assert!(bitcount::bitop(BitOp::Diff, &mut d, &[a]).is_err());
    assert_eq!(d, [1, 2, 3]);
    // The slice form refuses a short destination and writes nothing.
    let mut small = [9u8; 1];
    assert_eq!(
        bitcount::bitop_into(BitOp::Or, &mut small, &[a]),
        Err(BitopError::DestinationTooShort { needed: 2, len: 1 })
    );
    assert_eq!(small, [9]);
    let e: &dyn std::error::Error = &BitopError::Syntax;
    assert!(e.source().is_none());
}

#[test]
fn names_parse_and_display() {
    for op in BitOp::ALL {
        let name = op.to_string();
        assert_eq!(name.parse::<BitOp>(), Ok(op));
        assert_eq!(name.to_lowercase().parse::<BitOp>(), Ok(op));
        let mixed: String = name
            .chars()
            .enumerate()
            .map(|(i, c)| {
                if i % 2 == 1 {
                    c.to_ascii_lowercase()
                } else {
                    c
                }
            })
            .collect();
        assert_eq!(mixed.parse::<BitOp>(), Ok(op));
    }
    for bad in ["", "AN", "ANDD", "NAND", " AND", "DIFF2", "ÀND", "and\0"] {
        assert_eq!(bad.parse::<BitOp>(), Err(BitopError::Syntax), "{bad:?}");
    }
}

/// An empty result (every source empty) is what a deleted key reads as.
#[test]
fn empty_sources_give_empty_results() {
    let e: &[u8] = &[];
    for op in BitOp::ALL {
        let s: &[&[u8]] = if op == BitOp::Not { &[e] } else { &[e, e, e] };
        let mut d = vec![7u8; 5];
        assert_eq!(bitcount::bitop(op, &mut d, s), Ok(0));
        assert!(d.is_empty());
        assert_eq!(bitcount::bitop_count(op, s), Ok(0));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 256 }))]

    /// Random operations and sources (unequal lengths up to 2 KB): every
    /// kernel, the public functions and the oracle agree, and `bitop_count`
    /// equals the count of `bitop`'s result.
    #[test]
    fn random_sources(
        op in 0usize..8,
        data in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..2048), 1..12),
    ) {
        let op = BitOp::ALL[op];
        let sources: Vec<&[u8]> = data.iter().map(Vec::as_slice).collect();
        prop_assume!(fits(op, sources.len()));
        prop_assert_eq!(reference(op, &sources), oracle(op, &sources));
        for k in kernels() {
            check(&k, op, &sources, &|| "proptest".into());
        }
        check_public(op, &sources, &|| "proptest".into());
    }
}
