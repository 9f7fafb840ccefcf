//! The golden BITOP cases in `testdata/bitop/cases.json` (AND/OR/XOR/NOT
//! answered by Valkey 9.1.2 and Redis 7.0.15, the other four from the Redis
//! 8.2 rules; a subset of the full file, see `testdata/README.md`): every
//! kernel and the public functions give each result, its count and each
//! error. Where the file is absent (the published package leaves it out)
//! the test says so and passes.
#![cfg(feature = "alloc")]

use bitcount::{BitOp, BitopError};
use serde_json::Value;

#[test]
fn golden_cases() {
    let path = simd_core::testing::testdata_path(env!("CARGO_MANIFEST_DIR"), "bitop/cases.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!(
            "skipped: {} not found (not shipped in the package)",
            path.display()
        );
        return;
    };
    let doc: Value = serde_json::from_str(&text).expect("valid JSON");
    let cases = doc["cases"].as_array().expect("cases array");
    assert!(cases.len() >= 800, "{} cases", cases.len());
    let kernels: Vec<_> = bitcount::bitop_kernels().collect();
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
