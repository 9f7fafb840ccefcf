//! AVX2 kernels: 32-byte `vpcmpeqb` compares, four per loop branch (128
//! bytes), folded with `vpand` into one `vpmovmskb`.
//!
//! 32..=64 bytes: the first and the last 32 bytes (overlapping). Below 32 the
//! SSE2 short path runs (inlined into this `#[target_feature]` function, so it
//! is VEX-encoded here).

use crate::kernels::x86_64::sse2;
use core::arch::x86_64::{
    __m256i, _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8,
};

/// `vpcmpeqb` of the 32 bytes at `a + i` and `b + i` (0xff where equal).
///
/// # Safety
/// `i..i + 32` must be readable at `a` and at `b`; the CPU must have AVX2
/// (inline only into AVX2 functions).
#[inline(always)]
unsafe fn eq32(a: *const u8, b: *const u8, i: usize) -> __m256i {
    // SAFETY: the caller guarantees both ranges are readable and AVX2.
    unsafe {
        _mm256_cmpeq_epi8(
            _mm256_loadu_si256(a.add(i).cast()),
            _mm256_loadu_si256(b.add(i).cast()),
        )
    }
}

/// The 32-bit "equal" mask of a compare result.
///
/// # Safety
/// The CPU must have AVX2.
#[inline(always)]
unsafe fn mask(v: __m256i) -> u32 {
    // SAFETY: the caller guarantees AVX2.
    unsafe { _mm256_movemask_epi8(v) as u32 }
}

/// `vpand` of four compare results at the blocks `o`, as a mask.
///
/// # Safety
/// Each `o_k..o_k + 32` must be readable at `a` and `b`; AVX2.
#[inline(always)]
unsafe fn all4(a: *const u8, b: *const u8, o: [usize; 4]) -> u32 {
    // SAFETY: the caller gives each block readable at both pointers
    // and guarantees AVX2.
    unsafe {
        mask(_mm256_and_si256(
            _mm256_and_si256(eq32(a, b, o[0]), eq32(a, b, o[1])),
            _mm256_and_si256(eq32(a, b, o[2]), eq32(a, b, o[3])),
        ))
    }
}

/// Whether the first `n` bytes at `a` and `b` are equal, `n <= 64`: first and
/// last 32 bytes for 32..=64, SSE2 below.
///
/// # Safety
/// `a` and `b` must each point to `n` readable bytes, `n <= 64`; AVX2 (inline
/// only into AVX2 functions, or build with AVX2 enabled).
#[inline(always)]
pub(crate) unsafe fn eq_upto64(a: *const u8, b: *const u8, n: usize) -> bool {
    debug_assert!(n <= 64);
    if n >= 32 {
        // SAFETY: 0..32 and n-32..n lie in 0..n; AVX2 by contract.
        unsafe { mask(_mm256_and_si256(eq32(a, b, 0), eq32(a, b, n - 32))) == u32::MAX }
    } else {
        // SAFETY: the caller gives n readable bytes at both; n < 32 <= 64;
        // SSE2 is baseline.
        unsafe { sse2::eq_upto64(a, b, n) }
    }
}

