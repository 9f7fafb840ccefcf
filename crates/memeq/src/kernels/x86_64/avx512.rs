//! AVX-512BW kernels: masked compares cover short tails (`bzhi` builds the
//! byte mask; masked-off bytes are never read, so there is no out-of-bounds
//! access): one 64-byte compare in the compile-time builds and `mismatch`,
//! two 32-byte halves with no branch on the length in the inlined `cmp`
//! path, and in the inlined `eq` path one masked 32-byte compare for 1..=32
//! bytes and two 32-byte compares for 33..=64. Long inputs compare 256
//! bytes per loop branch with four `vpcmpneqb` into mask registers OR-ed
//! together, the loads from `a` aligned to 64 bytes after a checked first
//! block.
//!
//! [`eq_1_32_asm`], [`eq_33_64_asm`] and [`eq_65_128_asm`] are the public
//! `eq`'s inlined path on CPUs where the dispatcher picks this kernel (see
//! `dispatch::x86`): inline assembly, so they inline into callers built for
//! the baseline, using only `ymm16`..`ymm19` (EVEX-only registers, so no
//! `vzeroupper` is needed: they leave no dirty upper state for SSE code).

use core::arch::x86_64::{
    __m512i, _bzhi_u64, _mm512_cmpneq_epi8_mask, _mm512_loadu_si512, _mm512_mask_cmpneq_epi8_mask,
    _mm512_maskz_loadu_epi8,
};

/// The "differs" mask of the 64 bytes at `a + i` and `b + i`.
///
/// # Safety
/// `i..i + 64` must be readable at `a` and at `b`; AVX-512BW.
#[inline(always)]
unsafe fn ne64(a: *const u8, b: *const u8, i: usize) -> u64 {
    // SAFETY: the caller guarantees both ranges are readable and AVX-512BW.
    unsafe {
        let va: __m512i = _mm512_loadu_si512(a.add(i).cast());
        let vb: __m512i = _mm512_loadu_si512(b.add(i).cast());
        _mm512_cmpneq_epi8_mask(va, vb)
    }
}

/// The "differs" mask of the first `n` bytes at `a` and `b`, `n <= 64`, from
/// masked loads (bytes at and past `n` are not accessed).
///
/// # Safety
/// `a` and `b` must each point to `n` readable bytes, `n <= 64`; AVX-512BW
/// and BMI2 (inline only into functions with those features, or build with
/// them enabled).
#[inline(always)]
pub(crate) unsafe fn ne_upto64(a: *const u8, b: *const u8, n: usize) -> u64 {
    debug_assert!(n <= 64);
    // SAFETY: the mask selects bytes 0..n only, which are readable; masked
    // loads do not access (or fault on) unselected bytes. Features by contract.
    unsafe {
        let k = _bzhi_u64(u64::MAX, n as u32);
        let va = _mm512_maskz_loadu_epi8(k, a.cast());
        let vb = _mm512_maskz_loadu_epi8(k, b.cast());
        _mm512_mask_cmpneq_epi8_mask(k, va, vb)
    }
}

/// The masked compares of the first `n <= 64` bytes at `a` and `b` (inline
/// assembly; no branch on `n`): the mask `bzhi(!0, n)` (in `{m}`) in `k2`,
/// its high half in `k3`, bytes 0..32 and 32..64 of `a` (for `1 <= n <= 32`
/// bytes 0..32 again, under the empty high mask: the offset `{hi}` is
/// `(n - 1) & 32`, 32 only for `n = 0` when both masks are empty) loaded
/// under them and compared with `b`'s, leaving the "differs" masks in `k1`
/// (bytes 0..32) and `k4` (32..64); then the `tail` instructions, which
/// read those. `m` is `{m}`'s output (`_` or a `u64`); extra operands
/// (a label, further outputs) follow in brackets. Clobbers `zmm16`,
/// `zmm17`, `k1`..`k4`. Needs AVX-512F/BW/VL and BMI2.
macro_rules! upto64_asm {
    (
        $a:expr, $b:expr, $n:expr, m = $m:tt, [$($tail:literal),+]
        $(, [$($operands:tt)*])? $(,)?
    ) => {
        core::arch::asm!(
            "lea {hi}, [{n} - 1]",
            "and {hi}, 32",
            "bzhi {m}, {ones}, {n}",
            "kmovq k2, {m}",
            "kshiftrq k3, k2, 32",
            "vmovdqu8 ymm16{{k2}}{{z}}, [{a}]",
            "vmovdqu8 ymm17{{k3}}{{z}}, [{a} + {hi}]",
            "vpcmpneqb k1{{k2}}, ymm16, [{b}]",
            "vpcmpneqb k4{{k3}}, ymm17, [{b} + {hi}]",
            $($tail),+,
            a = in(reg) $a,
            b = in(reg) $b,
            n = in(reg) $n,
            ones = in(reg) u64::MAX,
            hi = out(reg) _,
            m = out(reg) $m,
            $($($operands)*,)?
            out("zmm16") _,
            out("zmm17") _,
            out("k1") _,
            out("k2") _,
            out("k3") _,
            out("k4") _,
            options(readonly, nostack),
        )
    };
}

