//! Which kernel runs: one table of kernels per target ([`KERNELS`], best
//! first, ending with scalar), the functions dispatched from its fields,
//! and the rules that keep short inputs off the function pointer.
//!
//! - `count`: on x86_64 the rules in `dispatch/x86.rs` (a cached
//!   [`simd_core::Choice`] class picks an inlined short path and a direct
//!   call of the chosen kernel); elsewhere up to 32 bytes inline, then the
//!   dispatched kernel.
//! - BITPOS scans up to 32 bytes and BITOP results up to 64 bytes run
//!   inline; longer ones through the dispatched kernel.
//!
//! Nothing runs before `main`: the first call detects.

use crate::kernels::bitop as bitop_scalar;
use crate::kernels::{scalar, Fns};
use crate::op::BitOp;
use core::mem::MaybeUninit;
use simd_core::{Candidate, Level};

/// The portable kernel, last in every table.
// SAFETY: the portable functions run on every CPU.
const SCALAR: Candidate<Fns> =
    unsafe { Candidate::new("scalar", Level::Scalar, |_| true, scalar::FNS) };

/// The kernels, best first. `avx512bw` serves CPUs with AVX-512BW but no
/// VPOPCNTDQ: the AVX-512 scan with the `avx2` count and BITOP.
#[cfg(target_arch = "x86_64")]
pub(crate) static KERNELS: [Candidate<Fns>; 5] = {
    use crate::kernels::x86_64::{avx2, avx512, popcnt};
    // SAFETY: the avx512 functions need the features `avx512::supported`
    // tests.
    let wide = unsafe { Candidate::new("avx512", Level::Avx512, avx512::supported, avx512::FNS) };
    // SAFETY: the avx512bw functions (the AVX-512BW scan, the avx2 count
    // and BITOP) need the features `avx512::supported_bw` tests.
    let bw = unsafe {
        Candidate::new(
            "avx512bw",
            Level::Avx512,
            avx512::supported_bw,
            avx512::FNS_BW,
        )
    };
    // SAFETY: the avx2 functions need the features `avx2::supported` tests.
    let avx2 = unsafe { Candidate::new("avx2", Level::Avx2, avx2::supported, avx2::FNS) };
    // SAFETY: the popcnt count needs the feature `popcnt::supported` tests;
    // its other functions are the portable ones.
    let popcnt = unsafe { Candidate::new("popcnt", Level::Sse42, popcnt::supported, popcnt::FNS) };
    [wide, bw, avx2, popcnt, SCALAR]
};

/// The kernels, best first.
#[cfg(target_arch = "aarch64")]
pub(crate) static KERNELS: [Candidate<Fns>; 2] = {
    use crate::kernels::aarch64::neon;
    // SAFETY: the NEON functions need the feature `neon::supported` tests.
    let neon = unsafe { Candidate::new("neon", Level::Neon, neon::supported, neon::FNS) };
    [neon, SCALAR]
};

/// The kernels, best first (`zbb` at its own tier, so the `scalar`
/// ceiling switches it off).
#[cfg(target_arch = "riscv64")]
pub(crate) static KERNELS: [Candidate<Fns>; 2] = {
    use crate::kernels::riscv64;
    // SAFETY: the Zbb count needs the feature `riscv64::supported` tests;
    // its other functions are the portable ones.
    let zbb = unsafe { Candidate::new("zbb", Level::Zbb, riscv64::supported, riscv64::FNS) };
    [zbb, SCALAR]
};

/// The kernels: the portable one only.
#[cfg(not(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "riscv64"
)))]
pub(crate) static KERNELS: [Candidate<Fns>; 1] = [SCALAR];

simd_core::dispatch! {
    /// The best count kernel, resolved on the first call.
    fn count_dispatched(bytes: &[u8]) -> u64 = &KERNELS, .count;
}

simd_core::dispatch! {
    /// The best scan kernel, resolved on the first call.
    fn find_dispatched(bytes: &[u8], skip: u8) -> usize = &KERNELS, .find_not;
}

simd_core::dispatch! {
    /// The best BITOP kernel, resolved on the first call.
    fn bitop_dispatched(op: BitOp, dst: &mut [MaybeUninit<u8>], sources: &[&[u8]]) -> usize = &KERNELS, .bitop;
}

