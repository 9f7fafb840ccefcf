//! x86_64: the class names the picked kernel (and the CPU quirks that
//! change its best short path); short inputs run that kernel's inline
//! assembly or the SSE2 path, long ones its loop, called directly. Where the
//! `avx512` kernel is picked, `eq` of 1..=32 bytes is one masked 32-byte
//! compare and of 33..=64 two 32-byte compares (one length branch, at 32),
//! and `cmp` up to 64 bytes one branch-free pair of masked compares.

use super::{avx2, avx512, short, sse2, Class};
use core::cmp::Ordering;
use core::num::NonZeroU8;

/// Not detected yet (only in the lazy paths of `eq` and `cmp`, whose first
/// call detects; a [`Class`] from [`class`] never holds it).
const UNKNOWN: u8 = 0;
/// Another kernel is picked: SSE2 paths.
const OTHER: u8 = 1;
/// The `avx2` kernel is picked on a CPU that runs 256-bit operations as
/// two halves (AMD Zen 1 / Zen+, `splits_256bit_ops`): `eq` takes the
/// SSE2 path up to [`HALVED_AVX2_ABOVE`] bytes.
const AVX2_HALVED: u8 = 2;
/// The `avx2` kernel is picked.
const AVX2: u8 = 3;
/// The `avx512` kernel is picked on a CPU that runs 512-bit operations
/// as two halves (AMD Zen 4, `splits_512bit_ops`): `eq` over 64 bytes
/// takes the `avx2` kernel's paths, which are faster there.
const AVX512_SPLIT: u8 = 4;
/// The `avx512` kernel is picked.
const AVX512: u8 = 5;

// The codes are ordered by what they prove, so that one compare tests a
// class on the hot path: from AVX2_HALVED up the CPU has AVX2, from
// AVX512_SPLIT up the `avx512` kernel's features.

/// In the [`AVX2_HALVED`] class, `eq` of more bytes than this runs the
/// `avx2` loop: above a few hundred bytes both loops are bound by the
/// loads, and the SSE2 loop's branches stop keeping up.
const HALVED_AVX2_ABOVE: usize = 768;

static CHOICE: simd_core::Choice = simd_core::Choice::new();

/// The class of the kernel the dispatcher picks; the first call detects
/// (a call that may write memory: a hot loop should copy the class once,
/// as [`crate::Comparer`] does, rather than call this inside).
#[inline(always)]
pub(crate) fn class() -> Class {
    Class(CHOICE.get(classify).get())
}

/// The class if some call detected it already, else `UNKNOWN`; never
/// detects. For the `LAZY` rules only.
#[inline(always)]
pub(crate) fn cached_class() -> Class {
    Class(CHOICE.peek().map_or(UNKNOWN, NonZeroU8::get))
}

fn classify() -> NonZeroU8 {
    let f = cpu_detect::features();
    let code = match simd_core::select(&super::KERNELS).name() {
        "avx512" if f.splits_512bit_ops() => AVX512_SPLIT,
        "avx512" => AVX512,
        "avx2" if f.splits_256bit_ops() => AVX2_HALVED,
        "avx2" => AVX2,
        _ => OTHER,
    };
    NonZeroU8::new(code).unwrap_or(NonZeroU8::MIN)
}

// In the functions below, a class of AVX512 or AVX512_SPLIT proves that
// `select` picked the `avx512` candidate, whose test checked
// AVX-512F/BW/VL and BMI2 (and AVX-512F implies AVX2); AVX2 or
// AVX2_HALVED that it picked `avx2`, whose test checked AVX2. With `LAZY`
// the class may be UNKNOWN: the path detects (out of line) where it first
// needs the class; without, it never detects, so a caller's loop holds no
// call that may write memory.

/// Whether the class is AVX512 or AVX512_SPLIT, in one compare.
#[inline(always)]
fn is_avx512(c: u8) -> bool {
    c >= AVX512_SPLIT
}

/// Whether the class proves AVX2 (either `avx2` class or either `avx512`
/// class), in one compare.
#[inline(always)]
fn has_avx2(c: u8) -> bool {
    c >= AVX2_HALVED
}

/// [`eq`] when the class is UNKNOWN: detect, then compare.
#[cold]
#[inline(never)]
fn eq_first_call(a: &[u8], b: &[u8]) -> bool {
    eq::<false>(class(), a, b)
}