/// The compares of the first and the last 64 bytes at `a` and `b`, `64 < n
/// <= 128` (inline assembly): "differs" masks of bytes 0..32, 32..64,
/// n-64..n-32 and n-32..n in `k1`..`k4`; then the `tail` instructions and
/// the extra operands. Clobbers `zmm16`..`zmm19`, `k1`..`k4`. Needs
/// AVX-512F/BW/VL.
macro_rules! upto128_asm {
    (
        $a:expr, $b:expr, $n:expr, [$($tail:literal),+]
        $(, [$($operands:tt)*])? $(,)?
    ) => {
        core::arch::asm!(
            "vmovdqu8 ymm16, [{a}]",
            "vmovdqu8 ymm17, [{a} + 32]",
            "vmovdqu8 ymm18, [{a} + {n} - 64]",
            "vmovdqu8 ymm19, [{a} + {n} - 32]",
            "vpcmpneqb k1, ymm16, [{b}]",
            "vpcmpneqb k2, ymm17, [{b} + 32]",
            "vpcmpneqb k3, ymm18, [{b} + {n} - 64]",
            "vpcmpneqb k4, ymm19, [{b} + {n} - 32]",
            $($tail),+,
            a = in(reg) $a,
            b = in(reg) $b,
            n = in(reg) $n,
            $($($operands)*,)?
            out("zmm16") _,
            out("zmm17") _,
            out("zmm18") _,
            out("zmm19") _,
            out("k1") _,
            out("k2") _,
            out("k3") _,
            out("k4") _,
            options(readonly, nostack),
        )
    };
}

/// Whether the first `n` bytes at `a` and `b` are equal, `1 <= n <= 32`: one
/// 32-byte compare under the mask `bzhi(!0, n)` (masked loads: bytes at and
/// past `n` are not accessed, so nothing outside the slices is read).
///
/// With [`eq_33_64_asm`] this splits the keys up to 64 bytes at 32, one
/// branch on the length: on Intel a second window for keys that do not need
/// it costs more, at every length up to 32, than `bcmp`'s call (see
/// PERFORMANCE.md); the branch mispredicts only where key lengths on both
/// sides of 32 alternate in a pattern too long to learn. `n = 0` is kept
/// out: a masked load from an empty slice's dangling pointer takes a
/// microcode assist of ~200 ns on Intel.
///
/// The answer is a jump (`asm goto`: `kortestd` + `jnz` to a label that
/// returns `false`), not a `setz` the caller tests again: the caller's own
/// branch on the result becomes that jump.
///
/// # Safety
/// `a` and `b` must each point to `n` readable bytes, `1 <= n <= 32`; the
/// CPU must have AVX-512F, AVX-512BW, AVX-512VL and BMI2 (any caller: this
/// is inline assembly, not a `#[target_feature]` function).
#[inline(always)]
pub(crate) unsafe fn eq_1_32_asm(a: *const u8, b: *const u8, n: usize) -> bool {
    debug_assert!((1..=32).contains(&n));
    // SAFETY: the features by contract; both loads are masked to bytes
    // 0..n (`bzhi` of a 32-bit operand, n <= 32), which are readable;
    // masked-off bytes are not accessed and cannot fault; the clobbered
    // registers are declared.
    unsafe {
        core::arch::asm!(
            "bzhi {m:e}, {ones:e}, {n:e}",
            "kmovd k1, {m:e}",
            "vmovdqu8 ymm16{{k1}}{{z}}, [{a}]",
            "vpcmpneqb k2{{k1}}, ymm16, [{b}]",
            "kortestd k2, k2",
            "jnz {ne}",
            a = in(reg) a,
            b = in(reg) b,
            n = in(reg) n,
            ones = in(reg) u32::MAX,
            m = out(reg) _,
            ne = label { return false; },
            out("zmm16") _,
            out("k1") _,
            out("k2") _,
            options(readonly, nostack),
        );
    }
    true
}

