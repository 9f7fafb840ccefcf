//! Criterion's results: reading them from its output directory, and the
//! saved baselines they are compared against.

use super::Measurement;
use crate::util::root;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

pub(super) fn baselines_dir() -> PathBuf {
    root().join("target/bench-baselines")
}

pub(super) fn saved_baselines() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(baselines_dir())
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter_map(|e| {
                    let p = e.path();
                    (p.extension()? == "json")
                        .then(|| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
                        .flatten()
                })
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Where criterion writes its results: `criterion/` in the Cargo target
/// directory (`CARGO_TARGET_DIR` when set, relative to the workspace root
/// like Cargo takes it, else `target/`).
pub(super) fn criterion_dir(root: &Path) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .filter(|d| !d.is_empty())
        .map_or_else(|| root.join("target"), |d| root.join(d));
    target.join("criterion")
}

/// Reads every `new/` result under target/criterion (written after `since`,
/// if given).
pub(super) fn collect(dir: &Path, since: Option<SystemTime>) -> Vec<Measurement> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.filter_map(|e| e.ok()) {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if p.file_name().is_none_or(|n| n != "benchmark.json")
                || p.parent()
                    .and_then(|x| x.file_name())
                    .is_none_or(|n| n != "new")
            {
                continue;
            }
            let est = p.with_file_name("estimates.json");
            if let Some(t) = since {
                let fresh = std::fs::metadata(&est)
                    .and_then(|m| m.modified())
                    .map(|m| m >= t)
                    .unwrap_or(false);
                if !fresh {
                    continue;
                }
            }
            if let Some(m) = read_measurement(&p, &est) {
                out.push(m);
            }
        }
    }
    out.sort_by(|a, b| {
        (&a.group, sort_key(&a.param), &a.function).cmp(&(
            &b.group,
            sort_key(&b.param),
            &b.function,
        ))
    });
    out
}

pub(super) fn sort_key(param: &str) -> (u64, String) {
    (param.parse::<u64>().unwrap_or(u64::MAX), param.to_string())
}

pub(super) fn read_measurement(bench: &Path, est: &Path) -> Option<Measurement> {
    let b: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(bench).ok()?).ok()?;
    let e: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(est).ok()?).ok()?;
    let throughput = match &b["throughput"] {
        serde_json::Value::Object(m) => {
            if let Some(v) = m.get("Bytes").or_else(|| m.get("BytesDecimal")) {
                v.as_f64().map(|x| (x, "bytes"))
            } else {
                m.get("Elements")
                    .and_then(|v| v.as_f64())
                    .map(|x| (x, "elements"))
            }
        }
        _ => None,
    };
    Some(Measurement {
        group: b["group_id"].as_str()?.to_string(),
        function: b["function_id"].as_str().unwrap_or("").to_string(),
        param: b["value_str"].as_str().unwrap_or("").to_string(),
        median_ns: e["median"]["point_estimate"].as_f64()?,
        std_dev_ns: e["std_dev"]["point_estimate"].as_f64().unwrap_or(0.0),
        throughput,
    })
}

pub(super) fn key(m: &Measurement) -> String {
    format!("{}/{}/{}", m.group, m.function, m.param)
}

pub(super) fn save_baseline(name: &str, results: &[Measurement]) -> Result<(), String> {
    let mut map = serde_json::Map::new();
    for m in results {
        map.insert(
            key(m),
            serde_json::json!({"median_ns": m.median_ns, "std_dev_ns": m.std_dev_ns}),
        );
    }
    // Merge with an existing baseline of that name (runs of single crates).
    let path = baselines_dir().join(format!("{name}.json"));
    if let Ok(old) = std::fs::read_to_string(&path) {
        if let Ok(serde_json::Value::Object(old)) = serde_json::from_str(&old) {
            for (k, v) in old {
                map.entry(k).or_insert(v);
            }
        }
    }
    std::fs::create_dir_all(baselines_dir()).map_err(|e| e.to_string())?;
    std::fs::write(&path, serde_json::Value::Object(map).to_string()).map_err(|e| e.to_string())
}

pub(super) fn load_baseline(name: &str) -> Option<BTreeMap<String, (f64, f64)>> {
    let text = std::fs::read_to_string(baselines_dir().join(format!("{name}.json"))).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    let obj = v.as_object()?;
    Some(
        obj.iter()
            .filter_map(|(k, v)| {
                Some((
                    k.clone(),
                    (
                        v["median_ns"].as_f64()?,
                        v["std_dev_ns"].as_f64().unwrap_or(0.0),
                    ),
                ))
            })
            .collect(),
    )
}
