//! Which kernel runs: the candidate lists (best first, ending with scalar),
//! the cached dispatchers, and the inlined small-input paths that run before
//! any function pointer is loaded.

use crate::kernels::scalar;
use simd_core::{Candidate, Level};

/// A count kernel: the set bits of a slice.
pub(crate) type CountFn = unsafe fn(&[u8]) -> u64;
/// A scan kernel: the index of the first byte that is not `skip`.
pub(crate) type FindFn = unsafe fn(&[u8], u8) -> usize;

#[cfg(target_arch = "x86_64")]
use crate::kernels::x86_64::{avx2, avx512, popcnt};

/// The count kernels, best first.
#[cfg(target_arch = "x86_64")]
pub(crate) static COUNT: [Candidate<CountFn>; 4] = {
    // SAFETY: each function's only safety condition is the CPU features its
    // `supported` test checks.
    unsafe {
        [
            Candidate::new(
                "avx512",
                Level::Avx512,
                |f| f.avx512f && f.avx512bw && f.avx512vpopcntdq,
                avx512::count,
            ),
            Candidate::new("avx2", Level::Avx2, |f| f.avx2 && f.popcnt, avx2::count),
            Candidate::new("popcnt", Level::Sse42, |f| f.popcnt, popcnt::count),
            Candidate::new("scalar", Level::Scalar, |_| true, scalar::count_kernel),
        ]
    }
};

/// The BITPOS scan kernels, best first; a count kernel uses the scan of the
/// same name, or the scalar one.
#[cfg(target_arch = "x86_64")]
pub(crate) static FIND: [Candidate<FindFn>; 3] = {
    // SAFETY: as for COUNT.
    unsafe {
        [
            Candidate::new(
                "avx512",
                Level::Avx512,
                |f| f.avx512f && f.avx512bw,
                avx512::find_not,
            ),
            Candidate::new("avx2", Level::Avx2, |f| f.avx2, avx2::find_not),
            Candidate::new("scalar", Level::Scalar, |_| true, scalar::find_not_kernel),
        ]
    }
};

#[cfg(target_arch = "aarch64")]
use crate::kernels::aarch64::neon;

/// The count kernels, best first.
#[cfg(target_arch = "aarch64")]
pub(crate) static COUNT: [Candidate<CountFn>; 2] = {
    // SAFETY: each function's only safety condition is the CPU features its
    // `supported` test checks.
    unsafe {
        [
            Candidate::new("neon", Level::Neon, |f| f.neon, neon::count),
            Candidate::new("scalar", Level::Scalar, |_| true, scalar::count_kernel),
        ]
    }
};

/// The BITPOS scan kernels, best first.
#[cfg(target_arch = "aarch64")]
pub(crate) static FIND: [Candidate<FindFn>; 2] = {
    // SAFETY: as for COUNT.
    unsafe {
        [
            Candidate::new("neon", Level::Neon, |f| f.neon, neon::find_not),
            Candidate::new("scalar", Level::Scalar, |_| true, scalar::find_not_kernel),
        ]
    }
};

/// The count kernels, best first (`zbb` at its own tier, so the `scalar`
/// ceiling switches it off).
#[cfg(target_arch = "riscv64")]
pub(crate) static COUNT: [Candidate<CountFn>; 2] = {
    // SAFETY: each function's only safety condition is the CPU features its
    // `supported` test checks.
    unsafe {
        [
            Candidate::new("zbb", Level::Zbb, |f| f.zbb, crate::kernels::riscv64::count),
            Candidate::new("scalar", Level::Scalar, |_| true, scalar::count_kernel),
        ]
    }
};

/// The count kernels: the portable one only.
#[cfg(not(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "riscv64"
)))]
pub(crate) static COUNT: [Candidate<CountFn>; 1] = {
    // SAFETY: the scalar kernel runs everywhere.
    unsafe {
        [Candidate::new(
            "scalar",
            Level::Scalar,
            |_| true,
            scalar::count_kernel,
        )]
    }
};

/// The BITPOS scan kernels: the portable one only.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub(crate) static FIND: [Candidate<FindFn>; 1] = {
    // SAFETY: the scalar scan runs everywhere.
    unsafe {
        [Candidate::new(
            "scalar",
            Level::Scalar,
            |_| true,
            scalar::find_not_kernel,
        )]
    }
};

