//! The test suites on this machine: with every native feature, under each
//! level ceiling below the host's, and built for an x86-64 feature level.

use crate::ci::exec::{need_qemu, target_test_args, test_cell};
use crate::ci::{Cell, Outcome, DATAFUSION_EXCLUDE, NATIVE_FEATURES};
use crate::util::{self, cargo};
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

/// `test-native`.
pub fn test_native() -> Cell {
    Cell::new(
        "test-native",
        "cargo test --workspace (native, no ceiling, doctests, hll's serde feature)",
        |_, log| {
            // hll's `serde` support is an optional feature no workspace
            // member turns on: without it its tests compile to nothing.
            test_cell(
                log,
                &[],
                None,
                &[
                    ["test", "--workspace"].as_slice(),
                    &DATAFUSION_EXCLUDE,
                    &["--features", NATIVE_FEATURES],
                ]
                .concat(),
            )
        },
    )
}

/// `test-cap-<level>` for each x86 level below avx512 (x86_64 hosts); a
/// level not below the host's is skipped.
pub fn caps() -> Vec<Cell> {
    ["scalar", "sse4.2", "avx2"]
        .into_iter()
        .map(|cap| {
            Cell::new(
                format!("test-cap-{cap}"),
                format!("cargo test with CPU_DETECT_MAX_LEVEL={cap}"),
                move |ctx, log| {
                    let detected = detected_level(&ctx.root);
                    if level_rank(cap) >= level_rank(detected) {
                        return Outcome::Skipped(format!(
                            "host level is {detected} (not above {cap})"
                        ));
                    }
                    test_cell(
                        log,
                        &[("CPU_DETECT_MAX_LEVEL", cap)],
                        None,
                        &[
                            ["test", "--workspace"].as_slice(),
                            &DATAFUSION_EXCLUDE,
                            &["--lib", "--tests", "--examples"],
                        ]
                        .concat(),
                    )
                },
            )
        })
        .collect()
}

/// `test-x86-64-v3` and `-v4` (x86_64 hosts).
///
/// The whole workspace built with an x86-64 feature level enabled at
/// compile time (what `-C target-cpu=native` gives on such CPUs): memeq
/// then inlines its AVX2 (v3) or AVX-512 (v4) short paths with no class
/// byte, `cfg(target_feature)` arms no other cell compiles, and feature
/// tests answer from the build. `--target` keeps the flags off build
/// scripts and proc macros, which run on the host. v3 runs under qemu's
/// Haswell (any host); v4 needs AVX-512 hardware (qemu 7.2 has none), so it
/// runs natively or not at all.
pub fn x86_64_levels() -> Vec<Cell> {
    [("v3", Some("Haswell")), ("v4", None)]
        .into_iter()
        .map(|(level, qemu_cpu)| {
            let what = match qemu_cpu {
                Some(cpu) => format!(
                    "tests built with -C target-cpu=x86-64-{level} under qemu-x86_64 -cpu {cpu}"
                ),
                None => {
                    format!("tests built with -C target-cpu=x86-64-{level}, native (AVX-512 hosts)")
                }
            };
            Cell::new(format!("test-x86-64-{level}"), what, move |_, log| {
                x86_64_level(level, qemu_cpu, log)
            })
            .scratch(format!("target/x86-64-{level}"))
        })
        .collect()
}

/// One `test-x86-64-<level>` cell, under `qemu-x86_64 -cpu <qemu_cpu>` when
/// given, else natively.
fn x86_64_level(level: &str, qemu_cpu: Option<&str>, log: &Path) -> Outcome {
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
        return Outcome::Skipped("the host lacks AVX-512 F/BW/CD/DQ/VL (x86-64-v4)".into());
    }
    test_cell(log, &env, Some((X86, "")), &target_test_args(X86))
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

/// The level cpu-detect reports natively (from the report example), found
/// once per run.
fn detected_level(root: &Path) -> &'static str {
    static LEVEL: OnceLock<String> = OnceLock::new();
    LEVEL.get_or_init(|| {
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
    })
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
