//! Parsing and hashing on inputs placed flush against inaccessible guard
//! pages (see `simd_core::testing::Guarded`): `Hll::from_bytes` validates
//! the caller's bytes in place (word loads over sparse opcodes and dense
//! registers) and `add` hashes the caller's element with 8-byte block loads
//! and a tail, so a read of one byte before or after either faults here.
//! Answers are compared with the same calls on heap copies.

use hll::Hll;
use serde_json::Value;
use simd_core::testing::{for_each_len_fenced, scaled, Guarded};

/// Every HLL string of the golden files (valid and malformed).
fn golden_strings() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (file, fields) in [
        ("cases.json", &["bytes_after_add", "bytes_after_count"][..]),
        ("malformed.json", &["bytes"][..]),
    ] {
        let path = format!("{}/../../testdata/hll/{file}", env!("CARGO_MANIFEST_DIR"));
        let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        for case in v["cases"].as_array().unwrap() {
            for f in fields {
                if let Some(h) = case.get(*f).and_then(Value::as_str) {
                    out.push(hex::decode(h).unwrap());
                }
            }
        }
    }
    out
}

#[test]
fn from_bytes_stays_inside_the_input() {
    let strings = golden_strings();
    assert!(
        strings.len() > 50,
        "golden strings found: {}",
        strings.len()
    );
    let mut g = Guarded::new(16 + 12288 + 8);
    for s in &strings {
        // The whole string, and (fewer under Miri) truncations of it: each
        // must parse or fail exactly as the heap copy does.
        let step = scaled(1, 997).max(1);
        let mut cuts: Vec<usize> = (0..s.len().min(64)).step_by(step).collect();
        cuts.extend((s.len().saturating_sub(64)..=s.len()).step_by(step));
        cuts.push(s.len());
        for n in cuts {
            let want = Hll::from_bytes(&s[..n]).map(|h| h.into_bytes());
            for back in [true, false] {
                let b = if back { g.back(n) } else { g.front(n) };
                b.copy_from_slice(&s[..n]);
                let got = Hll::from_bytes(b).map(|h| h.into_bytes());
                match (&got, &want) {
                    (Ok(x), Ok(y)) => assert_eq!(x, y, "len {n}"),
                    (Err(x), Err(y)) => assert_eq!(x.kind(), y.kind(), "len {n}"),
                    _ => panic!("len {n}: fenced {got:?} vs heap {want:?}"),
                }
            }
        }
    }
}

#[test]
fn hashing_an_element_stays_inside_it() {
    let mut fenced = Hll::new();
    let mut heap = Hll::new();
    for_each_len_fenced(scaled(300, 40), 21, |e| {
        let copy = e.to_vec();
        assert_eq!(hll::hash(e), hll::hash(&copy));
        assert_eq!(fenced.add(e), heap.add(&copy), "len {}", e.len());
    });
    assert_eq!(fenced.as_bytes(), heap.as_bytes());
}