/// The scan kernel to pair with the count kernel `name`.
pub(crate) fn find_kernel(name: &str) -> simd_core::Kernel<FindFn> {
    let mut fallback = None;
    for k in simd_core::supported(&FIND) {
        if k.name() == name {
            return k;
        }
        fallback = Some(k);
    }
    // The list ends with the always-supported scalar scan.
    match fallback {
        Some(k) => k,
        None => unreachable!("FIND ends with an always-supported scalar kernel"),
    }
}

simd_core::dispatch! {
    /// The best count kernel, resolved on the first call.
    fn count_dispatched(bytes: &[u8]) -> u64 = &COUNT;
}

simd_core::dispatch! {
    /// The best scan kernel, resolved on the first call.
    fn find_dispatched(bytes: &[u8], skip: u8) -> usize = &FIND;
}

/// Scans up to this many bytes run inline (BITPOS ranges are often short).
const SMALL_FIND: usize = 32;

/// The index of the first byte that is not `skip`: small inputs inline, the
/// rest dispatched.
#[inline]
pub(crate) fn find_not(bytes: &[u8], skip: u8) -> usize {
    if bytes.len() <= SMALL_FIND {
        return scalar::find_not(bytes, skip);
    }
    find_dispatched(bytes, skip)
}

/// [`crate::count`] on x86_64: see [`x86`].
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn count(bytes: &[u8]) -> u64 {
    x86::count(bytes)
}

