//! The 3000 Redis 7.0.15 answers in `testdata/bitops/cases.json` (Valkey
//! 9.1.2 answers identically), through the public API and through every
//! kernel. The argument lists are exactly what followed the key on the wire,
//! so they map one-to-one onto the API: BITCOUNT takes 0, 2 or 3 arguments,
//! BITPOS 0 (All), 1 (From), 2 (Between, BYTE) or 3 (Between with a unit).

use bitcount::{BitposRange, Unit};
use serde_json::Value;

fn unit(v: &Value) -> Unit {
    match v.as_str().map(str::to_ascii_uppercase).as_deref() {
        Some("BYTE") => Unit::Byte,
        Some("BIT") => Unit::Bit,
        other => panic!("unknown unit {other:?}"),
    }
}

fn int(v: &Value) -> i64 {
    v.as_i64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

enum CountArgs {
    Whole,
    Range(i64, i64, Unit),
}

fn count_args(args: &[Value]) -> CountArgs {
    match args {
        [] => CountArgs::Whole,
        [s, e] => CountArgs::Range(int(s), int(e), Unit::Byte),
        [s, e, u] => CountArgs::Range(int(s), int(e), unit(u)),
        _ => panic!("BITCOUNT takes 0, 2 or 3 range arguments: {args:?}"),
    }
}

fn bitpos_args(args: &[Value]) -> BitposRange {
    match args {
        [] => BitposRange::All,
        [s] => BitposRange::From(int(s)),
        [s, e] => BitposRange::Between {
            start: int(s),
            end: int(e),
            unit: Unit::Byte,
        },
        [s, e, u] => BitposRange::Between {
            start: int(s),
            end: int(e),
            unit: unit(u),
        },
        _ => panic!("BITPOS takes 0 to 3 range arguments: {args:?}"),
    }
}

#[test]
fn redis_answers() {
    // The full file in the repository, its sample in the published crate.
    let (text, full) =
        simd_core::testing::read_golden(env!("CARGO_MANIFEST_DIR"), "bitops/cases.json");
    let doc: Value = serde_json::from_str(&text).expect("valid JSON");
    let cases = doc["cases"].as_array().expect("cases array");
    assert_eq!(cases.len(), if full { 3000 } else { 200 });
    let kernels: Vec<_> = bitcount::kernels().collect();
    let mut checked = 0;
    for (i, case) in cases.iter().enumerate() {
        let data = hex::decode(case["data"].as_str().expect("hex data")).expect("valid hex");
        let want_count = case["bitcount"].as_u64().expect("count");
        let count_args = count_args(case["bitcount_args"].as_array().expect("args"));
        let got = match count_args {
            CountArgs::Whole => bitcount::count(&data),
            CountArgs::Range(s, e, u) => bitcount::count_range(&data, s, e, u),
        };
        assert_eq!(
            got, want_count,
            "case {i}: BITCOUNT {:?}",
            case["bitcount_args"]
        );
        let bit = match case["bitpos_bit"].as_i64() {
            Some(0) => false,
            Some(1) => true,
            other => panic!("case {i}: bit {other:?}"),
        };
        let range = bitpos_args(case["bitpos_args"].as_array().expect("args"));
        let want_pos = case["bitpos"].as_i64().expect("pos");
        assert_eq!(
            bitcount::bitpos(&data, bit, range),
            want_pos,
            "case {i}: BITPOS {} {:?} on {} bytes",
            u8::from(bit),
            case["bitpos_args"],
            data.len()
        );
        for k in &kernels {
            let got = match count_args {
                CountArgs::Whole => k.count(&data),
                CountArgs::Range(s, e, u) => k.count_range(&data, s, e, u),
            };
            assert_eq!(got, want_count, "case {i}: kernel {}", k.name());
            assert_eq!(
                k.bitpos(&data, bit, range),
                want_pos,
                "case {i}: kernel {}",
                k.name()
            );
        }
        checked += 1;
    }
    assert_eq!(checked, cases.len());
}

/// `cases.sample.json` (what the published crate ships) is every 15th case
/// of `cases.json`.
#[test]
fn sample_is_every_15th_case() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let (full, is_full) = simd_core::testing::read_golden(dir, "bitops/cases.json");
    if !is_full {
        return; // a published crate has only the sample
    }
    let sample = std::fs::read_to_string(simd_core::testing::sample_path(dir, "bitops/cases.json"))
        .expect("the sample ships next to the full file");
    let full: Value = serde_json::from_str(&full).unwrap();
    let sample: Value = serde_json::from_str(&sample).unwrap();
    let every: Vec<&Value> = full["cases"]
        .as_array()
        .unwrap()
        .iter()
        .step_by(15)
        .collect();
    let sample: Vec<&Value> = sample["cases"].as_array().unwrap().iter().collect();
    assert_eq!(sample, every);
}
