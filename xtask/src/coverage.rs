//! `cargo xtask coverage`: line coverage of the crates' own tests
//! (source-based, `-C instrument-coverage`), natively and under each
//! dispatch ceiling, with the live tests against Redis and Valkey when they
//! can be started: a summary per library source and the lines no test ran.
//! A tool for finding what the tests miss, not a CI gate.

use crate::ci::DATAFUSION_CRATES;
use crate::servers;
use crate::util::{self, cargo};
use std::path::{Path, PathBuf};
use std::process::Command;

const HELP: &str = "\
cargo xtask coverage [--no-servers] [--no-caps]

Builds the crates' tests with -C instrument-coverage (into target/coverage/)
and runs them natively and, on x86_64, under CPU_DETECT_MAX_LEVEL=scalar,
sse4.2 and avx2 (the ceilings of the `test-cap-*` cells), with REDIS_URL and
VALKEY_URL set to servers started as `cargo xtask golden` starts them, so the
live tests count too. Then prints llvm-cov's summary of the library sources
(tests, benches, examples, xtask and dependencies left out) and writes
  target/coverage/summary.txt     that summary
  target/coverage/uncovered.txt   every library line no test ran, by file
  target/coverage/html/           llvm-cov's annotated sources
Kernels for other architectures (NEON, riscv64) are not built here; the
qemu cells of `cargo xtask ci` run them. Installs the llvm-tools-preview
component when missing.

  --no-servers   do not start Redis and Valkey (the live tests then skip)
  --no-caps      the native run only
";

/// Library sources only: the crates' tests, benches and examples, the
/// xtask, the fuzz targets and everything outside the workspace are left
/// out of the report.
const IGNORE: &str = r"(/\.cargo/|/rustc/|/tests/|/benches/|/examples/|/xtask/|/fuzz/)";

pub fn main(args: &[String]) -> Result<(), String> {
    if util::wants_help(args) {
        print!("{HELP}");
        return Ok(());
    }
    let mut servers_wanted = true;
    let mut caps = true;
    for a in args {
        match a.as_str() {
            "--no-servers" => servers_wanted = false,
            "--no-caps" => caps = false,
            other => return Err(format!("unknown option {other:?}\n\n{HELP}")),
        }
    }
    let root = util::root();
    let out = root.join("target/coverage");
    let profraw = out.join("profraw");
    let _ = std::fs::remove_dir_all(&profraw);
    std::fs::create_dir_all(&profraw).map_err(|e| format!("{}: {e}", profraw.display()))?;
    let log = out.join("coverage.log");
    let _ = std::fs::remove_file(&log);

    util::ensure_component(None, "llvm-tools-preview", &log);
    let bin = llvm_bin()?;
    for tool in ["llvm-profdata", "llvm-cov"] {
        if !bin.join(tool).exists() {
            return Err(format!(
                "{} not found (rustup component add llvm-tools-preview)",
                bin.join(tool).display()
            ));
        }
    }

    let (running, problems) = if servers_wanted {
        servers::start_both(&root, &log)
    } else {
        (Vec::new(), Vec::new())
    };
    for p in &problems {
        println!("coverage: server not started ({p}); its live test skips");
    }
    // The same build for the executables' list and every run.
    let test_cmd = || {
        let mut cmd = Command::new(cargo());
        cmd.current_dir(&root).args(["test", "--no-fail-fast"]);
        for krate in crates(&root) {
            cmd.args(["-p", &krate]);
        }
        cmd.args(["--features", "simd-core/testing"])
            .env("RUSTFLAGS", "-C instrument-coverage")
            .env("CARGO_TARGET_DIR", out.join("target"))
            // Instrumented build scripts write profiles too: not into the
            // working directory (each run sets its own name below).
            .env("LLVM_PROFILE_FILE", profraw.join("build-%p-%m.profraw"));
        cmd
    };
    // The test executables of this build, from cargo (not the folder, which
    // keeps those of earlier builds).
    let objects: Vec<PathBuf> = util::artifacts(test_cmd().arg("--no-run"), "the tests")?
        .iter()
        .filter(|v| v["profile"]["test"] == true)
        .filter_map(|v| Some(PathBuf::from(v["executable"].as_str()?)))
        .collect();

    let mut levels = vec!["native"];
    if caps && cfg!(target_arch = "x86_64") {
        levels.extend(["scalar", "sse4.2", "avx2"]);
    }
    let failed: Vec<String> = levels
        .iter()
        .filter_map(|level| run_level(test_cmd(), level, &running, &out, &profraw))
        .collect();
    drop(running);

    let profdata = merge_profiles(&bin, &profraw, &out.join("all.profdata"), &log)?;

    let Some((first, rest)) = objects.split_first() else {
        return Err("no test executables found".into());
    };
    let cov = |sub: &str| {
        let mut c = Command::new(bin.join("llvm-cov"));
        c.arg(sub).arg(first);
        for o in rest {
            c.arg("-object").arg(o);
        }
        c.arg(format!("-instr-profile={}", profdata.display()))
            .arg(format!("-ignore-filename-regex={IGNORE}"));
        c
    };
    let summary = util::output(&mut cov("report"))
        .ok_or_else(|| format!("llvm-cov report failed (see {})", log.display()))?;
    let shown = util::output(&mut cov("show"))
        .ok_or_else(|| format!("llvm-cov show failed (see {})", log.display()))?;
    let root_prefix = format!("{}/", root.display());
    let summary = summary.replace(&root_prefix, "");
    let uncovered = uncovered_lines(&shown).replace(&root_prefix, "");
    write(&out.join("summary.txt"), &summary)?;
    write(&out.join("uncovered.txt"), &uncovered)?;
    let mut html = cov("show");
    html.args(["-format=html", "-show-line-counts-or-regions"])
        .arg(format!("-output-dir={}", out.join("html").display()));
    util::run_logged(&mut html, &log);
    print!("{summary}");
    println!(
        "coverage: {} uncovered library lines listed in {}",
        uncovered
            .lines()
            .filter(|l| !l.is_empty() && !l.ends_with(':'))
            .count(),
        out.join("uncovered.txt").display()
    );
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("tests failed: {}", failed.join(", ")))
    }
}

