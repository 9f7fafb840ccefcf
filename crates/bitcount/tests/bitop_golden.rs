//! The golden BITOP cases in `testdata/bitop/cases.json` (AND/OR/XOR/NOT
//! answered by Valkey 9.1.2 and Redis 7.0.15, the other four from the Redis
//! 8.2 rules; a subset of the full file, see `testdata/README.md`): every
//! kernel and the public functions give each result, its count and each
//! error. The published package ships `cases.sample.json` (every 8th
//! case) instead; the test reads the full file where it exists.
#![cfg(feature = "alloc")]

use bitcount::{BitOp, BitopError};
use serde_json::Value;

#[test]
fn golden_cases() {
    let (text, full) =
        simd_core::testing::read_golden(env!("CARGO_MANIFEST_DIR"), "bitop/cases.json");
    let doc: Value = serde_json::from_str(&text).expect("valid JSON");
    let cases = doc["cases"].as_array().expect("cases array");
    if full {
        assert_eq!(cases.len(), 825);
        let sample = std::fs::read_to_string(simd_core::testing::sample_path(
            env!("CARGO_MANIFEST_DIR"),
            "bitop/cases.json",
        ))
        .expect("the sample beside the full file");
        let sample: Value = serde_json::from_str(&sample).expect("valid JSON");
        let every_8th: Vec<&Value> = cases.iter().step_by(8).collect();
        let shipped: Vec<&Value> = sample["cases"].as_array().expect("cases").iter().collect();
        assert!(
            shipped == every_8th,
            "the sample is every 8th case of the full file"
        );
    } else {
        assert_eq!(cases.len(), 104);
    }
    let kernels: Vec<_> = bitcount::kernels().collect();
    let (mut results, mut errors) = (0, 0);
    for (i, case) in cases.iter().enumerate() {
        let op: BitOp = case["op"].as_str().expect("op").parse().expect("known op");
        let data: Vec<Vec<u8>> = case["sources"]
            .as_array()
            .expect("sources")
            .iter()
            .map(|s| hex::decode(s.as_str().expect("hex")).expect("valid hex"))
            .collect();
        let sources: Vec<&[u8]> = data.iter().map(Vec::as_slice).collect();
        if let Some(err) = case["error"].as_str() {
            let want = match err {
                "arity" => BitopError::NoSources,
                "two-sources" => BitopError::TooFewSources(op),
                "single-source" => BitopError::NotSingleSource,
                other => panic!("case {i}: unknown error kind {other}"),
            };
            assert_eq!(
                bitcount::bitop(op, &mut Vec::new(), &sources),
                Err(want),
                "case {i}"
            );
            assert_eq!(bitcount::bitop_count(op, &sources), Err(want), "case {i}");
            errors += 1;
            continue;
        }
        let want = hex::decode(case["result"].as_str().expect("result")).expect("valid hex");
        let len = case["len"].as_u64().expect("len") as usize;
        let count = case["count"].as_u64().expect("count");
        assert_eq!(want.len(), len, "case {i}");
        let mut dest = Vec::new();
        assert_eq!(
            bitcount::bitop(op, &mut dest, &sources),
            Ok(len),
            "case {i}"
        );
        assert!(dest == want, "case {i}: {op} of {} sources", sources.len());
        assert_eq!(bitcount::bitop_count(op, &sources), Ok(count), "case {i}");
        for k in &kernels {
            assert_eq!(k.bitop(op, &mut dest, &sources), Ok(len), "case {i}");
            assert!(dest == want, "case {i}: kernel {}", k.name());
            assert_eq!(
                k.bitop_count(op, &sources),
                Ok(count),
                "case {i}: kernel {}",
                k.name()
            );
        }
        results += 1;
    }
    eprintln!("{results} results and {errors} errors checked");
    assert!(results > 0 && errors > 0);
}
