//! Which kernel runs: one table of kernels, the dispatched long loops, and
//! the rules for short inputs.
//!
//! - Up to 64 bytes (on x86_64 up to 128) a compare runs inline, before any
//!   function pointer is loaded: the build's baseline code
//!   ([`short::eq_upto64`]: SSE2 on x86_64, word loads elsewhere), or on
//!   x86_64 the picked kernel's own short path, chosen by a one-byte
//!   [`Class`] cached in a [`simd_core::Choice`] (`dispatch/x86.rs`).
//! - Longer inputs run the best kernel of [`KERNELS`] that the CPU and the
//!   ceiling (`CPU_DETECT_MAX_LEVEL`, `cpu_detect::set_max_level`) allow:
//!   on x86_64 called directly by class, elsewhere through
//!   `simd_core::dispatch!`.
//!
//! Nothing runs before `main`: the first call detects. A
//! [`crate::Comparer`] copies the class once, so its compares carry no
//! detection (see [`class`]).
//!
//! On x86_64 the SSE2 kernel is labelled [`Level::Scalar`]: SSE2 is part of
//! the target's baseline, like the inlined short path, so a `scalar` ceiling
//! keeps it. The portable word kernel stays reachable through
//! [`crate::kernels`] (tests run it everywhere).

use crate::kernels::{scalar, short};
#[allow(unused_imports)]
use simd_core::{Candidate, Level};

/// A dispatched equality kernel: lengths may differ (then `false`).
pub(crate) type EqFn = unsafe fn(&[u8], &[u8]) -> bool;
/// A dispatched mismatch kernel: the first differing index, or the shorter
/// length.
pub(crate) type MismatchFn = unsafe fn(&[u8], &[u8]) -> usize;

/// One kernel's functions.
#[derive(Clone, Copy)]
pub(crate) struct Fns {
    pub(crate) eq: EqFn,
    pub(crate) mismatch: MismatchFn,
}

/// The portable kernel, last in every table.
// SAFETY: the portable kernel runs on every CPU.
const SCALAR: Candidate<Fns> = unsafe {
    Candidate::new(
        "scalar",
        Level::Scalar,
        |_| true,
        Fns {
            eq: scalar::eq,
            mismatch: scalar::mismatch,
        },
    )
};

#[cfg(target_arch = "x86_64")]
use crate::kernels::x86_64::{avx2, avx512, sse2};

/// The `avx512` kernel's features; VL because its inlined short paths use
/// EVEX `ymm16`..`ymm19`, BMI2 for `bzhi` masks.
#[cfg(target_arch = "x86_64")]
fn has_avx512(f: &simd_core::Features) -> bool {
    f.avx512f && f.avx512bw && f.avx512vl && f.bmi2
}

/// The kernels, best first.
#[cfg(target_arch = "x86_64")]
pub(crate) static KERNELS: [Candidate<Fns>; 4] = {
    let (eq, mismatch) = (avx512::eq, avx512::mismatch);
    // SAFETY: the avx512 functions need exactly the features `has_avx512`
    // tests.
    let avx512 =
        unsafe { Candidate::new("avx512", Level::Avx512, has_avx512, Fns { eq, mismatch }) };
    let (eq, mismatch) = (avx2::eq, avx2::mismatch);
    // SAFETY: the avx2 functions need AVX2 only.
    let avx2 = unsafe { Candidate::new("avx2", Level::Avx2, |f| f.avx2, Fns { eq, mismatch }) };
    let (eq, mismatch) = (sse2::eq, sse2::mismatch);
    // SAFETY: SSE2 is part of every x86_64 CPU.
    let sse2 = unsafe { Candidate::new("sse2", Level::Scalar, |_| true, Fns { eq, mismatch }) };
    [avx512, avx2, sse2, SCALAR]
};

/// The kernels, best first.
#[cfg(target_arch = "aarch64")]
pub(crate) static KERNELS: [Candidate<Fns>; 2] = {
    use crate::kernels::aarch64::neon;
    let (eq, mismatch) = (neon::eq, neon::mismatch);
    // SAFETY: the NEON functions need NEON only.
    let neon = unsafe { Candidate::new("neon", Level::Neon, |f| f.neon, Fns { eq, mismatch }) };
    [neon, SCALAR]
};

/// The kernels: the portable one only.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub(crate) static KERNELS: [Candidate<Fns>; 1] = [SCALAR];

