//! `cargo xtask bench`: runs the criterion benchmarks of `benches/`, saves
//! them as a named baseline, and with `--compare` prints the comparison
//! report (per crate: ours vs each kernel, each alternative and the live
//! servers, side by side from one run) to stdout and
//! `target/bench-report/report.md`, with SVG plots, plus one file per crate
//! (`target/bench-report/<crate>.md`) holding the table its README shows.

use crate::servers::{self, Client, Reply};
use crate::util::{self, cargo, root};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

const HELP: &str = "\
cargo xtask bench [OPTIONS] [FILTER]

Runs the criterion benchmarks in benches/ (all crates, or --crate NAME; FILTER
is passed to criterion as a regex on benchmark ids) and saves the results as a
named baseline in target/bench-baselines/NAME.json.

Options:
  --compare         after the run, print the comparison report: per crate and
                    operation, ours (median +- std.dev, GB/s or ops/s) next to
                    every kernel, every alternative (simd-popcnt, naive loop,
                    hyperloglogplus, siphasher, std, ==, [u8; N] ==, the
                    core's read bandwidth) and the live Redis 7.0.15 / Valkey
                    9.1.2 server-side usec_per_call where that applies
  --quick           fewer sizes, shorter measurement (a full run in minutes)
  --crate NAME      only this crate: bitcount, hll, siphash-fast, memeq
                    (repeatable or comma-separated)
  --save NAME       baseline name to save as (default: the current git commit)
  --baseline NAME   also compare against a saved baseline: % change and
                    Better / Worse / No change (see --noise)
  --noise PCT       changes within +-PCT% are 'No change' (default 5)
  --no-run          do not run the benchmarks: report from the latest
                    criterion results (the live server rows are measured
                    afresh unless --no-servers)
  --no-servers      do not start Redis/Valkey for the server rows
  --readmes         with --compare, also paste each crate's table into its
                    README.md, between the `<!-- bench-table begin ... -->`
                    and `<!-- bench-table end -->` lines

Output: target/bench-report/report.md, target/bench-report/*.svg, and with
--compare one table per crate, target/bench-report/<crate>.md (bitcount.md,
hll.md, siphash-fast.md, memeq.md): machine, date, commit, then per operation
and size ours, the peers and the bound rows with their time / ours. The
crate READMEs paste these tables.
";

/// Crate name -> bench file in benches/benches/.
const CRATES: [(&str, &str); 4] = [
    ("bitcount", "bitcount"),
    ("hll", "hll"),
    ("siphash-fast", "siphash"),
    ("memeq", "memeq"),
];

/// One measured benchmark.
#[derive(Clone, Debug)]
struct Measurement {
    group: String,
    function: String,
    param: String,
    median_ns: f64,
    std_dev_ns: f64,
    /// (amount, "bytes" | "elements")
    throughput: Option<(f64, &'static str)>,
}

struct Options {
    compare: bool,
    quick: bool,
    crates: Vec<String>,
    save: Option<String>,
    baseline: Option<String>,
    noise: f64,
    run: bool,
    servers: bool,
    readmes: bool,
    filter: Option<String>,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        compare: false,
        quick: false,
        crates: Vec::new(),
        save: None,
        baseline: None,
        noise: 5.0,
        run: true,
        servers: true,
        readmes: false,
        filter: None,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value\n\n{HELP}"))
        };
        match a.as_str() {
            "--compare" => o.compare = true,
            "--quick" => o.quick = true,
            "--no-run" => o.run = false,
            "--no-servers" => o.servers = false,
            "--readmes" => o.readmes = true,
            "--crate" => o
                .crates
                .extend(value("--crate")?.split(',').map(|s| s.trim().to_string())),
            "--save" => o.save = Some(value("--save")?),
            "--baseline" => o.baseline = Some(value("--baseline")?),
            "--noise" => {
                o.noise = value("--noise")?
                    .parse()
                    .map_err(|_| "--noise takes a number (percent)".to_string())?
            }
            s if s.starts_with('-') => return Err(format!("unknown option {s:?}\n\n{HELP}")),
            s => o.filter = Some(s.to_string()),
        }
    }
    let valid: Vec<&str> = CRATES.iter().map(|c| c.0).collect();
    for c in &mut o.crates {
        if c == "siphash" {
            *c = "siphash-fast".into();
        }
        if !valid.contains(&c.as_str()) {
            return Err(format!("unknown crate {c:?}; valid: {}", valid.join(", ")));
        }
    }
    Ok(o)
}

fn baselines_dir() -> PathBuf {
    root().join("target/bench-baselines")
}

fn saved_baselines() -> Vec<String> {
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

pub fn main(args: &[String]) -> Result<(), String> {
    if util::wants_help(args) {
        print!("{HELP}");
        return Ok(());
    }
    if let Some(done) = crate::bench_datafusion::requested(args) {
        return done;
    }
    let o = parse(args)?;
    let root = root();
    std::env::set_current_dir(&root).map_err(|e| e.to_string())?;
    let _ = git_commit();
    let baseline = match &o.baseline {
        Some(name) => Some(load_baseline(name).ok_or_else(|| {
            let have = saved_baselines();
            format!(
                "unknown baseline {name:?}; saved baselines: {}",
                if have.is_empty() {
                    "none yet (run `cargo xtask bench --save NAME`)".to_string()
                } else {
                    have.join(", ")
                }
            )
        })?),
        None => None,
    };
    let selected: Vec<(&str, &str)> = CRATES
        .iter()
        .copied()
        .filter(|(c, _)| o.crates.is_empty() || o.crates.iter().any(|x| x == c))
        .collect();

    let report_dir = root.join("target/bench-report");
    std::fs::create_dir_all(&report_dir).map_err(|e| e.to_string())?;
    let started = SystemTime::now();
    if o.run {
        for (krate, file) in &selected {
            let mut cmd = Command::new(cargo());
            cmd.args(["bench", "-p", "benches", "--bench", file, "--"]);
            if let Some(f) = &o.filter {
                cmd.arg(f);
            }
            if o.quick {
                cmd.env("KVPRIMS_BENCH_QUICK", "1");
            }
            // Criterion's own output goes to a log so that stdout carries
            // only the report.
            let log = report_dir.join(format!("criterion-{krate}.log"));
            let _ = std::fs::remove_file(&log);
            eprintln!(
                "== benchmarking {krate} (criterion output: {})",
                log.display()
            );
            let t = std::time::Instant::now();
            if !util::run_logged(&mut cmd, &log) {
                let text = std::fs::read_to_string(&log).unwrap_or_default();
                let tail: Vec<&str> = text.lines().rev().take(30).collect();
                for l in tail.iter().rev() {
                    eprintln!("    {l}");
                }
                return Err(format!(
                    "cargo bench for {krate} failed (log: {})",
                    log.display()
                ));
            }
            eprintln!("   done in {:.0} s", t.elapsed().as_secs_f64());
        }
    }
    let since = if o.run { Some(started) } else { None };
    let mut results = collect(&criterion_dir(&root), since);
    if results.is_empty() {
        return Err("no criterion results found (run without --no-run first)".into());
    }
    let name = o.save.clone().unwrap_or_else(git_commit);
    if o.run {
        save_baseline(&name, &results)?;
        eprintln!("saved baseline {name:?} ({} benchmarks)", results.len());
    }
    if !o.compare {
        return Ok(());
    }
    let mut notes = Vec::new();
    let wanted: Vec<&str> = selected.iter().map(|s| s.0).collect();
    if o.servers && (wanted.contains(&"bitcount") || wanted.contains(&"hll")) {
        server_rows(&root, &wanted, o.quick, &mut results, &mut notes);
    } else if wanted.contains(&"bitcount") || wanted.contains(&"hll") {
        notes.push("server rows not measured (--no-servers)".into());
    }
    let report = render(&results, baseline.as_ref(), &o, &notes, &wanted);
    let dir = report_dir;
    let points: Vec<crate::bench_types::Point> = results
        .iter()
        .filter(|m| !m.function.starts_with("kernel:") && !m.function.ends_with("(server)"))
        .filter_map(|m| match (m.param.parse::<f64>(), m.throughput) {
            (Ok(size), Some((amount, "bytes"))) if size > 0.0 => Some(crate::bench_types::Point {
                group: m.group.clone(),
                series: m.function.clone(),
                size,
                gbps: amount / m.median_ns,
            }),
            _ => None,
        })
        .collect();
    let plots = crate::plot::draw(&points, &dir);
    let mut full = report.clone();
    if !plots.is_empty() {
        full.push_str("\n## Plots\n\n");
        for (group, file) in &plots {
            let _ = writeln!(full, "- [{group}]({file})");
        }
    }
    std::fs::write(dir.join("report.md"), &full).map_err(|e| e.to_string())?;
    print!("{full}");
    eprintln!("report: {}", dir.join("report.md").display());
    let header = readme_header(&o, &notes);
    for krate in &wanted {
        let table = readme_table(&results, krate, &header);
        let path = dir.join(format!("{krate}.md"));
        std::fs::write(&path, &table).map_err(|e| e.to_string())?;
        eprintln!("README table: {}", path.display());
        if o.readmes {
            let readme = root.join("crates").join(krate).join("README.md");
            let text = std::fs::read_to_string(&readme).map_err(|e| e.to_string())?;
            let pasted = paste_table(&text, krate, &table)
                .ok_or_else(|| format!("{}: no bench-table markers", readme.display()))?;
            std::fs::write(&readme, pasted).map_err(|e| e.to_string())?;
            eprintln!("pasted into {}", readme.display());
        }
    }
    Ok(())
}

/// The commit being measured: read once, at the start of the run (a
/// commit made while the benchmarks run must not be named in the report).
fn git_commit() -> String {
    static COMMIT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    COMMIT.get_or_init(read_git_commit).clone()
}

fn read_git_commit() -> String {
    // A bundled run (`cargo xtask bundle --bench`) has no git checkout.
    if let Some(c) = std::env::var("KVPRIMS_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
    {
        return c;
    }
    util::output(Command::new("git").args(["rev-parse", "--short", "HEAD"]))
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "latest".into())
}

/// Where criterion writes its results: `criterion/` in the Cargo target
/// directory (`CARGO_TARGET_DIR` when set, relative to the workspace root
/// like Cargo takes it, else `target/`).
fn criterion_dir(root: &Path) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .filter(|d| !d.is_empty())
        .map_or_else(|| root.join("target"), |d| root.join(d));
    target.join("criterion")
}

/// Reads every `new/` result under target/criterion (written after `since`,
/// if given).
fn collect(dir: &Path, since: Option<SystemTime>) -> Vec<Measurement> {
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

fn sort_key(param: &str) -> (u64, String) {
    (param.parse::<u64>().unwrap_or(u64::MAX), param.to_string())
}

fn read_measurement(bench: &Path, est: &Path) -> Option<Measurement> {
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

fn key(m: &Measurement) -> String {
    format!("{}/{}/{}", m.group, m.function, m.param)
}

fn save_baseline(name: &str, results: &[Measurement]) -> Result<(), String> {
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

fn load_baseline(name: &str) -> Option<BTreeMap<String, (f64, f64)>> {
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

/// Where each server measurement is shown: (crate, group, param, label of
/// the command).
struct ServerBench {
    krate: &'static str,
    group: &'static str,
    param: &'static str,
    stat: &'static str,
}

const SERVER_BENCHES: [ServerBench; 3 + BITOP_ROWS] = [
    ServerBench {
        krate: "bitcount",
        group: "bitcount/count",
        param: "12500000",
        stat: "bitcount",
    },
    ServerBench {
        krate: "hll",
        group: "hll/count_union",
        param: "3",
        stat: "pfcount",
    },
    ServerBench {
        krate: "hll",
        group: "hll/merge",
        param: "3",
        stat: "pfmerge",
    },
    // BITOP (AND of 2, 3, 8 and 17 keys, OR and XOR of 2 and 8) at 64 B,
    // 64 KiB and 12.5 MB, grouped by size and key count (each group's keys
    // are written once).
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-and-2",
        param: "64",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-or-2",
        param: "64",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-xor-2",
        param: "64",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-and-3",
        param: "64",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-and-8",
        param: "64",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-or-8",
        param: "64",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-xor-8",
        param: "64",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-and-17",
        param: "64",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-and-2",
        param: "65536",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-or-2",
        param: "65536",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-xor-2",
        param: "65536",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-and-3",
        param: "65536",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-and-8",
        param: "65536",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-or-8",
        param: "65536",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-xor-8",
        param: "65536",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-and-17",
        param: "65536",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-and-2",
        param: "12500000",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-or-2",
        param: "12500000",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-xor-2",
        param: "12500000",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-and-3",
        param: "12500000",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-and-8",
        param: "12500000",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-or-8",
        param: "12500000",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-xor-8",
        param: "12500000",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-and-17",
        param: "12500000",
        stat: "bitop",
    },
];

/// The BITOP rows of [`SERVER_BENCHES`] (after its first three).
const BITOP_ROWS: usize = 24;

/// Measures the server-side `usec_per_call` of BITCOUNT on a 12.5 MB key and
/// of PFCOUNT / PFMERGE over 3 dense keys, on each server, and adds them as
/// rows named after the server.
fn server_rows(
    root: &Path,
    wanted: &[&str],
    quick: bool,
    results: &mut Vec<Measurement>,
    notes: &mut Vec<String>,
) {
    let log = root.join("target/ci/bench-servers.log");
    let _ = std::fs::create_dir_all(root.join("target/ci"));
    let (up, problems) = servers::start_both(root, &log);
    for p in &problems {
        notes.push(format!("server not available, its rows are missing: {p}"));
    }
    for s in &up {
        let label = format!("{} {} (server)", s.name, short(&s.version));
        match measure_server(s.port, wanted, quick) {
            Ok(rows) => {
                for (i, time) in rows {
                    let b = &SERVER_BENCHES[i];
                    let usec = time.best();
                    let each: Vec<String> = time.all.iter().map(|u| format!("{u:.2}")).collect();
                    notes.push(format!(
                        "{label} {} {}: usec_per_call of each batch {} (the row: the fastest)",
                        b.group,
                        b.param,
                        each.join(" / ")
                    ));
                    let throughput = results
                        .iter()
                        .find(|m| m.group == b.group && m.param == b.param)
                        .and_then(|m| m.throughput);
                    results.push(Measurement {
                        group: b.group.into(),
                        function: label.clone(),
                        param: b.param.into(),
                        median_ns: usec * 1000.0,
                        std_dev_ns: f64::NAN,
                        throughput,
                    });
                }
            }
            Err(e) => notes.push(format!("{label}: measurement failed: {e}")),
        }
    }
    if !up.is_empty() {
        notes.push(format!("server rows: INFO commandstats usec_per_call (server-side time, no network), the fastest of {BATCHES} batches, each after CONFIG RESETSTAT"));
    }
}

fn short(version: &str) -> String {
    version
        .split_whitespace()
        .find_map(|w| w.strip_prefix("v="))
        .unwrap_or("?")
        .to_string()
}

fn measure_server(
    port: u16,
    wanted: &[&str],
    quick: bool,
) -> Result<Vec<(usize, ServerTime)>, String> {
    let mut c = Client::connect(port).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    let reps = if quick { 20 } else { 100 };
    if wanted.contains(&"bitcount") {
        let data = pseudo_random(12_500_000);
        c.cmd(&[b"SET", b"bc:100m", &data])?;
        let r = batches(&mut c, "bitcount", reps / BATCHES, |c| {
            c.cmd(&[b"BITCOUNT", b"bc:100m"]).map(drop)
        })?;
        out.push((0, r));
    }
    if wanted.contains(&"hll") {
        for k in 0..3 {
            let key = format!("hll:{k}");
            for chunk in 0..20 {
                let mut args: Vec<Vec<u8>> = vec![b"PFADD".to_vec(), key.clone().into_bytes()];
                for i in 0..1000 {
                    args.push(format!("e:{k}:{}", chunk * 1000 + i).into_bytes());
                }
                let refs: Vec<&[u8]> = args.iter().map(|a| a.as_slice()).collect();
                c.cmd(&refs)?;
            }
            // Dense after 20000 distinct elements; make sure.
            match c.cmd(&[b"GET", key.as_bytes()])? {
                Reply::Bulk(Some(b)) if b.len() == 12304 => {}
                other => return Err(format!("{key} did not become dense: {other:?}")),
            }
        }
        let r = batches(&mut c, "pfcount", reps * 10 / BATCHES, |c| {
            c.cmd(&[b"PFCOUNT", b"hll:0", b"hll:1", b"hll:2"]).map(drop)
        })?;
        out.push((1, r));
        let r = batches(&mut c, "pfmerge", reps * 10 / BATCHES, |c| {
            c.cmd(&[b"DEL", b"hll:dest"])?;
            c.cmd(&[b"PFMERGE", b"hll:dest", b"hll:0", b"hll:1", b"hll:2"])
                .map(drop)
        })?;
        out.push((2, r));
    }
    if wanted.contains(&"bitcount") {
        bitop_server_rows(&mut c, reps, &mut out)?;
    }
    Ok(out)
}

/// The BITOP rows: `BITOP <op> bo:dest bo:0 .. bo:<k-1>` with `k` distinct
/// pseudo-random keys of the row's size (each a different window of one
/// buffer), the destination rewritten by every call.
fn bitop_server_rows(
    c: &mut Client,
    reps: usize,
    out: &mut Vec<(usize, ServerTime)>,
) -> Result<(), String> {
    let mut current: Option<(usize, usize)> = None;
    for (i, b) in SERVER_BENCHES
        .iter()
        .enumerate()
        .filter(|(_, b)| b.stat == "bitop")
    {
        let mut parts = b.group.trim_start_matches("bitcount/bitop-").split('-');
        let op = parts.next().unwrap_or("and").to_uppercase();
        let k: usize = parts.next().and_then(|k| k.parse().ok()).unwrap_or(2);
        let size: usize = b.param.parse().map_err(|_| format!("size {}", b.param))?;
        let keys: Vec<Vec<u8>> = (0..k).map(|j| format!("bo:{j}").into_bytes()).collect();
        if current != Some((k, size)) {
            let buf = pseudo_random(size + k);
            for (j, key) in keys.iter().enumerate() {
                c.cmd(&[b"SET", key, &buf[j..j + size]])?;
            }
            current = Some((k, size));
        }
        let mut args: Vec<&[u8]> = vec![b"BITOP", op.as_bytes(), b"bo:dest"];
        args.extend(keys.iter().map(|k| k.as_slice()));
        // Fewer calls where one takes milliseconds.
        let per_batch = if size >= 1 << 20 {
            reps / BATCHES
        } else {
            reps * 10 / BATCHES
        };
        let r = batches(c, "bitop", per_batch, |c| c.cmd(&args).map(drop))?;
        out.push((i, r));
    }
    let mut del: Vec<Vec<u8>> = vec![b"DEL".to_vec(), b"bo:dest".to_vec()];
    del.extend((0..17).map(|j| format!("bo:{j}").into_bytes()));
    let refs: Vec<&[u8]> = del.iter().map(|a| a.as_slice()).collect();
    c.cmd(&refs)?;
    Ok(())
}

/// Batches of server calls per command; each batch's `usec_per_call` is
/// read after its own `CONFIG RESETSTAT`.
const BATCHES: usize = 5;

/// The server's `usec_per_call` of `stat` over [`BATCHES`] batches of
/// `per_batch` calls of `call`: the fastest batch's (the server at its
/// best, the strictest yardstick for ours: a busy machine slows some
/// batches by 2x and more), with every batch's figure kept for the
/// report's notes.
fn batches(
    c: &mut Client,
    stat: &str,
    per_batch: usize,
    mut call: impl FnMut(&mut Client) -> Result<(), String>,
) -> Result<ServerTime, String> {
    let mut all = Vec::new();
    for _ in 0..BATCHES {
        c.cmd(&[b"CONFIG", b"RESETSTAT"])?;
        for _ in 0..per_batch.max(1) {
            call(c)?;
        }
        all.push(c.usec_per_call(stat)?);
    }
    Ok(ServerTime { all })
}

/// Per-batch `usec_per_call` figures of one server command.
struct ServerTime {
    all: Vec<f64>,
}

impl ServerTime {
    fn best(&self) -> f64 {
        self.all.iter().copied().fold(f64::INFINITY, f64::min)
    }
}

fn pseudo_random(len: usize) -> Vec<u8> {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

fn fmt_time(ns: f64) -> String {
    if !ns.is_finite() {
        return "-".into();
    }
    if ns < 1e3 {
        format!("{ns:.2} ns")
    } else if ns < 1e6 {
        format!("{:.2} us", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

fn fmt_size(param: &str, throughput: Option<(f64, &str)>) -> String {
    match (param.parse::<f64>(), throughput) {
        (Ok(n), Some((_, "bytes"))) => {
            if n < 1024.0 {
                format!("{n} B")
            } else if n < 1024.0 * 1024.0 {
                format!("{} KiB", trim_float(n / 1024.0))
            } else if n % 1_000_000.0 == 0.0 || n % 500_000.0 == 0.0 {
                format!("{} MB", n / 1e6)
            } else {
                format!("{:.2} MiB", n / 1048576.0)
            }
        }
        _ => param.to_string(),
    }
}

/// `1.5000` -> `1.5`, `16.0000` -> `16`.
fn trim_float(x: f64) -> String {
    let s = format!("{x:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn fmt_throughput(m: &Measurement) -> String {
    match m.throughput {
        Some((amount, "bytes")) if m.median_ns.is_finite() => {
            format!("{:.2} GB/s", amount / m.median_ns)
        }
        Some((amount, _)) if m.median_ns.is_finite() => {
            let per_s = amount / m.median_ns * 1e9;
            if per_s >= 1e6 {
                format!("{:.1} M/s", per_s / 1e6)
            } else {
                format!("{:.0} /s", per_s)
            }
        }
        _ => "-".into(),
    }
}

/// The CPU model, the cores visible and `rustc -V` (empty where no rustc
/// runs, as in a bundled run).
fn machine() -> (String, usize, String) {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines().find_map(|l| {
                l.strip_prefix("model name")
                    .map(|v| v.trim_start_matches([' ', '\t', ':']).to_string())
            })
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let rustc = util::output(Command::new("rustc").arg("-V")).unwrap_or_default();
    (cpu, cores, rustc)
}

fn machine_header() -> String {
    let (cpu, cores, rustc) = machine();
    let cap = cpu_detect::ceiling()
        .map(|c| c.to_string())
        .unwrap_or_else(|| "none".into());
    // A bundled run (`cargo xtask bundle --bench`) has no rustc to ask.
    let rustc = match rustc.trim() {
        "" => "rustc: not installed here (bundled executables)".to_string(),
        r => r.to_string(),
    };
    format!(
        "- CPU: {cpu} ({cores} cores visible)\n- detected level: {} (ceiling: {cap}; dispatch uses {})\n- {}\n- commit: {}\n",
        cpu_detect::detected_level(),
        cpu_detect::max_level(),
        rustc,
        git_commit()
    )
}

fn render(
    results: &[Measurement],
    baseline: Option<&BTreeMap<String, (f64, f64)>>,
    o: &Options,
    notes: &[String],
    wanted: &[&str],
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# kvprims benchmark report\n");
    s.push_str(&machine_header());
    let _ = writeln!(
        s,
        "- mode: {}",
        if o.quick { "quick (--quick)" } else { "full" }
    );
    for n in notes {
        let _ = writeln!(s, "- note: {n}");
    }
    let _ = writeln!(
        s,
        "\nEach row: median time per call +- std.dev of the samples, throughput, and how it compares with `ours` at the same size (`x.xx` = that row's time / ours; above 1 means ours is faster). Kernel rows also give their speed-up over `kernel:scalar`."
    );
    if let Some(name) = &o.baseline {
        let _ = writeln!(
            s,
            "The last column compares with the saved baseline `{name}` (noise threshold {}%).",
            o.noise
        );
    }
    for (krate, _) in CRATES.iter().filter(|c| wanted.contains(&c.0)) {
        let prefix = format!("{}/", krate.trim_end_matches("-fast"));
        // Each group once, in first-seen order (the server rows come after
        // all criterion results, so a plain `dedup` would list their groups
        // again).
        let mut groups: Vec<&str> = Vec::new();
        for m in results.iter().filter(|m| m.group.starts_with(&prefix)) {
            if !groups.contains(&m.group.as_str()) {
                groups.push(m.group.as_str());
            }
        }
        let _ = writeln!(s, "\n## {krate}\n");
        if groups.is_empty() {
            let _ = writeln!(s, "no benchmark results for this crate in this run.");
            continue;
        }
        for g in groups {
            let rows: Vec<&Measurement> = results.iter().filter(|m| m.group == g).collect();
            let _ = writeln!(s, "### {g}\n");
            let _ = write!(
                s,
                "| size | implementation | median +- std.dev | throughput | vs ours | vs scalar |"
            );
            if baseline.is_some() {
                s.push_str(" vs baseline |");
            }
            s.push_str("\n|---|---|---:|---:|---:|---:|");
            if baseline.is_some() {
                s.push_str("---|");
            }
            s.push('\n');
            let mut params: Vec<&str> = rows.iter().map(|m| m.param.as_str()).collect();
            params.sort_by_key(|p| sort_key(p));
            params.dedup();
            for p in params {
                let mut at: Vec<&Measurement> =
                    rows.iter().copied().filter(|m| m.param == p).collect();
                at.sort_by_key(|m| order(&m.function));
                let ours = at
                    .iter()
                    .find(|m| m.function == "ours")
                    .map(|m| m.median_ns);
                let scalar = at
                    .iter()
                    .find(|m| m.function == "kernel:scalar")
                    .map(|m| m.median_ns);
                for m in &at {
                    let vs_ours = match ours {
                        Some(t) if m.function != "ours" => format!("{:.2}x", m.median_ns / t),
                        _ => String::new(),
                    };
                    let vs_scalar = match scalar {
                        Some(t)
                            if m.function.starts_with("kernel:")
                                && m.function != "kernel:scalar" =>
                        {
                            format!("{:.2}x faster", t / m.median_ns)
                        }
                        _ => String::new(),
                    };
                    let name = if m.function == "ours" {
                        "**ours**".to_string()
                    } else {
                        m.function.clone()
                    };
                    let sd = if m.std_dev_ns.is_finite() {
                        format!(" +- {}", fmt_time(m.std_dev_ns))
                    } else {
                        " (server)".to_string()
                    };
                    let _ = write!(
                        s,
                        "| {} | {name} | {}{sd} | {} | {vs_ours} | {vs_scalar} |",
                        fmt_size(p, m.throughput),
                        fmt_time(m.median_ns),
                        fmt_throughput(m)
                    );
                    if let Some(b) = baseline {
                        s.push_str(&format!(" {} |", change(b.get(&key(m)), m, o.noise)));
                    }
                    s.push('\n');
                }
            }
            s.push('\n');
        }
        for sb in SERVER_BENCHES.iter().filter(|b| b.krate == *krate) {
            let have = results.iter().any(|m| {
                m.group == sb.group && m.param == sb.param && m.function.ends_with("(server)")
            });
            if !have {
                let _ = writeln!(
                    s,
                    "- `{}` at {}: no server rows ({} not measured; see notes)",
                    sb.group,
                    sb.param,
                    sb.stat.to_uppercase()
                );
            }
        }
    }
    s
}

/// Display order within one size: ours, kernels, then alternatives.
fn order(function: &str) -> (u8, String) {
    let rank = if function == "ours" {
        0
    } else if function.starts_with("ours") {
        1
    } else if function.starts_with("kernel:") {
        2
    } else if function.ends_with("(server)") {
        4
    } else {
        3
    };
    (rank, function.to_string())
}

fn change(base: Option<&(f64, f64)>, m: &Measurement, noise: f64) -> String {
    match base {
        None => "new".into(),
        Some(&(old, _)) if old > 0.0 && m.median_ns.is_finite() => {
            let pct = (m.median_ns - old) / old * 100.0;
            let verdict = if pct.abs() <= noise {
                "No change"
            } else if pct < 0.0 {
                "Better"
            } else {
                "Worse"
            };
            format!("{pct:+.1}% {verdict}")
        }
        _ => "-".into(),
    }
}

/// The README table's rows per benchmark group: the sizes (criterion
/// parameters) shown, `"*"` for all. A group not listed, or listed empty, is
/// left to report.md (kernel-only groups, variants, the full BITOP grid).
const README_ROWS: &[(&str, &[&str])] = &[
    ("bitcount/count", &["64", "1024", "12500000"]),
    ("bitcount/count-mixed", &["4096"]),
    ("bitcount/bitpos", &["1024"]),
    ("bitcount/bitop-and-2", &["65536"]),
    ("bitcount/bitop-and-8", &["65536", "12500000"]),
    ("bitcount/bitop_count-and-8", &["65536"]),
    ("hll/unpack_max", &[]),
    ("hll/pack", &[]),
    ("hll/histogram_dense", &[]),
    ("hll/histogram_raw", &[]),
    ("hll/add_sparse", &["*"]),
    ("hll/add_dense", &["*"]),
    ("hll/count", &["*"]),
    ("hll/count_union", &["*"]),
    ("hll/merge", &["*"]),
    ("hll/add_all_dense", &["*"]),
    ("siphash/oneshot-1-2", &["16", "64"]),
    ("siphash/oneshot-1-2-nocase", &["16"]),
    ("siphash/oneshot-1-3", &["8", "64", "1024"]),
    ("siphash/oneshot-2-4", &["8", "64", "1024"]),
    ("siphash/batch-1-2", &["*"]),
    ("siphash/batch-1-3", &["*"]),
    ("siphash/batch-2-4", &[]),
    ("memeq/eq", &["4", "16", "32", "64", "1024"]),
    ("memeq/eq-unequal", &["16"]),
    ("memeq/eq-mixed", &["*"]),
    ("memeq/eq-mixed-unequal", &[]),
    ("memeq/eq-mixed-64k", &[]),
    ("memeq/cmp", &["16", "64"]),
    ("memeq/lookup", &["*"]),
    ("memeq/lookup-absent", &[]),
];

fn readme_shows(group: &str, param: &str) -> bool {
    match README_ROWS.iter().find(|(g, _)| *g == group) {
        None => false,
        Some((_, sizes)) => sizes.iter().any(|s| *s == "*" || *s == param),
    }
}

/// A row that is a bound (what the hardware or an ideal loop allows), not a
/// peer.
fn is_bound(function: &str) -> bool {
    function.starts_with("bound:") || function.ends_with("-bound") || function == "read-bandwidth"
}

/// The lines above every crate's table: machine, date, commit, mode.
fn readme_header(o: &Options, notes: &[String]) -> String {
    let (cpu, cores, rustc) = machine();
    // `rustc 1.95.0 (hash date)` -> `rustc 1.95.0`.
    let rustc: String = rustc
        .split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ");
    let mut s = format!(
        "Machine: {cpu}, {cores} cores, dispatch level {}. Date: {} (UTC). Commit: {}. {}.",
        cpu_detect::max_level(),
        utc_date(SystemTime::now()),
        git_commit(),
        if rustc.is_empty() {
            "rustc unknown"
        } else {
            &rustc
        }
    );
    let _ = write!(
        s,
        " `cargo xtask bench --compare{}`: criterion medians{}.",
        if o.quick { " --quick" } else { "" },
        if o.quick { " (short samples)" } else { "" }
    );
    if !o.run {
        s.push_str(" Criterion results of the latest run (`--no-run`).");
    }
    if notes
        .iter()
        .any(|n| n.contains("not available") || n.contains("not measured"))
    {
        s.push_str(" Some server rows are missing (see report.md).");
    }
    s
}

/// One crate's README table: per operation and size, ours, the peers and
/// the bound rows, each with its time / ours (above 1: ours is faster).
fn readme_table(results: &[Measurement], krate: &str, header: &str) -> String {
    let prefix = format!("{}/", krate.trim_end_matches("-fast"));
    let mut s = String::new();
    let servers = results
        .iter()
        .any(|m| m.group.starts_with(&prefix) && m.function.ends_with("(server)"));
    if servers {
        let _ = writeln!(
            s,
            "{header} Servers: server-side `usec_per_call`, best of {BATCHES} batches.\n"
        );
    } else {
        let _ = writeln!(s, "{header}\n");
    }
    let _ = writeln!(
        s,
        "| operation | size | ours | peers and variants (time, vs ours) | bound (time, vs ours) |"
    );
    s.push_str("|---|---|---|---|---|\n");
    let mut groups: Vec<&str> = Vec::new();
    for m in results.iter().filter(|m| m.group.starts_with(&prefix)) {
        if !groups.contains(&m.group.as_str()) {
            groups.push(m.group.as_str());
        }
    }
    let mut rows = 0;
    for g in groups {
        let in_group: Vec<&Measurement> = results
            .iter()
            .filter(|m| m.group == g && !m.function.starts_with("kernel:"))
            .collect();
        let mut params: Vec<&str> = in_group.iter().map(|m| m.param.as_str()).collect();
        params.sort_by_key(|p| sort_key(p));
        params.dedup();
        for p in params.into_iter().filter(|p| readme_shows(g, p)) {
            let mut at: Vec<&Measurement> =
                in_group.iter().copied().filter(|m| m.param == p).collect();
            at.sort_by_key(|m| order(&m.function));
            // `ours`, else the first `ours-*` variant (`memeq/eq` at sizes
            // measured only through `eq_fixed`).
            let Some(ours) = at
                .iter()
                .copied()
                .find(|m| m.function == "ours")
                .or_else(|| at.iter().copied().find(|m| m.function.starts_with("ours")))
            else {
                continue;
            };
            let cell = |m: &Measurement| {
                let ratio = m.median_ns / ours.median_ns;
                format!("{} {} ({ratio:.2}x)", m.function, fmt_time(m.median_ns))
            };
            let peers: Vec<String> = at
                .iter()
                .filter(|m| !std::ptr::eq(**m, ours) && !is_bound(&m.function))
                .map(|m| cell(m))
                .collect();
            let bounds: Vec<String> = at
                .iter()
                .filter(|m| is_bound(&m.function))
                .map(|m| cell(m))
                .collect();
            let ours_cell = match fmt_throughput(ours).as_str() {
                "-" => fmt_time(ours.median_ns),
                t => format!("{} ({t})", fmt_time(ours.median_ns)),
            };
            let ours_cell = if ours.function == "ours" {
                ours_cell
            } else {
                format!("{} {ours_cell}", ours.function)
            };
            let _ = writeln!(
                s,
                "| {} | {} | {ours_cell} | {} | {} |",
                g.split_once('/').map_or(g, |x| x.1),
                fmt_size(p, ours.throughput),
                if peers.is_empty() {
                    "-".to_string()
                } else {
                    peers.join("; ")
                },
                if bounds.is_empty() {
                    "-".to_string()
                } else {
                    bounds.join("; ")
                }
            );
            rows += 1;
        }
    }
    if rows == 0 {
        s.push_str("| (no results for this crate in this run) | | | | |\n");
    }
    s
}

/// `text` with the lines between its bench-table markers replaced by
/// `table` (`None` without the markers).
fn paste_table(text: &str, krate: &str, table: &str) -> Option<String> {
    let begin = text.find("<!-- bench-table begin")?;
    let begin_end = begin + text[begin..].find('\n')? + 1;
    let end = begin_end + text[begin_end..].find("<!-- bench-table end -->")?;
    Some(format!(
        "{}<!-- bench-table begin: pasted from target/bench-report/{krate}.md -->\n{}\n{}",
        &text[..begin],
        table.trim_end(),
        &text[end..]
    ))
}

/// `YYYY-MM-DD` of a time, in UTC (civil-from-days, proleptic Gregorian).
fn utc_date(t: SystemTime) -> String {
    let secs = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates() {
        let at = |s: u64| utc_date(SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(s));
        assert_eq!(at(0), "1970-01-01");
        assert_eq!(at(951_782_400), "2000-02-29");
        assert_eq!(at(1_709_164_800), "2024-02-29");
        assert_eq!(at(1_735_689_599), "2024-12-31");
    }

    #[test]
    fn paste_between_markers() {
        let text = "a\n<!-- bench-table begin: x -->\nold\nrows\n<!-- bench-table end -->\nb\n";
        assert_eq!(
            paste_table(text, "hll", "T\n|x|\n").unwrap(),
            "a\n<!-- bench-table begin: pasted from target/bench-report/hll.md -->\nT\n|x|\n<!-- bench-table end -->\nb\n"
        );
        assert_eq!(paste_table("no markers", "hll", "T"), None);
    }

    fn m(group: &str, function: &str, param: &str, ns: f64) -> Measurement {
        Measurement {
            group: group.into(),
            function: function.into(),
            param: param.into(),
            median_ns: ns,
            std_dev_ns: 0.0,
            throughput: Some((1024.0, "bytes")),
        }
    }

    #[test]
    fn readme_table_rows() {
        let r = vec![
            m("bitcount/count", "ours", "1024", 10.0),
            m("bitcount/count", "kernel:avx512", "1024", 9.0),
            m("bitcount/count", "naive", "1024", 40.0),
            m("bitcount/count", "read-bandwidth", "1024", 5.0),
            m("bitcount/count", "ours", "16", 2.0),
        ];
        let t = readme_table(&r, "bitcount", "H");
        assert!(t.starts_with("H\n"));
        assert!(t.contains(
            "| count | 1 KiB | 10.00 ns (102.40 GB/s) | naive 40.00 ns (4.00x) | read-bandwidth 5.00 ns (0.50x) |"
        ));
        assert!(!t.contains("avx512"));
        // 16 B is not among the README's sizes for bitcount/count.
        assert!(!t.contains("| 16 B |"));
    }
}
