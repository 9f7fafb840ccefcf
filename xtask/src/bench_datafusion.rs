//! `cargo xtask bench --crate hll-datafusion [--quick]` and
//! `cargo xtask bench --crate hll-ballista [--quick]`: runs the crate's own
//! harness (`redis_hll` against DataFusion's `approx_distinct`, min of
//! alternating runs, in one process; hll-ballista's on a local cluster of
//! its binaries) and writes its table to `target/bench-report/<crate>.md`.
//! Only on request: each builds DataFusion (10+ minutes from cold, 17 with
//! Ballista), so the default `cargo xtask bench --compare` never runs them.

use crate::util::{self, cargo, root};
use std::process::Command;

/// The crates with a harness of their own, each with its bench target and
/// the report's title.
const HARNESSES: [(&str, &str, &str); 2] = [
    ("hll-datafusion", "compare", "redis_hll vs approx_distinct"),
    (
        "hll-ballista",
        "cluster",
        "redis_hll vs approx_distinct on a local Ballista cluster",
    ),
];

/// `Some(result)` when `args` ask for one of [`HARNESSES`] (then nothing
/// else runs), `None` otherwise.
pub fn requested(args: &[String]) -> Option<Result<(), String>> {
    let mut crates = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--crate" {
            if let Some(v) = it.next() {
                crates.extend(v.split(',').map(|s| s.trim().to_string()));
            }
        } else if let Some(v) = a.strip_prefix("--crate=") {
            crates.extend(v.split(',').map(|s| s.trim().to_string()));
        }
    }
    let harness = HARNESSES.iter().find(|h| crates.iter().any(|c| c == h.0))?;
    if crates.len() > 1 {
        return Some(Err(format!(
            "{0} has its own harness: run `cargo xtask bench --crate {0}` on its own",
            harness.0
        )));
    }
    Some(run(*harness, args.iter().any(|a| a == "--quick")))
}

fn run((name, bench, title): (&str, &str, &str), quick: bool) -> Result<(), String> {
    let root = root();
    let dir = root.join("target/bench-report");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let log = dir.join(format!("criterion-{name}.log"));
    let _ = std::fs::remove_file(&log);
    let mut cmd = Command::new(cargo());
    cmd.current_dir(&root)
        .args(["bench", "-p", name, "--bench", bench]);
    if quick {
        cmd.env("KVPRIMS_BENCH_QUICK", "1");
    }
    eprintln!("== benchmarking {name} (output: {})", log.display());
    if !util::run_logged(&mut cmd, &log) {
        return Err(format!(
            "cargo bench for {name} failed (log: {})",
            log.display()
        ));
    }
    let text = std::fs::read_to_string(&log).map_err(|e| e.to_string())?;
    // The harness prints its table last: from its first row to the end.
    let table: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("| ")).collect();
    let report = format!(
        "# {name}: {title}\n\ncommit {}\n\n{}\n",
        util::output(Command::new("git").args(["rev-parse", "--short", "HEAD"]))
            .unwrap_or_default()
            .trim(),
        table.join("\n")
    );
    let out = dir.join(format!("{name}.md"));
    std::fs::write(&out, &report).map_err(|e| e.to_string())?;
    print!("{report}");
    eprintln!("report: {}", out.display());
    Ok(())
}
