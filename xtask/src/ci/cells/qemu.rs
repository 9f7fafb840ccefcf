//! The test suites under qemu-user: x86-64 CPU models with real detection,
//! and the cross targets (NEON, 32-bit, big-endian, RISC-V with and without
//! Zbb), plus the RISC-V disassembly check.

use crate::ci::exec::{need_qemu, run_cell, target_test_args, test_cell};
use crate::ci::{Cell, Outcome, CROSS_EXCLUDES};
use crate::util;
use std::path::Path;
use std::process::Command;

/// The x86-64 CPU models: (cell suffix, `qemu-x86_64 -cpu` argument).
///
/// Haswell: Intel AVX2; EPYC-Milan's features (AMD Zen 3: AVX2 + BMI2, no
/// AVX-512) under Zen 5's family number 0x1A, the AVX2-only CPUID on which
/// hll's `avx2-pext` pack is the one dispatched (qemu 7.2 has no Zen 5
/// model; a real Zen 3, family 0x19, measured the plain `avx2` pack faster
/// and keeps it); EPYC: AMD Zen 1 (family 0x17 model 1, 256-bit operations
/// split in halves, so bitcount counts with POPCNT and memeq's `eq` takes
/// SSE2 where the AVX2 kernels are picked); Nehalem: SSE4.2; core2duo:
/// SSSE3, no POPCNT.
const X86_64_MODELS: [(&str, &str); 5] = [
    ("haswell", "Haswell"),
    ("epyc-milan-family-1a", "EPYC-Milan,family=26,model=2"),
    ("epyc", "EPYC"),
    ("nehalem", "Nehalem"),
    ("core2duo", "core2duo"),
];

/// The model whose 256-bit operations are split in halves
/// (`KVPRIMS_EXPECT_SPLIT_256=1` makes cpu-detect's test check that
/// detection sees the core as the cell intends).
const SPLIT_256_MODEL: &str = "EPYC";

/// `qemu-x86_64-<model>` per [`X86_64_MODELS`] (x86_64 hosts).
pub fn x86_64_models() -> Vec<Cell> {
    X86_64_MODELS
        .into_iter()
        .map(|(name, cpu)| {
            Cell::new(
                format!("qemu-x86_64-{name}"),
                format!("tests under qemu-x86_64 -cpu {cpu} (real detection, no ceiling)"),
                move |_, log| x86_64_model(cpu, log),
            )
        })
        .collect()
}

/// One `qemu-x86_64-<model>` cell: the host build's tests under
/// `qemu-x86_64 -cpu <cpu>`.
fn x86_64_model(cpu: &str, log: &Path) -> Outcome {
    if let Some(why) = need_qemu(&["qemu-user"], "qemu-x86_64", log) {
        return Outcome::Skipped(why);
    }
    let runner = format!("qemu-x86_64 -cpu {cpu}");
    let split = if cpu == SPLIT_256_MODEL { "1" } else { "0" };
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
}

/// A cross target's cell.
struct Cross {
    name: &'static str,
    what: &'static str,
    target: &'static str,
    /// The Debian packages of its cross gcc and libc.
    gcc: &'static str,
    libc: &'static str,
    /// The qemu-user binary and the runner command line.
    qemu: &'static str,
    runner: &'static str,
    /// Extra environment; a `CARGO_TARGET_DIR` here is the cell's own
    /// build directory instead of `target/<target>`.
    env: &'static [(&'static str, &'static str)],
}

const AARCH64: &str = "aarch64-unknown-linux-gnu";
const RISCV64: &str = "riscv64gc-unknown-linux-gnu";

/// The cross targets before the disassembly check. 32-bit x86 and s390x
/// have no SIMD kernel and test the portable code: `usize` of 32 bits and
/// cpu-detect's CPUID path in a 32-bit build (qemu-user's default model
/// reports an AMD family 6 CPU with AVX2, so the level detected is avx2 and
/// the kernels run are the portable ones); big-endian s390x (the SWAR scans
/// and every byte-order conversion, against the same oracles and golden
/// files).
const CROSS: [Cross; 4] = [
    Cross {
        name: "qemu-aarch64",
        what: "tests for aarch64 (NEON) under qemu-aarch64",
        target: AARCH64,
        gcc: "gcc-aarch64-linux-gnu",
        libc: "libc6-dev-arm64-cross",
        qemu: "qemu-aarch64",
        runner: "qemu-aarch64 -L /usr/aarch64-linux-gnu",
        env: &[],
    },
    Cross {
        name: "qemu-i686",
        what: "tests for i686 (32-bit x86) under qemu-i386: a 32-bit target (usize of 32 bits, the portable kernels)",
        target: "i686-unknown-linux-gnu",
        gcc: "gcc-i686-linux-gnu",
        libc: "libc6-dev-i386-cross",
        qemu: "qemu-i386",
        runner: "qemu-i386 -L /usr/i686-linux-gnu",
        env: &[],
    },
    Cross {
        name: "qemu-s390x",
        what: "tests for s390x under qemu-s390x: a big-endian target (the portable kernels, byte order)",
        target: "s390x-unknown-linux-gnu",
        gcc: "gcc-s390x-linux-gnu",
        libc: "libc6-dev-s390x-cross",
        qemu: "qemu-s390x",
        runner: "qemu-s390x -L /usr/s390x-linux-gnu",
        env: &[],
    },
    Cross {
        name: "qemu-riscv64",
        what: "tests for riscv64gc under qemu-riscv64 (no Zbb)",
        target: RISCV64,
        gcc: "gcc-riscv64-linux-gnu",
        libc: "libc6-dev-riscv64-cross",
        qemu: "qemu-riscv64",
        runner: "qemu-riscv64 -L /usr/riscv64-linux-gnu",
        env: &[],
    },
];

