//! The dynamic checkers: Miri, AddressSanitizer and the fuzz targets.

use crate::ci::exec::{ensure_nightly, last_level, test_cell_on, test_outcome, Toolchain};
use crate::ci::{Cell, Ctx, Outcome, CROSS_EXCLUDES};
use crate::fuzz;
use crate::util;
use std::path::{Path, PathBuf};

/// `miri`, `asan`, `fuzz`.
pub fn cells() -> Vec<Cell> {
    vec![
        Cell::new(
            "miri",
            "Miri: unit tests (scalar kernels, dispatch) and Miri-sized property tests, scalar level (nightly)",
            |_, log| miri(log),
        )
        .scratch("target/miri"),
        Cell::new(
            "asan",
            "AddressSanitizer: the test suites natively (nightly -Zsanitizer=address)",
            asan,
        )
        .scratch("target/asan"),
        Cell::new(
            "fuzz",
            "cargo-fuzz targets, 20 s each (libFuzzer + ASan, nightly)",
            fuzz_all,
        )
        .scratch("fuzz/target"),
    ]
}

/// The `miri` cell at the scalar level: the unit tests, the property tests
/// that scale themselves down under Miri, and the first calls raced from
/// several threads. Miri runs on one core: hll's unit tests (half the
/// cell's time) run beside the rest, each run with its own log, and the
/// cell's log then holds both.
fn miri(log: &Path) -> Outcome {
    if let Some(why) = ensure_nightly(&["miri", "rust-src"], log) {
        return Outcome::Skipped(why);
    }
    // Unit tests: they cover the scalar kernels and the dispatch logic at
    // Miri-sized inputs; the other integration suites (golden files,
    // exhaustive lengths) would take hours under Miri. hll's are run on
    // their own: with `-p hll` cargo would turn off the default features
    // of cpu-detect and simd-core (on when they are selected too), so they
    // are named, and hll's test build is the one the workspace run makes.
    let hll = [
        "miri",
        "test",
        "-p",
        "hll",
        "--lib",
        "--features",
        "cpu-detect/default,simd-core/default",
    ];
    let mut lib = vec!["miri", "test", "--workspace", "--lib", "--exclude", "hll"];
    lib.extend(CROSS_EXCLUDES);
    // The property tests that scale themselves down under Miri (the counts
    // in the summary cover every run).
    let proptest = [
        "miri",
        "test",
        "-p",
        "memeq",
        "-p",
        "siphash-fast",
        "--test",
        "proptest",
    ];
    // The first calls raced from several threads, where Miri checks the
    // dispatch caches for data races (hll's suite, on 16384 registers per
    // call, takes minutes under Miri; its caches are the same
    // `simd_core::FnCache`).
    let threads = [
        "miri",
        "test",
        "-p",
        "bitcount",
        "-p",
        "memeq",
        "-p",
        "siphash-fast",
        "--test",
        "threads",
    ];
    // One test thread: Miri interleaves a binary's test threads on one
    // core, and switching between them made hll's suite 1.4x slower.
    let env = [
        ("CPU_DETECT_MAX_LEVEL", "scalar"),
        ("MIRIFLAGS", "-Zmiri-disable-isolation"),
        ("RUST_TEST_THREADS", "1"),
    ];
    let hll_log = log.with_file_name("miri-hll.log");
    let _ = std::fs::remove_file(&hll_log);
    let (hll_ok, rest_ok) = std::thread::scope(|s| {
        let hll = s.spawn(|| test_cell_on(&hll_log, Toolchain::Nightly, &env, None, &hll));
        let rest_ok = [lib.as_slice(), &proptest, &threads]
            .into_iter()
            .all(|args| {
                let run = test_cell_on(log, Toolchain::Nightly, &env, None, args);
                matches!(run, Outcome::Passed(_))
            });
        (matches!(hll.join(), Ok(Outcome::Passed(_))), rest_ok)
    });
    let level = last_level(log);
    let hll_text = std::fs::read_to_string(&hll_log).unwrap_or_default();
    let _ = util::append(
        log,
        &format!("---- hll's unit tests, run beside the above ----\n{hll_text}"),
    );
    let _ = std::fs::remove_file(&hll_log);
    test_outcome(log, &level, hll_ok && rest_ok)
}

/// The `asan` cell: the libraries' and tests' suites natively under ASan.
fn asan(ctx: &Ctx, log: &Path) -> Outcome {
    if ctx.host_arch != "x86_64" {
        return Outcome::Skipped("the ASan cell is set up for x86_64 hosts".into());
    }
    if let Some(why) = ensure_nightly(&["rust-src"], log) {
        return Outcome::Skipped(why);
    }
    let mut args = vec![
        "test",
        "--workspace",
        "--lib",
        "--tests",
        "--target",
        "x86_64-unknown-linux-gnu",
    ];
    args.extend(CROSS_EXCLUDES);
    test_cell_on(
        log,
        Toolchain::Nightly,
        &[
            ("RUSTFLAGS", "-Zsanitizer=address"),
            ("CARGO_TARGET_DIR", "target/asan"),
        ],
        None,
        &args,
    )
}

/// The `fuzz` cell: every fuzz target for 20 s. A libFuzzer run uses one
/// core, so two targets run at a time, each with its own log, which the
/// cell's log then holds in target order.
fn fuzz_all(ctx: &Ctx, log: &Path) -> Outcome {
    if let Err(why) = fuzz::ensure_tools(log) {
        return Outcome::Skipped(why);
    }
    let targets = fuzz::targets(&ctx.root);
    if targets.is_empty() {
        return Outcome::Skipped("no fuzz targets".into());
    }
    let mut parts = Vec::new();
    let mut bad = Vec::new();
    for pair in targets.chunks(2) {
        let runs: Vec<fuzz::FuzzRun> = std::thread::scope(|s| {
            let handles: Vec<_> = pair
                .iter()
                .map(|t| {
                    s.spawn(|| {
                        let own = target_log(log, t);
                        let _ = std::fs::remove_file(&own);
                        fuzz::run(&ctx.root, t, 20, &own)
                    })
                })
                .collect();
            handles.into_iter().filter_map(|h| h.join().ok()).collect()
        });
        if runs.len() < pair.len() {
            bad.push(format!("{}: the run panicked", pair.join(", ")));
        }
        for r in runs {
            let own = target_log(log, &r.target);
            let text = std::fs::read_to_string(&own).unwrap_or_default();
            let _ = util::append(log, &format!("---- fuzz target {} ----\n{text}", r.target));
            let _ = std::fs::remove_file(&own);
            let t = &r.target;
            match (&r.crash, r.ok) {
                (Some(p), _) => bad.push(format!("{t}: crash, reproducer {p}")),
                (None, false) => bad.push(format!("{t}: build or run failed")),
                (None, true) => parts.push(format!("{t} {} execs", r.executions)),
            }
        }
    }
    if bad.is_empty() {
        Outcome::Passed(parts.join(", "))
    } else {
        Outcome::Failed(bad.join("; "))
    }
}

/// The log of one fuzz target's run, next to the cell's.
fn target_log(log: &Path, target: &str) -> PathBuf {
    log.with_file_name(format!("fuzz-{target}.log"))
}
