//! Every case of the golden files recorded from Redis 7.0.15 (Valkey 9.1.2
//! identical), reproduced byte for byte, with every kernel; and the same
//! strings parsed flush against inaccessible guard pages.

use hll::{count_union, ErrorKind, Hll};
use serde_json::Value;
use simd_core::testing::{for_each_len_fenced, scaled, Guarded};
use std::collections::HashMap;

/// The full file in the repository, its sample in the published crate.
fn load(name: &str) -> Value {
    let (text, _) =
        simd_core::testing::read_golden(env!("CARGO_MANIFEST_DIR"), &format!("hll/{name}"));
    serde_json::from_str(&text).unwrap()
}

/// Whether the full golden files are here (the repository), not only their
/// samples (a published crate).
fn full() -> bool {
    simd_core::testing::read_golden(env!("CARGO_MANIFEST_DIR"), "hll/cases.json").1
}

fn unhex(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().unwrap()).unwrap()
}

/// The elements of an `add` case, from its generator description.
fn elements(case: &Value) -> Vec<Vec<u8>> {
    let n = case["n"].as_u64().unwrap();
    let generator = case["generator"].as_str().unwrap();
    if let Some(list) = case.get("elements_hex") {
        let list: Vec<Vec<u8>> = list.as_array().unwrap().iter().map(unhex).collect();
        assert_eq!(list.len() as u64, n);
        list
    } else if generator.starts_with("utf8 'elem:{i}' added one at a time for i = 299 down to 0") {
        (0..n)
            .rev()
            .map(|i| format!("elem:{i}").into_bytes())
            .collect()
    } else if generator == "utf8 'elem:{i}'" {
        (0..n).map(|i| format!("elem:{i}").into_bytes()).collect()
    } else if generator == "8-byte little-endian u64 i" {
        (0..n).map(|i| i.to_le_bytes().to_vec()).collect()
    } else {
        panic!("unknown generator {generator}")
    }
}

/// Builds every `add` case, checks it, and returns the HLLs after PFCOUNT.
fn add_cases() -> HashMap<String, Hll> {
    let golden = load("cases.json");
    let mut built = HashMap::new();
    for case in golden["cases"].as_array().unwrap() {
        if case["kind"] != "add" {
            continue;
        }
        let name = case["name"].as_str().unwrap();
        let chunk = case["chunk"].as_u64().unwrap() as usize;
        let mut h = Hll::new();
        let elems = elements(case);
        for c in elems.chunks(chunk.max(1)) {
            h.add_all(c);
        }
        assert_eq!(
            hex::encode(h.as_bytes()),
            case["bytes_after_add"].as_str().unwrap(),
            "{name}: bytes after PFADD"
        );
        assert_eq!(h.is_sparse(), case["encoding"] == "sparse", "{name}");
        let want = case["count"].as_u64().unwrap();
        assert_eq!(h.count(), want, "{name}: count");
        assert_eq!(
            hex::encode(h.as_bytes()),
            case["bytes_after_count"].as_str().unwrap(),
            "{name}: bytes after PFCOUNT"
        );
        assert_eq!(h.count(), want, "{name}: cached count");
        // Round trip through the validator.
        assert_eq!(Hll::from_bytes(h.as_bytes()).unwrap(), h, "{name}");
        built.insert(name.to_string(), h);
    }
    built
}

#[test]
fn add_count_bytes() {
    assert_eq!(add_cases().len(), if full() { 23 } else { 17 });
}