/// The count path on x86_64: one relaxed load of a cached class byte; when
/// the dispatcher picks the `avx512` kernel and the CPU has AVX-512VL and
/// BMI2, then every input up to 64 bytes counted by one 512-bit masked load
/// ([`avx512::count_upto64_zmm`]) and longer ones handed to the AVX-512
/// kernel, two tests in all; elsewhere up to 64 bytes counted inline with
/// POPCNT, longer inputs handed to the AVX-512, the AVX2 or the POPCNT
/// kernel by a direct call (no function-pointer load): the one the
/// dispatcher picks, except that CPUs which run 256-bit operations as two
/// halves (Zen 1) take POPCNT where it picks AVX2; everything else (the
/// first call, CPUs without POPCNT) through an out-of-line function.
///
/// The inlined part is kept small on purpose (the SWAR fallback, the CPU
/// detection and the dispatcher call live in [`x86::slow`]): with them
/// inside, LLVM neither inlined `count` into callers nor kept the fast path
/// free of callee-saved register spills.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{count_dispatched, scalar};
    use crate::kernels::x86_64::{avx2, avx512, popcnt, popcnt_pair, popcnt_word_at};
    use core::sync::atomic::{AtomicU8, Ordering};

    /// Not detected yet.
    const UNKNOWN: u8 = 0;
    /// No usable POPCNT (or the `scalar` ceiling): SWAR inline, else the
    /// dispatcher.
    const SCALAR: u8 = 1;
    /// POPCNT usable, and either the dispatcher picks the `popcnt` kernel
    /// or it picks `avx2` on a CPU that runs 256-bit operations as two
    /// halves (AMD Zen 1 / Zen+, [`cpu_detect::Features::splits_256bit_ops`]),
    /// where the `popcnt` kernel is as fast or faster at every size (each
    /// 256-bit operation costs two µops there).
    const POPCNT: u8 = 2;
    /// POPCNT usable and the dispatcher picks the `avx2` kernel.
    const AVX2: u8 = 3;
    /// POPCNT usable and the dispatcher picks the `avx512` kernel (the
    /// ceiling allows it and the CPU has its features).
    const AVX512: u8 = 4;
    /// As [`AVX512`], and the CPU also has AVX-512VL and BMI2: inputs up to
    /// 64 bytes take [`avx512::count_upto64_zmm`] (one masked 512-bit load,
    /// no branch on the length), longer ones the AVX-512 kernel after one
    /// more test.
    const AVX512_WIDE: u8 = 5;

    /// One of the classes above, written once by [`detect`]; every value
    /// ever stored for a run is the same, so relaxed ordering is enough.
    static CLASS: AtomicU8 = AtomicU8::new(UNKNOWN);

    /// Inputs up to this many bytes are counted inline with POPCNT. At 64
    /// the eight inline POPCNTs still beat a call into the AVX-512 kernel
    /// (one full vector plus the horizontal sum); measured.
    const SMALL: usize = 64;

    #[inline(always)]
    pub(crate) fn count(bytes: &[u8]) -> u64 {
        let class = CLASS.load(Ordering::Relaxed);
        if class == AVX512_WIDE {
            if bytes.len() <= SMALL {
                // SAFETY: the class is AVX512_WIDE only if the CPU has
                // AVX-512F/BW/VL/VPOPCNTDQ and BMI2; len <= 64 bytes are
                // readable at the slice's pointer.
                return unsafe { avx512::count_upto64_zmm(bytes.as_ptr(), bytes.len()) };
            }
            // SAFETY: AVX512_WIDE implies the `avx512` kernel was picked, as
            // for AVX512 below.
            return unsafe { avx512::count(bytes) };
        }
        if class >= POPCNT {
            // The POPCNT path, one length test, after the AVX512_WIDE test
            // (one not-taken branch); the other order slowed the AVX-512
            // short path.
            if bytes.len() <= SMALL {
                // SAFETY: the class is POPCNT or above only if the CPU has
                // POPCNT; len <= 64.
                return unsafe { small(bytes) };
            }
            if class >= AVX512 {
                // SAFETY: the class is AVX512 only if `simd_core::select`
                // picked the `avx512` candidate, whose test checked the CPU
                // features that kernel needs.
                return unsafe { avx512::count(bytes) };
            }
            if class == AVX2 {
                // SAFETY: the class is AVX2 only if `simd_core::select`
                // picked the `avx2` candidate, whose test checked AVX2 and
                // POPCNT (a direct call: no function-pointer load).
                return unsafe { avx2::count(bytes) };
            }
            // The POPCNT class (a direct call, as for AVX2).
            // SAFETY: the class is POPCNT or above, so the CPU has POPCNT,
            // the `popcnt` kernel's only condition.
            return unsafe { popcnt::count(bytes) };
        }
        slow(bytes)
    }

    /// Everything the inlined path leaves out: the first call (detection)
    /// and CPUs without POPCNT (or under the `scalar` ceiling).
    #[inline(never)]
    fn slow(bytes: &[u8]) -> u64 {
        let class = match CLASS.load(Ordering::Relaxed) {
            UNKNOWN => detect(),
            c => c,
        };
        if bytes.len() > SMALL {
            // SAFETY (each arm): as in `count`.
            return match class {
                AVX512 | AVX512_WIDE => unsafe { avx512::count(bytes) },
                AVX2 => unsafe { avx2::count(bytes) },
                POPCNT => unsafe { popcnt::count(bytes) },
                _ => count_dispatched(bytes),
            };
        }
        if class == SCALAR {
            // The dispatcher would pick the scalar kernel too: call it
            // without the indirect call.
            return scalar::count(bytes);
        }
        // SAFETY: the class is POPCNT or above, so the CPU has POPCNT;
        // len <= 64.
        unsafe { small(bytes) }
    }

    #[cold]
    fn detect() -> u8 {
        let class =
            if !(cpu_detect::features().popcnt && cpu_detect::allows(simd_core::Level::Sse42)) {
                SCALAR
            } else {
                match simd_core::select(&super::COUNT).name() {
                    "avx512" => {
                        let f = cpu_detect::features();
                        if f.avx512vl && f.bmi2 {
                            AVX512_WIDE
                        } else {
                            AVX512
                        }
                    }
                    "avx2" if !cpu_detect::features().splits_256bit_ops() => AVX2,
                    _ => POPCNT,
                }
            };
        CLASS.store(class, Ordering::Relaxed);
        class
    }

    /// The inlined count of at most 64 bytes.
    ///
    /// 9..=16 bytes first, straight-line: the first word plus the last one
    /// with the bytes both hold shifted out (as laid out by LLVM, the
    /// 16-byte count then takes no taken branch besides the caller's).
    /// Up to 8 bytes: at most two overlapping
    /// loads. From 17 bytes: pairs of words from the front while more than
    /// 16 bytes remain (at most three, one predictable branch each), one
    /// more word if more than 8 remain, then the last word of the slice,
    /// whose first bytes (already counted) are shifted out. No byte loop;
    /// the full words are counted by POPCNT straight from memory. Measured
    /// faster than a `u128` last pair (its variable shift is ~8
    /// instructions), than a word loop, than a `match` on the word count
    /// (a jump table: as fast at one fixed length, 2.3x slower on random
    /// 1..=64-byte lengths, where its indirect jump mispredicts), and
    /// (33..=64 bytes) than a call into the AVX-512 kernel (one masked
    /// load and the horizontal sum).
    ///
    /// # Safety
    /// The CPU must support POPCNT; `bytes.len() <= 64`.
    #[inline(always)]
    unsafe fn small(bytes: &[u8]) -> u64 {
        use simd_core::load::{tail_u64_le, u64_le};
        let len = bytes.len();
        debug_assert!(len <= 64);
        let p = bytes.as_ptr();
        // SAFETY (every block below): the CPU has POPCNT (the caller's
        // condition), and each memory operand lies inside the slice: the
        // first word only when len > 8, a pair at OFF only when
        // len > OFF + 16, the word at `at` only when at + 8 < len.
        unsafe {
            if len <= 16 {
                if len > 8 {
                    // The last word overlaps the first by 16 - len bytes
                    // (0..=7), its lowest in little-endian order.
                    return popcnt_word_at(p, 0)
                        + popcnt(u64_le(bytes, len - 8) >> (8 * (16 - len)));
                }
                return popcnt(tail_u64_le(bytes));
            }
            let mut n = popcnt_pair::<0>(p);
            let mut at = 16;
            if len > 32 {
                n += popcnt_pair::<16>(p);
                at = 32;
                if len > 48 {
                    n += popcnt_pair::<32>(p);
                    at = 48;
                }
            }
            // 1..=16 bytes remain from `at` (a multiple of 8).
            if at + 8 < len {
                n += popcnt_word_at(p, at);
            }
            // The last word overlaps the counted bytes by (-len mod 8)
            // bytes, the lowest in little-endian order: shift them out
            // (0..=56 bits).
            n + popcnt(u64_le(bytes, len - 8) >> (8 * (len.wrapping_neg() & 7)))
        }
    }

    /// POPCNT of one word.
    ///
    /// A `#[target_feature(enable = "popcnt")]` function cannot be inlined
    /// into this feature-less caller (and a call costs about as much as
    /// counting 32 bytes); `asm!` has no such limit.
    ///
    /// # Safety
    /// The CPU must support POPCNT.
    #[inline(always)]
    unsafe fn popcnt(x: u64) -> u64 {
        let n: u64;
        // SAFETY: the caller checked POPCNT; the instruction reads only its
        // register operand. `lateout` lets the output reuse the input
        // register, which avoids POPCNT's false dependency on its
        // destination on some Intel cores.
        unsafe {
            core::arch::asm!(
                "popcnt {n}, {x}",
                x = in(reg) x,
                n = lateout(reg) n,
                options(pure, nomem, nostack)
            )
        };
        n
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use cpu_detect::Level;

        /// After the first count the class follows the dispatch policy,
        /// stated here from the CPU and the ceiling rather than from
        /// [`detect`]'s code (every class counts the same, so the oracle
        /// tests cannot see a wrong one): POPCNT needed for anything but
        /// SWAR, then the `avx512` kernel (with the 64-byte masked short
        /// path where VL and BMI2 also run), the `avx2` kernel except on
        /// CPUs that split 256-bit operations, else the `popcnt` one.
        #[test]
        fn class_follows_the_policy() {
            assert_eq!(count(&[0xff; 100]), 800);
            let f = cpu_detect::features();
            let max = cpu_detect::max_level();
            let want = if !(f.popcnt && max.includes(Level::Sse42)) {
                SCALAR
            } else if max.includes(Level::Avx512) && f.avx512f && f.avx512bw && f.avx512vpopcntdq {
                if f.avx512vl && f.bmi2 {
                    AVX512_WIDE
                } else {
                    AVX512
                }
            } else if max.includes(Level::Avx2) && f.avx2 && !f.splits_256bit_ops() {
                AVX2
            } else {
                POPCNT
            };
            assert_eq!(CLASS.load(Ordering::Relaxed), want);
        }
    }
}

