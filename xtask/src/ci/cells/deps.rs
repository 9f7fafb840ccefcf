//! The dependency configurations: every direct dependency at its oldest
//! allowed version, and the published crates without `std`.

use crate::ci::exec::{cargo_on, ensure_nightly, Toolchain};
use crate::ci::{Cell, Outcome, CROSS_EXCLUDES, DATAFUSION_CRATES, DATAFUSION_EXCLUDE};
use crate::util::{self, cargo};
use std::path::Path;
use std::process::Command;

/// The target with no std that the `no-std` cell checks.
const NO_STD_TARGET: &str = "thumbv7em-none-eabihf";

/// `minimal-versions`, `no-std`.
pub fn cells() -> Vec<Cell> {
    vec![
        Cell::new(
            "minimal-versions",
            "the declared dependency lower bounds: every direct dependency at its oldest allowed version (nightly -Z direct-minimal-versions), build and the published crates' tests",
            |ctx, log| minimal_versions(&ctx.root, log),
        )
        .scratch(MINIMAL_TARGET),
        Cell::new(
            "no-std",
            "the published crates without their `std` feature: cargo check on the host and for thumbv7em-none-eabihf (a target with no std), hll's serde feature included",
            |_, log| no_std(log),
        )
        .scratch(format!("target/{NO_STD_TARGET}")),
    ]
}

/// The `no-std` cell: `cargo check` without default features on the host,
/// then for [`NO_STD_TARGET`] with hll's serde feature.
fn no_std(log: &Path) -> Outcome {
    if !util::ensure_target(NO_STD_TARGET, log) {
        return Outcome::Skipped(format!("rustup target {NO_STD_TARGET} unavailable"));
    }
    let host = util::run_logged(
        Command::new(cargo())
            .args(["check", "--workspace", "--no-default-features"])
            .args(CROSS_EXCLUDES),
        log,
    );
    let bare = host
        && util::run_logged(
            Command::new(cargo())
                .args(["check", "--workspace", "--no-default-features"])
                .args(["--features", "hll/serde", "--target", NO_STD_TARGET])
                .args(CROSS_EXCLUDES),
            log,
        );
    if bare {
        Outcome::Passed(format!(
            "the published crates build without std, on the host and for {NO_STD_TARGET}"
        ))
    } else {
        Outcome::Failed(format!("see {}", log.display()))
    }
}

/// The `minimal-versions` cell's directory: a copy of the working tree
/// (`ws/`) and its build directory (`target/`).
const MINIMAL_TARGET: &str = "target/minimal-versions";

/// The `minimal-versions` cell. A user's lockfile may hold any version that
/// a manifest's requirement allows, so each lower bound written there (e.g.
/// `libc = "0.2.155"`) must be one the crates build and pass their tests
/// with. In a copy of the working tree (the repository's `Cargo.lock` is
/// never touched), cargo resolves every direct dependency of every member
/// to the oldest version its requirement allows (nightly's `-Z
/// direct-minimal-versions`; the dependencies of those dependencies as
/// usual), then the whole workspace is built and the published crates'
/// tests run, with the stable toolchain. A requirement that allows a
/// version another member's dependency cannot use fails the resolution.
fn minimal_versions(root: &Path, log: &Path) -> Outcome {
    if let Some(why) = ensure_nightly(&[], log) {
        return Outcome::Skipped(why);
    }
    let dir = root.join(MINIMAL_TARGET);
    let ws = dir.join("ws");
    let _ = std::fs::remove_dir_all(&dir);
    // Tracked files and untracked ones not ignored: the tree as it is now.
    let Some(list) = util::output(
        Command::new("git")
            .args([
                "ls-files",
                "-z",
                "--cached",
                "--others",
                "--exclude-standard",
            ])
            .current_dir(root),
    ) else {
        return Outcome::Skipped("not a git checkout (git ls-files failed)".into());
    };
    let mut copied = 0usize;
    // DataFusion's crates pin their own lower bounds (e.g. hex 0.4.3 against
    // the workspace's 0.4), which only their own cell resolves: the copy
    // leaves those crates out, and with them out of the `crates/*` members.
    let datafusion_dirs = DATAFUSION_CRATES.map(|c| format!("crates/{c}/"));
    for rel in list
        .split('\0')
        .filter(|s| !s.is_empty() && !datafusion_dirs.iter().any(|d| s.starts_with(d)))
    {
        let from = root.join(rel);
        // Deleted but still tracked, or a submodule: nothing to copy.
        if !from.is_file() {
            continue;
        }
        let to = ws.join(rel);
        let done = to
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::copy(&from, &to).map(|_| ()));
        if let Err(e) = done {
            return Outcome::Failed(format!("cannot copy {rel}: {e}"));
        }
        copied += 1;
    }
    let _ = util::append(log, &format!("copied {copied} files to {}", ws.display()));
    let mut update = cargo_on(Toolchain::Nightly);
    update
        .args(["update", "-Z", "direct-minimal-versions"])
        .current_dir(&ws);
    if !util::run_logged(&mut update, log) {
        return Outcome::Failed(format!(
            "the oldest allowed versions do not resolve together (raise the lower bound cargo names), see {}",
            log.display()
        ));
    }
    let target = dir.join("target");
    let mut check = Command::new(cargo());
    check
        .args(["check", "--workspace", "--all-targets"])
        .args(DATAFUSION_EXCLUDE)
        .args(["--features", "hll/serde"])
        .current_dir(&ws)
        .env("CARGO_TARGET_DIR", &target);
    if !util::run_logged(&mut check, log) {
        return Outcome::Failed(format!(
            "the workspace does not build at its oldest allowed dependencies, see {}",
            log.display()
        ));
    }
    let mut test = Command::new(cargo());
    test.args(["test", "--workspace", "--features", "hll/serde"])
        .args(CROSS_EXCLUDES)
        .current_dir(&ws)
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("KVPRIMS_TESTDATA")
        .env_remove("CPU_DETECT_MAX_LEVEL");
    let ok = util::run_logged(&mut test, log);
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let (passed, failed, _) = util::test_counts(&text);
    if ok && failed == 0 && passed > 0 {
        Outcome::Passed(format!(
            "every direct dependency at its oldest allowed version: the workspace builds, {passed} tests of the published crates pass"
        ))
    } else {
        Outcome::Failed(format!(
            "{passed} tests passed, {failed} failed at the oldest allowed versions, see {}",
            log.display()
        ))
    }
}
