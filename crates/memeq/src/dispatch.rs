//! Which kernel runs.
//!
//! - x86_64 CPUs where the `avx512` kernel is picked: its inline-assembly
//!   short paths run inlined (up to 128 bytes), longer inputs call its loop
//!   directly; see [`x86`].
//! - Otherwise up to 64 bytes: an `#[inline(always)]` path compiled for the
//!   build's baseline, taken before any function pointer is loaded: SSE2 on
//!   x86_64 (AVX2 / one masked AVX-512BW compare when the build enables
//!   them, e.g. `-C target-cpu=native`), word loads elsewhere. An indirect
//!   call costs more than a short compare, so short keys never go through
//!   the pointer. On x86_64
//!   65..=128 bytes are inlined too (SSE2, the first and last 64 bytes),
//!   and where the `avx2` kernel is picked 33..=128 bytes run its inline
//!   assembly and longer inputs call its loop directly (see [`x86`]).
//! - Longer: the best kernel of [`EQ`] / [`MISMATCH`] the CPU and the
//!   ceiling (`CPU_DETECT_MAX_LEVEL`) allow, cached by `simd_core::dispatch!`
//!   (on x86_64 Linux and Android: called directly by the class that a
//!   load-time constructor stored, see `x86::LOAD_TIME`).
//!
//! On x86_64 the SSE2 kernel is labelled [`Level::Scalar`]: SSE2 is part of
//! the target's baseline, like the inlined short path, so a `scalar` ceiling
//! keeps it. The portable word kernel stays reachable through
//! [`crate::kernels`] (tests run it everywhere).

use crate::kernels::scalar;
#[cfg(target_arch = "x86_64")]
use crate::kernels::x86_64::{avx2, avx512, sse2};
use core::cmp::Ordering;
#[allow(unused_imports)]
use simd_core::{Candidate, Level};

/// A dispatched equality kernel: lengths may differ (then `false`).
pub(crate) type EqFn = unsafe fn(&[u8], &[u8]) -> bool;
/// A dispatched mismatch kernel: the first differing index, or the shorter
/// length.
pub(crate) type MismatchFn = unsafe fn(&[u8], &[u8]) -> usize;

/// The `avx512` kernels' features; VL because the inlined path
/// ([`x86::eq`]) uses EVEX `ymm16`..`ymm19`.
#[cfg(target_arch = "x86_64")]
fn has_avx512(f: &simd_core::Features) -> bool {
    f.avx512f && f.avx512bw && f.avx512vl && f.bmi2
}

/// Equality kernels, best first (same names and order as [`MISMATCH`]).
#[cfg(target_arch = "x86_64")]
pub(crate) static EQ: &[Candidate<EqFn>] = &[
    // SAFETY: each function needs exactly the features its check tests (SSE2
    // and the portable kernel need none on x86_64).
    unsafe { Candidate::new("avx512", Level::Avx512, has_avx512, avx512::eq as EqFn) },
    unsafe { Candidate::new("avx2", Level::Avx2, |f| f.avx2, avx2::eq as EqFn) },
    unsafe { Candidate::new("sse2", Level::Scalar, |_| true, sse2::eq as EqFn) },
    unsafe { Candidate::new("scalar", Level::Scalar, |_| true, scalar::eq as EqFn) },
];

/// Mismatch kernels, best first (same names and order as [`EQ`]).
#[cfg(target_arch = "x86_64")]
pub(crate) static MISMATCH: &[Candidate<MismatchFn>] = &[
    // SAFETY: as for `EQ`.
    unsafe {
        Candidate::new(
            "avx512",
            Level::Avx512,
            has_avx512,
            avx512::mismatch as MismatchFn,
        )
    },
    unsafe {
        Candidate::new(
            "avx2",
            Level::Avx2,
            |f| f.avx2,
            avx2::mismatch as MismatchFn,
        )
    },
    unsafe {
        Candidate::new(
            "sse2",
            Level::Scalar,
            |_| true,
            sse2::mismatch as MismatchFn,
        )
    },
    unsafe {
        Candidate::new(
            "scalar",
            Level::Scalar,
            |_| true,
            scalar::mismatch as MismatchFn,
        )
    },
];

