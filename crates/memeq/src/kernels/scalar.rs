//! Portable kernels: whole machine words with overlapping loads, no byte loops.
//!
//! - [`eq_below16`] / [`cmp_below16`]: the short tails every target shares.
//! - [`eq_upto64`] / [`cmp_upto64`]: the inlined short path on targets whose
//!   baseline we do not vectorise by hand (aarch64, riscv64, ...): the first
//!   and last 16 (or 32) bytes as overlapping 16-byte words, no length loop.
//! - [`eq`] / [`mismatch`]: the dispatched "scalar" kernel, the fallback at
//!   every ceiling and the twin of the test oracle.
//!
//! # Overlap trick
//! For `W <= n <= 4W`, the four `W`-byte blocks at `min(k*W, n-W)` for
//! `k = 0..4` lie inside the slice, start in nondecreasing order and together
//! cover `0..n` (the long kernels' tails use the same clamping). For
//! ordering, the first block that differs holds the first differing byte,
//! because every byte before its start was already covered by equal blocks.

use super::rd;
use core::cmp::Ordering;

/// The start of block `k` of the overlap trick for width `w` and length `n`
/// (`w <= n`).
#[inline(always)]
#[cfg_attr(target_arch = "x86_64", allow(dead_code))] // used by the portable cmp
pub(crate) const fn block(k: usize, w: usize, n: usize) -> usize {
    let at = k * w;
    let last = n - w;
    if at < last {
        at
    } else {
        last
    }
}

/// Whether the first `n` bytes at `a` and `b` are equal, for `n < 16`.
///
/// 0..=3 bytes first: none, or bytes 0, `n / 2` and `n - 1` of each side
/// (together they cover all of 1..=3) as one integer, no branch on the
/// length; then 8..=15: the first and last `u64` (overlapping); 4..=7: the
/// first and last `u32`. This order (the tiny lengths first) measured
/// fastest on mixed and on each fixed length; four overlapping `u32` words
/// for all of 4..=15 (one branch fewer) were slower: loads, not branches,
/// are the limit.
///
/// # Safety
/// `a` and `b` must each point to `n` readable bytes, `n < 16`.
#[inline(always)]
pub(crate) unsafe fn eq_below16(a: *const u8, b: *const u8, n: usize) -> bool {
    debug_assert!(n < 16);
    if n < 4 {
        // Bytes 0, n / 2 and n - 1 of one side (together they cover 1..=3).
        // SAFETY: called only for 1 <= n <= 3, where all three lie in 0..n
        // of both sides; nothing is read when n == 0.
        let key = |p: *const u8| unsafe {
            (u32::from(*p) << 16) | (u32::from(*p.add(n / 2)) << 8) | u32::from(*p.add(n - 1))
        };
        n == 0 || key(a) == key(b)
    } else if n >= 8 {
        // SAFETY: 0..8 and n-8..n lie in 0..n.
        unsafe {
            ((rd::<u64>(a, 0) ^ rd::<u64>(b, 0)) | (rd::<u64>(a, n - 8) ^ rd::<u64>(b, n - 8))) == 0
        }
    } else {
        // SAFETY: 4 <= n < 8: 0..4 and n-4..n lie in 0..n.
        unsafe {
            ((rd::<u32>(a, 0) ^ rd::<u32>(b, 0)) | (rd::<u32>(a, n - 4) ^ rd::<u32>(b, n - 4))) == 0
        }
    }
}

/// The order of `a` and `b` given that their first `n` bytes are at `a`
/// and `b` and their lengths are `la` and `lb` (`n = min(la, lb) < 16`): the
/// contract of `[u8]::cmp`.
///
/// Builds one big-endian key per side from overlapping loads: comparing the
/// keys as integers compares the bytes in order (overlapping bytes are only
/// reached once the bytes before them compared equal). The pair to compare
/// (the first differing keys, else the lengths) is picked with selects, so
/// the only branches are on `n`, and one integer compare decides (no
/// `Ordering::then` branch). `n < 2` is tested first: 1 B inputs were
/// slower than `Ord` with the long keys first.
///
/// # Safety
/// `a` and `b` must each point to `n` readable bytes, `n < 16`.
#[inline(always)]
pub(crate) unsafe fn cmp_below16(
    a: *const u8,
    b: *const u8,
    n: usize,
    la: usize,
    lb: usize,
) -> Ordering {
    debug_assert!(n < 16);
    let (x, y) = if n < 2 {
        if n == 0 {
            (0, 0)
        } else {
            // SAFETY: n == 1: byte 0 is readable.
            unsafe { (u64::from(*a), u64::from(*b)) }
        }
    } else if n >= 8 {
        // SAFETY: 0..8 and n-8..n lie in 0..n.
        let w = |p: *const u8, o: usize| u64::from_be(unsafe { rd(p, o) });
        let (x0, y0) = (w(a, 0), w(b, 0));
        let (x1, y1) = (w(a, n - 8), w(b, n - 8));
        if x0 != y0 {
            (x0, y0)
        } else {
            (x1, y1)
        }
    } else if n >= 4 {
        // SAFETY: 0..4 and n-4..n lie in 0..n.
        let key = |p: *const u8| unsafe {
            (u64::from(u32::from_be(rd(p, 0))) << 32) | u64::from(u32::from_be(rd(p, n - 4)))
        };
        (key(a), key(b))
    } else {
        // SAFETY: 2 <= n < 4: 0, n/2 and n-1 are below n.
        let key = |p: *const u8| unsafe {
            (u64::from(*p) << 16) | (u64::from(*p.add(n / 2)) << 8) | u64::from(*p.add(n - 1))
        };
        (key(a), key(b))
    };
    let (x, y) = if x != y {
        (x, y)
    } else {
        (la as u64, lb as u64)
    };
    x.cmp(&y)
}

