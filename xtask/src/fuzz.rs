//! `cargo xtask fuzz`: the cargo-fuzz targets in fuzz/, each for N seconds,
//! with seed corpora drawn from the crates' golden files (malformed HLLs
//! included). Installs cargo-fuzz and the nightly toolchain when missing.

use crate::util::{self, root};
use std::path::{Path, PathBuf};
use std::process::Command;

const HELP: &str = "\
cargo xtask fuzz [--target T[,T..]] [--seconds N]

Runs each cargo-fuzz target of fuzz/ (libFuzzer with AddressSanitizer, nightly)
for N seconds (default 20), seeding fuzz/corpus/<target>/ from the crates'
golden files (crates/*/testdata/) on the first run. Prints executions per
target and, for a crash, the reproducer path (fuzz/artifacts/<target>/...;
rerun it with `cargo +nightly fuzz run <target> <path>` from fuzz/). Exits
non-zero if any target crashed.
Installs cargo-fuzz (cargo install) and the nightly toolchain when missing.
";

/// One target's run.
pub struct FuzzRun {
    pub target: String,
    pub executions: u64,
    pub crash: Option<String>,
    pub ok: bool,
}

pub fn targets(root: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(root.join("fuzz/Cargo.toml")).unwrap_or_default();
    let mut out = Vec::new();
    let mut in_bin = false;
    for line in text.lines() {
        let l = line.trim();
        if l.starts_with('[') {
            in_bin = l == "[[bin]]";
        } else if in_bin {
            if let Some(v) = l.strip_prefix("name = ") {
                out.push(v.trim_matches('"').to_string());
            }
        }
    }
    out
}

/// Makes sure nightly and cargo-fuzz are there; `Err(reason)` if not.
pub fn ensure_tools(log: &Path) -> Result<(), String> {
    if !util::ensure_toolchain("nightly", log) {
        return Err("the nightly toolchain could not be installed".into());
    }
    let have_fuzz =
        || util::output(Command::new("cargo").args(["+nightly", "fuzz", "--version"])).is_some();
    if !have_fuzz() {
        eprintln!("  installing cargo-fuzz (cargo install, a few minutes)");
        util::run_logged(
            Command::new("cargo").args(["install", "cargo-fuzz", "--locked"]),
            log,
        );
    }
    if !have_fuzz() {
        return Err("cargo-fuzz (or the nightly toolchain) could not be installed".into());
    }
    Ok(())
}

/// A golden file by its `<kind>/<file>` name, in whichever crate's
/// `testdata/` holds that kind (see [`util::golden_dirs`]); a path that does
/// not exist (so no seeds) if none does.
fn golden(root: &Path, rel: &str) -> PathBuf {
    let kind = rel.split('/').next().unwrap_or_default();
    util::golden_dirs(root)
        .into_iter()
        .find(|d| d.file_name().is_some_and(|n| n == kind))
        .and_then(|d| Some(d.parent()?.join(rel)))
        .unwrap_or_else(|| root.join("crates").join(rel))
}

/// Writes seed inputs for `target` from the crates' golden files if its
/// corpus is empty.
fn seed(root: &Path, target: &str) {
    let dir = root.join("fuzz/corpus").join(target);
    if std::fs::read_dir(&dir)
        .map(|mut d| d.next().is_some())
        .unwrap_or(false)
    {
        return;
    }
    let _ = std::fs::create_dir_all(&dir);
    let mut seeds: Vec<Vec<u8>> = Vec::new();
    let json = |rel: &str| -> serde_json::Value {
        std::fs::read_to_string(golden(root, rel))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or(serde_json::Value::Null)
    };
    if target == "hll_ops" {
        // Operation scripts, not HLL strings: a few that add, promote, merge
        // and count.
        seeds.push(vec![0x00, 0x41, 0x42, 0x05, 0x03, 0x44, 0x06, 0x45, 0x05]);
        seeds.push(vec![
            0x03, 0x43, 0x83, 0x04, 0x44, 0x84, 0x06, 0x07, 0x01, 0x61, 0x05,
        ]);
    } else if target.starts_with("hll") {
        for file in ["hll/cases.json", "hll/malformed.json"] {
            let v = json(file);
            for case in v["cases"].as_array().into_iter().flatten() {
                for field in [
                    "bytes",
                    "bytes_after_add",
                    "bytes_after_count",
                    "dest_bytes_after",
                ] {
                    if let Some(h) = case[field].as_str() {
                        if let Some(b) = unhex(h) {
                            seeds.push(b);
                        }
                    }
                }
            }
        }
    } else if target.starts_with("bitcount") {
        let v = json("bitops/cases.json");
        for case in v["cases"].as_array().into_iter().flatten().take(300) {
            if let Some(b) = case["data"].as_str().and_then(unhex) {
                let mut s = vec![0u8; 17];
                s.extend(b);
                seeds.push(s);
            }
        }
    } else if target == "bitop" {
        // The golden BITOP cases in the target's layout: the operation's
        // index, then each source as a length byte and its bytes (cases
        // whose sources all fit a length byte).
        let ops = ["AND", "OR", "XOR", "NOT", "DIFF", "DIFF1", "ANDOR", "ONE"];
        let v = json("bitop/cases.json");
        for case in v["cases"].as_array().into_iter().flatten().take(300) {
            let Some(op) = case["op"]
                .as_str()
                .and_then(|o| ops.iter().position(|x| *x == o))
            else {
                continue;
            };
            let mut s = vec![op as u8];
            let mut fits = true;
            for src in case["sources"].as_array().into_iter().flatten() {
                match src.as_str().and_then(unhex) {
                    Some(b) if b.len() <= 255 => {
                        s.push(b.len() as u8);
                        s.extend(b);
                    }
                    _ => fits = false,
                }
            }
            if fits {
                seeds.push(s);
            }
        }
    } else if target.starts_with("siphash") {
        let text = std::fs::read_to_string(golden(root, "siphash/sip13.tsv")).unwrap_or_default();
        for line in text.lines().take(200) {
            let cols: Vec<&str> = line.split('\t').collect();
            if let (Some(k), Some(d)) = (
                cols.first().and_then(|k| unhex(k)),
                cols.get(1).and_then(|d| unhex(d)),
            ) {
                let mut s = k;
                s.extend(d);
                seeds.push(s);
            }
        }
    }
    seeds.push(b"user:1000:profile user:1000:profilf".to_vec());
    for (i, s) in seeds.iter().enumerate() {
        let _ = std::fs::write(dir.join(format!("seed-{i:04}")), s);
    }
}

fn unhex(h: &str) -> Option<Vec<u8>> {
    if !h.len().is_multiple_of(2) {
        return None;
    }
    (0..h.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(h.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Runs one target for `seconds`.
pub fn run(root: &Path, target: &str, seconds: u64, log: &Path) -> FuzzRun {
    seed(root, target);
    let fuzz_dir = root.join("fuzz");
    let before = std::fs::read_to_string(log).map(|s| s.len()).unwrap_or(0);
    let ok = util::run_logged(
        Command::new("cargo")
            .current_dir(&fuzz_dir)
            .args(["+nightly", "fuzz", "run", target, "--"])
            .arg(format!("-max_total_time={seconds}"))
            .arg("-print_final_stats=1"),
        log,
    );
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let mine = &text[before.min(text.len())..];
    let executions = mine
        .lines()
        .filter_map(|l| l.strip_prefix("stat::number_of_executed_units:"))
        .filter_map(|v| v.trim().parse::<u64>().ok())
        .next_back()
        .unwrap_or(0);
    let crash = mine.lines().find_map(|l| {
        l.split("Test unit written to ")
            .nth(1)
            .map(|p| fuzz_dir.join(p.trim()).display().to_string())
    });
    FuzzRun {
        target: target.to_string(),
        executions,
        ok: ok && crash.is_none(),
        crash,
    }
}

pub fn main(args: &[String]) -> Result<(), String> {
    if util::wants_help(args) {
        print!("{HELP}");
        return Ok(());
    }
    let root = root();
    let all = targets(&root);
    let mut chosen: Vec<String> = Vec::new();
    let mut seconds = 20u64;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--target" => chosen.extend(
                it.next()
                    .ok_or("--target needs a value")?
                    .split(',')
                    .map(str::to_string),
            ),
            "--seconds" => {
                seconds = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .ok_or("--seconds needs a number")?
            }
            other => return Err(format!("unknown option {other:?}\n\n{HELP}")),
        }
    }
    for t in &chosen {
        if !all.contains(t) {
            return Err(format!(
                "unknown fuzz target {t:?}; targets: {}",
                all.join(", ")
            ));
        }
    }
    if chosen.is_empty() {
        chosen = all;
    }
    let log_dir = root.join("target/ci");
    let _ = std::fs::create_dir_all(&log_dir);
    let log: PathBuf = log_dir.join("fuzz.log");
    let _ = std::fs::remove_file(&log);
    ensure_tools(&log)?;
    let mut crashed = 0;
    for t in &chosen {
        let r = run(&root, t, seconds, &log);
        match &r.crash {
            Some(p) => {
                crashed += 1;
                println!(
                    "fuzz {}: CRASH after {} executions, reproducer: {p}",
                    r.target, r.executions
                );
            }
            None if !r.ok => {
                crashed += 1;
                println!(
                    "fuzz {}: FAILED (build or run error; see {})",
                    r.target,
                    log.display()
                );
            }
            None => println!(
                "fuzz {}: {} executions in {seconds} s, no crash",
                r.target, r.executions
            ),
        }
    }
    if crashed > 0 {
        Err(format!("{crashed} fuzz target(s) crashed or failed"))
    } else {
        Ok(())
    }
}