/// Inputs up to this many bytes never reach the dispatcher: they are
/// counted inline (words with CNT on aarch64, SWAR elsewhere).
#[cfg(not(target_arch = "x86_64"))]
const SMALL_COUNT: usize = 32;

/// [`crate::count`]: small inputs inline, the rest dispatched.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
pub(crate) fn count(bytes: &[u8]) -> u64 {
    if bytes.len() <= SMALL_COUNT {
        #[cfg(target_arch = "aarch64")]
        return count_words(bytes, |w| u64::from(w.count_ones()));
        #[cfg(not(target_arch = "aarch64"))]
        return scalar::count(bytes);
    }
    count_dispatched(bytes)
}

/// The shape of the inlined small-input count: whole words, then the last
/// partial word as an overlapping load shifted right (no byte loop, at most
/// one branch per 16 bytes). Measured faster than a plain word loop with a
/// `tail_u64_le` tail, also on mixed lengths.
#[cfg(target_arch = "aarch64")]
#[inline(always)]
fn count_words(bytes: &[u8], pop: impl Fn(u64) -> u64) -> u64 {
    use simd_core::load::{tail_u64_le, u64_le};
    let len = bytes.len();
    if len < 8 {
        return pop(tail_u64_le(bytes));
    }
    let (mut n, mut at) = (0, 0);
    while at + 16 <= len {
        n += pop(u64_le(bytes, at)) + pop(u64_le(bytes, at + 8));
        at += 16;
    }
    if at + 8 <= len {
        n += pop(u64_le(bytes, at));
        at += 8;
    }
    if at < len {
        // The last 8 bytes hold 8 - (len - at) already counted ones first
        // (lowest in little-endian order): shift them out (by 8..=56 bits).
        n += pop(u64_le(bytes, len - 8) >> (8 * (8 - (len - at))));
    }
    n
}

