//! The short paths fixed at compile time: the best compare of at most 64
//! bytes that the build's baseline allows (no dispatch), inlined into
//! callers before any function pointer is loaded.

#[cfg(target_arch = "x86_64")]
#[allow(unused_imports)]
use super::x86_64::{avx2, avx512, sse2};
use core::cmp::Ordering;

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
    // SAFETY: the caller's contract is the callee's; the build enables
    // AVX-512BW and BMI2.
    return unsafe { avx512::ne_upto64(a, b, n) } == 0;
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        not(all(target_feature = "avx512bw", target_feature = "bmi2"))
    ))]
    // SAFETY: the caller's contract is the callee's; the build enables AVX2.
    return unsafe { avx2::eq_upto64(a, b, n) };
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
    // SAFETY: the caller's contract is the callee's; SSE2 is baseline.
    return unsafe { sse2::eq_upto64(a, b, n) };
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: the caller's contract is the callee's (portable code).
    return unsafe { super::scalar::eq_upto64(a, b, n) };
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
pub(crate) unsafe fn order_from_mask(
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
    // SAFETY: `at(t)` is readable in both, by the caller's contract.
    unsafe { (*a.add(i)).cmp(&*b.add(i)) }
}

/// The order of `a` and `b` (lengths `la`, `lb`) from their first
/// `n = min(la, lb) <= 64` bytes at `a` and `b`: `[u8]::cmp`, for builds
/// whose short path is fixed at compile time.
///
/// # Safety
/// `a` and `b` must each point to `n` readable bytes, `n <= 64`.
#[cfg(not(all(
    target_arch = "x86_64",
    not(all(target_feature = "avx512bw", target_feature = "bmi2"))
)))]
#[inline(always)]
pub(crate) unsafe fn cmp_upto64(
    a: *const u8,
    b: *const u8,
    n: usize,
    la: usize,
    lb: usize,
) -> Ordering {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: the caller's contract is the callee's; the build enables
        // AVX-512BW and BMI2.
        let m = unsafe { avx512::ne_upto64(a, b, n) };
        // SAFETY: bit t of the mask is set only for a byte t < n.
        unsafe { order_from_mask(a, b, m, la, lb, |t| t) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: the caller's contract is the callee's (portable code).
    unsafe {
        super::scalar::cmp_upto64(a, b, n, la, lb)
    }
}
