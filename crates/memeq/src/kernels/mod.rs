//! The kernels, one algorithm per file, plus the unaligned-read helper they share.
//!
//! Every kernel reads only inside its two slices: short tails are covered by
//! overlapping in-bounds loads (or AVX-512 masked loads), never by reading
//! past the end.

pub(crate) mod scalar;
pub(crate) mod short;

// Builds that enable AVX-512BW and BMI2 at compile time compile the short
// paths in instead of dispatching them, leaving some of these unused.
#[cfg(target_arch = "x86_64")]
#[cfg_attr(
    all(target_feature = "avx512bw", target_feature = "bmi2"),
    allow(dead_code)
)]
pub(crate) mod x86_64 {
    //! x86_64 kernels: SSE2 (the target's baseline), AVX2 and AVX-512BW.
    pub(crate) mod avx2;
    pub(crate) mod avx512;
    pub(crate) mod sse2;

    /// Where a long loop starts once the first `align` bytes are checked:
    /// the first offset (1..=`align`) at which `a` is `align`-byte aligned
    /// (`align` a power of two), so no load from `a` splits a cache line
    /// (split loads halve the load throughput). The bytes it skips back over
    /// are the checked block's.
    #[inline(always)]
    pub(crate) fn aligned_start(a: *const u8, align: usize) -> usize {
        debug_assert!(align.is_power_of_two());
        align - (a as usize & (align - 1))
    }

    /// The first differing byte of `64 < n <= 128` bytes from the "differs"
    /// masks of their first 64 bytes (`head`) and their last 64 (`tail`,
    /// bit `t` = byte `n - 64 + t`), or `n` if neither has a bit set.
    #[inline(always)]
    pub(crate) fn first_of_ends(head: u64, tail: u64, n: usize) -> usize {
        if head != 0 {
            head.trailing_zeros() as usize
        } else if tail != 0 {
            n - 64 + tail.trailing_zeros() as usize
        } else {
            n
        }
    }
}

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64 {
    //! aarch64 kernels: NEON (the target's baseline).
    pub(crate) mod neon;
}

/// The `T` stored (unaligned) at `p + i`.
///
/// # Safety
/// `p + i .. p + i + size_of::<T>()` must be readable, and `T` must be an
/// integer or vector type (every bit pattern valid).
#[inline(always)]
pub(crate) unsafe fn rd<T: Copy>(p: *const u8, i: usize) -> T {
    // SAFETY: the caller guarantees the range is readable and any bits are a
    // valid `T`; `read_unaligned` has no alignment requirement.
    unsafe { core::ptr::read_unaligned(p.add(i).cast::<T>()) }
}