/// Whether the first `n` bytes at `a` and `b` are equal, `32 < n <= 64`:
/// bytes 0..32 unmasked and 32..64 under the mask `bzhi(!0, n - 32)` (bytes
/// at and past `n` not accessed), one test, a jump as in [`eq_1_32_asm`].
/// The second window at a fixed offset of 32 splits a cache line less often
/// than the last 32 bytes at `n - 32` (measured: 5-10% fewer ns per compare
/// at 41..=63 bytes). EVEX registers `ymm16`/`ymm17`, so no `vzeroupper`.
///
/// # Safety
/// `a` and `b` must each point to `n` readable bytes, `32 < n <= 64`; the
/// CPU must have AVX-512F, AVX-512BW, AVX-512VL and BMI2 (any caller).
#[inline(always)]
pub(crate) unsafe fn eq_33_64_asm(a: *const u8, b: *const u8, n: usize) -> bool {
    debug_assert!(32 < n && n <= 64);
    // SAFETY: the features by contract; 0..32 lies in 0..n as n > 32, and
    // the second window is masked to bytes 32..n (`bzhi` of a 32-bit
    // operand, 0 < n - 32 <= 32; masked-off bytes are not accessed and
    // cannot fault); the clobbered registers are declared.
    unsafe {
        core::arch::asm!(
            "bzhi {m:e}, {ones:e}, {hi:e}",
            "kmovd k1, {m:e}",
            "vmovdqu8 ymm16, [{a}]",
            "vmovdqu8 ymm17{{k1}}{{z}}, [{a} + 32]",
            "vpcmpneqb k2, ymm16, [{b}]",
            "vpcmpneqb k3{{k1}}, ymm17, [{b} + 32]",
            "kortestd k2, k3",
            "jnz {ne}",
            a = in(reg) a,
            b = in(reg) b,
            hi = in(reg) n - 32,
            ones = in(reg) u32::MAX,
            m = out(reg) _,
            ne = label { return false; },
            out("zmm16") _,
            out("zmm17") _,
            out("k1") _,
            out("k2") _,
            out("k3") _,
            options(readonly, nostack),
        );
    }
    true
}

/// Whether the first `n` bytes at `a` and `b` are equal, `n <= 64`:
/// [`eq_1_32_asm`], [`eq_33_64_asm`], or nothing to compare.
///
/// # Safety
/// As [`eq_33_64_asm`], for `n <= 64`.
#[inline(always)]
pub(crate) unsafe fn eq_upto64_asm(a: *const u8, b: *const u8, n: usize) -> bool {
    if n.wrapping_sub(1) < 32 {
        // SAFETY: the caller's contract; 1 <= n <= 32.
        return unsafe { eq_1_32_asm(a, b, n) };
    }
    if n.wrapping_sub(33) < 32 {
        // SAFETY: the caller's contract; 32 < n <= 64.
        return unsafe { eq_33_64_asm(a, b, n) };
    }
    debug_assert!(n == 0);
    true
}

