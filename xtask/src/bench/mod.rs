//! `cargo xtask bench`: runs the criterion benchmarks of `benches/`, saves
//! them as a named baseline, and with `--compare` prints the comparison
//! report (per crate: ours vs each kernel, each alternative and the live
//! servers, side by side from one run) to stdout and
//! `target/bench-report/report.md`, with SVG plots, plus one file per crate
//! (`target/bench-report/<crate>.md`) holding the table its README shows.

mod criterion;
mod readme;
mod report;
mod server;

use crate::util::{self, cargo, root};
use criterion::{collect, criterion_dir, load_baseline, save_baseline, saved_baselines};
use readme::{cluster_header, paste_table, readme_header, readme_table};
use report::render;
use server::server_rows;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
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
        run_criterion(&o, &selected, &report_dir)?;
    }
    let since = if o.run { Some(started) } else { None };
    let results = collect(&criterion_dir(&root), since);
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
    compare(
        &root,
        &o,
        &selected,
        results,
        baseline.as_ref(),
        &report_dir,
    )
}

/// Runs `cargo bench` for each selected crate, criterion's output going to
/// `criterion-<crate>.log` in `report_dir`.
fn run_criterion(o: &Options, selected: &[(&str, &str)], report_dir: &Path) -> Result<(), String> {
    for (krate, file) in selected {
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
    let wanted = |c: &str| selected.iter().any(|s| s.0 == c);
    if o.servers && (wanted("hll") || wanted("bitcount")) {
        run_cluster_benches(o, report_dir)?;
    }
    Ok(())
}

/// The cross-slot rows (`benches/benches/cluster.rs`): against a Valkey
/// cluster of three masters started for them, built with the benches'
/// `cluster` feature.
fn run_cluster_benches(o: &Options, report_dir: &Path) -> Result<(), String> {
    let root = root();
    let log = report_dir.join("criterion-cluster.log");
    let _ = std::fs::remove_file(&log);
    let cluster = match crate::servers::valkey_binary(&root, &log)
        .and_then(|b| crate::servers::start_cluster(&b, &log))
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!("== cluster rows not measured: {e}");
            return Ok(());
        }
    };
    let mut cmd = Command::new(cargo());
    cmd.args([
        "bench",
        "-p",
        "benches",
        "--features",
        "cluster",
        "--bench",
        "cluster",
        "--",
    ]);
    if let Some(f) = &o.filter {
        cmd.arg(f);
    }
    if o.quick {
        cmd.env("KVPRIMS_BENCH_QUICK", "1");
    }
    cmd.env(crate::servers::CLUSTER_VAR, cluster.url());
    eprintln!(
        "== benchmarking the cluster rows (criterion output: {})",
        log.display()
    );
    let t = std::time::Instant::now();
    if !util::run_logged(&mut cmd, &log) {
        return Err(format!(
            "cargo bench for the cluster rows failed (log: {})",
            log.display()
        ));
    }
    eprintln!("   done in {:.0} s", t.elapsed().as_secs_f64());
    Ok(())
}

/// The `--compare` part: the server rows, the report with its plots, and
/// each crate's README table (pasted into the README with `--readmes`).
fn compare(
    root: &Path,
    o: &Options,
    selected: &[(&str, &str)],
    mut results: Vec<Measurement>,
    baseline: Option<&BTreeMap<String, (f64, f64)>>,
    report_dir: &Path,
) -> Result<(), String> {
    let mut notes = Vec::new();
    let wanted: Vec<&str> = selected.iter().map(|s| s.0).collect();
    if o.servers && (wanted.contains(&"bitcount") || wanted.contains(&"hll")) {
        server_rows(root, &wanted, o.quick, &mut results, &mut notes);
    } else if wanted.contains(&"bitcount") || wanted.contains(&"hll") {
        notes.push("server rows not measured (--no-servers)".into());
    }
    let report = render(&results, baseline, o, &notes, &wanted);
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
    let plots = crate::plot::draw(&points, dir);
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
    let header = readme_header(o, &notes);
    for krate in &wanted {
        // The crate's table, and for bitcount and hll the cross-slot rows
        // against a live cluster in a table of their own.
        for cluster in [false, true] {
            let has_cluster = results.iter().any(|m| {
                readme::is_cluster_group(&m.group) && m.group.starts_with(&format!("{krate}/"))
            });
            if cluster && !has_cluster {
                continue;
            }
            let header = if cluster {
                cluster_header(o)
            } else {
                header.clone()
            };
            let table = readme_table(&results, krate, &header, cluster);
            let (marker, file) = if cluster {
                ("bench-table-cluster", format!("{krate}-cluster.md"))
            } else {
                ("bench-table", format!("{krate}.md"))
            };
            let path = dir.join(&file);
            std::fs::write(&path, &table).map_err(|e| e.to_string())?;
            eprintln!("README table: {}", path.display());
            if o.readmes {
                let readme = root.join("crates").join(krate).join("README.md");
                let text = std::fs::read_to_string(&readme).map_err(|e| e.to_string())?;
                let pasted = paste_table(&text, marker, &file, &table)
                    .ok_or_else(|| format!("{}: no {marker} markers", readme.display()))?;
                std::fs::write(&readme, pasted).map_err(|e| e.to_string())?;
                eprintln!("pasted into {}", readme.display());
            }
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
