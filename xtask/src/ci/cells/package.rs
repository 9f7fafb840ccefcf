//! The `package` cell: the published crates as crates.io would receive
//! them, verified, unpacked and tested on their own.

use crate::ci::exec::run_cell;
use crate::ci::{Cell, Ctx, Outcome, CROSS_EXCLUDES};
use crate::util::{self, cargo};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The package cell's build directories (one per run, under this).
const PACKAGE_TARGET: &str = "target/package-check";

/// The largest published `.crate` file allowed (bytes).
const CRATE_LIMIT: u64 = 200 * 1024;

/// Files every published crate must ship besides its code.
const PACKAGE_FILES: &[&str] = &["README.md", "CHANGELOG.md", "LICENSE-MIT", "LICENSE-APACHE"];

/// `package`.
pub fn cell() -> Cell {
    Cell::new(
        "package",
        "cargo package --workspace (published crates), then each packaged crate's own tests",
        package,
    )
    .scratch(PACKAGE_TARGET)
}

fn package(ctx: &Ctx, log: &Path) -> Outcome {
    // A build directory of its own, new in every run: cargo takes a
    // compiled registry crate of the same name, version and registry path
    // as fresh without looking at its sources, so an earlier run's
    // cpu-detect would be linked into this run's verification. A new path
    // also means a new local registry, unpacked afresh even where
    // `forget_packaged` cannot remove old copies.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let _ = std::fs::remove_dir_all(ctx.root.join(PACKAGE_TARGET));
    let target = ctx.root.join(PACKAGE_TARGET).join(format!("run-{nanos}"));
    let crates = workspace_crates(&ctx.root);
    forget_packaged(&crates, log);
    let outcome = run_cell(
        Command::new(cargo())
            .args(["package", "--workspace", "--allow-dirty"])
            .args(CROSS_EXCLUDES)
            .arg("--target-dir")
            .arg(&target),
        "all crates package and verify",
        log,
    );
    let outcome = match outcome {
        Outcome::Passed(_) => test_packaged(&ctx.root, &target, log),
        failed => failed,
    };
    // Every member packages, the unpublished xtask and benches too (`cargo
    // package --workspace` as a user would run it).
    let outcome = match outcome {
        Outcome::Passed(good) => match run_cell(
            Command::new(cargo())
                .args(["package", "--workspace", "--allow-dirty", "--no-verify"])
                .arg("--target-dir")
                .arg(target.join("all")),
            "",
            log,
        ) {
            Outcome::Passed(_) => Outcome::Passed(format!("{good}; the whole workspace packages")),
            failed => failed,
        },
        failed => failed,
    };
    forget_packaged(&crates, log);
    outcome
}