/// The "differs" mask of the first `n` bytes at `a` and `b`, `n <= 64` (bit
/// `i` set if byte `i` differs), with no branch on `n`: the two masked
/// 32-byte compares of `upto64_asm!`, their 32-bit halves joined with
/// `kunpckdq`, for `cmp`.
///
/// # Safety
/// `a` and `b` must each point to `n` readable bytes, `n <= 64`; the CPU
/// must have AVX-512F, AVX-512BW, AVX-512VL and BMI2 (any caller).
#[inline(always)]
pub(crate) unsafe fn ne_upto64_asm(a: *const u8, b: *const u8, n: usize) -> u64 {
    debug_assert!(n <= 64);
    let ne: u64;
    // SAFETY: the features by contract; every load is masked to bytes 0..n,
    // which are readable (masked-off bytes are not accessed and cannot
    // fault); the clobbered vector and mask registers are declared.
    unsafe { upto64_asm!(a, b, n, m = ne, ["kunpckdq k1, k4, k1", "kmovq {m}, k1"]) };
    ne
}

/// The index of the first byte where `a` and `b` differ, or `n`, for
/// `64 < n <= 128`: [`eq_65_128_asm`]'s four compares as two 64-bit
/// "differs" masks (the first 64 bytes, the last 64), for `cmp`.
///
/// # Safety
/// As [`eq_65_128_asm`].
#[inline(always)]
pub(crate) unsafe fn mismatch_65_128_asm(a: *const u8, b: *const u8, n: usize) -> usize {
    debug_assert!(64 < n && n <= 128);
    let (head, tail): (u64, u64);
    // SAFETY: as in `eq_65_128_asm`.
    unsafe {
        upto128_asm!(
            a,
            b,
            n,
            ["kunpckdq k1, k2, k1", "kunpckdq k3, k4, k3", "kmovq {h}, k1", "kmovq {t}, k3"],
            [h = out(reg) head, t = out(reg) tail],
        )
    };
    super::first_of_ends(head, tail, n)
}

/// Whether the first `n` bytes at `a` and `b` are equal, `64 < n <= 128`:
/// the first 64 and the last 64 bytes (overlapping) as four 32-byte
/// compares, one test: faster than two 64-byte `zmm` compares (a 64-byte
/// load splits a cache line unless aligned) and than a dispatched call.
///
/// # Safety
/// `a` and `b` must each point to `n` readable bytes, `64 < n <= 128`; the
/// CPU must have AVX-512F, AVX-512BW and AVX-512VL (any caller).
#[inline(always)]
pub(crate) unsafe fn eq_65_128_asm(a: *const u8, b: *const u8, n: usize) -> bool {
    debug_assert!(64 < n && n <= 128);
    // SAFETY: the features by contract; 0..64 and n-64..n lie in 0..n as
    // n > 64; the clobbered registers are declared.
    unsafe {
        upto128_asm!(
            a, b, n, ["kord k1, k1, k2", "kord k3, k3, k4", "kortestd k1, k3", "jnz {ne}"],
            [ne = label { return false; }],
        );
    }
    true
}

/// Inputs longer than this align the loop's loads from `a` to 64 bytes
/// (`eq` takes the 256-byte loop only from 512 bytes, so this bounds
/// `mismatch`; the value is the `avx2` kernel's): with `a` unaligned every
/// 64-byte load splits a cache line.
const ALIGN_ABOVE: usize = 256;

/// Equality of `n > 128` bytes at `a` and `b`: the part of [`eq`] the
/// inlined path calls directly (no length checks on the way).
///
/// # Safety
/// `a` and `b` must each point to `n` readable bytes, `n > 128`; the CPU
/// must have AVX-512F, AVX-512BW and BMI2.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,bmi2")]
pub(crate) unsafe fn eq_above128(a: *const u8, b: *const u8, n: usize) -> bool {
    debug_assert!(n > 128);
    if n < 512 {
        // Measured (Zen 5): up to a few hundred bytes the 32-byte AVX2 loop
        // beats 64-byte blocks here (fewer cache-line-splitting loads).
        // SAFETY: AVX-512F implies AVX2; both ranges hold n > 64 bytes.
        return unsafe { super::avx2::eq_above64(a, b, n) };
    }
    // SAFETY: (all blocks below) each lies in 0..n; features enabled here.
    let four = |o: [usize; 4]| unsafe {
        (ne64(a, b, o[0]) | ne64(a, b, o[1])) | (ne64(a, b, o[2]) | ne64(a, b, o[3]))
    };
    // SAFETY: n >= 512 > 64; features enabled here.
    if unsafe { ne64(a, b, 0) } != 0 {
        return false;
    }
    let mut i = super::aligned_start(a, 64);
    while i + 256 < n {
        if four([i, i + 64, i + 128, i + 192]) != 0 {
            return false;
        }
        i += 256;
    }
    // The last 1..=256 bytes as the 64-byte blocks they need, the last one
    // ending at n (as the `avx2` loop's remainder): fewer loads than four
    // clamped blocks.
    let rest = n - i;
    if rest > 192 {
        return four([i, i + 64, i + 128, n - 64]) == 0;
    }
    // SAFETY: (all three) n = i + rest, rest > 0, n > 64: each block starts
    // at i + 64 * k < n - 64 or at n - 64, inside 0..n; features enabled.
    unsafe {
        let last = ne64(a, b, n - 64);
        let ne = if rest <= 64 {
            last
        } else if rest <= 128 {
            ne64(a, b, i) | last
        } else {
            (ne64(a, b, i) | ne64(a, b, i + 64)) | last
        };
        ne == 0
    }
}

