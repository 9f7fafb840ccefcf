//! x86_64 AVX-512: VPOPCNTQ with four independent accumulators, masked loads
//! for the tail (no scalar tail), and the BITPOS scan with byte-compare
//! masks.
//!
//! VPOPCNTQ counts each 64-bit lane directly, so the accumulators are plain
//! 64-bit lane sums and the only horizontal reduction is the final one (Redis
//! 8.x reduces every 64-byte block instead). VPOPCNTB (BITALG) would give
//! byte counts that still need a VPSADBW to widen, so it does not help here.
//!
//! A masked load (`vmovdqu8` with a `k` mask) suppresses faults on the
//! masked-off bytes, so the final partial vector reads exactly the slice's
//! last bytes and never past its end.

use core::arch::x86_64::*;

use crate::kernels::{PREFETCH_AHEAD, PREFETCH_MIN};

/// The 64 bytes of `bytes` at `at`.
///
/// # Safety
/// `at + 64 <= bytes.len()`; the CPU supports AVX-512F.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn load(bytes: &[u8], at: usize) -> __m512i {
    debug_assert!(at + 64 <= bytes.len());
    // SAFETY: the caller guarantees the 64 bytes lie inside `bytes`;
    // VMOVDQU64 has no alignment requirement.
    unsafe { _mm512_loadu_si512(bytes.as_ptr().add(at).cast()) }
}

/// The `len - at < 64` bytes of `bytes` from `at`, zero elsewhere, and the
/// mask of the loaded bytes.
///
/// # Safety
/// `at < bytes.len() < at + 64`; the CPU supports AVX-512BW.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn load_tail(bytes: &[u8], at: usize) -> (__m512i, u64) {
    let r = bytes.len() - at;
    debug_assert!(r > 0 && r < 64);
    let mask = u64::MAX >> (64 - r);
    // SAFETY: `at` is inside the slice; the mask enables exactly the bytes
    // at..len, and masked-off bytes are neither read nor able to fault.
    let v = unsafe { _mm512_maskz_loadu_epi8(mask, bytes.as_ptr().add(at).cast()) };
    (v, mask)
}

/// The number of set bits in `bytes`.
///
/// # Safety
/// The CPU must support AVX-512F, AVX-512BW and AVX-512 VPOPCNTDQ.
#[target_feature(enable = "avx512f,avx512bw,avx512vpopcntdq")]
pub(crate) unsafe fn count(bytes: &[u8]) -> u64 {
    let len = bytes.len();
    let zero = _mm512_setzero_si512();
    // Four chains: VPOPCNTQ + VPADDQ latency is ~4-5 cycles, and two loads
    // issue per cycle.
    let (mut a0, mut a1, mut a2, mut a3) = (zero, zero, zero, zero);
    let prefetch = len >= PREFETCH_MIN;
    let mut at = 0;
    while at + 256 <= len {
        if prefetch {
            let p = bytes.as_ptr().wrapping_add(at + PREFETCH_AHEAD);
            for line in 0..4 {
                simd_core::prefetch_read(p.wrapping_add(64 * line));
            }
        }
        // SAFETY: at + 256 <= len.
        let (v0, v1, v2, v3) = unsafe {
            (
                load(bytes, at),
                load(bytes, at + 64),
                load(bytes, at + 128),
                load(bytes, at + 192),
            )
        };
        a0 = _mm512_add_epi64(a0, _mm512_popcnt_epi64(v0));
        a1 = _mm512_add_epi64(a1, _mm512_popcnt_epi64(v1));
        a2 = _mm512_add_epi64(a2, _mm512_popcnt_epi64(v2));
        a3 = _mm512_add_epi64(a3, _mm512_popcnt_epi64(v3));
        at += 256;
    }
    while at + 64 <= len {
        // SAFETY: at + 64 <= len.
        a0 = _mm512_add_epi64(a0, _mm512_popcnt_epi64(unsafe { load(bytes, at) }));
        at += 64;
    }
    if at < len {
        // SAFETY: at < len < at + 64 (the loop above stopped).
        let (v, _) = unsafe { load_tail(bytes, at) };
        a1 = _mm512_add_epi64(a1, _mm512_popcnt_epi64(v));
    }
    let sum = _mm512_add_epi64(_mm512_add_epi64(a0, a1), _mm512_add_epi64(a2, a3));
    _mm512_reduce_add_epi64(sum) as u64
}

/// The index of the first byte of `bytes` that is not `skip`, or
/// `bytes.len()`.
///
/// # Safety
/// The CPU must support AVX-512F and AVX-512BW.
#[target_feature(enable = "avx512f,avx512bw")]
pub(crate) unsafe fn find_not(bytes: &[u8], skip: u8) -> usize {
    let len = bytes.len();
    let pattern = _mm512_set1_epi8(skip as i8);
    let mut at = 0;
    // Four vectors per branch: OR the four 64-bit "differs" masks.
    while at + 256 <= len {
        // SAFETY: at + 256 <= len.
        let (v0, v1, v2, v3) = unsafe {
            (
                load(bytes, at),
                load(bytes, at + 64),
                load(bytes, at + 128),
                load(bytes, at + 192),
            )
        };
        let m = [
            _mm512_cmpneq_epi8_mask(v0, pattern),
            _mm512_cmpneq_epi8_mask(v1, pattern),
            _mm512_cmpneq_epi8_mask(v2, pattern),
            _mm512_cmpneq_epi8_mask(v3, pattern),
        ];
        if (m[0] | m[1]) | (m[2] | m[3]) != 0 {
            for (k, mk) in m.into_iter().enumerate() {
                if mk != 0 {
                    return at + 64 * k + mk.trailing_zeros() as usize;
                }
            }
        }
        at += 256;
    }
    while at + 64 <= len {
        // SAFETY: at + 64 <= len.
        let m = _mm512_cmpneq_epi8_mask(unsafe { load(bytes, at) }, pattern);
        if m != 0 {
            return at + m.trailing_zeros() as usize;
        }
        at += 64;
    }
    if at < len {
        // SAFETY: at < len < at + 64.
        let (v, valid) = unsafe { load_tail(bytes, at) };
        let m = _mm512_mask_cmpneq_epi8_mask(valid, v, pattern);
        if m != 0 {
            return at + m.trailing_zeros() as usize;
        }
    }
    len
}
