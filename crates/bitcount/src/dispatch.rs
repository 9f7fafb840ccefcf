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

/// The count kernels, best first. cpu-detect has no RISC-V tier, so `zbb`
/// is listed at `Scalar` and only its feature test gates it.
#[cfg(target_arch = "riscv64")]
pub(crate) static COUNT: [Candidate<CountFn>; 2] = {
    // SAFETY: each function's only safety condition is the CPU features its
    // `supported` test checks.
    unsafe {
        [
            Candidate::new(
                "zbb",
                Level::Scalar,
                |f| f.zbb,
                crate::kernels::riscv64::count,
            ),
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

/// Inputs up to this many bytes never reach the dispatcher: they are
/// counted inline, or (with a hardware popcount, above [`SMALL_HW`]) by the
/// dispatched kernel. Either way never slower than the scalar kernel.
const SMALL_COUNT: usize = 64;

/// With a hardware popcount, inputs up to this many bytes are counted inline
/// and longer ones dispatched. Measured on Zen 5: inline POPCNT beats an
/// indirect call into the AVX-512 kernel (one masked load) up to ~32 bytes
/// and loses from ~40; the POPCNT and AVX2 kernels are even with it at 64
/// (see the crate README).
const SMALL_HW: usize = 32;

/// Scans up to this many bytes run inline (BITPOS ranges are often short).
const SMALL_FIND: usize = 32;

/// [`crate::count`]: small inputs inline, the rest dispatched.
#[inline]
pub(crate) fn count(bytes: &[u8]) -> u64 {
    if bytes.len() <= SMALL_COUNT {
        if let Some(n) = small::count(bytes) {
            return n;
        }
    }
    count_dispatched(bytes)
}

/// The index of the first byte that is not `skip`: small inputs inline, the
/// rest dispatched.
#[inline]
pub(crate) fn find_not(bytes: &[u8], skip: u8) -> usize {
    if bytes.len() <= SMALL_FIND {
        return scalar::find_not(bytes, skip);
    }
    find_dispatched(bytes, skip)
}

/// The shape of the inlined small-input count: whole words, then the last
/// partial word as an overlapping load shifted right (no byte loop, at most
/// one branch per 16 bytes). Measured faster than a plain word loop with a
/// `tail_u64_le` tail, also on mixed lengths.
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

/// The inlined small-input count.
#[cfg(not(all(target_arch = "x86_64", not(target_feature = "popcnt"))))]
mod small {
    /// Where POPCNT is enabled at compile time, or on aarch64 (CNT), a word
    /// loop with `count_ones`; elsewhere the SWAR count.
    #[inline(always)]
    pub(crate) fn count(bytes: &[u8]) -> Option<u64> {
        if bytes.len() > super::SMALL_HW {
            None
        } else if cfg!(any(target_feature = "popcnt", target_arch = "aarch64")) {
            Some(super::count_words(bytes, |w| u64::from(w.count_ones())))
        } else {
            Some(crate::kernels::scalar::count(bytes))
        }
    }
}

/// The inlined small-input count on x86_64 builds without POPCNT enabled:
/// POPCNT through inline assembly once a cached check said the CPU has it
/// (and the ceiling allows the `sse4.2` tier), else SWAR.
///
/// A `#[target_feature(enable = "popcnt")]` function cannot be inlined here,
/// and an indirect call costs about as much as counting 32 bytes; `asm!` has
/// no such limit. The check is one relaxed load of a static, like the
/// dispatcher's pointer load, but with no call.
#[cfg(all(target_arch = "x86_64", not(target_feature = "popcnt")))]
mod small {
    use core::sync::atomic::{AtomicU8, Ordering};

    const UNKNOWN: u8 = 0;
    const NO: u8 = 1;
    const YES: u8 = 2;
    static HW_POPCNT: AtomicU8 = AtomicU8::new(UNKNOWN);

    #[cold]
    fn detect() -> u8 {
        let yes = cpu_detect::features().popcnt && cpu_detect::allows(simd_core::Level::Sse42);
        let v = if yes { YES } else { NO };
        HW_POPCNT.store(v, Ordering::Relaxed);
        v
    }

    /// POPCNT of one word.
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

    #[inline(always)]
    pub(crate) fn count(bytes: &[u8]) -> Option<u64> {
        let mut hw = HW_POPCNT.load(Ordering::Relaxed);
        if hw == UNKNOWN {
            hw = detect();
        }
        if hw != YES {
            // The dispatcher would pick the scalar kernel too: call it
            // inline, without the indirect call.
            return Some(crate::kernels::scalar::count(bytes));
        }
        if bytes.len() > super::SMALL_HW {
            return None;
        }
        // SAFETY: HW_POPCNT is YES only if the CPU has POPCNT.
        Some(super::count_words(bytes, |w| unsafe { popcnt(w) }))
    }
}