simd_core::dispatch! {
    /// Equality through the best kernel (for lengths above 64).
    pub(crate) fn eq_long(a: &[u8], b: &[u8]) -> bool = &KERNELS, .eq;
}

/// The picked kernel, as the short-input rules need it: on x86_64 builds
/// that dispatch at run time, one of the codes in `x86`; elsewhere unused.
/// Made only by [`class`] (then it proves what it names) or, for the lazy
/// rules (`LAZY = true`: detect where the class is first needed), by
/// `cached_class`. `Comparer` holds one from [`class`] and uses the rules
/// with `LAZY = false`, which hold no detection call.
#[derive(Clone, Copy)]
#[cfg_attr(
    not(all(
        target_arch = "x86_64",
        not(all(target_feature = "avx512bw", target_feature = "bmi2"))
    )),
    allow(dead_code)
)]
pub(crate) struct Class(u8);

/// The rules, for x86_64 builds that do not enable AVX-512BW and BMI2 at
/// compile time.
#[cfg(all(
    target_arch = "x86_64",
    not(all(target_feature = "avx512bw", target_feature = "bmi2"))
))]
pub(crate) use x86::{cached_class, class, cmp_upto64, eq, mismatch_above64};

/// The rules elsewhere: the build's inlined short path, then the dispatched
/// kernel.
#[cfg(not(all(
    target_arch = "x86_64",
    not(all(target_feature = "avx512bw", target_feature = "bmi2"))
)))]
mod rules {
    use super::Class;
    use core::cmp::Ordering;

    /// Nothing to detect: the short path is fixed at compile time.
    #[inline(always)]
    pub(crate) fn class() -> Class {
        Class(0)
    }

    /// As [`class`]: known from the start.
    #[inline(always)]
    pub(crate) fn cached_class() -> Class {
        Class(0)
    }

    #[inline(always)]
    pub(crate) fn eq<const LAZY: bool>(_: Class, a: &[u8], b: &[u8]) -> bool {
        let n = a.len();
        if n != b.len() {
            return false;
        }
        if n <= 64 {
            // SAFETY: both slices hold exactly n <= 64 bytes.
            return unsafe { super::short::eq_upto64(a.as_ptr(), b.as_ptr(), n) };
        }
        super::eq_long(a, b)
    }

    /// # Safety
    /// `a` and `b` must each point to `n` readable bytes, `n <= 64`.
    #[inline(always)]
    pub(crate) unsafe fn cmp_upto64<const LAZY: bool>(
        _: Class,
        a: *const u8,
        b: *const u8,
        n: usize,
        la: usize,
        lb: usize,
    ) -> Ordering {
        // SAFETY: the caller's contract is the callee's.
        unsafe { super::short::cmp_upto64(a, b, n, la, lb) }
    }

    #[inline(always)]
    pub(crate) fn mismatch_above64<const LAZY: bool>(_: Class, a: &[u8], b: &[u8]) -> usize {
        mismatch_long(a, b)
    }

    simd_core::dispatch! {
        /// First difference through the best kernel (for lengths above 64).
        fn mismatch_long(a: &[u8], b: &[u8]) -> usize = &super::KERNELS, .mismatch;
    }
}

#[cfg(not(all(
    target_arch = "x86_64",
    not(all(target_feature = "avx512bw", target_feature = "bmi2"))
)))]
pub(crate) use rules::{cached_class, class, cmp_upto64, eq, mismatch_above64};

/// The rules on x86_64 builds that dispatch at run time.
#[cfg(all(
    target_arch = "x86_64",
    not(all(target_feature = "avx512bw", target_feature = "bmi2"))
))]
mod x86;

#[cfg(test)]
mod needs {
    /// Each kernel's feature test asks for exactly the features the kernel
    /// uses (a CPU with part of a set, AVX-512F without VL say, exists even
    /// where the test machine has all or none of it).
    #[test]
    fn feature_tests_state_each_kernels_needs() {
        #[cfg(target_arch = "x86_64")]
        let table: &[(&str, &[&str])] = &[
            ("avx512", &["avx512f", "avx512bw", "avx512vl", "bmi2"]),
            ("avx2", &["avx2"]),
            ("sse2", &[]),
            ("scalar", &[]),
        ];
        #[cfg(target_arch = "aarch64")]
        let table: &[(&str, &[&str])] = &[("neon", &["neon"]), ("scalar", &[])];
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        let table: &[(&str, &[&str])] = &[("scalar", &[])];
        simd_core::testing::assert_kernel_needs(&super::KERNELS, table);
    }
}
