//! The documentation: rustdoc as users and docs.rs build it, and the size
//! limits of the markdown files.

use crate::ci::exec::{cargo_on, ensure_nightly, run_cell, Toolchain};
use crate::ci::{Cell, Outcome, CROSS_EXCLUDES, DATAFUSION_EXCLUDE};
use crate::util::{self, cargo};
use std::path::Path;
use std::process::Command;

/// The `doc-docsrs` cell's build directory (nightly builds kept apart).
const DOCSRS_TARGET: &str = "target/docsrs";

/// `doc`, `doc-docsrs`, `docs`.
pub fn cells() -> Vec<Cell> {
    vec![
        Cell::new("doc", "cargo doc, warnings denied", |_, log| {
            run_cell(
                Command::new(cargo())
                    .env("RUSTDOCFLAGS", "-D warnings")
                    .args(["doc", "--workspace", "--no-deps"])
                    .args(DATAFUSION_EXCLUDE),
                "docs build",
                log,
            )
        }),
        Cell::new(
            "doc-docsrs",
            "cargo doc as docs.rs builds it: nightly, every feature, --cfg docsrs (items marked with the feature they need), warnings denied",
            |_, log| {
                if let Some(why) = ensure_nightly(&[], log) {
                    return Outcome::Skipped(why);
                }
                let mut cmd = cargo_on(Toolchain::Nightly);
                cmd.env("RUSTDOCFLAGS", "--cfg docsrs -D warnings")
                    .env("CARGO_TARGET_DIR", DOCSRS_TARGET)
                    .args(["doc", "--workspace", "--no-deps", "--all-features"])
                    .args(CROSS_EXCLUDES);
                run_cell(
                    &mut cmd,
                    "the published crates' docs build as on docs.rs",
                    log,
                )
            },
        )
        .scratch(DOCSRS_TARGET),
        Cell::new(
            "docs",
            "size limits of the docs: workspace README.md <= 10 KB, each crate README.md <= 8 KB, every tracked markdown file <= 16 KB",
            |ctx, _| docs_sizes(&ctx.root),
        ),
    ]
}

/// The `docs` cell: the size limits of the tracked markdown files (the
/// workspace README, each crate's README, every other `.md`).
fn docs_sizes(root: &Path) -> Outcome {
    let listed = util::output(
        Command::new("git")
            .args(["ls-files", "-z", "--", "*.md"])
            .current_dir(root),
    );
    let Some(listed) = listed.filter(|l| !l.is_empty()) else {
        return Outcome::Skipped("no git checkout to list the tracked markdown files".into());
    };
    let mut bad = Vec::new();
    let mut checked = 0;
    for path in listed.split('\0').filter(|p| !p.is_empty()) {
        let limit = docs_limit(path);
        let Ok(meta) = std::fs::metadata(root.join(path)) else {
            continue; // deleted in the working tree, not yet committed
        };
        checked += 1;
        if meta.len() > limit {
            bad.push(format!("{path}: {} bytes > {limit}", meta.len()));
        }
    }
    if bad.is_empty() {
        Outcome::Passed(format!(
            "{checked} markdown files within their limits (README.md 10 KB, crate READMEs 8 KB, others 16 KB)"
        ))
    } else {
        Outcome::Failed(bad.join("; "))
    }
}

/// The size limit of a tracked markdown file, in bytes.
fn docs_limit(path: &str) -> u64 {
    let crate_readme = path
        .strip_prefix("crates/")
        .and_then(|p| p.split_once('/'))
        .is_some_and(|(_, rest)| rest == "README.md");
    if path == "README.md" {
        10 * 1024
    } else if crate_readme {
        8 * 1024
    } else {
        16 * 1024
    }
}
