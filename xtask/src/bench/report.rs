//! The comparison report: per crate, group and size, ours next to every
//! kernel, peer, bound and server row, with the machine it ran on.

use super::criterion::{key, sort_key};
use super::server::SERVER_BENCHES;
use super::{git_commit, Measurement, Options, CRATES};
use crate::util;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::Command;

pub(super) fn fmt_time(ns: f64) -> String {
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

pub(super) fn fmt_size(param: &str, throughput: Option<(f64, &str)>) -> String {
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
pub(super) fn trim_float(x: f64) -> String {
    let s = format!("{x:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

pub(super) fn fmt_throughput(m: &Measurement) -> String {
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
pub(super) fn machine() -> (String, usize, String) {
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

pub(super) fn machine_header() -> String {
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

pub(super) fn render(
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
pub(super) fn order(function: &str) -> (u8, String) {
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

pub(super) fn change(base: Option<&(f64, f64)>, m: &Measurement, noise: f64) -> String {
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