simd_core::dispatch! {
    /// The best BITOP count kernel, resolved on the first call.
    fn bitop_count_dispatched(op: BitOp, sources: &[&[u8]], n: usize) -> u64 = &KERNELS, .bitop_count;
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

#[cfg(target_arch = "x86_64")]
mod x86;

#[cfg(target_arch = "x86_64")]
pub(crate) use x86::count;

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

/// Results up to this many bytes take the inlined small path (no
/// function-pointer load, no wide vector state): 128-bit vectors where the
/// target has them in its baseline (x86_64 SSE2, aarch64 NEON), else `u64`
/// words.
pub(crate) const SMALL_BITOP: usize = 64;

/// BITOP of a small result (the kernel contract in `kernels/bitop.rs`).
#[inline(always)]
fn small_combine(op: BitOp, dst: &mut [MaybeUninit<u8>], sources: &[&[u8]]) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the 128-bit lanes need SSE2, part of the x86_64 baseline.
    unsafe {
        bitop_scalar::combine_small::<core::arch::x86_64::__m128i>(op, dst, sources);
    }
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    // SAFETY: the 128-bit lanes need NEON, enabled for this whole build.
    unsafe {
        bitop_scalar::combine_small::<core::arch::aarch64::uint8x16_t>(op, dst, sources);
    }
    #[cfg(not(any(
        target_arch = "x86_64",
        all(target_arch = "aarch64", target_feature = "neon")
    )))]
    // SAFETY: `u64` lanes need no CPU feature.
    unsafe {
        bitop_scalar::combine_small::<u64>(op, dst, sources);
    }
}

/// BITCOUNT of BITOP over a small result.
#[inline(always)]
fn small_count(op: BitOp, sources: &[&[u8]], n: usize) -> u64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the 128-bit lanes need SSE2, part of the x86_64 baseline.
    unsafe {
        bitop_scalar::count::<core::arch::x86_64::__m128i>(op, sources, n)
    }
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    // SAFETY: the 128-bit lanes need NEON, enabled for this whole build.
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
pub(crate) fn bitop(op: BitOp, dst: &mut [MaybeUninit<u8>], sources: &[&[u8]]) {
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

#[cfg(test)]
mod tests {
    use super::{scalar, KERNELS};

    /// Each kernel's feature test asks for exactly the features its
    /// functions use (a CPU with part of a set, AVX-512F without
    /// VPOPCNTDQ say, exists even where the test machine has all or none).
    #[test]
    fn feature_tests_state_each_kernels_needs() {
        #[cfg(target_arch = "x86_64")]
        let table: &[(&str, &[&str])] = &[
            (
                "avx512",
                &["avx512f", "avx512bw", "avx512vpopcntdq", "bmi2"],
            ),
            ("avx512bw", &["avx512f", "avx512bw", "avx2", "popcnt"]),
            ("avx2", &["avx2", "popcnt"]),
            ("popcnt", &["popcnt"]),
            ("scalar", &[]),
        ];
        #[cfg(target_arch = "aarch64")]
        let table: &[(&str, &[&str])] = &[("neon", &["neon"]), ("scalar", &[])];
        #[cfg(target_arch = "riscv64")]
        let table: &[(&str, &[&str])] = &[("zbb", &["zbb"]), ("scalar", &[])];
        #[cfg(not(any(
            target_arch = "x86_64",
            target_arch = "aarch64",
            target_arch = "riscv64"
        )))]
        let table: &[(&str, &[&str])] = &[("scalar", &[])];
        simd_core::testing::assert_kernel_needs(&KERNELS, table);
    }

    /// Which functions each kernel (that this CPU runs) takes from another
    /// (a borrowed function counts right and passes every oracle test,
    /// only slowly): the `..scalar::FNS` / `..avx2::FNS` fills stated.
    #[test]
    // Miri may give one function several addresses.
    #[cfg_attr(miri, ignore)]
    fn kernels_borrow_only_what_they_state() {
        let s = scalar::FNS;
        let addrs = |f: super::Fns| {
            [
                f.count as usize,
                f.find_not as usize,
                f.bitop as usize,
                f.bitop_count as usize,
            ]
        };
        let scalar = addrs(s);
        for k in simd_core::supported(&KERNELS) {
            let f = addrs(k.func());
            let own: [bool; 4] = core::array::from_fn(|i| f[i] != scalar[i]);
            let want = match k.name() {
                "scalar" => [false; 4],
                "popcnt" | "zbb" => [true, false, false, false],
                _ => [true; 4],
            };
            assert_eq!(own, want, "{}", k.name());
        }
        #[cfg(target_arch = "x86_64")]
        {
            use crate::kernels::x86_64::{avx2, avx512};
            let (bw, avx2, wide) = (addrs(avx512::FNS_BW), addrs(avx2::FNS), addrs(avx512::FNS));
            assert_eq!((bw[0], bw[2], bw[3]), (avx2[0], avx2[2], avx2[3]));
            assert_eq!(bw[1], wide[1]);
            assert_ne!(bw[1], avx2[1]);
        }
    }
}