/// Inline assembly over the bytes at `a` and `b` (`{a}`, `{b}`, length
/// `{n}`) ending with `vzeroupper`. `two`: `ymm0`/`ymm1` = the byte-equal
/// masks of bytes 0..32 and n-32..n (`32 <= n`); `four`: `ymm0`..`ymm3` =
/// those of 0..32, 32..64, n-64..n-32, n-32..n (`64 <= n`); then the `tail`
/// instructions and the named operands. Every vector register is declared
/// clobbered, as a call to `bcmp` would clobber them (the `vzeroupper`
/// clears the upper halves of all sixteen). Needs AVX2.
macro_rules! ymm_asm {
    (
        two, $a:expr, $b:expr, $n:expr, [$($tail:literal),+ $(,)?]
        $(, $name:ident = $dir:ident($class:ident) $var:tt)* $(,)?
    ) => {
        ymm_asm!(
            @emit $a, $b, $n,
            [
                "vmovdqu ymm0, [{a}]",
                "vmovdqu ymm1, [{a} + {n} - 32]",
                "vpcmpeqb ymm0, ymm0, [{b}]",
                "vpcmpeqb ymm1, ymm1, [{b} + {n} - 32]",
                $($tail),+
            ]
            $(, $name = $dir($class) $var)*
        )
    };
    (
        four, $a:expr, $b:expr, $n:expr, [$($tail:literal),+ $(,)?]
        $(, $name:ident = $dir:ident($class:ident) $var:tt)* $(,)?
    ) => {
        ymm_asm!(
            @emit $a, $b, $n,
            [
                "vmovdqu ymm0, [{a}]",
                "vmovdqu ymm1, [{a} + 32]",
                "vmovdqu ymm2, [{a} + {n} - 64]",
                "vmovdqu ymm3, [{a} + {n} - 32]",
                "vpcmpeqb ymm0, ymm0, [{b}]",
                "vpcmpeqb ymm1, ymm1, [{b} + 32]",
                "vpcmpeqb ymm2, ymm2, [{b} + {n} - 64]",
                "vpcmpeqb ymm3, ymm3, [{b} + {n} - 32]",
                $($tail),+
            ]
            $(, $name = $dir($class) $var)*
        )
    };
    (
        @emit $a:expr, $b:expr, $n:expr, [$($insn:literal),+]
        $(, $name:ident = $dir:ident($class:ident) $var:tt)*
    ) => {
        core::arch::asm!(
            $($insn,)+
            "vzeroupper",
            a = in(reg) $a,
            b = in(reg) $b,
            n = in(reg) $n,
            $($name = $dir($class) $var,)*
            out("ymm0") _, out("ymm1") _, out("ymm2") _, out("ymm3") _,
            out("ymm4") _, out("ymm5") _, out("ymm6") _, out("ymm7") _,
            out("ymm8") _, out("ymm9") _, out("ymm10") _, out("ymm11") _,
            out("ymm12") _, out("ymm13") _, out("ymm14") _, out("ymm15") _,
            options(pure, readonly, nostack),
        )
    };
}

/// For `cmp`, `32 < n <= 64`: the "differs" masks of the first and the last
/// 32 bytes at `a` and `b` (overlapping), as `first | last << 32` (bit `t`
/// is byte `t` below 32, byte `t + n - 64` from 32 up), in inline assembly
/// (two `vpcmpeqb`, two `vpmovmskb`, `vzeroupper`; every vector register
/// declared clobbered, as in [`eq_33_128_asm`]).
///
/// # Safety
/// `a` and `b` must each point to `n` readable bytes, `32 < n <= 64`; the
/// CPU must have AVX2 (any caller).
#[inline(always)]
pub(crate) unsafe fn ne_33_64_asm(a: *const u8, b: *const u8, n: usize) -> u64 {
    debug_assert!(32 < n && n <= 64);
    let (first, last): (u32, u32);
    // SAFETY: AVX2 by contract; 0..32 and n-32..n lie in 0..n as n > 32;
    // the clobbered registers are declared.
    unsafe {
        ymm_asm!(
            two, a, b, n,
            ["vpmovmskb {f:e}, ymm0", "vpmovmskb {l:e}, ymm1"],
            f = out(reg) first,
            l = out(reg) last,
        )
    };
    u64::from(!first) | u64::from(!last) << 32
}