#[inline(always)]
pub(crate) fn eq<const LAZY: bool>(class: Class, a: &[u8], b: &[u8]) -> bool {
    let (n, c) = (a.len(), class.0);
    if n != b.len() {
        return false;
    }
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    // Both AVX-512 classes share the path up to 64 bytes: one compare of
    // the class on the hot path.
    if is_avx512(c) {
        // The length tests in this order put 1..=32 first, 33..=64 second,
        // and take `n = 0` (no load) and the long paths last.
        if n.wrapping_sub(1) < 32 {
            // SAFETY: the class proves AVX-512BW/VL and BMI2; both slices
            // hold 1 <= n <= 32 bytes.
            return unsafe { avx512::eq_1_32_asm(pa, pb, n) };
        }
        if n.wrapping_sub(33) < 32 {
            // SAFETY: the class proves AVX-512BW/VL; 32 < n <= 64.
            return unsafe { avx512::eq_33_64_asm(pa, pb, n) };
        }
        if n == 0 {
            return true;
        }
        if c == AVX512_SPLIT {
            if n <= 128 {
                // SAFETY: the class proves AVX2; 64 < n <= 128.
                return unsafe { avx2::eq_33_128_asm(pa, pb, n) };
            }
            // SAFETY: the class proves AVX2; both slices hold n > 64 bytes.
            return unsafe { avx2::eq_above64(pa, pb, n) };
        }
        if n <= 128 {
            // SAFETY: the class proves AVX-512BW/VL; 64 < n <= 128.
            return unsafe { avx512::eq_65_128_asm(pa, pb, n) };
        }
        // SAFETY: the class proves AVX-512BW; n > 128.
        return unsafe { avx512::eq_above128(pa, pb, n) };
    }
    if LAZY && c == UNKNOWN {
        return eq_first_call(a, b);
    }
    if n <= 32 {
        // SAFETY: both slices hold exactly n <= 32 bytes.
        return unsafe { short::eq_upto64(pa, pb, n) };
    }
    if c == AVX2 {
        if n <= 128 {
            // SAFETY: the class proves AVX2; 32 < n <= 128.
            return unsafe { avx2::eq_33_128_asm(pa, pb, n) };
        }
        // SAFETY: the class proves AVX2; both slices hold n > 64 bytes.
        return unsafe { avx2::eq_above64(pa, pb, n) };
    }
    if n <= 64 {
        // SAFETY: both slices hold exactly n <= 64 bytes.
        return unsafe { short::eq_upto64(pa, pb, n) };
    }
    if n <= 128 {
        // SAFETY: both slices hold 64 < n <= 128 bytes; SSE2 is
        // baseline on x86_64.
        return unsafe { sse2::eq_65_128(pa, pb, n) };
    }
    if c == AVX2_HALVED && n > HALVED_AVX2_ABOVE {
        // SAFETY: the class proves AVX2; both slices hold n > 64 bytes.
        return unsafe { avx2::eq_above64(pa, pb, n) };
    }
    eq_long_sse2(a, b)
}

/// `cmp` of at most 64 bytes: the `avx512` kernel's branch-free pair of
/// masked compares, the `avx2` kernel's two overlapping 32-byte compares
/// for 33..=64 bytes, else the SSE2 path.
///
/// # Safety
/// `a` and `b` must each point to `n` readable bytes, `n <= 64`.
#[inline(always)]
pub(crate) unsafe fn cmp_upto64<const LAZY: bool>(
    class: Class,
    a: *const u8,
    b: *const u8,
    n: usize,
    la: usize,
    lb: usize,
) -> Ordering {
    let mut c = class.0;
    if LAZY && c == UNKNOWN {
        c = first_class().0;
    }
    if is_avx512(c) {
        if n == 0 {
            // No masked load from an empty slice's dangling pointer (a
            // microcode assist of ~200 ns on Intel).
            return la.cmp(&lb);
        }
        // SAFETY: the class proves the features; both pointers hold
        // n <= 64 bytes.
        let m = unsafe { avx512::ne_upto64_asm(a, b, n) };
        // SAFETY: bit t of the mask is set only for a byte t < n.
        return unsafe { short::order_from_mask(a, b, m, la, lb, |t| t) };
    }
    if has_avx2(c) && n > 32 {
        // SAFETY: the class proves AVX2; both pointers hold
        // 32 < n <= 64 bytes.
        let m = unsafe { avx2::ne_33_64_asm(a, b, n) };
        // SAFETY: bit t is byte t of the first block (t < 32) or byte
        // t - 32 of the last one, at n - 32: both below n.
        return unsafe {
            short::order_from_mask(a, b, m, la, lb, |t| if t < 32 { t } else { t + n - 64 })
        };
    }
    // SAFETY: the caller's contract is the callee's.
    unsafe { sse2::cmp_upto64(a, b, n, la, lb) }
}