#[cfg(test)]
mod tests {
    extern crate std;

    /// Each count kernel is paired with the scan of its own name where one
    /// exists, else with the best scan the CPU runs below it.
    #[test]
    fn scan_paired_by_name() {
        let scans: std::vec::Vec<_> = simd_core::supported(&super::FIND)
            .map(|k| k.name())
            .collect();
        for name in &scans {
            assert_eq!(super::find_kernel(name).name(), *name);
        }
        assert_eq!(super::find_kernel("no such kernel").name(), "scalar");
        #[cfg(target_arch = "x86_64")]
        assert_eq!(super::find_kernel("popcnt").name(), "scalar");
    }
}

#[cfg(test)]
mod needs {
    /// Each kernel's feature test asks for exactly the features the kernel
    /// uses (a CPU with part of a set, AVX-512F without VPOPCNTDQ say,
    /// exists even where the test machine has all or none of it).
    #[test]
    fn feature_tests_state_each_kernels_needs() {
        use simd_core::testing::assert_kernel_needs;
        #[cfg(target_arch = "x86_64")]
        {
            assert_kernel_needs(
                &super::COUNT,
                &[
                    ("avx512", &["avx512f", "avx512bw", "avx512vpopcntdq"]),
                    ("avx2", &["avx2", "popcnt"]),
                    ("popcnt", &["popcnt"]),
                    ("scalar", &[]),
                ],
            );
            assert_kernel_needs(
                &super::FIND,
                &[
                    ("avx512", &["avx512f", "avx512bw"]),
                    ("avx2", &["avx2"]),
                    ("scalar", &[]),
                ],
            );
            let bitop: &[(&str, &[&str])] = &[
                (
                    "avx512",
                    &["avx512f", "avx512bw", "avx512vpopcntdq", "bmi2"],
                ),
                ("avx2", &["avx2"]),
                ("scalar", &[]),
            ];
            assert_kernel_needs(&super::BITOP, bitop);
            assert_kernel_needs(&super::BITOP_COUNT, bitop);
        }
        #[cfg(target_arch = "aarch64")]
        {
            let table: &[(&str, &[&str])] = &[("neon", &["neon"]), ("scalar", &[])];
            assert_kernel_needs(&super::COUNT, table);
            assert_kernel_needs(&super::FIND, table);
            assert_kernel_needs(&super::BITOP, table);
            assert_kernel_needs(&super::BITOP_COUNT, table);
        }
        #[cfg(target_arch = "riscv64")]
        {
            assert_kernel_needs(&super::COUNT, &[("zbb", &["zbb"]), ("scalar", &[])]);
            assert_kernel_needs(&super::FIND, &[("scalar", &[])]);
            assert_kernel_needs(&super::BITOP, &[("scalar", &[])]);
        }
    }
}