/// Equality kernels, best first (same names and order as [`MISMATCH`]).
#[cfg(target_arch = "aarch64")]
pub(crate) static EQ: &[Candidate<EqFn>] = &[
    // SAFETY: NEON is checked; the portable kernel needs nothing.
    unsafe {
        Candidate::new(
            "neon",
            Level::Neon,
            |f| f.neon,
            crate::kernels::aarch64::neon::eq as EqFn,
        )
    },
    unsafe { Candidate::new("scalar", Level::Scalar, |_| true, scalar::eq as EqFn) },
];

/// Mismatch kernels, best first (same names and order as [`EQ`]).
#[cfg(target_arch = "aarch64")]
pub(crate) static MISMATCH: &[Candidate<MismatchFn>] = &[
    // SAFETY: NEON is checked; the portable kernel needs nothing.
    unsafe {
        Candidate::new(
            "neon",
            Level::Neon,
            |f| f.neon,
            crate::kernels::aarch64::neon::mismatch as MismatchFn,
        )
    },
    unsafe {
        Candidate::new(
            "scalar",
            Level::Scalar,
            |_| true,
            scalar::mismatch as MismatchFn,
        )
    },
];

/// Equality kernels: the portable one only.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub(crate) static EQ: &[Candidate<EqFn>] =
    // SAFETY: the portable kernel needs nothing.
    &[unsafe { Candidate::new("scalar", Level::Scalar, |_| true, scalar::eq as EqFn) }];

/// Mismatch kernels: the portable one only.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub(crate) static MISMATCH: &[Candidate<MismatchFn>] =
    // SAFETY: the portable kernel needs nothing.
    &[unsafe {
        Candidate::new(
            "scalar",
            Level::Scalar,
            |_| true,
            scalar::mismatch as MismatchFn,
        )
    }];

simd_core::dispatch! {
    /// Equality through the best kernel (for lengths above 64).
    pub(crate) fn eq_long(a: &[u8], b: &[u8]) -> bool = EQ;
}

simd_core::dispatch! {
    /// First difference through the best kernel (for lengths above 64).
    pub(crate) fn mismatch_long(a: &[u8], b: &[u8]) -> usize = MISMATCH;
}

/// The first difference (or the shorter length) of slices whose shorter
/// length is over 64 bytes, for [`crate::cmp`].
#[inline(always)]
pub(crate) fn mismatch_above64(a: &[u8], b: &[u8]) -> usize {
    debug_assert!(a.len().min(b.len()) > 64);
    #[cfg(all(
        target_arch = "x86_64",
        not(all(target_feature = "avx512bw", target_feature = "bmi2"))
    ))]
    return x86::mismatch_above64(a, b);
    #[cfg(not(all(
        target_arch = "x86_64",
        not(all(target_feature = "avx512bw", target_feature = "bmi2"))
    )))]
    return mismatch_long(a, b);
}

/// [`crate::eq`] on x86_64 builds without AVX-512BW + BMI2 enabled at
/// compile time: see [`x86`].
#[cfg(all(
    target_arch = "x86_64",
    not(all(target_feature = "avx512bw", target_feature = "bmi2"))
))]
#[inline(always)]
pub(crate) fn eq(a: &[u8], b: &[u8]) -> bool {
    x86::eq(a, b)
}

/// [`crate::eq`] elsewhere: the build's inlined short path, else dispatch.
#[cfg(not(all(
    target_arch = "x86_64",
    not(all(target_feature = "avx512bw", target_feature = "bmi2"))
)))]
#[inline(always)]
pub(crate) fn eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n <= 64 {
        // SAFETY: both slices hold exactly n <= 64 bytes.
        return unsafe { eq_upto64(a.as_ptr(), b.as_ptr(), n) };
    }
    eq_long(a, b)
}