#[test]
fn merge_and_union() {
    let built = add_cases();
    let golden = load("cases.json");
    let mut seen = 0;
    for case in golden["cases"].as_array().unwrap() {
        if case["kind"] != "merge" {
            continue;
        }
        seen += 1;
        let name = case["name"].as_str().unwrap();
        let sources: Vec<&Hll> = case["sources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| &built[s.as_str().unwrap()])
            .collect();
        assert_eq!(
            count_union(&sources),
            case["pfcount_union_of_sources"].as_u64().unwrap(),
            "{name}: union"
        );
        // The union is symmetric and idempotent.
        let mut doubled = sources.clone();
        doubled.extend(sources.iter().rev());
        assert_eq!(
            count_union(&doubled),
            case["pfcount_union_of_sources"].as_u64().unwrap(),
            "{name}"
        );

        let mut dest = match case["dest_initial"].as_str() {
            Some(d) => built[d].clone(),
            None => Hll::new(),
        };
        dest.merge(&sources);
        assert_eq!(
            hex::encode(dest.as_bytes()),
            case["bytes_after_merge"].as_str().unwrap(),
            "{name}: bytes after PFMERGE"
        );
        assert_eq!(dest.is_sparse(), case["encoding"] == "sparse", "{name}");
        assert_eq!(
            dest.count(),
            case["count"].as_u64().unwrap(),
            "{name}: count"
        );
        assert_eq!(
            hex::encode(dest.as_bytes()),
            case["bytes_after_count"].as_str().unwrap(),
            "{name}: bytes after PFCOUNT"
        );
    }
    assert_eq!(seen, if full() { 6 } else { 5 });
}

/// Golden registers through every kernel: unpack, pack back, histograms.
#[test]
fn kernels_on_golden() {
    let built = add_cases();
    for (name, h) in &built {
        let regs = h.registers();
        if h.is_sparse() {
            continue;
        }
        let body: &[u8; hll::DENSE_BODY] = h.as_bytes()[16..].try_into().unwrap();
        for k in hll::kernels() {
            let mut raw = [0u8; hll::REGISTERS];
            k.unpack_max(body, &mut raw);
            assert_eq!(raw, regs, "{name} {}", k.name());
            let mut plain = [0xffu8; hll::REGISTERS];
            k.unpack(body, &mut plain);
            assert_eq!(plain, regs, "{name} {} unpack", k.name());
            let mut packed = [0u8; hll::DENSE_BODY];
            k.pack(&raw, &mut packed);
            assert_eq!(&packed, body, "{name} {}", k.name());
            assert_eq!(
                k.histogram_dense(body),
                k.histogram_raw(&raw),
                "{name} {}",
                k.name()
            );
        }
    }
}

/// The PFDEBUG DECODE form of the spec's order example.
#[test]
fn insertion_order_matters() {
    // Registers 100..104 all set to 1, ascending then descending.
    let mut up = Hll::new();
    let mut down = Hll::new();
    let hashes: Vec<u64> = (100..105u64).map(|i| i | (1 << 14)).collect();
    for &h in &hashes {
        up.add_hash(h);
    }
    for &h in hashes.iter().rev() {
        down.add_hash(h);
    }
    assert_eq!(up.to_string(), "Z:100 v:1,4 v:1,1 Z:16279");
    assert_eq!(down.to_string(), "Z:100 v:1,1 v:1,4 Z:16279");
    assert_eq!(up.registers(), down.registers());
    let mut abc = Hll::new();
    abc.add_all(["a", "b", "c"]);
    assert_eq!(hex::encode(&abc.as_bytes()[16..]), "60f38050b1844bfb80425a");
}

fn malformed_bytes(case: &Value) -> Vec<u8> {
    if let Some(b) = case["bytes"].as_str() {
        return hex::decode(b).unwrap();
    }
    let note = case["bytes_note"].as_str().unwrap();
    assert_eq!(case["name"], "cve-2025-32023-idx-overflow", "{note}");
    // "header 'HYLL' 01 00 00 00, 7 zero bytes, 0x80, then 132072 times 7f ff, then ff"
    let mut v = b"HYLL\x01\0\0\0".to_vec();
    v.extend_from_slice(&[0; 7]);
    v.push(0x80);
    for _ in 0..132072 {
        v.extend_from_slice(&[0x7f, 0xff]);
    }
    v.push(0xff);
    v
}

#[test]
fn malformed_classification() {
    let golden = load("malformed.json");
    for case in golden["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let bytes = malformed_bytes(case);
        let answers = &case["answers"];
        let t = std::time::Instant::now();
        let got = Hll::from_bytes(&bytes);
        assert!(
            t.elapsed().as_millis() < 500,
            "{name}: validation took {:?}",
            t.elapsed()
        );
        let errors: Vec<&str> = ["pfcount", "pfcount_x_x", "pfadd", "pfmerge"]
            .iter()
            .filter_map(|k| answers[k].get("error").and_then(Value::as_str))
            .collect();
        if errors.contains(&"WRONGTYPE") {
            let e = got.expect_err(name);
            assert_eq!(e.kind(), ErrorKind::NotHll, "{name}: {e}");
            assert_eq!(e.kind().server_code(), "WRONGTYPE");
        } else if errors.contains(&"INVALIDOBJ") {
            // Servers report it where they read the registers; PFADD may
            // have succeeded lazily. We reject up front (documented).
            let e = got.expect_err(name);
            assert_eq!(e.kind(), ErrorKind::Corrupted, "{name}: {e}");
            assert!(!e.to_string().is_empty());
        } else {
            let mut h = got.unwrap_or_else(|e| panic!("{name}: {e}"));
            let want = answers["pfcount"]["ok"].as_i64().unwrap() as u64;
            let union = answers["pfcount_x_x"]["ok"].as_i64().unwrap() as u64;
            assert_eq!(count_union(&[&h, &h]), union, "{name}: PFCOUNT x x");
            assert_eq!(h.count(), want, "{name}: PFCOUNT");
            if answers["pfadd"]["ok"] == 0 {
                assert!(!h.add(b"some element"), "{name}");
            }
            let mut m = h.clone();
            m.merge(&[&h]);
            let _ = h.to_string();
        }
    }
}

#[test]
fn cve_2025_32023_rejected_at_first_overflow() {
    let golden = load("malformed.json");
    let case = golden["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "cve-2025-32023-idx-overflow")
        .unwrap();
    let e = Hll::from_bytes(&malformed_bytes(case)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Corrupted);
    assert_eq!(e.offset(), 18, "{e}");
}

#[test]
fn degenerate_all_63() {
    let mut b = b"HYLL\0\0\0\0\0\0\0\0\0\0\0\x80".to_vec();
    b.resize(hll::DENSE_BYTES, 0xff);
    let mut h = Hll::from_bytes(&b).unwrap();
    assert_eq!(h.count(), 1 << 63);
    // Cache bytes as the server writes them: still marked invalid.
    assert_eq!(&h.as_bytes()[8..16], &[0, 0, 0, 0, 0, 0, 0, 0x80]);
    assert_eq!(h.cached_count(), None);
    assert_eq!(h.count(), 1 << 63);
    assert!(!h.add(b"x"));
    assert_eq!(count_union(&[&h]), 1 << 63);
}

#[test]
fn truncated_xzero_completed() {
    let b = hex::decode("48594c4c0100000000000000000000807efe41").unwrap();
    let mut h = Hll::from_bytes(&b).unwrap();
    assert_eq!(h.as_bytes().len(), b.len() + 1);
    assert_eq!(h.to_string(), "Z:16127 Z:257");
    assert_eq!(h.count(), 0);
}

/// The header of a sparse string with an invalid cached count.
const SPARSE_HDR: &[u8; 16] = b"HYLL\x01\0\0\0\0\0\0\0\0\0\0\x80";

/// A raise inside an XZERO of one register, which no server writes but
/// every server accepts: the two-byte opcode becomes one VAL byte and the
/// string shrinks, then equal neighbours merge, as `hllSparseSet` does
/// (the live test checks such strings against Redis and Valkey).
#[test]
fn xzero_of_one_register_shrinks() {
    let sparse = |ops: &[u8]| [&SPARSE_HDR[..], ops].concat();
    // Register 0 in XZERO(1), register 1 VAL(2,1), the rest XZERO(16382).
    let mut h = Hll::from_bytes(&sparse(&[0x40, 0x00, 0x84, 0x7f, 0xfd])).unwrap();
    assert_eq!(h.to_string(), "Z:1 v:2,1 Z:16382");
    // Index 0, count 2 (bit 15 of the hash is the first set bit past 14).
    assert!(h.add_hash(1 << 15));
    assert_eq!(h.as_bytes(), &sparse(&[0x85, 0x7f, 0xfd])[..]);
    assert_eq!(h.to_string(), "v:2,2 Z:16382");
    // VAL(1,1) then XZERO(1): raised to 3, no neighbour to merge with.
    let mut h = Hll::from_bytes(&sparse(&[0x80, 0x40, 0x00, 0x7f, 0xfd])).unwrap();
    assert!(h.add_hash(1 | 1 << 16));
    assert_eq!(h.as_bytes(), &sparse(&[0x80, 0x88, 0x7f, 0xfd])[..]);
    assert!(!h.add_hash(1 | 1 << 16));
    assert_eq!(h.count(), 2);
}

/// PFADD after PFCOUNT marks the cached count invalid again (bit 7 of byte
/// 15) whenever a register changes, on sparse and dense strings.
#[test]
fn add_after_count_invalidates_the_cache() {
    for limit in [3000, 0] {
        let mut h = Hll::new().with_sparse_max_bytes(limit);
        for i in 0..300u32 {
            let before = h.count();
            assert_eq!(h.cached_count(), Some(before));
            assert_eq!(h.as_bytes()[15] & 0x80, 0);
            if h.add(&i.to_le_bytes()) {
                assert_eq!(h.cached_count(), None, "limit {limit}, element {i}");
                assert_eq!(h.as_bytes()[15] & 0x80, 0x80);
            } else {
                assert_eq!(h.cached_count(), Some(before));
            }
        }
        assert_eq!(h.is_sparse(), limit > 0);
    }
}

/// An edit may take a sparse string to exactly its limit and stay sparse;
/// one byte more converts it (`sdslen + deltalen > hll-sparse-max-bytes`).
#[test]
fn sparse_limit_is_inclusive() {
    let elems: Vec<[u8; 4]> = (0..400u32).map(u32::to_le_bytes).collect();
    let mut h = Hll::new().with_sparse_max_bytes(100_000);
    let mut lens = vec![h.as_bytes().len()];
    for e in &elems {
        h.add(e);
        lens.push(h.as_bytes().len());
    }
    let mut checked = 0;
    for k in (1..lens.len())
        .filter(|&k| lens[k] > lens[k - 1])
        .step_by(7)
    {
        for (limit, sparse) in [(lens[k], true), (lens[k] - 1, false)] {
            let mut h = Hll::new().with_sparse_max_bytes(limit);
            for e in &elems[..k - 1] {
                h.add(e);
            }
            assert!(h.is_sparse(), "before add {k}, limit {limit}");
            h.add(&elems[k - 1]);
            assert_eq!(h.is_sparse(), sparse, "add {k}, limit {limit}");
        }
        checked += 1;
    }
    assert!(checked > 20, "{checked}");
}

/// A sparse string already over the limit (a server accepts one with SET)
/// stays sparse through edits that do not grow it: `hllSparseSet`
/// converts only when `deltalen > 0`.
#[test]
fn over_the_limit_edit_of_same_size_stays_sparse() {
    // VAL(1,1) for register 0, then XZERO(16383): 19 bytes, limit 18.
    let b = [&SPARSE_HDR[..], &[0x80, 0x7f, 0xfe]].concat();
    let mut h = Hll::from_bytes(&b).unwrap().with_sparse_max_bytes(18);
    // Register 0 raised to 2: VAL(1,1) -> VAL(2,1), same length.
    assert!(h.add_hash(1 << 15));
    assert!(h.is_sparse());
    assert_eq!(
        h.as_bytes(),
        &[&SPARSE_HDR[..], &[0x84, 0x7f, 0xfe]].concat()[..]
    );
    // Register 1 raised: XZERO(16383) splits (grows), so now it converts.
    assert!(h.add_hash(1 | 1 << 14));
    assert!(!h.is_sparse());
    assert_eq!((h.register(0), h.register(1)), (2, 1));
}

#[test]
fn sparse_limit_is_configurable() {
    let elems: Vec<String> = (0..300).map(|i| format!("elem:{i}")).collect();
    let mut small = Hll::new().with_sparse_max_bytes(200);
    small.add_all(&elems);
    assert!(!small.is_sparse());
    let mut big = Hll::new().with_sparse_max_bytes(100_000);
    big.add_all((0..3000).map(|i| format!("elem:{i}")));
    assert!(big.is_sparse());
    let mut default = Hll::new();
    default.add_all((0..3000).map(|i| format!("elem:{i}")));
    assert_eq!(big.registers(), default.registers());
    assert_eq!(big.estimate(), default.estimate());
}

/// The README's first example, kept in sync here.
#[test]
fn readme_example() {
    let mut h = Hll::new();
    h.add(b"a");
    h.add_all(["b", "c"]);
    assert_eq!(h.count(), 3);
    let bytes: &[u8] = h.as_bytes();
    let mut other = Hll::from_bytes(bytes).unwrap();
    other.add(b"d");
    assert_eq!(count_union(&[&h, &other]), 4);
    h.merge(&[&other]);
    assert_eq!(h.count(), 4);
}

/// Every HLL string of the golden files, valid and malformed.
fn golden_strings() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for case in load("cases.json")["cases"].as_array().unwrap() {
        for field in ["bytes_after_add", "bytes_after_count"] {
            if !case[field].is_null() {
                out.push(unhex(&case[field]));
            }
        }
    }
    for case in load("malformed.json")["cases"].as_array().unwrap() {
        out.push(malformed_bytes(case));
    }
    out
}

/// `Hll::from_bytes` validates the caller's bytes in place (word loads over
/// sparse opcodes and dense registers): on every golden string and on
/// truncations of it placed flush against a guard page (see
/// `simd_core::testing::Guarded`), a read of one byte before or after the
/// input faults, and the answer equals the heap copy's.
#[test]
fn from_bytes_stays_inside_the_input() {
    let strings = golden_strings();
    assert!(
        strings.len() > 50,
        "golden strings found: {}",
        strings.len()
    );
    let longest = strings.iter().map(Vec::len).max().unwrap_or(0);
    let mut g = Guarded::new(longest);
    for s in &strings {
        // The whole string, and (fewer under Miri) its first and last 64
        // truncation points: each must parse or fail exactly as on the heap.
        let step = scaled(1, 997).max(1);
        let mut cuts: Vec<usize> = (0..s.len().min(64)).step_by(step).collect();
        cuts.extend((s.len().saturating_sub(64)..=s.len()).step_by(step));
        cuts.push(s.len());
        for n in cuts {
            let want = Hll::from_bytes(&s[..n]).map(|h| h.into_bytes());
            for back in [true, false] {
                let b = g.place(&s[..n], back);
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

/// `add` hashes the caller's element with 8-byte block loads and a tail:
/// elements of 0..=300 bytes flush against a guard page.
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

/// Each `*.sample.json` (what the published crate ships) holds cases of its
/// full file, unchanged and in order.
#[test]
fn samples_are_subsets() {
    if !full() {
        return; // a published crate has only the samples
    }
    let dir = env!("CARGO_MANIFEST_DIR");
    for name in ["cases.json", "malformed.json"] {
        let path = simd_core::testing::sample_path(dir, &format!("hll/{name}"));
        let sample: Value =
            serde_json::from_str(&std::fs::read_to_string(path).expect("sample")).unwrap();
        let sample = sample["cases"].as_array().unwrap();
        let full = load(name);
        let mut rest = full["cases"].as_array().unwrap().iter();
        for case in sample {
            assert!(rest.any(|c| c == case), "{name}: {}", case["name"]);
        }
        assert!(sample.len() > 20, "{name}");
    }
}