/// A BITOP kernel: the operation over `dst.len()` bytes into `dst` (the
/// contract in `kernels/bitop.rs`), returning `dst.len()`.
pub(crate) type BitopFn = unsafe fn(BitOp, &mut [core::mem::MaybeUninit<u8>], &[&[u8]]) -> usize;
/// A BITOP count kernel: the set bits of the operation over `n` bytes.
pub(crate) type BitopCountFn = unsafe fn(BitOp, &[&[u8]], usize) -> u64;

use crate::bitop::BitOp;
use crate::kernels::bitop as bitop_scalar;

/// The BITOP kernels, best first.
#[cfg(target_arch = "x86_64")]
pub(crate) static BITOP: [Candidate<BitopFn>; 3] = {
    use crate::kernels::x86_64::{avx2_bitop, avx512_bitop};
    // SAFETY: each function's only safety condition is the CPU features its
    // `supported` test checks.
    unsafe {
        [
            Candidate::new(
                "avx512",
                Level::Avx512,
                |f| f.avx512f && f.avx512bw && f.avx512vpopcntdq && f.bmi2,
                avx512_bitop::combine,
            ),
            Candidate::new("avx2", Level::Avx2, |f| f.avx2, avx2_bitop::combine),
            Candidate::new(
                "scalar",
                Level::Scalar,
                |_| true,
                bitop_scalar::scalar_combine_kernel,
            ),
        ]
    }
};

/// The BITOP count kernels, best first (the same names as [`BITOP`]).
#[cfg(target_arch = "x86_64")]
pub(crate) static BITOP_COUNT: [Candidate<BitopCountFn>; 3] = {
    use crate::kernels::x86_64::{avx2_bitop, avx512_bitop};
    // SAFETY: as for BITOP.
    unsafe {
        [
            Candidate::new(
                "avx512",
                Level::Avx512,
                |f| f.avx512f && f.avx512bw && f.avx512vpopcntdq && f.bmi2,
                avx512_bitop::count,
            ),
            Candidate::new("avx2", Level::Avx2, |f| f.avx2, avx2_bitop::count),
            Candidate::new(
                "scalar",
                Level::Scalar,
                |_| true,
                bitop_scalar::scalar_count_kernel,
            ),
        ]
    }
};

/// The BITOP kernels, best first.
#[cfg(target_arch = "aarch64")]
pub(crate) static BITOP: [Candidate<BitopFn>; 2] = {
    use crate::kernels::aarch64::neon_bitop;
    // SAFETY: each function's only safety condition is the CPU features its
    // `supported` test checks.
    unsafe {
        [
            Candidate::new("neon", Level::Neon, |f| f.neon, neon_bitop::combine),
            Candidate::new(
                "scalar",
                Level::Scalar,
                |_| true,
                bitop_scalar::scalar_combine_kernel,
            ),
        ]
    }
};

/// The BITOP count kernels, best first (the same names as [`BITOP`]).
#[cfg(target_arch = "aarch64")]
pub(crate) static BITOP_COUNT: [Candidate<BitopCountFn>; 2] = {
    use crate::kernels::aarch64::neon_bitop;
    // SAFETY: as for BITOP.
    unsafe {
        [
            Candidate::new("neon", Level::Neon, |f| f.neon, neon_bitop::count),
            Candidate::new(
                "scalar",
                Level::Scalar,
                |_| true,
                bitop_scalar::scalar_count_kernel,
            ),
        ]
    }
};

/// The BITOP kernels: the portable one (riscv64 included: its word loop
/// is what the bit operations need; Zbb only helps the popcount).
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub(crate) static BITOP: [Candidate<BitopFn>; 1] = {
    // SAFETY: the scalar kernel runs everywhere.
    unsafe {
        [Candidate::new(
            "scalar",
            Level::Scalar,
            |_| true,
            bitop_scalar::scalar_combine_kernel,
        )]
    }
};