/// The `eq` path on x86_64: one relaxed load of a cached class byte. Where
/// the dispatcher picks the `avx512` kernel, that kernel's short paths run
/// inline (inline assembly, so they inline into baseline code): up to 64
/// bytes one branch-free pair of masked 32-byte compares, 65..=128 four
/// 32-byte compares; longer inputs call the kernel's loop directly (no
/// function-pointer load, no length re-checks); on AMD Zen 4 the `avx2`
/// kernel's paths over 64 bytes instead (`LONG_AVX2`). Where it picks the `avx2`
/// kernel: up to 32 bytes the SSE2 path, 33..=128 the AVX2 kernel's inline
/// assembly (overlapping 32-byte compares, `vzeroupper`), longer inputs its
/// loop directly. Otherwise up to 64 bytes take the SSE2 (or compile-time
/// AVX2) inlined path, 65..=128 an inlined SSE2 compare of the first and
/// last 64 bytes, longer inputs the SSE2 loop (where no load-time
/// constructor runs, the first call detects first). The class byte is
/// stored before `main` on Linux and Android, else by the first call: see
/// `LOAD_TIME` below.
///
/// On random lengths the branch-free AVX-512 short path keeps its speed
/// where the length-branching SSE2 path (and `bcmp`) mispredict.
#[cfg(all(
    target_arch = "x86_64",
    not(all(target_feature = "avx512bw", target_feature = "bmi2"))
))]
mod x86 {
    use crate::kernels::x86_64::{avx2, avx512, sse2};
    use core::sync::atomic::{AtomicBool, AtomicU8, Ordering};

    /// Not detected yet.
    const UNKNOWN: u8 = 0;
    /// The dispatcher picks a kernel other than `avx512`.
    const OTHER: u8 = 1;
    /// The dispatcher picks the `avx512` kernel (the ceiling allows it and
    /// the CPU has its features: AVX-512F/BW/VL, BMI2).
    const AVX512: u8 = 2;
    /// The dispatcher picks the `avx2` kernel.
    const AVX2: u8 = 3;
    /// The dispatcher picks the `avx2` kernel on a CPU that runs 256-bit
    /// operations as two halves (AMD Zen 1 / Zen+,
    /// [`cpu_detect::Features::splits_256bit_ops`]): `eq` takes the SSE2
    /// path there up to [`HALVED_AVX2_ABOVE`] bytes (the AVX2 loop above),
    /// `cmp` the AVX2 kernel's as on other AVX2 CPUs (the SSE2 `eq` path is
    /// faster there from 33 bytes; an SSE2 `cmp` lost on mixed lengths).
    const AVX2_HALVED: u8 = 4;

    /// In the [`AVX2_HALVED`] class, `eq` of more bytes than this runs the
    /// `avx2` kernel's 128-byte loop (aligned loads from `a`), shorter
    /// inputs the SSE2 one: the SSE2 loop's four 16-byte compares per branch
    /// stop keeping up
    /// above a few hundred bytes, where both 256-bit loops are bound by the
    /// loads (two 16-byte loads a cycle).
    const HALVED_AVX2_ABOVE: usize = 768;

    /// One of the classes above, written once by [`detect`]; every value
    /// ever stored for a run is the same, so relaxed ordering is enough.
    static CLASS: AtomicU8 = AtomicU8::new(UNKNOWN);

    /// In the [`AVX512`] class, whether `eq` takes the `avx2` kernel's
    /// paths over 64 bytes (65..=128: its inline assembly, overlapping
    /// 32-byte `vpcmpeqb` and one `vpmovmskb`; longer: its loop, 32-byte
    /// compares, aligned loads from the first input) instead of the
    /// `avx512` ones (compares into mask registers; 64-byte blocks): on
    /// CPUs that run 512-bit operations as two halves
    /// ([`cpu_detect::Features::splits_512bit_ops`], AMD Zen 4). Written by
    /// [`detect`] with [`CLASS`], before it (relaxed: a stale `false` only
    /// picks the other loop, both are exact). There the 512-bit loop loses
    /// to the 256-bit one on unaligned inputs, and the 256-bit compares win
    /// at 65..=128 bytes too. `cmp` keeps the `avx512` 65..=128 path, which
    /// measured faster there.
    static LONG_AVX2: AtomicBool = AtomicBool::new(false);

