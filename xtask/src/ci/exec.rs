//! What the cells share: running a command or a test suite into the cell's
//! log, the toolchains, and installing what a cell needs.

use super::{Outcome, CROSS_EXCLUDES};
use crate::util::{self, cargo};
use std::path::Path;
use std::process::Command;

/// Runs one command for a cell: passed with `good`, or failed pointing at the
/// log.
pub fn run_cell(cmd: &mut Command, good: &str, log: &Path) -> Outcome {
    if util::run_logged(cmd, log) {
        Outcome::Passed(good.to_string())
    } else {
        Outcome::Failed(format!("see {}", log.display()))
    }
}

/// Which toolchain runs a test cell's cargo.
#[derive(Clone, Copy, PartialEq)]
pub enum Toolchain {
    Stable,
    Nightly,
}

pub fn cargo_on(toolchain: Toolchain) -> Command {
    match toolchain {
        Toolchain::Stable => Command::new(cargo()),
        Toolchain::Nightly => {
            let mut c = Command::new("rustup");
            c.args(["run", "nightly", "cargo"]);
            c
        }
    }
}

/// Makes sure the nightly toolchain with `components` is there; `Some(reason)`
/// if it cannot be had.
pub fn ensure_nightly(components: &[&str], log: &Path) -> Option<String> {
    if !util::ensure_toolchain("nightly", log) {
        return Some("the nightly toolchain could not be installed".into());
    }
    for c in components {
        if !util::ensure_component(Some("nightly"), c, log) {
            return Some(format!("nightly component {c} unavailable"));
        }
    }
    None
}

/// Installs Debian packages (qemu, cross tools) if needed; `Some(reason)` if
/// `binary` is still missing.
pub fn need_qemu(packages: &[&str], binary: &str, log: &Path) -> Option<String> {
    let still = util::ensure_apt(packages, log);
    if !util::have(binary) {
        return Some(format!(
            "{binary} not available (missing: {})",
            still.join(" ")
        ));
    }
    None
}

/// `cargo test` of the workspace's libraries, tests and examples for
/// `target` (xtask and benches left out: they are host tools).
pub fn target_test_args(target: &str) -> Vec<&str> {
    let mut args = vec![
        "test",
        "--workspace",
        "--lib",
        "--tests",
        "--examples",
        "--target",
        target,
    ];
    args.extend(CROSS_EXCLUDES);
    args
}

/// Runs the cpu-detect report under the same configuration (so the log and
/// the cell line show the level the kernels ran at), then `cargo <args>`.
pub fn test_cell(
    log: &Path,
    env: &[(&str, &str)],
    cross: Option<(&str, &str)>,
    args: &[&str],
) -> Outcome {
    test_cell_on(log, Toolchain::Stable, env, cross, args)
}

/// [`test_cell`] on `toolchain`.
pub fn test_cell_on(
    log: &Path,
    toolchain: Toolchain,
    env: &[(&str, &str)],
    cross: Option<(&str, &str)>,
    args: &[&str],
) -> Outcome {
    let mut report = cargo_on(toolchain);
    report.args(["run", "--quiet", "-p", "cpu-detect", "--example", "report"]);
    if let Some((target, _)) = cross {
        report.args(["--target", target]);
    }
    for (k, v) in env {
        report.env(k, v);
    }
    let _ = util::run_logged(&mut report, log);
    let level = last_level(log);

    let mut cmd = cargo_on(toolchain);
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let ok = util::run_logged(&mut cmd, log);
    test_outcome(log, &level, ok)
}

/// The level the last cpu-detect report in `log` printed.
pub fn last_level(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    text.lines()
        .rev()
        .find_map(|l| l.strip_prefix("level: "))
        .unwrap_or("?")
        .to_string()
}

/// A test cell's outcome: `level` and the counts of every `cargo test` in
/// `log`; failed unless `ok` and at least one test ran.
pub fn test_outcome(log: &Path, level: &str, ok: bool) -> Outcome {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let (passed, failed, ignored) = util::test_counts(&text);
    let summary =
        format!("level {level}: {passed} tests passed, {failed} failed, {ignored} ignored");
    if ok && failed == 0 && passed > 0 {
        Outcome::Passed(summary)
    } else if ok && passed == 0 {
        Outcome::Failed(format!("{summary} (no test ran)"))
    } else {
        Outcome::Failed(summary)
    }
}
