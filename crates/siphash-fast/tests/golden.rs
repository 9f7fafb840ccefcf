//! Every row of the golden files (`testdata/siphash/`), 64- and 128-bit,
//! through the public API, every kernel, the streaming hasher and the batch
//! functions; and Redis's own `siphash()` / `siphash_nocase()` results.

use core::hash::Hasher;
use siphash_fast as sf;

struct Row {
    key: [u8; 16],
    input: Vec<u8>,
    h64: u64,
    h128: u128,
}

/// The full file in the repository, its sample in the published crate
/// (`true`: the full file).
fn read_golden(name: &str) -> (String, bool) {
    simd_core::testing::read_golden(env!("CARGO_MANIFEST_DIR"), &format!("siphash/{name}"))
}

fn rows(name: &str) -> Vec<Row> {
    let (text, full) = read_golden(name);
    let rows: Vec<Row> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 4, "{name}: {l}");
            let h64: [u8; 8] = hex::decode(f[2]).unwrap().try_into().unwrap();
            let h128: [u8; 16] = hex::decode(f[3]).unwrap().try_into().unwrap();
            Row {
                key: hex::decode(f[0]).unwrap().try_into().unwrap(),
                input: hex::decode(f[1]).unwrap(),
                h64: u64::from_le_bytes(h64),
                h128: u128::from_le_bytes(h128),
            }
        })
        .collect();
    if full {
        assert_eq!(rows.len(), 329, "{name}: 129 sequential + 200 random rows");
    } else {
        assert_eq!(rows.len(), 149, "{name}: 129 sequential + 20 random rows");
    }
    rows
}

type One = fn(&[u8; 16], &[u8]) -> u64;
type KOne = fn(&sf::Kernel, &[u8; 16], &[u8]) -> u64;
type KBatch = fn(&sf::Kernel, &[u8; 16], &[&[u8]], &mut [u64]);
type Batch = fn(&[u8; 16], &[&[u8]], &mut [u64]);

fn check64<H: Hasher>(
    name: &str,
    one: One,
    kone: KOne,
    kbatch: KBatch,
    batch: Batch,
    new: fn(&[u8; 16]) -> H,
) {
    let rows = rows(name);
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(one(&r.key, &r.input), r.h64, "{name} row {i}");
        for k in sf::kernels() {
            assert_eq!(
                kone(&k, &r.key, &r.input),
                r.h64,
                "{name} row {i} kernel {}",
                k.name()
            );
        }
        let mut h = new(&r.key);
        h.write(&r.input);
        assert_eq!(h.finish(), r.h64, "{name} row {i} streaming");
    }
    // The first 129 rows share one key: a batch over them mixes every length
    // 0..=128 in every lane position.
    let key = rows[0].key;
    let same: Vec<&Row> = rows.iter().filter(|r| r.key == key).collect();
    let inputs: Vec<&[u8]> = same.iter().map(|r| r.input.as_slice()).collect();
    let want: Vec<u64> = same.iter().map(|r| r.h64).collect();
    let mut out = vec![0; inputs.len()];
    batch(&key, &inputs, &mut out);
    assert_eq!(out, want, "{name} batch");
    for k in sf::kernels() {
        let mut out = vec![0; inputs.len()];
        kbatch(&k, &key, &inputs, &mut out);
        assert_eq!(out, want, "{name} batch kernel {}", k.name());
    }
}

#[test]
fn sip24_64() {
    check64(
        "sip24.tsv",
        sf::siphash24,
        sf::Kernel::siphash24,
        sf::Kernel::siphash24_batch,
        sf::siphash24_batch,
        sf::SipHasher24::new_with_key,
    );
}

#[test]
fn sip13_64() {
    check64(
        "sip13.tsv",
        sf::siphash13,
        sf::Kernel::siphash13,
        sf::Kernel::siphash13_batch,
        sf::siphash13_batch,
        sf::SipHasher13::new_with_key,
    );
}