    #[inline(always)]
    pub(crate) fn eq(a: &[u8], b: &[u8]) -> bool {
        let n = a.len();
        if n != b.len() {
            return false;
        }
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        let class = CLASS.load(Ordering::Relaxed);
        if class == AVX512 {
            // SAFETY (all five): the class is AVX512 only if
            // `simd_core::select` picked the `avx512` candidate, whose test
            // checked the features these need, at cpu-detect's `avx512`
            // level, which includes AVX2 (for the two `avx2` calls); both
            // slices hold n bytes (n > 32 for `eq_33_128_asm`).
            if n <= 64 {
                return unsafe { avx512::eq_upto64_asm(pa, pb, n) };
            }
            let long_avx2 = LONG_AVX2.load(Ordering::Relaxed);
            if n <= 128 {
                if long_avx2 {
                    return unsafe { avx2::eq_33_128_asm(pa, pb, n) };
                }
                return unsafe { avx512::eq_65_128_asm(pa, pb, n) };
            }
            if long_avx2 {
                return unsafe { avx2::eq_above64(pa, pb, n) };
            }
            return unsafe { avx512::eq_above128(pa, pb, n) };
        }
        if n <= 32 && (LOAD_TIME || class != UNKNOWN) {
            // SAFETY: both slices hold exactly n <= 32 bytes.
            return unsafe { super::eq_upto64(pa, pb, n) };
        }
        if class == AVX2 {
            // SAFETY (both): the class is AVX2 only if `simd_core::select`
            // picked the `avx2` candidate, whose test checked AVX2; both
            // slices hold n bytes.
            if n <= 128 {
                return unsafe { avx2::eq_33_128_asm(pa, pb, n) };
            }
            return unsafe { avx2::eq_above64(pa, pb, n) };
        }
        if LOAD_TIME || class == OTHER || class == AVX2_HALVED {
            if n <= 64 {
                // SAFETY: both slices hold exactly n <= 64 bytes.
                return unsafe { super::eq_upto64(pa, pb, n) };
            }
            if n <= 128 {
                // SAFETY: both slices hold exactly n bytes, 64 < n <= 128;
                // SSE2 is baseline on x86_64.
                return unsafe { sse2::eq_65_128(pa, pb, n) };
            }
            if class == AVX2_HALVED && n > HALVED_AVX2_ABOVE {
                // SAFETY: the class is AVX2_HALVED only if
                // `simd_core::select` picked the `avx2` candidate, whose
                // test checked AVX2; both slices hold n > 64 bytes.
                return unsafe { avx2::eq_above64(pa, pb, n) };
            }
            return eq_long_sse2(a, b);
        }
        slow(a, b)
    }

