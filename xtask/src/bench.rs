//! `cargo xtask bench`: runs the criterion benchmarks of `benches/`, saves
//! them as a named baseline, and with `--compare` prints the comparison
//! report (per crate: ours vs each kernel, each alternative and the live
//! servers, side by side from one run) to stdout and
//! `target/bench-report/report.md`, with SVG plots.

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

Output: target/bench-report/report.md and target/bench-report/*.svg.
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
    Ok(())
}

fn git_commit() -> String {
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

const SERVER_BENCHES: [ServerBench; 3] = [
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
];

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
    Ok(out)
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

fn machine_header() -> String {
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
