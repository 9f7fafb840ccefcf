//! The kernels and their static candidate lists (best first, scalar last).
//!
//! A kernel is a table of functions ([`Fns`]): the one-shot hashes with the
//! kernel's way of loading words, and the batch hashes with its SIMD width.
//! [`ALL`] lists the kernels, best first; each dispatched function calls
//! its field of the entry `simd_core::select` picks. Each candidate lists a
//! kernel wherever the CPU *can* run it, so tests and benchmarks reach each
//! one (on riscv64 the word-load kernel wherever misaligned loads are
//! correct, even when they are slow), and carries the stricter test the
//! dispatcher uses to *prefer* it ([`Candidate::preferred_where`]; riscv64:
//! misaligned loads reported fast).

use simd_core::{Candidate, Level};

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

/// The portable kernel, last in every table.
// SAFETY: the scalar functions run on every CPU.
const SCALAR: Candidate<Fns> =
    unsafe { Candidate::new("scalar", Level::Scalar, |_| true, scalar::FNS) };

/// Every kernel, best first: what `kernels()` lists, `selected_kernel()`
/// picks from, and each dispatched function calls a field of.
#[cfg(target_arch = "x86_64")]
pub(crate) static ALL: [Candidate<Fns>; 3] = {
    use x86_64::{avx2, avx512};
    // SAFETY: the avx512 functions need the features `avx512::supported`
    // tests.
    let avx512 = unsafe { Candidate::new("avx512", Level::Avx512, avx512::supported, avx512::FNS) };
    // SAFETY: the avx2 functions need the features `avx2::supported` tests.
    let avx2 = unsafe { Candidate::new("avx2", Level::Avx2, avx2::supported, avx2::FNS) };
    [avx512, avx2, SCALAR]
};

/// Every kernel, best first (see the x86_64 table).
#[cfg(target_arch = "aarch64")]
pub(crate) static ALL: [Candidate<Fns>; 2] = {
    use aarch64::neon;
    // SAFETY: the NEON functions need the features `neon::supported` tests.
    let neon = unsafe { Candidate::new("neon", Level::Neon, neon::supported, neon::FNS) };
    [neon, SCALAR]
};

/// Every kernel, best first (see the x86_64 table). The word-load kernel
/// is listed wherever misaligned loads are correct, so tests reach it, and
/// picked only where they are fast.
#[cfg(target_arch = "riscv64")]
pub(crate) static ALL: [Candidate<Fns>; 2] = {
    // SAFETY: the word-load functions are correct wherever `riscv64::runs`
    // holds (misaligned loads do not trap); `preferred_where` only narrows
    // the dispatcher's choice.
    let word = unsafe { Candidate::new("rv64-word", Level::Scalar, riscv64::runs, riscv64::FNS) }
        .preferred_where(riscv64::preferred);
    [word, SCALAR]
};

/// Every kernel: the portable one only.
#[cfg(not(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "riscv64"
)))]
pub(crate) static ALL: [Candidate<Fns>; 1] = [SCALAR];

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

    /// Every SIMD kernel's table (that this CPU runs) holds its own batch
    /// functions, not the scalar ones its `..scalar::FNS` fills in (those
    /// would hash correctly and pass every oracle test, only slowly).
    #[test]
    fn tables_hold_their_own_batches() {
        let s = scalar::FNS;
        for k in simd_core::supported(&ALL).filter(|k| k.name() != "scalar") {
            let f = k.func();
            let pairs = [
                (f.batch12, s.batch12),
                (f.batch13, s.batch13),
                (f.batch24, s.batch24),
            ];
            for (own, scalar) in pairs {
                assert_ne!(own as usize, scalar as usize, "{}", k.name());
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
