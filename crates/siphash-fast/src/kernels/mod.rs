//! The kernels and their static candidate lists (best first, scalar last).
//!
//! A kernel is a table of functions ([`Fns`]): the one-shot hashes with the
//! kernel's way of loading words, and the batch hashes with its SIMD width.
//! Every list is built from the same [`Def`]s: [`ALL`] (the tables, for
//! [`crate::kernels`] and [`crate::selected_kernel`]) and one list per
//! dispatched function. Each candidate lists a kernel wherever the CPU *can*
//! run it, so tests and benchmarks reach each one (on riscv64 the word-load
//! kernel wherever misaligned loads are correct, even when they are slow),
//! and carries the stricter test the dispatcher uses to *prefer* it
//! ([`Candidate::preferred_where`]; riscv64: misaligned loads reported
//! fast).

use simd_core::{Candidate, Features, Level};

pub(crate) mod scalar;

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;

#[cfg(target_arch = "riscv64")]
pub(crate) mod riscv64;

/// A one-shot 64-bit hash. Safety: the CPU has the kernel's features.
pub(crate) type OneShot = unsafe fn(&[u8; 16], &[u8]) -> u64;
/// A one-shot 128-bit hash. Safety: the CPU has the kernel's features.
pub(crate) type OneShot128 = unsafe fn(&[u8; 16], &[u8]) -> u128;
/// A batch hash: `out[i]` = hash of `inputs[i]` for `i < min(len, len)`.
/// Safety: the CPU has the kernel's features.
pub(crate) type Batch = unsafe fn(&[u8; 16], &[&[u8]], &mut [u64]);

/// One kernel's functions.
#[derive(Clone, Copy)]
pub(crate) struct Fns {
    pub(crate) sip12: OneShot,
    pub(crate) sip12_nocase: OneShot,
    pub(crate) sip13: OneShot,
    pub(crate) sip24: OneShot,
    pub(crate) sip13_128: OneShot128,
    pub(crate) sip24_128: OneShot128,
    pub(crate) batch12: Batch,
    pub(crate) batch13: Batch,
    pub(crate) batch24: Batch,
}

/// A kernel description from which the candidate lists are built.
#[derive(Clone, Copy)]
pub(crate) struct Def {
    name: &'static str,
    level: Level,
    /// The CPU can run it (tests, benchmarks).
    runs: fn(&Features) -> bool,
    /// The dispatcher should choose it.
    preferred: fn(&Features) -> bool,
    fns: Fns,
}

fn always(_: &Features) -> bool {
    true
}

const SCALAR: Def = Def {
    name: "scalar",
    level: Level::Scalar,
    runs: always,
    preferred: always,
    fns: scalar::FNS,
};

#[cfg(target_arch = "x86_64")]
const DEFS: [Def; 3] = [
    Def {
        name: "avx512",
        level: Level::Avx512,
        runs: x86_64::avx512::supported,
        preferred: x86_64::avx512::supported,
        fns: x86_64::avx512::FNS,
    },
    Def {
        name: "avx2",
        level: Level::Avx2,
        runs: x86_64::avx2::supported,
        preferred: x86_64::avx2::supported,
        fns: x86_64::avx2::FNS,
    },
    SCALAR,
];

#[cfg(target_arch = "aarch64")]
const DEFS: [Def; 2] = [
    Def {
        name: "neon",
        level: Level::Neon,
        runs: aarch64::neon::supported,
        preferred: aarch64::neon::supported,
        fns: aarch64::neon::FNS,
    },
    SCALAR,
];

#[cfg(target_arch = "riscv64")]
const DEFS: [Def; 2] = [
    Def {
        name: "rv64-word",
        level: Level::Scalar,
        runs: riscv64::runs,
        preferred: riscv64::preferred,
        fns: riscv64::FNS,
    },
    SCALAR,
];

#[cfg(not(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "riscv64"
)))]
const DEFS: [Def; 1] = [SCALAR];

/// How many kernels this target has.
pub(crate) const N: usize = DEFS.len();

/// Which function of a [`Fns`] table a list holds (riscv64 dispatches
/// one-shots; other targets inline them).
#[cfg(all(target_arch = "riscv64", not(target_feature = "unaligned-scalar-mem")))]
#[derive(Clone, Copy)]
pub(crate) enum Which {
    Sip12,
    Sip12Nocase,
    Sip13,
    Sip24,
}

/// Which 128-bit function.
#[cfg(all(target_arch = "riscv64", not(target_feature = "unaligned-scalar-mem")))]
#[derive(Clone, Copy)]
pub(crate) enum Which128 {
    Sip13,
    Sip24,
}

/// Which batch function.
#[derive(Clone, Copy)]
pub(crate) enum WhichBatch {
    Sip12,
    Sip13,
    Sip24,
}

#[cfg(all(target_arch = "riscv64", not(target_feature = "unaligned-scalar-mem")))]
const fn pick(fns: Fns, w: Which) -> OneShot {
    match w {
        Which::Sip12 => fns.sip12,
        Which::Sip12Nocase => fns.sip12_nocase,
        Which::Sip13 => fns.sip13,
        Which::Sip24 => fns.sip24,
    }
}

#[cfg(all(target_arch = "riscv64", not(target_feature = "unaligned-scalar-mem")))]
const fn pick128(fns: Fns, w: Which128) -> OneShot128 {
    match w {
        Which128::Sip13 => fns.sip13_128,
        Which128::Sip24 => fns.sip24_128,
    }
}

