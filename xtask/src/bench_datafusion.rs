//! `cargo xtask bench --crate hll-datafusion [--quick] [--compare]`: runs
//! hll-datafusion's own harness (`redis_hll` against DataFusion's
//! `approx_distinct`, min of alternating runs, in one process) and writes
//! its table to target/bench-report/hll-datafusion.md. Only on request: it
//! builds DataFusion (10+ minutes from cold), so the default
//! `cargo xtask bench --compare` never runs it.

use crate::util::{self, cargo, root};
use std::process::Command;

/// `Some(result)` when `args` ask for hll-datafusion (then nothing else
/// runs), `None` otherwise.
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
    if !crates.iter().any(|c| c == "hll-datafusion") {
        return None;
    }
    if crates.len() > 1 {
        return Some(Err(
            "hll-datafusion has its own harness: run `cargo xtask bench --crate hll-datafusion` on its own".into(),
        ));
    }
    Some(run(args.iter().any(|a| a == "--quick")))
}

fn run(quick: bool) -> Result<(), String> {
    let root = root();
    let dir = root.join("target/bench-report");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let log = dir.join("criterion-hll-datafusion.log");
    let _ = std::fs::remove_file(&log);
    let mut cmd = Command::new(cargo());
    cmd.current_dir(&root)
        .args(["bench", "-p", "hll-datafusion", "--bench", "compare"]);
    if quick {
        cmd.env("KVPRIMS_BENCH_QUICK", "1");
    }
    eprintln!("== benchmarking hll-datafusion (output: {})", log.display());
    if !util::run_logged(&mut cmd, &log) {
        return Err(format!(
            "cargo bench for hll-datafusion failed (log: {})",
            log.display()
        ));
    }
    let text = std::fs::read_to_string(&log).map_err(|e| e.to_string())?;
    let table: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("| rows"))
        .collect();
    let report = format!(
        "# hll-datafusion: redis_hll vs approx_distinct\n\ncommit {}\n\n{}\n",
        util::output(Command::new("git").args(["rev-parse", "--short", "HEAD"]))
            .unwrap_or_default()
            .trim(),
        table.join("\n")
    );
    let out = dir.join("hll-datafusion.md");
    std::fs::write(&out, &report).map_err(|e| e.to_string())?;
    print!("{report}");
    eprintln!("report: {}", out.display());
    Ok(())
}