    /// `cmp` of at most 64 bytes: where the dispatcher picks the `avx512`
    /// kernel, the first difference from one branch-free pair of masked
    /// compares (as `eq`'s); where it picks `avx2`, 33..=64 bytes as two
    /// overlapping 32-byte compares; else the SSE2 path.
    ///
    /// # Safety
    /// `a` and `b` must each point to `n` readable bytes, `n <= 64`.
    #[inline(always)]
    pub(crate) unsafe fn cmp_upto64(
        a: *const u8,
        b: *const u8,
        n: usize,
        la: usize,
        lb: usize,
    ) -> core::cmp::Ordering {
        let class = CLASS.load(Ordering::Relaxed);
        if class == AVX512 {
            // SAFETY: the class is AVX512 only if `simd_core::select`
            // picked the `avx512` candidate, whose test checked the
            // features this needs; both pointers hold n <= 64 bytes.
            let m = unsafe { avx512::ne_upto64_asm(a, b, n) };
            // SAFETY: bit t of the mask is set only for a byte t < n.
            return unsafe { super::order_from_mask(a, b, m, la, lb, |t| t) };
        }
        if class >= AVX2 && n > 32 {
            // SAFETY: the class is AVX2 or AVX2_HALVED (the two classes from
            // AVX2 up) only if `simd_core::select` picked
            // the `avx2` candidate, whose test checked AVX2; both pointers
            // hold 32 < n <= 64 bytes.
            let m = unsafe { avx2::ne_33_64_asm(a, b, n) };
            // SAFETY: bit t is byte t of the first block (t < 32) or byte
            // t - 32 of the last one, at n - 32: both below n.
            return unsafe {
                super::order_from_mask(a, b, m, la, lb, |t| if t < 32 { t } else { t + n - 64 })
            };
        }
        if class == UNKNOWN && !LOAD_TIME {
            detect();
        }
        // SAFETY: forwarded.
        unsafe { crate::kernels::x86_64::sse2::cmp_upto64(a, b, n, la, lb) }
    }

    /// The first difference of slices whose shorter length is over 64
    /// bytes: up to 128 bytes inline where the dispatcher picks the
    /// `avx512` or the `avx2` kernel; longer inputs that kernel's loop
    /// called directly where a load-time constructor runs, else the
    /// dispatched kernel.
    #[inline(always)]
    pub(crate) fn mismatch_above64(a: &[u8], b: &[u8]) -> usize {
        let n = a.len().min(b.len());
        let class = CLASS.load(Ordering::Relaxed);
        if n <= 128 {
            if class == AVX512 {
                // SAFETY: the class is AVX512 only if `simd_core::select`
                // picked the `avx512` candidate, whose test checked the
                // features this needs; both slices hold at least n bytes,
                // and 64 < n <= 128 (callers pass longer slices only).
                return unsafe { avx512::mismatch_65_128_asm(a.as_ptr(), b.as_ptr(), n) };
            }
            if class >= AVX2 {
                // SAFETY: as above, for the `avx2` candidate and AVX2 (the
                // classes AVX2 and AVX2_HALVED).
                return unsafe { avx2::mismatch_65_128_asm(a.as_ptr(), b.as_ptr(), n) };
            }
        }
        if LOAD_TIME {
            return match class {
                // SAFETY (both): as above (the kernels take any lengths;
                // AVX-512F implies AVX2).
                AVX512 if LONG_AVX2.load(Ordering::Relaxed) => unsafe { avx2::mismatch(a, b) },
                AVX512 => unsafe { avx512::mismatch(a, b) },
                // SAFETY: as above, for the `avx2` candidate and AVX2.
                AVX2 | AVX2_HALVED => unsafe { avx2::mismatch(a, b) },
                _ => mismatch_long_sse2(a, b),
            };
        }
        super::mismatch_long(a, b)
    }

    /// The SSE2 loop for inputs over 128 bytes where neither the `avx512`
    /// nor the `avx2` kernel is picked (or, before the constructor ran, not
    /// yet known), and for 129..=[`HALVED_AVX2_ABOVE`] bytes in the
    /// [`AVX2_HALVED`] class. `#[cold]` keeps it out of the callers (it was
    /// written for CPUs without AVX2 or under a ceiling; the Zen 1 figures
    /// of `AVX2_HALVED` were measured with it so); `#[inline]` lets the
    /// caller's crate see that it only reads memory.
    #[cold]
    #[inline]
    fn eq_long_sse2(a: &[u8], b: &[u8]) -> bool {
        sse2::eq(a, b)
    }

    /// As [`eq_long_sse2`], for [`mismatch_above64`].
    #[cold]
    #[inline]
    fn mismatch_long_sse2(a: &[u8], b: &[u8]) -> usize {
        sse2::mismatch(a, b)
    }

