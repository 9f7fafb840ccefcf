//! The cells that start Redis and Valkey: hll-datafusion (the one cell that
//! builds DataFusion, for hll-datafusion and hll-ballista) and the live
//! differential tests.

use crate::ci::exec::test_cell;
use crate::ci::{Cell, Outcome, DATAFUSION_CRATES};
use crate::servers;
use crate::util::{self, cargo};
use std::path::Path;
use std::process::Command;

/// `hll-datafusion`, `golden`.
pub fn cells() -> Vec<Cell> {
    vec![
        Cell::new(
            DATAFUSION_CRATES[0],
            "hll-datafusion and hll-ballista, the one cell that builds DataFusion: clippy -D warnings, cargo doc with warnings denied, their tests and doctests, their live tests against Redis and Valkey (hll-ballista's on a local Ballista cluster)",
            |ctx, log| datafusion_cell(&ctx.root, log),
        ),
        Cell::new(
            "golden",
            "live differential tests against Redis and Valkey, and the cross-slot functions against a Valkey cluster of three masters",
            |ctx, log| match servers::golden(&ctx.root, log) {
                Ok(summary) => Outcome::Passed(summary),
                Err(servers::GoldenError::Skipped(why)) => Outcome::Skipped(why),
                Err(servers::GoldenError::Failed(why)) => Outcome::Failed(why),
            },
        ),
    ]
}

/// The `hll-datafusion` cell, for both [`DATAFUSION_CRATES`]. DataFusion
/// (and Ballista) is built twice here and nowhere else: once as metadata for clippy (rustdoc then re-checks only the
/// few crates whose features the dev-dependencies change: num-bigint up to
/// datafusion) and once in the dev profile for the tests; the live tests
/// run in the same `cargo test` as the others, against servers started
/// for the cell.
fn datafusion_cell(root: &Path, log: &Path) -> Outcome {
    let packages: Vec<&str> = DATAFUSION_CRATES.iter().flat_map(|c| ["-p", c]).collect();
    if !util::ensure_component(None, "clippy", log) {
        return Outcome::Skipped("clippy unavailable".into());
    }
    let clippy = util::run_logged(
        Command::new(cargo())
            .arg("clippy")
            .args(&packages)
            .arg("--all-targets")
            .args(["--", "-D", "warnings"]),
        log,
    );
    if !clippy {
        return Outcome::Failed(format!("clippy: see {}", log.display()));
    }
    let doc = util::run_logged(
        Command::new(cargo())
            .env("RUSTDOCFLAGS", "-D warnings")
            .arg("doc")
            .args(&packages)
            .arg("--no-deps"),
        log,
    );
    if !doc {
        return Outcome::Failed(format!("cargo doc: see {}", log.display()));
    }
    let (running, problems) = servers::start_both(root, log);
    let urls: Vec<(&str, String)> = running
        .iter()
        .map(|s| {
            let var = if s.name == "redis" {
                "REDIS_URL"
            } else {
                "VALKEY_URL"
            };
            (var, s.url())
        })
        .collect();
    let env: Vec<(&str, &str)> = urls.iter().map(|(k, v)| (*k, v.as_str())).collect();
    // The dev profile (no optimisation): DataFusion compiles in about half
    // the time of the test profile's opt-level 3, and these tests run in
    // seconds either way.
    let outcome = test_cell(
        log,
        &env,
        None,
        &[["test"].as_slice(), &packages, &["--profile", "dev"]].concat(),
    );
    drop(running);
    // hll-ballista's example, on the build the tests just made.
    let outcome = match outcome {
        Outcome::Passed(summary) => {
            let ran = util::run_logged(
                Command::new(cargo()).args([
                    "run",
                    "--profile",
                    "dev",
                    "-p",
                    "hll-ballista",
                    "--example",
                    "standalone",
                ]),
                log,
            );
            if !ran {
                return Outcome::Failed(format!(
                    "hll-ballista's example failed: see {}",
                    log.display()
                ));
            }
            Outcome::Passed(format!("{summary}, hll-ballista's example ran"))
        }
        other => other,
    };
    match outcome {
        Outcome::Passed(summary) if problems.is_empty() => Outcome::Passed(format!(
            "clippy and docs clean; {summary} (live: redis and valkey)"
        )),
        Outcome::Passed(summary) => Outcome::Passed(format!(
            "clippy and docs clean; {summary} (live parts skipped: {})",
            problems.join("; ")
        )),
        other => other,
    }
}