/// Runs the instrumented tests at one `level` (`native` or a ceiling), its
/// profiles named after it; `Some(what failed)` if a test failed or none ran.
fn run_level(
    mut cmd: Command,
    level: &str,
    running: &[servers::Server],
    out: &Path,
    profraw: &Path,
) -> Option<String> {
    cmd.env(
        "LLVM_PROFILE_FILE",
        profraw.join(format!("{level}-%p-%m.profraw")),
    )
    .env_remove("REDIS_URL")
    .env_remove("VALKEY_URL");
    match level {
        "native" => cmd.env_remove("CPU_DETECT_MAX_LEVEL"),
        cap => cmd.env("CPU_DETECT_MAX_LEVEL", cap),
    };
    for s in running {
        let var = if s.name == "redis" {
            "REDIS_URL"
        } else {
            "VALKEY_URL"
        };
        cmd.env(var, s.url());
    }
    let level_log = out.join(format!("test-{level}.log"));
    let _ = std::fs::remove_file(&level_log);
    util::run_logged(&mut cmd, &level_log);
    let text = std::fs::read_to_string(&level_log).unwrap_or_default();
    let (passed, fails, ignored) = util::test_counts(&text);
    println!("coverage: {level}: {passed} tests passed, {fails} failed, {ignored} ignored");
    (fails > 0 || passed == 0).then(|| format!("{level} (see {})", level_log.display()))
}

/// Merges every `.profraw` file under `profraw` into `profdata`.
fn merge_profiles(
    bin: &Path,
    profraw: &Path,
    profdata: &Path,
    log: &Path,
) -> Result<PathBuf, String> {
    let mut merge = Command::new(bin.join("llvm-profdata"));
    merge.args(["merge", "-sparse", "-o"]).arg(profdata);
    let mut raws: Vec<PathBuf> = read_dir(profraw)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "profraw"))
        .collect();
    raws.sort();
    if raws.is_empty() {
        return Err(format!("no profiles were written (see {})", log.display()));
    }
    merge.args(&raws);
    if !util::run_logged(&mut merge, log) {
        return Err(format!(
            "llvm-profdata merge failed (see {})",
            log.display()
        ));
    }
    Ok(profdata.to_path_buf())
}

/// The folder of the active toolchain's LLVM tools
/// (`<sysroot>/lib/rustlib/<host>/bin`).
fn llvm_bin() -> Result<PathBuf, String> {
    let sysroot = util::output(Command::new("rustc").args(["--print", "sysroot"]))
        .ok_or("rustc --print sysroot failed")?;
    let version = util::output(Command::new("rustc").arg("-vV")).ok_or("rustc -vV failed")?;
    let host = version
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .ok_or("rustc -vV printed no host")?;
    Ok(Path::new(sysroot.trim())
        .join("lib/rustlib")
        .join(host.trim())
        .join("bin"))
}

/// The workspace's library crates (the folders of `crates/`), but
/// hll-datafusion and hll-ballista (an instrumented DataFusion build would
/// take longer than the rest together).
fn crates(root: &Path) -> Vec<String> {
    let mut names: Vec<String> = read_dir(&root.join("crates"))
        .into_iter()
        .filter(|p| p.join("Cargo.toml").exists())
        .filter_map(|p| Some(p.file_name()?.to_string_lossy().into_owned()))
        .filter(|name| !DATAFUSION_CRATES.contains(&name.as_str()))
        .collect();
    names.sort();
    names
}

fn read_dir(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect()
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// From `llvm-cov show`'s text: each file's header line and its lines with
/// an execution count of zero (`  LINE|      0|source`); files with none are
/// left out.
fn uncovered_lines(shown: &str) -> String {
    let mut out = String::new();
    let mut header: Option<&str> = None;
    for line in shown.lines() {
        if line.starts_with('/') && line.ends_with(':') {
            header = Some(line);
            continue;
        }
        let mut cols = line.splitn(3, '|');
        let (Some(number), Some(count), Some(_)) = (cols.next(), cols.next(), cols.next()) else {
            continue;
        };
        if number.trim().parse::<u64>().is_err() || count.trim() != "0" {
            continue;
        }
        if let Some(h) = header.take() {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(h);
            out.push('\n');
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn keeps_only_lines_run_zero_times() {
        let shown = "/w/crates/a/src/lib.rs:\n    1|      5|fn a() {\n    2|      0|    b();\n    3|       |}\n\
                     /w/crates/a/src/x.rs:\n    1|     10|fn x() {}\n\
                     /w/crates/b/src/lib.rs:\n   40|      0|    unreachable!()\n  ------------------\n";
        assert_eq!(
            super::uncovered_lines(shown),
            "/w/crates/a/src/lib.rs:\n    2|      0|    b();\n\n/w/crates/b/src/lib.rs:\n   40|      0|    unreachable!()\n"
        );
    }
}
