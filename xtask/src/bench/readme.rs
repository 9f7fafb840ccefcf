//! The per-crate README tables: which rows each README shows, the table
//! with its header, and pasting it between a README's markers.

use super::criterion::sort_key;
use super::report::{fmt_size, fmt_throughput, fmt_time, machine, order};
use super::server::BATCHES;
use super::{git_commit, Measurement, Options};
use std::fmt::Write as _;
use std::time::SystemTime;

/// The README table's rows per benchmark group: the sizes (criterion
/// parameters) shown, `"*"` for all. A group not listed, or listed empty, is
/// left to report.md (kernel-only groups, variants, the full BITOP grid).
pub(super) const README_ROWS: &[(&str, &[&str])] = &[
    ("bitcount/count", &["64", "1024", "12500000"]),
    ("bitcount/count-mixed", &["4096"]),
    ("bitcount/bitpos", &["1024"]),
    ("bitcount/bitop-and-2", &["65536"]),
    ("bitcount/bitop-and-8", &["65536", "12500000"]),
    ("bitcount/bitop_count-and-8", &["65536"]),
    ("bitcount/cluster-bitop_count-and-8", &["*"]),
    ("bitcount/cluster-bitop_count-and-8-async", &["*"]),
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
    ("hll/cluster-pfcount", &["*"]),
    ("hll/cluster-pfcount-async", &["*"]),
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

pub(super) fn readme_shows(group: &str, param: &str) -> bool {
    match README_ROWS.iter().find(|(g, _)| *g == group) {
        None => false,
        Some((_, sizes)) => sizes.iter().any(|s| *s == "*" || *s == param),
    }
}

/// A row that is a bound (what the hardware or an ideal loop allows), not a
/// peer.
pub(super) fn is_bound(function: &str) -> bool {
    function.starts_with("bound:") || function.ends_with("-bound") || function == "read-bandwidth"
}

/// The lines above every crate's table: machine, date, commit, mode.
pub(super) fn readme_header(o: &Options, notes: &[String]) -> String {
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

/// Whether a group is one of the cross-slot rows against a live cluster,
/// which the READMEs show in a table of their own.
pub(super) fn is_cluster_group(group: &str) -> bool {
    group.contains("/cluster-")
}

/// The line above a crate's cluster table (short: the READMEs are near
/// their size limit): machine, date, commit, the cluster.
pub(super) fn cluster_header(o: &Options) -> String {
    let (cpu, cores, _) = machine();
    format!(
        "{cpu}, {cores} cores; {} (UTC), commit {}; `cargo xtask bench --compare{}`, 3 Valkey \
         9.1.2 masters on loopback.",
        utc_date(SystemTime::now()),
        git_commit(),
        if o.quick { " --quick" } else { "" },
    )
}

/// One crate's README table: per operation and size, ours, the peers and
/// the bound rows, each with its time / ours (above 1: ours is faster).
/// `cluster`: the cross-slot rows only, else every other row.
pub(super) fn readme_table(
    results: &[Measurement],
    krate: &str,
    header: &str,
    cluster: bool,
) -> String {
    let prefix = format!("{}/", krate.trim_end_matches("-fast"));
    let results: Vec<Measurement> = results
        .iter()
        .filter(|m| is_cluster_group(&m.group) == cluster)
        .cloned()
        .collect();
    let results = &results[..];
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
    if cluster {
        // Narrower: one size per operation, the bound first among the rest.
        s.push_str("| operation | ours | bound, others (time, vs ours) |\n");
        s.push_str("|---|---|---|\n");
    } else {
        let _ = writeln!(
            s,
            "| operation | size | ours | peers and variants (time, vs ours) | bound (time, vs ours) |"
        );
        s.push_str("|---|---|---|---|---|\n");
    }
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
            if cluster {
                let op = g.split_once("/cluster-").map_or(g, |x| x.1);
                let rest: Vec<String> = bounds.into_iter().chain(peers).collect();
                let _ = writeln!(
                    s,
                    "| {op} | {} | {} |",
                    fmt_time(ours.median_ns),
                    rest.join("; ")
                );
                rows += 1;
                continue;
            }
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
/// `table` (`None` without the markers). `marker` is `bench-table`, or
/// `bench-table-cluster` for the cross-slot table, pasted from `file`.
pub(super) fn paste_table(text: &str, marker: &str, file: &str, table: &str) -> Option<String> {
    let begin = text.find(&format!("<!-- {marker} begin"))?;
    let begin_end = begin + text[begin..].find('\n')? + 1;
    let end = begin_end + text[begin_end..].find(&format!("<!-- {marker} end -->"))?;
    Some(format!(
        "{}<!-- {marker} begin: pasted from target/bench-report/{file} -->\n{}\n{}",
        &text[..begin],
        table.trim_end(),
        &text[end..]
    ))
}

/// `YYYY-MM-DD` of a time, in UTC (civil-from-days, proleptic Gregorian).
pub(super) fn utc_date(t: SystemTime) -> String {
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
            paste_table(text, "bench-table", "hll.md", "T\n|x|\n").unwrap(),
            "a\n<!-- bench-table begin: pasted from target/bench-report/hll.md -->\nT\n|x|\n<!-- bench-table end -->\nb\n"
        );
        assert_eq!(
            paste_table("no markers", "bench-table", "hll.md", "T"),
            None
        );
        let text = "<!-- bench-table begin: x -->\n<!-- bench-table end -->\n\
                    <!-- bench-table-cluster begin -->\nold\n<!-- bench-table-cluster end -->\n";
        let pasted = paste_table(text, "bench-table-cluster", "hll-cluster.md", "C").unwrap();
        assert!(pasted.starts_with("<!-- bench-table begin: x -->\n<!-- bench-table end -->\n"));
        assert!(pasted.ends_with(
            "<!-- bench-table-cluster begin: pasted from target/bench-report/hll-cluster.md -->\nC\n<!-- bench-table-cluster end -->\n"
        ));
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
            m("bitcount/cluster-bitop_count-and-8", "ours", "1048576", 9e6),
            m(
                "bitcount/cluster-bitop_count-and-8",
                "bound:fetch",
                "1048576",
                8e6,
            ),
        ];
        let c = readme_table(&r, "bitcount", "H", true);
        assert!(
            c.contains("| bitop_count-and-8 | 9.00 ms | bound:fetch 8.00 ms (0.89x) |"),
            "{c}"
        );
        assert!(!c.contains("| count |"));
        let t = readme_table(&r, "bitcount", "H", false);
        assert!(!t.contains("cluster"));
        assert!(t.starts_with("H\n"));
        assert!(t.contains(
            "| count | 1 KiB | 10.00 ns (102.40 GB/s) | naive 40.00 ns (4.00x) | read-bandwidth 5.00 ns (0.50x) |"
        ));
        assert!(!t.contains("avx512"));
        // 16 B is not among the README's sizes for bitcount/count.
        assert!(!t.contains("| 16 B |"));
    }
}