const fn pick_batch(fns: Fns, w: WhichBatch) -> Batch {
    match w {
        WhichBatch::Sip12 => fns.batch12,
        WhichBatch::Sip13 => fns.batch13,
        WhichBatch::Sip24 => fns.batch24,
    }
}

/// The candidate for kernel `d` with function `f`: listed where `d.runs`
/// holds, dispatched where `d.preferred` also does.
///
/// # Safety
/// `f` must be one of `d.fns`' functions.
const unsafe fn candidate<F: Copy>(d: Def, f: F) -> Candidate<F> {
    // SAFETY: `f` is one of `d`'s functions (the caller's condition), and
    // each `Def` pairs its functions with the feature test they need (see
    // the `runs` functions of each kernel module); `preferred` only narrows
    // the dispatcher's choice.
    unsafe { Candidate::new(d.name, d.level, d.runs, f) }.preferred_where(d.preferred)
}

/// Every kernel's table, best first (for `kernels()` and
/// `selected_kernel()`).
pub(crate) static ALL: [Candidate<Fns>; N] = {
    // SAFETY: the function is taken from the same `Def`.
    let mut out = [unsafe { candidate(SCALAR, SCALAR.fns) }; N];
    let mut i = 0;
    while i < N {
        // SAFETY: the function is taken from the same `Def`.
        out[i] = unsafe { candidate(DEFS[i], DEFS[i].fns) };
        i += 1;
    }
    out
};

/// The dispatch list of one 64-bit one-shot function.
#[cfg(all(target_arch = "riscv64", not(target_feature = "unaligned-scalar-mem")))]
pub(crate) const fn oneshot_list(w: Which) -> [Candidate<OneShot>; N] {
    // SAFETY: the function is taken from the same `Def`.
    let mut out = [unsafe { candidate(SCALAR, pick(SCALAR.fns, w)) }; N];
    let mut i = 0;
    while i < N {
        // SAFETY: the function is taken from the same `Def`.
        out[i] = unsafe { candidate(DEFS[i], pick(DEFS[i].fns, w)) };
        i += 1;
    }
    out
}

/// The dispatch list of one 128-bit one-shot function.
#[cfg(all(target_arch = "riscv64", not(target_feature = "unaligned-scalar-mem")))]
pub(crate) const fn oneshot128_list(w: Which128) -> [Candidate<OneShot128>; N] {
    // SAFETY: the function is taken from the same `Def`.
    let mut out = [unsafe { candidate(SCALAR, pick128(SCALAR.fns, w)) }; N];
    let mut i = 0;
    while i < N {
        // SAFETY: the function is taken from the same `Def`.
        out[i] = unsafe { candidate(DEFS[i], pick128(DEFS[i].fns, w)) };
        i += 1;
    }
    out
}

/// The dispatch list of one batch function.
pub(crate) const fn batch_list(w: WhichBatch) -> [Candidate<Batch>; N] {
    // SAFETY: the function is taken from the same `Def`.
    let mut out = [unsafe { candidate(SCALAR, pick_batch(SCALAR.fns, w)) }; N];
    let mut i = 0;
    while i < N {
        // SAFETY: the function is taken from the same `Def`.
        out[i] = unsafe { candidate(DEFS[i], pick_batch(DEFS[i].fns, w)) };
        i += 1;
    }
    out
}

/// The word a batch lane absorbs at block `j`: data block `j` while
/// `j < nfull`, else the lane's final word (lanes past their final word are
/// masked off by the kernels, so what they read there does not matter).
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(dead_code)
)]
#[inline(always)]
pub(crate) fn lane_word(data: &[u8], nfull: usize, fin: u64, j: usize) -> u64 {
    if j < nfull {
        let b: &[u8; 8] = data[8 * j..8 * j + 8].try_into().expect("8 bytes");
        u64::from_le_bytes(*b)
    } else {
        fin
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every SIMD kernel's table holds its own batch functions, not the
    /// scalar ones its `..scalar::FNS` fills in (those would hash correctly
    /// and pass every oracle test, only slowly).
    #[test]
    fn tables_hold_their_own_batches() {
        let s = SCALAR.fns;
        for d in DEFS.iter().filter(|d| d.name != SCALAR.name) {
            let pairs = [
                (d.fns.batch12, s.batch12),
                (d.fns.batch13, s.batch13),
                (d.fns.batch24, s.batch24),
            ];
            for (own, scalar) in pairs {
                assert_ne!(own as usize, scalar as usize, "{}", d.name);
            }
        }
    }
}

#[cfg(test)]
mod needs {
    /// Each kernel's feature test asks for exactly the features it uses (a
    /// CPU with AVX-512F but no AVX2 exists only in emulators, but the test
    /// states the contract). The riscv64 word kernel's test reads the
    /// misaligned-access answer, no flag: see its own tests.
    #[test]
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    fn feature_tests_state_each_kernels_needs() {
        #[cfg(target_arch = "x86_64")]
        let table: &[(&str, &[&str])] = &[
            ("avx512", &["avx512f", "avx2"]),
            ("avx2", &["avx2"]),
            ("scalar", &[]),
        ];
        #[cfg(target_arch = "aarch64")]
        let table: &[(&str, &[&str])] = &[("neon", &["neon"]), ("scalar", &[])];
        simd_core::testing::assert_kernel_needs(&super::ALL, table);
    }
}
