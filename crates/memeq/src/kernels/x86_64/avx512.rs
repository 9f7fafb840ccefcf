//! AVX-512BW kernels: one masked 64-byte compare covers any length up to 64
//! (`bzhi` builds the byte mask; masked-off bytes are never read, so there is
//! no out-of-bounds access), and long inputs compare 256 bytes per loop
//! branch with four `vpcmpneqb` into mask registers OR-ed together.

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

/// Equality of two slices of any lengths.
///
/// # Safety
/// The CPU must have AVX-512F, AVX-512BW and BMI2.
#[target_feature(enable = "avx512f,avx512bw,bmi2")]
pub(crate) unsafe fn eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    if n <= 64 {
        // SAFETY: both slices hold n <= 64 bytes; features enabled here.
        return unsafe { ne_upto64(pa, pb, n) } == 0;
    }
    if n <= 128 {
        // Two overlapping full blocks. Measured: the four clamped blocks of
        // the general tail (three of them the same at n = 128) took 1.5x the
        // time of the AVX2 kernel here.
        // SAFETY: 64 < n <= 128, so 0..64 and n-64..n lie in 0..n.
        return unsafe { ne64(pa, pb, 0) | ne64(pa, pb, n - 64) } == 0;
    }
    if n < 512 {
        // Measured (Zen 5): up to a few hundred bytes the 32-byte AVX2 loop
        // beats 64-byte blocks here (fewer cache-line-splitting loads).
        // SAFETY: AVX-512F implies AVX2.
        return unsafe { super::avx2::eq(a, b) };
    }
    // SAFETY (all blocks below): each lies in 0..n; features enabled here.
    let four = |o: [usize; 4]| unsafe {
        (ne64(pa, pb, o[0]) | ne64(pa, pb, o[1])) | (ne64(pa, pb, o[2]) | ne64(pa, pb, o[3]))
    };
    let mut i = 0;
    while i + 256 < n {
        if four([i, i + 64, i + 128, i + 192]) != 0 {
            return false;
        }
        i += 256;
    }
    // n > 64: the clamped blocks cover i..n in bounds.
    let at = |k: usize| (i + 64 * k).min(n - 64);
    four([at(0), at(1), at(2), at(3)]) == 0
}

/// The index of the first differing byte, or the shorter length.
///
/// # Safety
/// The CPU must have AVX-512F, AVX-512BW and BMI2.
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
    let first = |o: [usize; 4]| -> Option<usize> {
        for at in o {
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
        return first([0, n - 64, n - 64, n - 64]).unwrap_or(n);
    }
    let mut i = 0;
    while i + 256 < n {
        let o = [i, i + 64, i + 128, i + 192];
        // SAFETY: i + 256 < n; features enabled here.
        let any = unsafe {
            (ne64(pa, pb, o[0]) | ne64(pa, pb, o[1])) | (ne64(pa, pb, o[2]) | ne64(pa, pb, o[3]))
        };
        if any != 0 {
            return first(o).unwrap_or(n);
        }
        i += 256;
    }
    let at = |k: usize| (i + 64 * k).min(n - 64);
    first([at(0), at(1), at(2), at(3)]).unwrap_or(n)
}
