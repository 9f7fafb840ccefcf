//! Which kernel runs.
//!
//! - One-shot hashes on x86_64 and aarch64 call the scalar code directly,
//!   inlined: a single SipHash is one serial dependency chain, which no SIMD
//!   kernel shortens, and skipping the function pointer is what keeps 8-byte
//!   inputs fast.
//! - On riscv64 one-shot hashes of 8 bytes or more go through a cached
//!   function pointer: the word-load kernel when `riscv_hwprobe` reports fast
//!   misaligned access, the byte-load scalar kernel otherwise. Shorter inputs,
//!   and every input when the target enables `unaligned-scalar-mem` at compile
//!   time (then plain Rust loads already compile to `ld`), take the inlined
//!   scalar code.
//! - Batches of 4 or more inputs go through a cached function pointer to the
//!   widest SIMD kernel the CPU and the `CPU_DETECT_MAX_LEVEL` ceiling allow;
//!   smaller batches are inlined scalar loops.
//!
//! [`ALL`] lists the kernels, best first, scalar last; each dispatched
//! function calls its field of the entry `simd_core::select` picks. Each
//! candidate lists a kernel wherever the CPU *can* run it, so tests and
//! benchmarks reach each one (on riscv64 the word-load kernel wherever
//! misaligned loads are correct, even when they are slow), and carries the
//! stricter test the dispatcher uses to *prefer* it
//! ([`Candidate::preferred_where`]; riscv64: misaligned loads reported
//! fast).

use crate::kernels::{scalar, Fns};
use simd_core::{Candidate, Level};

/// The portable kernel, last in every table.
// SAFETY: the scalar functions run on every CPU.
const SCALAR: Candidate<Fns> =
    unsafe { Candidate::new("scalar", Level::Scalar, |_| true, scalar::FNS) };

/// Every kernel, best first: what `kernels()` lists, `selected_kernel()`
/// picks from, and each dispatched function calls a field of.
#[cfg(target_arch = "x86_64")]
pub(crate) static ALL: [Candidate<Fns>; 3] = {
    use crate::kernels::x86_64::{avx2, avx512};
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
    use crate::kernels::aarch64::neon;
    // SAFETY: the NEON functions need the features `neon::supported` tests.
    let neon = unsafe { Candidate::new("neon", Level::Neon, neon::supported, neon::FNS) };
    [neon, SCALAR]
};

/// Every kernel, best first (see the x86_64 table). The word-load kernel
/// is listed wherever misaligned loads are correct, so tests reach it, and
/// picked only where they are fast.
#[cfg(target_arch = "riscv64")]
pub(crate) static ALL: [Candidate<Fns>; 2] = {
    use crate::kernels::riscv64;
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

/// Below this many inputs a batch is a plain loop of inlined one-shots.
pub(crate) const BATCH_MIN: usize = 4;

simd_core::dispatch! {
    /// SipHash-1-2 batch, best kernel.
    #[allow(clippy::unused_unit)]
    pub(crate) fn batch12(key: &[u8; 16], inputs: &[&[u8]], out: &mut [u64]) -> () = &ALL, .batch12;
}
simd_core::dispatch! {
    /// SipHash-1-3 batch, best kernel.
    #[allow(clippy::unused_unit)]
    pub(crate) fn batch13(key: &[u8; 16], inputs: &[&[u8]], out: &mut [u64]) -> () = &ALL, .batch13;
}
simd_core::dispatch! {
    /// SipHash-2-4 batch, best kernel.
    #[allow(clippy::unused_unit)]
    pub(crate) fn batch24(key: &[u8; 16], inputs: &[&[u8]], out: &mut [u64]) -> () = &ALL, .batch24;
}

/// riscv64 without compile-time fast misaligned loads: run-time choice.
#[cfg(all(target_arch = "riscv64", not(target_feature = "unaligned-scalar-mem")))]
mod rv {
    use super::ALL;

    simd_core::dispatch! {
        /// SipHash-1-2, best load path.
        pub(crate) fn sip12(key: &[u8; 16], data: &[u8]) -> u64 = &ALL, .sip12;
    }
    simd_core::dispatch! {
        /// SipHash-1-2 nocase, best load path.
        pub(crate) fn sip12_nocase(key: &[u8; 16], data: &[u8]) -> u64 = &ALL, .sip12_nocase;
    }
    simd_core::dispatch! {
        /// SipHash-1-3, best load path.
        pub(crate) fn sip13(key: &[u8; 16], data: &[u8]) -> u64 = &ALL, .sip13;
    }
    simd_core::dispatch! {
        /// SipHash-2-4, best load path.
        pub(crate) fn sip24(key: &[u8; 16], data: &[u8]) -> u64 = &ALL, .sip24;
    }
    simd_core::dispatch! {
        /// SipHash-1-3 128-bit, best load path.
        pub(crate) fn sip13_128(key: &[u8; 16], data: &[u8]) -> u128 = &ALL, .sip13_128;
    }
    simd_core::dispatch! {
        /// SipHash-2-4 128-bit, best load path.
        pub(crate) fn sip24_128(key: &[u8; 16], data: &[u8]) -> u128 = &ALL, .sip24_128;
    }
}

/// Defines a one-shot entry: riscv64 (run-time load choice) sends inputs of
/// at least one block to the dispatched kernel, everything else is inlined.
macro_rules! oneshot {
    ($name:ident -> $ret:ty) => {
        #[inline]
        pub(crate) fn $name(key: &[u8; 16], data: &[u8]) -> $ret {
            #[cfg(all(target_arch = "riscv64", not(target_feature = "unaligned-scalar-mem")))]
            if data.len() >= 8 {
                return rv::$name(key, data);
            }
            scalar::oneshot::$name(key, data)
        }
    };
}

oneshot!(sip12 -> u64);
oneshot!(sip12_nocase -> u64);
oneshot!(sip13 -> u64);
oneshot!(sip24 -> u64);
oneshot!(sip13_128 -> u128);
oneshot!(sip24_128 -> u128);

#[cfg(test)]
mod tests {
    use super::*;

    /// The reported kernel is one the ceiling allows, and listed; the
    /// dispatched batches (one table, so the same kernel) agree with the
    /// inlined one-shots.
    #[test]
    fn selected_kernel_is_allowed_and_batches_agree() {
        let k = crate::selected_kernel();
        assert!(cpu_detect::allows(k.level()), "{}", k.name());
        assert!(crate::kernels().any(|x| x.name() == k.name()));
        let key = [7u8; 16];
        let inputs: [&[u8]; 5] = [b"a", b"bb", b"ccc", b"dddd", b"eeeee"];
        let mut out = [0u64; 5];
        for (batch, one) in [
            (
                batch12 as fn(&[u8; 16], &[&[u8]], &mut [u64]),
                scalar::oneshot::sip12 as fn(&[u8; 16], &[u8]) -> u64,
            ),
            (batch13, scalar::oneshot::sip13),
            (batch24, scalar::oneshot::sip24),
        ] {
            batch(&key, &inputs, &mut out);
            for (x, h) in inputs.iter().zip(out) {
                assert_eq!(h, one(&key, x));
            }
        }
    }

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
