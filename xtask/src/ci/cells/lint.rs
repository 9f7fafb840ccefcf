//! Formatting, clippy (host and the cross targets' cfg'd kernels) and the
//! MSRV build.

use crate::ci::exec::run_cell;
use crate::ci::{Cell, Outcome, CROSS_EXCLUDES, DATAFUSION_EXCLUDE, MSRV, NATIVE_FEATURES};
use crate::util::{self, cargo};
use std::process::Command;

/// The cross targets clippy checks (their kernels are behind `cfg`s no
/// host build compiles).
const CLIPPY_TARGETS: [&str; 2] = ["aarch64-unknown-linux-gnu", "riscv64gc-unknown-linux-gnu"];

/// `fmt`, `clippy`, `clippy-<arch>` per [`CLIPPY_TARGETS`], `msrv`.
pub fn cells() -> Vec<Cell> {
    let mut v = vec![
        Cell::new("fmt", "cargo fmt --check", |_, log| {
            if !util::ensure_component(None, "rustfmt", log) {
                return Outcome::Skipped("rustfmt unavailable".into());
            }
            run_cell(
                Command::new(cargo()).args(["fmt", "--all", "--", "--check"]),
                "formatted",
                log,
            )
        }),
        Cell::new(
            "clippy",
            "clippy, all targets, -D warnings (host)",
            |_, log| {
                if !util::ensure_component(None, "clippy", log) {
                    return Outcome::Skipped("clippy unavailable".into());
                }
                run_cell(
                    Command::new(cargo())
                        .args(["clippy", "--workspace", "--all-targets"])
                        .args(DATAFUSION_EXCLUDE)
                        .args(["--features", NATIVE_FEATURES, "--", "-D", "warnings"]),
                    "no warnings",
                    log,
                )
            },
        ),
    ];
    v.extend(CLIPPY_TARGETS.map(clippy_cross));
    v.push(msrv());
    v
}

/// `clippy-<arch>`: clippy for `target`, whose build directory the qemu
/// cell of the same target reuses.
fn clippy_cross(target: &'static str) -> Cell {
    let short = target
        .split('-')
        .next()
        .unwrap_or(target)
        .trim_end_matches("gc");
    Cell::new(
        format!("clippy-{short}"),
        format!("clippy for {target} (cfg'd kernels), -D warnings"),
        move |_, log| {
            if !util::ensure_target(target, log) {
                return Outcome::Skipped(format!("rustup target {target} unavailable"));
            }
            run_cell(
                Command::new(cargo())
                    .args(["clippy", "--workspace", "--all-targets", "--target", target])
                    .args(CROSS_EXCLUDES)
                    .args(["--", "-D", "warnings"]),
                "no warnings",
                log,
            )
        },
    )
    .scratch(format!("target/{target}"))
}

/// `msrv`: the published crates and their tests build on [`MSRV`].
fn msrv() -> Cell {
    const DIR: &str = "target/msrv";
    Cell::new(
        "msrv",
        format!("cargo check, all targets, on Rust {MSRV} (the declared rust-version)"),
        |_, log| {
            if !util::ensure_toolchain(MSRV, log) {
                return Outcome::Skipped(format!("Rust {MSRV} could not be installed"));
            }
            let mut cmd = Command::new("rustup");
            cmd.args([
                "run",
                MSRV,
                "cargo",
                "check",
                "--workspace",
                "--all-targets",
            ])
            .args(CROSS_EXCLUDES)
            .env("CARGO_TARGET_DIR", DIR);
            run_cell(
                &mut cmd,
                &format!("published crates and their tests build on {MSRV}"),
                log,
            )
        },
    )
    .scratch(DIR)
}