/// The BITOP count kernels: the portable one.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub(crate) static BITOP_COUNT: [Candidate<BitopCountFn>; 1] = {
    // SAFETY: the scalar kernel runs everywhere.
    unsafe {
        [Candidate::new(
            "scalar",
            Level::Scalar,
            |_| true,
            bitop_scalar::scalar_count_kernel,
        )]
    }
};

simd_core::dispatch! {
    /// The best BITOP kernel, resolved on the first call.
    pub(crate) fn bitop_dispatched(op: BitOp, dst: &mut [core::mem::MaybeUninit<u8>], sources: &[&[u8]]) -> usize = &BITOP;
}

simd_core::dispatch! {
    /// The best BITOP count kernel, resolved on the first call.
    pub(crate) fn bitop_count_dispatched(op: BitOp, sources: &[&[u8]], n: usize) -> u64 = &BITOP_COUNT;
}

/// The BITOP count kernel to pair with the kernel `name`.
pub(crate) fn bitop_count_kernel(name: &str) -> simd_core::Kernel<BitopCountFn> {
    let mut fallback = None;
    for k in simd_core::supported(&BITOP_COUNT) {
        if k.name() == name {
            return k;
        }
        fallback = Some(k);
    }
    match fallback {
        Some(k) => k,
        None => unreachable!("BITOP_COUNT ends with an always-supported scalar kernel"),
    }
}

/// Results up to this many bytes take the inlined small path (no
/// function-pointer load, no wide vector state): 128-bit vectors where the
/// target has them in its baseline (x86_64 SSE2, aarch64 NEON), else `u64`
/// words.
pub(crate) const SMALL_BITOP: usize = 64;

/// BITOP of a small result (the kernel contract in `kernels/bitop.rs`).
#[inline(always)]
fn small_combine(op: BitOp, dst: &mut [core::mem::MaybeUninit<u8>], sources: &[&[u8]]) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 is part of the x86_64 baseline.
    unsafe {
        bitop_scalar::combine_small::<core::arch::x86_64::__m128i>(op, dst, sources);
    }
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    // SAFETY: NEON is statically enabled for this target.
    unsafe {
        bitop_scalar::combine_small::<core::arch::aarch64::uint8x16_t>(op, dst, sources);
    }
    #[cfg(not(any(
        target_arch = "x86_64",
        all(target_arch = "aarch64", target_feature = "neon")
    )))]
    // SAFETY: `u64` lanes run on every CPU.
    unsafe {
        bitop_scalar::combine_small::<u64>(op, dst, sources);
    }
}

/// BITCOUNT of BITOP over a small result.
#[inline(always)]
fn small_count(op: BitOp, sources: &[&[u8]], n: usize) -> u64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 is part of the x86_64 baseline.
    unsafe {
        bitop_scalar::count::<core::arch::x86_64::__m128i>(op, sources, n)
    }
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    // SAFETY: NEON is statically enabled for this target.
    unsafe {
        bitop_scalar::count::<core::arch::aarch64::uint8x16_t>(op, sources, n)
    }
    #[cfg(not(any(
        target_arch = "x86_64",
        all(target_arch = "aarch64", target_feature = "neon")
    )))]
    bitop_scalar::scalar_count(op, sources, n)
}

/// BITOP into `dst` (every length): small results inline, the rest
/// dispatched.
#[inline]
pub(crate) fn bitop(op: BitOp, dst: &mut [core::mem::MaybeUninit<u8>], sources: &[&[u8]]) {
    if dst.len() <= SMALL_BITOP {
        small_combine(op, dst, sources);
    } else {
        bitop_dispatched(op, dst, sources);
    }
}

/// BITCOUNT of BITOP over `n` bytes: small inline, the rest dispatched.
#[inline]
pub(crate) fn bitop_count(op: BitOp, sources: &[&[u8]], n: usize) -> u64 {
    if n <= SMALL_BITOP {
        small_count(op, sources, n)
    } else {
        bitop_count_dispatched(op, sources, n)
    }
}
