//! The dynamic checkers: Miri, AddressSanitizer and the fuzz targets.

use crate::ci::exec::{ensure_nightly, test_cell_on, Toolchain};
use crate::ci::{Cell, Ctx, Outcome, CROSS_EXCLUDES};
use crate::fuzz;
use std::path::Path;

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

/// The `miri` cell: three `cargo miri test` runs at the scalar level.
fn miri(log: &Path) -> Outcome {
    if let Some(why) = ensure_nightly(&["miri", "rust-src"], log) {
        return Outcome::Skipped(why);
    }
    // Unit tests first: they cover the scalar kernels and the dispatch
    // logic at Miri-sized inputs; the other integration suites (golden
    // files, exhaustive lengths) would take hours under Miri.
    let mut lib = vec!["miri", "test", "--workspace", "--lib"];
    lib.extend(CROSS_EXCLUDES);
    // Plus the property tests that scale themselves down under Miri (the
    // counts in the summary cover every run).
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
    // And the first calls raced from several threads, where Miri checks
    // the dispatch caches for data races (hll's suite, on 16384 registers
    // per call, takes minutes under Miri; its caches are the same
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
    let env = [
        ("CPU_DETECT_MAX_LEVEL", "scalar"),
        ("MIRIFLAGS", "-Zmiri-disable-isolation"),
    ];
    let mut outcome = Outcome::Skipped(String::new());
    for args in [lib.as_slice(), &proptest, &threads] {
        outcome = test_cell_on(log, Toolchain::Nightly, &env, None, args);
        if !matches!(outcome, Outcome::Passed(_)) {
            break;
        }
    }
    outcome
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

/// The `fuzz` cell: every fuzz target for 20 s.
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
    for t in &targets {
        let r = fuzz::run(&ctx.root, t, 20, log);
        match (&r.crash, r.ok) {
            (Some(p), _) => bad.push(format!("{t}: crash, reproducer {p}")),
            (None, false) => bad.push(format!("{t}: build or run failed")),
            (None, true) => parts.push(format!("{t} {} execs", r.executions)),
        }
    }
    if bad.is_empty() {
        Outcome::Passed(parts.join(", "))
    } else {
        Outcome::Failed(bad.join("; "))
    }
}