/// For `cmp`, `64 < n <= 128`: the index of the first byte where `a` and
/// `b` differ, or `n`, from the first and the last 64 bytes (overlapping) as
/// four 32-byte compares in inline assembly (as [`ne_33_64_asm`]).
///
/// # Safety
/// `a` and `b` must each point to `n` readable bytes, `64 < n <= 128`; the
/// CPU must have AVX2 (any caller).
#[inline(always)]
pub(crate) unsafe fn mismatch_65_128_asm(a: *const u8, b: *const u8, n: usize) -> usize {
    debug_assert!(64 < n && n <= 128);
    let (m0, m1, m2, m3): (u32, u32, u32, u32);
    // SAFETY: AVX2 by contract; 0..64 and n-64..n lie in 0..n as n > 64;
    // the clobbered registers are declared.
    unsafe {
        ymm_asm!(
            four, a, b, n,
            [
                "vpmovmskb {m0:e}, ymm0",
                "vpmovmskb {m1:e}, ymm1",
                "vpmovmskb {m2:e}, ymm2",
                "vpmovmskb {m3:e}, ymm3",
            ],
            m0 = out(reg) m0,
            m1 = out(reg) m1,
            m2 = out(reg) m2,
            m3 = out(reg) m3,
        )
    };
    let head = u64::from(!m0) | u64::from(!m1) << 32;
    let tail = u64::from(!m2) | u64::from(!m3) << 32;
    super::first_of_ends(head, tail, n)
}

/// Whether the first `n` bytes at `a` and `b` are equal, `32 < n <= 128`,
/// in inline assembly (so it inlines into baseline code): the first and
/// last 32 bytes (`n <= 64`) or 64 bytes (`n > 64`) as overlapping 32-byte
/// `vpcmpeqb`, one `vpmovmskb`, then `vzeroupper`. The short path of
/// `memeq::eq` where the `avx2` kernel is picked: faster there than the
/// SSE2 path and than a dispatched call.
/// Every vector register is declared clobbered, as a call to `bcmp` would
/// clobber them (the `vzeroupper` clears the upper halves of all sixteen).
///
/// # Safety
/// `a` and `b` must each point to `n` readable bytes, `32 < n <= 128`; the
/// CPU must have AVX2 (any caller).
#[inline(always)]
pub(crate) unsafe fn eq_33_128_asm(a: *const u8, b: *const u8, n: usize) -> bool {
    debug_assert!(32 < n && n <= 128);
    let equal: u8;
    if n <= 64 {
        // SAFETY: AVX2 by contract; 0..32 and n-32..n lie in 0..n as
        // n > 32; the clobbered registers are declared.
        unsafe {
            ymm_asm!(
                two, a, b, n,
                ["vpand ymm0, ymm0, ymm1", "vpmovmskb {m:e}, ymm0", "cmp {m:e}, -1", "sete {r}"],
                m = out(reg) _,
                r = out(reg_byte) equal,
            )
        }
    } else {
        // SAFETY: AVX2 by contract; 0..64 and n-64..n lie in 0..n as
        // n > 64; the clobbered registers are declared.
        unsafe {
            ymm_asm!(
                four, a, b, n,
                [
                    "vpand ymm0, ymm0, ymm1",
                    "vpand ymm2, ymm2, ymm3",
                    "vpand ymm0, ymm0, ymm2",
                    "vpmovmskb {m:e}, ymm0",
                    "cmp {m:e}, -1",
                    "sete {r}",
                ],
                m = out(reg) _,
                r = out(reg_byte) equal,
            )
        }
    }
    // SAFETY: `sete` writes 0 or 1; knowing it spares the caller a `test`
    // + `setne` to make a `bool` of it.
    unsafe { core::hint::assert_unchecked(equal <= 1) };
    equal != 0
}

/// Equality of two slices of any lengths.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    if n <= 64 {
        // SAFETY: both slices hold n <= 64 bytes; AVX2 is enabled here.
        return unsafe { eq_upto64(pa, pb, n) };
    }
    // SAFETY: both slices hold n > 64 bytes; AVX2 is enabled here.
    unsafe { eq_above64(pa, pb, n) }
}

/// Inputs longer than this align their loop's loads from `a` (~25%
/// faster at 1 KiB: no load splits a cache line).
const ALIGN_ABOVE: usize = 256;