/// Whether the first `n` bytes at `a` and `b` are equal, `n <= 64`.
///
/// # Safety
/// `a` and `b` must each point to `n` readable bytes, `n <= 64`.
#[inline(always)]
pub(crate) unsafe fn eq_upto64(a: *const u8, b: *const u8, n: usize) -> bool {
    debug_assert!(n <= 64);
    let x = |o: usize| {
        // SAFETY: callers pass o + 16 <= n.
        unsafe { rd::<u128>(a, o) ^ rd::<u128>(b, o) }
    };
    if n > 32 {
        // First and last 32 bytes (overlapping).
        (x(0) | x(16) | x(n - 32) | x(n - 16)) == 0
    } else if n >= 16 {
        (x(0) | x(n - 16)) == 0
    } else {
        // SAFETY: the caller gives n readable bytes at both; n < 16 is
        // the callee's other condition.
        unsafe { eq_below16(a, b, n) }
    }
}

/// The order of `a` and `b` given their first `n` bytes at `a` and `b` and
/// their lengths `la`, `lb` (`n = min(la, lb) <= 64`): `[u8]::cmp`.
///
/// # Safety
/// `a` and `b` must each point to `n` readable bytes, `n <= 64`.
#[inline(always)]
// x86_64 inlines the SSE2 version instead.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(crate) unsafe fn cmp_upto64(
    a: *const u8,
    b: *const u8,
    n: usize,
    la: usize,
    lb: usize,
) -> Ordering {
    debug_assert!(n <= 64);
    if n >= 16 {
        let (o1, o2, o3) = (block(1, 16, n), block(2, 16, n), n - 16);
        // SAFETY: every block lies in 0..n; big-endian keys order like the
        // bytes, and the blocks are compared in nondecreasing start order.
        unsafe {
            let key = |p: *const u8, o: usize| u128::from_be(rd(p, o));
            (key(a, 0), key(a, o1), key(a, o2), key(a, o3))
                .cmp(&(key(b, 0), key(b, o1), key(b, o2), key(b, o3)))
                .then(la.cmp(&lb))
        }
    } else {
        // SAFETY: the caller gives n readable bytes at both; n < 16 is
        // the callee's other condition.
        unsafe { cmp_below16(a, b, n, la, lb) }
    }
}

/// Equality of two slices of any lengths (the dispatched scalar kernel).
///
/// Long inputs: 32 bytes (four words) per loop branch, then the last 32 bytes
/// as four overlapping words.
pub(crate) fn eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    if n <= 64 {
        // SAFETY: both slices hold n <= 64 bytes.
        return unsafe { eq_upto64(pa, pb, n) };
    }
    let word = |i: usize| {
        // SAFETY: callers pass i + 8 <= n.
        unsafe { rd::<u64>(pa, i) ^ rd::<u64>(pb, i) }
    };
    let mut i = 0;
    while i + 32 < n {
        if (word(i) | word(i + 8) | word(i + 16) | word(i + 24)) != 0 {
            return false;
        }
        i += 32;
    }
    // n - i <= 32 and n > 64: the clamped blocks cover i..n in bounds.
    let at = |k: usize| if i + 8 * k < n - 8 { i + 8 * k } else { n - 8 };
    (word(at(0)) | word(at(1)) | word(at(2)) | word(at(3))) == 0
}

/// The index of the first differing byte of `a` and `b`, or the shorter
/// length if one is a prefix of the other (the dispatched scalar kernel).
///
/// Little-endian words: the lowest set bit of the XOR is in the first
/// differing byte.
pub(crate) fn mismatch(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    if n < 8 {
        if n >= 4 {
            for o in [0, n - 4] {
                // SAFETY: o + 4 <= n.
                let x = unsafe { u32::from_le(rd::<u32>(pa, o) ^ rd::<u32>(pb, o)) };
                if x != 0 {
                    return o + (x.trailing_zeros() / 8) as usize;
                }
            }
            return n;
        }
        return (0..n).find(|&i| a[i] != b[i]).unwrap_or(n);
    }
    let word = |i: usize| {
        // SAFETY: callers pass i + 8 <= n.
        unsafe { u64::from_le(rd::<u64>(pa, i) ^ rd::<u64>(pb, i)) }
    };
    let mut i = 0;
    while i + 8 < n {
        let x = word(i);
        if x != 0 {
            return i + (x.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    // The last word overlaps bytes already known equal, so its first set
    // byte is still the first difference.
    let x = word(n - 8);
    if x != 0 {
        return n - 8 + (x.trailing_zeros() / 8) as usize;
    }
    n
}