/// Equality of two slices of any lengths.
///
/// # Safety
/// The CPU must have AVX-512F, AVX-512BW, AVX-512VL and BMI2.
#[target_feature(enable = "avx512f,avx512bw,bmi2")]
pub(crate) unsafe fn eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    if n <= 64 {
        // SAFETY: both slices hold n <= 64 bytes; features checked by the
        // caller's contract (the candidate's test includes AVX-512VL).
        return unsafe { eq_upto64_asm(pa, pb, n) };
    }
    if n <= 128 {
        // SAFETY: both slices hold 64 < n <= 128 bytes; features as above.
        return unsafe { eq_65_128_asm(pa, pb, n) };
    }
    // SAFETY: both slices hold n > 128 bytes; features enabled here.
    unsafe { eq_above128(pa, pb, n) }
}

/// The index of the first differing byte, or the shorter length.
///
/// # Safety
/// The CPU must have AVX-512F, AVX-512BW and BMI2.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,bmi2")]
pub(crate) unsafe fn mismatch(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    if n <= 64 {
        // SAFETY: both slices hold at least n <= 64 bytes; features enabled.
        let m = unsafe { ne_upto64(pa, pb, n) };
        return if m == 0 {
            n
        } else {
            m.trailing_zeros() as usize
        };
    }
    // The first block (in start order) with a difference holds the first one.
    let first = |o: &[usize]| -> Option<usize> {
        for &at in o {
            // SAFETY: callers pass blocks inside 0..n; features enabled.
            let ne = unsafe { ne64(pa, pb, at) };
            if ne != 0 {
                return Some(at + ne.trailing_zeros() as usize);
            }
        }
        None
    };
    if n <= 128 {
        // Two overlapping blocks, as in `eq`.
        return first(&[0, n - 64]).unwrap_or(n);
    }
    let mut i = 0;
    if n > ALIGN_ABOVE {
        // SAFETY: n > 64; features enabled here.
        let ne = unsafe { ne64(pa, pb, 0) };
        if ne != 0 {
            return ne.trailing_zeros() as usize;
        }
        i = super::aligned_start(pa, 64);
    }
    while i + 256 < n {
        let o = [i, i + 64, i + 128, i + 192];
        // SAFETY: i + 256 < n; features enabled here.
        let any = unsafe {
            (ne64(pa, pb, o[0]) | ne64(pa, pb, o[1])) | (ne64(pa, pb, o[2]) | ne64(pa, pb, o[3]))
        };
        if any != 0 {
            return first(&o).unwrap_or(n);
        }
        i += 256;
    }
    // The last 1..=256 bytes as the blocks they need, the last ending at n
    // (as in `eq_above128`; n > 128, and every block starts at
    // i + 64 * k < n - 64 or at n - 64).
    let rest = n - i;
    if rest > 192 {
        return first(&[i, i + 64, i + 128, n - 64]).unwrap_or(n);
    }
    if rest > 128 {
        return first(&[i, i + 64, n - 64]).unwrap_or(n);
    }
    if rest > 64 {
        return first(&[i, n - 64]).unwrap_or(n);
    }
    first(&[n - 64]).unwrap_or(n)
}