/// The first difference of slices whose shorter length is over 64
/// bytes: up to 128 bytes inline, longer inputs the picked kernel's loop.
#[inline(always)]
pub(crate) fn mismatch_above64<const LAZY: bool>(class: Class, a: &[u8], b: &[u8]) -> usize {
    let (n, mut c) = (a.len().min(b.len()), class.0);
    if LAZY && c == UNKNOWN {
        c = first_class().0;
    }
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    if n <= 128 && is_avx512(c) {
        // SAFETY: the class proves AVX-512BW/VL and BMI2; both slices
        // hold at least n bytes, 64 < n <= 128.
        return unsafe { avx512::mismatch_65_128_asm(pa, pb, n) };
    }
    if n <= 128 && has_avx2(c) {
        // SAFETY: the class proves AVX2; both slices hold at least n
        // bytes, 64 < n <= 128.
        return unsafe { avx2::mismatch_65_128_asm(pa, pb, n) };
    }
    match c {
        // SAFETY: the class proves the features (AVX2 included).
        AVX512_SPLIT | AVX2 | AVX2_HALVED => unsafe { avx2::mismatch(a, b) },
        // SAFETY: the class proves the features.
        AVX512 => unsafe { avx512::mismatch(a, b) },
        _ => mismatch_long_sse2(a, b),
    }
}

/// [`class`], out of line, for the first lazy call.
#[cold]
#[inline(never)]
fn first_class() -> Class {
    class()
}

/// The SSE2 loop for long inputs where neither vector kernel is picked.
/// `#[cold]` keeps it out of the callers; `#[inline]` lets the caller's
/// crate see that it only reads memory.
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The class follows the dispatch policy, stated here from the CPU
    /// and the ceiling rather than from [`classify`]'s code (every class
    /// computes the same answers, so the oracle tests cannot see a wrong
    /// one). CI runs this under each ceiling.
    #[test]
    fn class_follows_the_policy() {
        use cpu_detect::Level;
        let f = cpu_detect::features();
        let max = cpu_detect::max_level();
        let want = if max.includes(Level::Avx512) && f.avx512f && f.avx512bw && f.avx512vl && f.bmi2
        {
            if f.splits_512bit_ops() {
                AVX512_SPLIT
            } else {
                AVX512
            }
        } else if max.includes(Level::Avx2) && f.avx2 {
            if f.splits_256bit_ops() {
                AVX2_HALVED
            } else {
                AVX2
            }
        } else {
            OTHER
        };
        assert_eq!(class().0, want);
        assert_eq!(CHOICE.peek().map(NonZeroU8::get), Some(want));
    }

    /// Every class this CPU can run gives `==`'s answer and `[u8]::cmp`'s
    /// order at every length to 300 (all the short-path splits) and at
    /// each position of the difference, not only the class the dispatcher
    /// picks here (the split classes are what AMD Zen 1 and Zen 4 get).
    #[test]
    #[cfg_attr(miri, ignore = "inline assembly")]
    fn every_runnable_class_agrees_with_slices() {
        let f = cpu_detect::features();
        let avx512 = f.avx512f && f.avx512bw && f.avx512vl && f.bmi2 && f.avx2;
        let classes = [
            (AVX512, avx512),
            (AVX512_SPLIT, avx512),
            (AVX2, f.avx2),
            (AVX2_HALVED, f.avx2),
            (OTHER, true),
        ];
        let max: usize = 300;
        let mut a = [0u8; 300];
        for (i, b) in a.iter_mut().enumerate() {
            *b = (i * 7 + 1) as u8;
        }
        for (code, runs) in classes {
            if !runs {
                continue;
            }
            let c = Class(code);
            for n in 0..max {
                let x = &a[..n];
                assert!(eq::<false>(c, x, &a[..n]), "class {code} n {n}");
                for at in [0, n / 2, n.saturating_sub(1)]
                    .into_iter()
                    .filter(|&i| i < n)
                {
                    let mut buf = [0u8; 300];
                    buf[..n].copy_from_slice(x);
                    buf[at] ^= 0x80;
                    let y = &buf[..n];
                    assert!(!eq::<false>(c, x, y), "class {code} n {n} at {at}");
                    let got = if n <= 64 {
                        // SAFETY: both slices hold n <= 64 bytes; the class
                        // is runnable on this CPU (checked above).
                        unsafe { cmp_upto64::<false>(c, x.as_ptr(), y.as_ptr(), n, n, n) }
                    } else {
                        let i = mismatch_above64::<false>(c, x, y);
                        assert_eq!(i, at, "class {code} n {n}");
                        x[i].cmp(&y[i])
                    };
                    assert_eq!(got, x.cmp(y), "class {code} n {n} at {at}");
                }
            }
        }
    }
}