    /// Where no load-time constructor runs ([`LOAD_TIME`] false): the first
    /// call of more than 32 bytes, while the class is still unknown
    /// (detection, then the answer).
    #[inline(never)]
    fn slow(a: &[u8], b: &[u8]) -> bool {
        if CLASS.load(Ordering::Relaxed) == UNKNOWN {
            detect();
            return eq(a, b);
        }
        super::eq_long(a, b)
    }

    /// Whether [`DETECT_AT_LOAD`] runs [`detect`] when the program (or
    /// library) is loaded, before `main`: ELF `.init_array` on Linux and
    /// Android (glibc, musl, bionic). Then `eq` and `cmp` never detect
    /// (and never write memory) themselves: before the constructor ran
    /// (another constructor calling them) they take the SSE2 path, which
    /// every x86_64 CPU has; after, the class it stored.
    ///
    /// Why: a call that may write memory anywhere in a caller's loop (the
    /// detection, which stores [`CLASS`]; a kernel in another crate that
    /// the optimiser cannot see into) makes LLVM reload the caller's
    /// loop-invariant fields (a hash table's slot and key pointers, its
    /// mask) around every compare: 4-8% of a table lookup.
    ///
    /// Elsewhere (no constructor) detection stays lazy: the first `eq` or
    /// `cmp` call runs it.
    const LOAD_TIME: bool = cfg!(any(target_os = "linux", target_os = "android"));

    /// The load-time constructor (see [`LOAD_TIME`]). The dynamic loader
    /// (or a static binary's start-up code) calls every `.init_array`
    /// entry once, with the C calling convention, before `main`.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[used]
    #[link_section = ".init_array"]
    static DETECT_AT_LOAD: extern "C" fn() = detect_at_load;

    /// [`detect`] for [`DETECT_AT_LOAD`].
    #[cfg(any(target_os = "linux", target_os = "android"))]
    extern "C" fn detect_at_load() {
        detect();
    }

    #[cold]
    fn detect() {
        let class = class_now();
        LONG_AVX2.store(long_avx2(class), Ordering::Relaxed);
        CLASS.store(class, Ordering::Relaxed);
    }

    /// What [`detect`] stores in [`LONG_AVX2`] for `class`.
    fn long_avx2(class: u8) -> bool {
        class == AVX512 && cpu_detect::features().splits_512bit_ops()
    }

    /// The class of the kernel the dispatcher picks under the ceiling now.
    fn class_now() -> u8 {
        match simd_core::select(super::EQ).name() {
            "avx512" => AVX512,
            "avx2" if cpu_detect::features().splits_256bit_ops() => AVX2_HALVED,
            "avx2" => AVX2,
            _ => OTHER,
        }
    }

    #[cfg(all(test, any(target_os = "linux", target_os = "android")))]
    mod tests {
        use super::*;

        /// The constructor ran before the tests (nothing else stores the
        /// class where [`LOAD_TIME`] holds), and it stored the class the
        /// dispatcher picks (the ceiling, `CPU_DETECT_MAX_LEVEL`, included:
        /// CI runs this under each ceiling).
        #[test]
        fn class_detected_at_load() {
            let class = class_now();
            assert_eq!(CLASS.load(Ordering::Relaxed), class);
            assert_eq!(LONG_AVX2.load(Ordering::Relaxed), long_avx2(class));
        }

        /// The class follows the dispatch policy, stated here from the CPU
        /// and the ceiling rather than from [`class_now`]'s code: the
        /// `avx512` class where AVX-512F/BW/VL and BMI2 run and the ceiling
        /// allows `avx512`, else `avx2` (halved on CPUs that split 256-bit
        /// operations) where AVX2 runs and is allowed, else the SSE2 one;
        /// the `avx2` loops over 64 bytes in the `avx512` class exactly on
        /// CPUs that split 512-bit operations. (Every class computes the
        /// same answers, so the oracle tests cannot see a wrong one.)
        #[test]
        fn class_follows_the_policy() {
            use cpu_detect::Level;
            let f = cpu_detect::features();
            let max = cpu_detect::max_level();
            let want =
                if max.includes(Level::Avx512) && f.avx512f && f.avx512bw && f.avx512vl && f.bmi2 {
                    AVX512
                } else if max.includes(Level::Avx2) && f.avx2 {
                    if f.splits_256bit_ops() {
                        AVX2_HALVED
                    } else {
                        AVX2
                    }
                } else {
                    OTHER
                };
            assert_eq!(CLASS.load(Ordering::Relaxed), want);
            assert_eq!(
                LONG_AVX2.load(Ordering::Relaxed),
                want == AVX512 && f.splits_512bit_ops()
            );
        }
    }
}