/// The second half of the `package` cell: unpacks every `.crate` file that
/// `cargo package` wrote under `target/package/` into a workspace of its
/// own (the packaged crates depending on each other through
/// `[patch.crates-io]`, the repository's `Cargo.lock` for the same
/// dependency versions, `opt-level = 3` for tests as in the repository),
/// checks that each holds [`PACKAGE_FILES`], and runs `cargo test` there: a
/// crate downloaded from crates.io must pass its own tests, golden files
/// included (they live in each crate's `testdata/`).
fn test_packaged(root: &Path, target: &Path, log: &Path) -> Outcome {
    let ws = target.join("unpacked");
    let _ = std::fs::remove_dir_all(&ws);
    if let Err(e) = std::fs::create_dir_all(&ws) {
        return Outcome::Failed(format!("mkdir {}: {e}", ws.display()));
    }
    let mut members = Vec::new();
    let Ok(entries) = std::fs::read_dir(target.join("package")) else {
        return Outcome::Failed("cargo package wrote no target/package/".into());
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "crate"))
        .collect();
    files.sort();
    let mut sizes = Vec::new();
    for file in &files {
        let len = std::fs::metadata(file).map_or(0, |m| m.len());
        let name = file.file_name().unwrap_or_default().to_string_lossy();
        if len > CRATE_LIMIT {
            return Outcome::Failed(format!(
                "{name} is {} KB, over the {} KB limit",
                len / 1024,
                CRATE_LIMIT / 1024
            ));
        }
        sizes.push(format!("{name} {} KB", len.div_ceil(1024)));
    }
    for file in &files {
        let unpacked = Command::new("tar")
            .arg("xzf")
            .arg(file)
            .arg("-C")
            .arg(&ws)
            .status()
            .is_ok_and(|s| s.success());
        let dir = file.file_stem().map(|s| s.to_string_lossy().into_owned());
        let Some(dir) = dir.filter(|_| unpacked) else {
            return Outcome::Failed(format!("cannot unpack {}", file.display()));
        };
        for f in PACKAGE_FILES {
            if !ws.join(&dir).join(f).is_file() {
                return Outcome::Failed(format!("{dir}.crate has no {f}"));
            }
        }
        members.push(dir);
    }
    if members.is_empty() {
        return Outcome::Failed("cargo package wrote no .crate file".into());
    }
    // `name-0.1.0` -> `name`: each packaged crate that another one names
    // as a dependency is patched to its unpacked copy.
    let name = |dir: &str| dir.rsplit_once('-').map_or(dir, |(n, _)| n).to_string();
    let manifests: Vec<String> = members
        .iter()
        .map(|m| std::fs::read_to_string(ws.join(m).join("Cargo.toml")).unwrap_or_default())
        .collect();
    let mut toml = String::from("[workspace]\nresolver = \"2\"\nmembers = [\n");
    for m in &members {
        toml += &format!("    \"{m}\",\n");
    }
    toml += "]\n\n[patch.crates-io]\n";
    for m in &members {
        let n = name(m);
        let used = manifests.iter().any(|t| {
            t.contains(&format!("[dependencies.{n}]"))
                || t.contains(&format!("[dev-dependencies.{n}]"))
        });
        if used {
            toml += &format!("{n} = {{ path = \"{m}\" }}\n");
        }
    }
    toml += "\n[profile.test]\nopt-level = 3\ndebug-assertions = true\noverflow-checks = true\n";
    let written = std::fs::write(ws.join("Cargo.toml"), toml)
        .and_then(|()| std::fs::copy(root.join("Cargo.lock"), ws.join("Cargo.lock")).map(|_| ()));
    if let Err(e) = written {
        return Outcome::Failed(format!("cannot write the unpacked workspace: {e}"));
    }
    let outcome = run_cell(
        Command::new(cargo())
            .args(["test", "--workspace"])
            .current_dir(&ws)
            .env_remove("KVPRIMS_TESTDATA")
            .env_remove("CPU_DETECT_MAX_LEVEL"),
        "",
        log,
    );
    match outcome {
        Outcome::Passed(_) => Outcome::Passed(format!(
            "{} crates package and verify ({}, each <= {} KB); their unpacked copies hold {} and pass their own tests",
            members.len(),
            sizes.join(", "),
            CRATE_LIMIT / 1024,
            PACKAGE_FILES.join(", ")
        )),
        other => other,
    }
}

/// The names of the workspace's packages (`cargo metadata`), empty if that
/// fails.
fn workspace_crates(root: &Path) -> Vec<String> {
    util::output(
        Command::new(cargo())
            .args(["metadata", "--no-deps", "--format-version", "1"])
            .current_dir(root),
    )
    .and_then(|out| serde_json::from_str::<serde_json::Value>(&out).ok())
    .and_then(|v| {
        let packages = v["packages"].as_array()?;
        Some(
            packages
                .iter()
                .filter_map(|p| Some(p["name"].as_str()?.to_string()))
                .collect(),
        )
    })
    .unwrap_or_default()
}

/// `cargo package --workspace` verifies each crate against the ones packaged
/// before it through a local registry, which cargo unpacks into
/// `$CARGO_HOME/registry/src/-<hash of that registry's path>/<name>-<version>`
/// and never unpacks again while that directory exists. A checkout at the path
/// of an earlier run (a CI machine's) would then verify a crate against the
/// earlier run's sources of its dependencies (CI failed so: simd-core against
/// a cpu-detect without `Vendor`). Removes those unpacked copies of the
/// `crates` (only in unnamed, local registries, never crates.io's), and the
/// directories left empty.
fn forget_packaged(crates: &[String], log: &Path) {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")));
    let Some(Ok(registries)) = home.map(|h| std::fs::read_dir(h.join("registry/src"))) else {
        return;
    };
    for registry in registries.flatten() {
        if !registry.file_name().to_string_lossy().starts_with('-') {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(registry.path()) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            // `<crate>-<version>`, the version starting with a digit.
            let ours = crates.iter().any(|c| {
                name.strip_prefix(c.as_str())
                    .and_then(|v| v.strip_prefix('-'))
                    .is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit()))
            });
            if ours && std::fs::remove_dir_all(entry.path()).is_ok() {
                let line = format!("removed unpacked copy {}", entry.path().display());
                let _ = util::append(log, &line);
            }
        }
        // Only succeeds when nothing else is left in it.
        let _ = std::fs::remove_dir(registry.path());
    }
}