/// qemu-user 7.2 has no riscv_hwprobe, so run-time detection cannot see Zbb
/// there: built with it enabled (in its own target dir, so that the two
/// builds do not invalidate each other) to run the Zbb kernels, and with
/// unaligned-scalar-mem for the compile-time word-load path of siphash-fast
/// (rustc warns that the feature name is unstable; the cell does not deny
/// warnings).
const RISCV64_ZBB: Cross = Cross {
    name: "qemu-riscv64-zbb",
    what: "tests for riscv64gc built with +zbb,+unaligned-scalar-mem (compile-time paths) under qemu-riscv64 -cpu rv64,zbb=true",
    target: RISCV64,
    gcc: "gcc-riscv64-linux-gnu",
    libc: "libc6-dev-riscv64-cross",
    qemu: "qemu-riscv64",
    runner: "qemu-riscv64 -L /usr/riscv64-linux-gnu -cpu rv64,zbb=true",
    env: &[
        (
            "CARGO_TARGET_RISCV64GC_UNKNOWN_LINUX_GNU_RUSTFLAGS",
            "-C target-feature=+zbb,+unaligned-scalar-mem",
        ),
        ("CARGO_TARGET_DIR", "target/riscv64-zbb"),
    ],
};

/// The cross cells in order: [`CROSS`], `riscv64-disasm`, [`RISCV64_ZBB`].
pub fn cross() -> Vec<Cell> {
    let mut v: Vec<Cell> = CROSS.iter().map(cross_cell).collect();
    v.push(riscv64_disasm());
    v.push(cross_cell(&RISCV64_ZBB));
    v
}

fn cross_cell(c: &'static Cross) -> Cell {
    let dir = c
        .env
        .iter()
        .find(|(k, _)| *k == "CARGO_TARGET_DIR")
        .map_or_else(|| format!("target/{}", c.target), |(_, d)| d.to_string());
    Cell::new(c.name, c.what, move |_, log| run_cross(c, log)).scratch(dir)
}

/// Runs a cross target's tests under its qemu runner.
fn run_cross(c: &Cross, log: &Path) -> Outcome {
    if let Some(why) = need_qemu(&["qemu-user", c.gcc, c.libc], c.qemu, log) {
        return Outcome::Skipped(why);
    }
    if !util::ensure_target(c.target, log) {
        return Outcome::Skipped(format!("rustup target {} unavailable", c.target));
    }
    let var = format!(
        "CARGO_TARGET_{}_RUNNER",
        c.target.to_uppercase().replace('-', "_")
    );
    let mut env = vec![(var.as_str(), c.runner)];
    env.extend_from_slice(c.env);
    test_cell(
        log,
        &env,
        Some((c.target, c.runner)),
        &target_test_args(c.target),
    )
}

/// `riscv64-disasm`: siphash-fast's riscv64 word path reads with `ld`, in
/// the riscv64 build directory that `qemu-riscv64` left.
fn riscv64_disasm() -> Cell {
    Cell::new(
        "riscv64-disasm",
        "siphash-fast riscv64 word path: `ld` in the block loop, no `lbu` (objdump)",
        |_, log| {
            if let Some(why) = need_qemu(
                &["binutils-riscv64-linux-gnu"],
                "riscv64-linux-gnu-objdump",
                log,
            ) {
                return Outcome::Skipped(why);
            }
            if !util::ensure_target(RISCV64, log) {
                return Outcome::Skipped(format!("rustup target {RISCV64} unavailable"));
            }
            run_cell(
                Command::new("bash").arg("crates/siphash-fast/scripts/check-riscv-disasm.sh"),
                "every instance of the word-load block loop uses ld, no lbu",
                log,
            )
        },
    )
    .scratch(format!("target/{RISCV64}"))
}