/// Equality of `n > 64` bytes at `a` and `b`: 128 bytes per loop branch,
/// the rest as one to four blocks, the last ending at `n`.
///
/// # Safety
/// `a` and `b` must each point to `n` readable bytes, `n > 64`; the CPU must
/// have AVX2.
#[inline]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn eq_above64(a: *const u8, b: *const u8, n: usize) -> bool {
    debug_assert!(n > 64);
    let mut i = 0;
    if n > ALIGN_ABOVE {
        // SAFETY: n > 32; AVX2 is enabled here.
        if unsafe { mask(eq32(a, b, 0)) } != u32::MAX {
            return false;
        }
        i = super::aligned_start(a, 32);
    }
    while i + 128 < n {
        // SAFETY: i + 128 < n; AVX2 is enabled here.
        if unsafe { all4(a, b, [i, i + 32, i + 64, i + 96]) } != u32::MAX {
            return false;
        }
        i += 128;
    }
    // The last 1..=128 bytes as the 32-byte blocks they need, the last one
    // ending at n: one more branch (predicted at a fixed length) instead
    // of four clamped blocks that load up to three of them twice (faster
    // at 257..=512 B, where the tail is a large part of the work).
    let rest = n - i;
    // SAFETY: (all four) n = i + rest, rest > 0, n >= 32: every block below
    // starts at i + 32 * k < n - 32 or at n - 32, inside 0..n; AVX2 is
    // enabled here.
    unsafe {
        let last = eq32(a, b, n - 32);
        let all = if rest <= 32 {
            last
        } else if rest <= 64 {
            _mm256_and_si256(eq32(a, b, i), last)
        } else if rest <= 96 {
            _mm256_and_si256(_mm256_and_si256(eq32(a, b, i), eq32(a, b, i + 32)), last)
        } else {
            return all4(a, b, [i, i + 32, i + 64, n - 32]) == u32::MAX;
        };
        mask(all) == u32::MAX
    }
}

/// The index of the first differing byte, or the shorter length.
///
/// # Safety
/// The CPU must have AVX2.
#[inline]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn mismatch(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    if n < 32 {
        return sse2::mismatch(a, b);
    }
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    // The first block (in start order) with a difference holds the first one.
    let first = |o: &[usize]| -> Option<usize> {
        for &at in o {
            // SAFETY: callers pass blocks inside 0..n; AVX2 is enabled.
            let ne = !unsafe { mask(eq32(pa, pb, at)) };
            if ne != 0 {
                return Some(at + ne.trailing_zeros() as usize);
            }
        }
        None
    };
    let mut i = 0;
    if n > ALIGN_ABOVE {
        // SAFETY: n > 32; AVX2 is enabled here.
        let ne = !unsafe { mask(eq32(pa, pb, 0)) };
        if ne != 0 {
            return ne.trailing_zeros() as usize;
        }
        i = super::aligned_start(pa, 32);
    }
    while i + 128 < n {
        let o = [i, i + 32, i + 64, i + 96];
        // SAFETY: i + 128 < n; AVX2 is enabled here.
        if unsafe { all4(pa, pb, o) } != u32::MAX {
            return first(&o).unwrap_or(n);
        }
        i += 128;
    }
    // The last 1..=128 bytes as the blocks they need, the last ending at n
    // (as in `eq_above64`: no block loaded twice; n >= 32, and every block
    // starts at i + 32 * k < n - 32 or at n - 32).
    let rest = n - i;
    if rest > 96 {
        return first(&[i, i + 32, i + 64, n - 32]).unwrap_or(n);
    }
    if rest > 64 {
        return first(&[i, i + 32, n - 32]).unwrap_or(n);
    }
    if rest > 32 {
        return first(&[i, n - 32]).unwrap_or(n);
    }
    first(&[n - 32]).unwrap_or(n)
}