#[test]
fn sip12_64() {
    check64(
        "sip12.tsv",
        sf::siphash12,
        sf::Kernel::siphash12,
        sf::Kernel::siphash12_batch,
        sf::siphash12_batch,
        sf::SipHasher12::new_with_key,
    );
}

fn check128(
    name: &str,
    one: fn(&[u8; 16], &[u8]) -> u128,
    kone: fn(&sf::Kernel, &[u8; 16], &[u8]) -> u128,
) {
    for (i, r) in rows(name).iter().enumerate() {
        assert_eq!(one(&r.key, &r.input), r.h128, "{name} row {i}");
        for k in sf::kernels() {
            assert_eq!(
                kone(&k, &r.key, &r.input),
                r.h128,
                "{name} row {i} kernel {}",
                k.name()
            );
        }
    }
}

#[test]
fn sip24_128() {
    check128("sip24.tsv", sf::siphash24_128, sf::Kernel::siphash24_128);
}

#[test]
fn sip13_128() {
    check128("sip13.tsv", sf::siphash13_128, sf::Kernel::siphash13_128);
}

#[test]
fn sip24_reference_len0() {
    let key: [u8; 16] = core::array::from_fn(|i| i as u8);
    assert_eq!(sf::siphash24(&key, &[]), 0x726f_db47_dd0e_0e31);
}

#[test]
fn redis_siphash_and_nocase() {
    let (text, full) = read_golden("sip12-redis.tsv");
    let mut n = 0;
    for l in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: Vec<&str> = l.split('\t').collect();
        let key: [u8; 16] = hex::decode(f[0]).unwrap().try_into().unwrap();
        let input = hex::decode(f[1]).unwrap();
        let want = u64::from_str_radix(f[2], 16).unwrap();
        let want_nocase = u64::from_str_radix(f[3], 16).unwrap();
        assert_eq!(sf::siphash12(&key, &input), want, "row {n}");
        assert_eq!(
            sf::siphash12_nocase(&key, &input),
            want_nocase,
            "row {n} nocase"
        );
        for k in sf::kernels() {
            assert_eq!(k.siphash12(&key, &input), want, "row {n} {}", k.name());
            assert_eq!(
                k.siphash12_nocase(&key, &input),
                want_nocase,
                "row {n} nocase {}",
                k.name()
            );
        }
        // nocase = siphash of the ASCII-lowercased input.
        assert_eq!(
            sf::siphash12(&key, &input.to_ascii_lowercase()),
            want_nocase,
            "row {n}"
        );
        n += 1;
    }
    assert_eq!(n, if full { 300 } else { 60 });
}

/// Each `*.sample.tsv` (what the published crate ships) holds rows of its
/// full file, in order: the sequential rows and every 10th random one, or
/// every 5th row of `sip12-redis.tsv`.
#[test]
fn samples_are_subsets() {
    let dir = env!("CARGO_MANIFEST_DIR");
    for (name, keep) in [
        (
            "sip12.tsv",
            (|i| i < 129 || (i - 129) % 10 == 0) as fn(usize) -> bool,
        ),
        ("sip13.tsv", |i| i < 129 || (i - 129) % 10 == 0),
        ("sip24.tsv", |i| i < 129 || (i - 129) % 10 == 0),
        ("sip12-redis.tsv", |i| i % 5 == 0),
    ] {
        let (full, is_full) = read_golden(name);
        if !is_full {
            return; // a published crate has only the samples
        }
        let path = simd_core::testing::sample_path(dir, &format!("siphash/{name}"));
        let sample = std::fs::read_to_string(path).expect("the sample ships next to the file");
        let data = |t: &str| -> Vec<String> {
            t.lines()
                .filter(|l| !l.starts_with('#') && !l.is_empty())
                .map(String::from)
                .collect()
        };
        let want: Vec<String> = data(&full)
            .into_iter()
            .enumerate()
            .filter(|(i, _)| keep(*i))
            .map(|(_, l)| l)
            .collect();
        assert_eq!(data(&sample), want, "{name}");
    }
}
