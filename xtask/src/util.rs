//! Running commands, installing missing tools, finding the workspace.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// The workspace root (the parent of xtask/), or `KVPRIMS_ROOT` when set (a
/// bundled xtask run on another machine, where the build path is absent).
pub fn root() -> PathBuf {
    if let Some(r) = std::env::var_os("KVPRIMS_ROOT").filter(|r| !r.is_empty()) {
        return PathBuf::from(r);
    }
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.parent().unwrap_or(here).to_path_buf()
}

/// The golden-data folders of the workspace's crates
/// (`crates/*/testdata/<kind>/`, e.g. `crates/hll/testdata/hll/`), sorted.
/// The `<kind>` names are unique across crates, so a golden file is named
/// by `<kind>/<file>` alone.
pub fn golden_dirs(root: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .into_iter()
        .flatten()
        .flatten()
        .flat_map(|krate| {
            std::fs::read_dir(krate.path().join("testdata"))
                .into_iter()
                .flatten()
        })
        .flatten()
        .map(|kind| kind.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// `cargo`, as the one that runs us.
pub fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string())
}

pub fn wants_help(args: &[String]) -> bool {
    args.iter().any(|a| a == "-h" || a == "--help")
}

/// Whether a program is on PATH.
pub fn have(program: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {program} >/dev/null 2>&1"))
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

pub fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// Appends one line to `log` (created if missing).
pub fn append(log: &Path, line: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)?;
    writeln!(f, "{line}")
}

/// Runs a command to completion with its output appended to `log`; returns
/// whether it succeeded. Errors starting it count as failure (and are logged).
pub fn run_logged(cmd: &mut Command, log: &Path) -> bool {
    use std::io::Write;
    let mut file = match std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
    {
        Ok(f) => f,
        Err(e) => {
            eprintln!("cannot open log {}: {e}", log.display());
            return false;
        }
    };
    let _ = writeln!(file, "$ {}", describe(cmd));
    let out = file.try_clone().expect("log handle");
    let err = file.try_clone().expect("log handle");
    match cmd.stdin(Stdio::null()).stdout(out).stderr(err).status() {
        Ok(s) => {
            let _ = writeln!(file, "[exit: {s}]");
            s.success()
        }
        Err(e) => {
            let _ = writeln!(file, "[could not start: {e}]");
            false
        }
    }
}

/// Runs a command with inherited output; returns whether it succeeded.
pub fn run_visible(cmd: &mut Command) -> bool {
    eprintln!("$ {}", describe(cmd));
    cmd.status().map(|s| s.success()).unwrap_or(false)
}

pub fn describe(cmd: &Command) -> String {
    let mut s = String::new();
    for (k, v) in cmd.get_envs() {
        if let Some(v) = v {
            s.push_str(&format!("{}={:?} ", k.to_string_lossy(), v));
        }
    }
    s.push_str(&cmd.get_program().to_string_lossy());
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

/// Runs a cargo build command (`cmd`, without a `--message-format`) with
/// JSON messages, diagnostics rendered to stderr, and returns its
/// `compiler-artifact` messages; `what` names the build in the error.
pub fn artifacts(cmd: &mut Command, what: &str) -> Result<Vec<serde_json::Value>, String> {
    cmd.arg("--message-format=json-render-diagnostics")
        .stdout(Stdio::piped());
    eprintln!("$ {}", describe(cmd));
    let out = cmd.output().map_err(|e| format!("cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!("building {what} failed"));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|v| v["reason"] == "compiler-artifact")
        .collect())
}

/// Output of a command (stdout), if it ran and succeeded.
pub fn output(cmd: &mut Command) -> Option<String> {
    let o = cmd.stderr(Stdio::null()).output().ok()?;
    if o.status.success() {
        Some(String::from_utf8_lossy(&o.stdout).into_owned())
    } else {
        None
    }
}

/// Installs Debian packages that are missing, as root; returns the packages
/// still missing afterwards.
pub fn ensure_apt(packages: &[&str], log: &Path) -> Vec<String> {
    let missing = |pkgs: &[&str]| -> Vec<String> {
        pkgs.iter()
            .filter(|p| {
                !Command::new("dpkg-query")
                    .args(["-W", "-f=${Status}", p])
                    .output()
                    .map(|o| String::from_utf8_lossy(&o.stdout).contains("install ok installed"))
                    .unwrap_or(false)
            })
            .map(|p| p.to_string())
            .collect()
    };
    let need = missing(packages);
    if need.is_empty() {
        return need;
    }
    if !is_root() || !have("apt-get") {
        return need;
    }
    let t = Instant::now();
    eprintln!("  installing {} (apt-get)", need.join(" "));
    run_logged(Command::new("apt-get").args(["update", "-qq"]), log);
    let mut install = Command::new("apt-get");
    install
        .env("DEBIAN_FRONTEND", "noninteractive")
        .args(["install", "-y", "-qq", "--no-install-recommends"])
        .args(&need);
    run_logged(&mut install, log);
    eprintln!("  apt-get took {:.0} s", t.elapsed().as_secs_f64());
    missing(packages)
}

/// Adds a rustup target if missing; returns whether it is installed.
pub fn ensure_target(target: &str, log: &Path) -> bool {
    let installed =
        output(Command::new("rustup").args(["target", "list", "--installed"])).unwrap_or_default();
    if installed.lines().any(|l| l.trim() == target) {
        return true;
    }
    run_logged(Command::new("rustup").args(["target", "add", target]), log)
}

/// Installs a rustup toolchain (minimal profile) if missing; returns whether
/// it is there afterwards.
pub fn ensure_toolchain(toolchain: &str, log: &Path) -> bool {
    let installed = |t: &str| {
        output(Command::new("rustup").args(["toolchain", "list"]))
            .unwrap_or_default()
            .lines()
            .any(|l| l.starts_with(t))
    };
    if installed(toolchain) {
        return true;
    }
    run_logged(
        Command::new("rustup").args(["toolchain", "install", toolchain, "--profile", "minimal"]),
        log,
    );
    installed(toolchain)
}

/// Adds a rustup component to a toolchain if missing.
pub fn ensure_component(toolchain: Option<&str>, component: &str, log: &Path) -> bool {
    let mut cmd = Command::new("rustup");
    if let Some(t) = toolchain {
        cmd.arg(format!("+{t}"));
    }
    cmd.args(["component", "add", component]);
    run_logged(&mut cmd, log)
}

/// Sums the `test result:` lines of a cargo test log: (passed, failed, ignored).
pub fn test_counts(log: &str) -> (u64, u64, u64) {
    let mut totals = (0, 0, 0);
    for line in log.lines() {
        let Some(rest) = line.trim().strip_prefix("test result: ") else {
            continue;
        };
        for part in rest.split(';') {
            let words: Vec<&str> = part.split_whitespace().collect();
            let (n, what) = match words.as_slice() {
                [_, n, w, ..] if n.parse::<u64>().is_ok() => (n.parse::<u64>().unwrap_or(0), *w),
                [n, w, ..] => (n.parse::<u64>().unwrap_or(0), *w),
                _ => continue,
            };
            match what {
                "passed" => totals.0 += n,
                "failed" => totals.1 += n,
                "ignored" => totals.2 += n,
                _ => {}
            }
        }
    }
    totals
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_cargo_test_lines() {
        let log = "test result: ok. 12 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.1s\n\
                   test result: FAILED. 3 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out\n";
        assert_eq!(super::test_counts(log), (15, 2, 1));
    }
}