/// Whether the first `n` bytes at `a` and `b` are equal, `n <= 64`, with the
/// best code the build's baseline allows (no dispatch).
///
/// # Safety
/// `a` and `b` must each point to `n` readable bytes, `n <= 64`.
#[inline(always)]
pub(crate) unsafe fn eq_upto64(a: *const u8, b: *const u8, n: usize) -> bool {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx512bw",
        target_feature = "bmi2"
    ))]
    // SAFETY: forwarded; the build enables AVX-512BW and BMI2.
    return unsafe { avx512::ne_upto64(a, b, n) } == 0;
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        not(all(target_feature = "avx512bw", target_feature = "bmi2"))
    ))]
    // SAFETY: forwarded; the build enables AVX2.
    return unsafe { avx2::eq_upto64(a, b, n) };
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
    // SAFETY: forwarded.
    return unsafe { sse2::eq_upto64(a, b, n) };
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: forwarded.
    return unsafe { scalar::eq_upto64(a, b, n) };
}

/// `cmp`'s answer from a "differs" mask `m` of the compared bytes: the
/// lengths `la`, `lb` decide if it is zero, else the byte pair at `at(t)`,
/// `t` the lowest set bit.
///
/// # Safety
/// `at(t)` must be an index both `a` and `b` can be read at, for the lowest
/// set bit `t` of a nonzero `m`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn order_from_mask(
    a: *const u8,
    b: *const u8,
    m: u64,
    la: usize,
    lb: usize,
    at: impl Fn(usize) -> usize,
) -> Ordering {
    if m == 0 {
        return la.cmp(&lb);
    }
    let i = at(m.trailing_zeros() as usize);
    // SAFETY: by the caller's contract.
    unsafe { (*a.add(i)).cmp(&*b.add(i)) }
}

/// The order of `a` and `b` (lengths `la`, `lb`) from their first
/// `n = min(la, lb) <= 64` bytes at `a` and `b`: `[u8]::cmp` (no dispatch).
///
/// # Safety
/// `a` and `b` must each point to `n` readable bytes, `n <= 64`.
#[inline(always)]
pub(crate) unsafe fn cmp_upto64(
    a: *const u8,
    b: *const u8,
    n: usize,
    la: usize,
    lb: usize,
) -> Ordering {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx512bw",
        target_feature = "bmi2"
    ))]
    {
        // SAFETY: forwarded; the build enables AVX-512BW and BMI2.
        let m = unsafe { avx512::ne_upto64(a, b, n) };
        // SAFETY: bit t of the mask is set only for a byte t < n.
        return unsafe { order_from_mask(a, b, m, la, lb, |t| t) };
    }
    #[cfg(all(
        target_arch = "x86_64",
        not(all(target_feature = "avx512bw", target_feature = "bmi2"))
    ))]
    // SAFETY: forwarded.
    return unsafe { x86::cmp_upto64(a, b, n, la, lb) };
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: forwarded.
    return unsafe { scalar::cmp_upto64(a, b, n, la, lb) };
}

#[cfg(test)]
mod needs {
    /// Each kernel's feature test asks for exactly the features the kernel
    /// uses, in both lists (a CPU with part of a set, AVX-512F without VL
    /// say, exists even where the test machine has all or none of it).
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
        simd_core::testing::assert_kernel_needs(super::EQ, table);
        simd_core::testing::assert_kernel_needs(super::MISMATCH, table);
    }
}
