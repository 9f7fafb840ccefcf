//! aarch64 NEON: CNT (per-byte popcount) with widening pairwise adds, and
//! the BITPOS scan.
//!
//! Four CNT results are added as bytes (each <= 32), then UADALP widens them
//! into u16 lanes (each step adds <= 64). The u16 accumulator is flushed into
//! u64 lanes before it could overflow (1023 steps of 64 bytes), so the inner
//! loop has one widening add per 64 bytes instead of one per vector.

use core::arch::aarch64::*;

use crate::kernels::scalar;
use crate::kernels::Fns;
use crate::kernels::{PREFETCH_AHEAD, PREFETCH_MIN};
use simd_core::Features;

/// 64-byte steps before the u16 accumulator must be flushed: 1023 * 64 <=
/// 65535.
const FLUSH_STEPS: usize = 1023;

/// 16 zero bytes then 16 0xff bytes: the 16 bytes at offset `r` keep the
/// last `r` bytes of a vector.
static TAIL_MASK: [u8; 32] = {
    let mut m = [0u8; 32];
    let mut i = 16;
    while i < 32 {
        m[i] = 0xff;
        i += 1;
    }
    m
};

/// The 16 bytes of `bytes` at `at`.
///
/// # Safety
/// `at + 16 <= bytes.len()`.
#[target_feature(enable = "neon")]
#[inline]
unsafe fn load(bytes: &[u8], at: usize) -> uint8x16_t {
    debug_assert!(at + 16 <= bytes.len());
    // SAFETY: the caller guarantees the 16 bytes lie inside `bytes`; LD1 has
    // no alignment requirement.
    unsafe { vld1q_u8(bytes.as_ptr().add(at)) }
}

/// The number of set bits in `bytes`.
///
/// # Safety
/// The CPU must support NEON (baseline on the supported aarch64 targets).
#[target_feature(enable = "neon")]
pub(crate) unsafe fn count(bytes: &[u8]) -> u64 {
    let len = bytes.len();
    if len < 16 {
        return scalar::count(bytes);
    }
    let mut acc64 = vdupq_n_u64(0);
    let prefetch = len >= PREFETCH_MIN;
    let mut at = 0;
    while at + 64 <= len {
        let steps = ((len - at) / 64).min(FLUSH_STEPS);
        let mut acc16 = vdupq_n_u16(0);
        for _ in 0..steps {
            if prefetch {
                simd_core::prefetch_read(bytes.as_ptr().wrapping_add(at + PREFETCH_AHEAD));
            }
            // SAFETY: `steps` whole 64-byte blocks remain from the first `at`.
            let (v0, v1, v2, v3) = unsafe {
                (
                    load(bytes, at),
                    load(bytes, at + 16),
                    load(bytes, at + 32),
                    load(bytes, at + 48),
                )
            };
            let c01 = vaddq_u8(vcntq_u8(v0), vcntq_u8(v1));
            let c23 = vaddq_u8(vcntq_u8(v2), vcntq_u8(v3));
            acc16 = vpadalq_u8(acc16, vaddq_u8(c01, c23));
            at += 64;
        }
        acc64 = vpadalq_u32(acc64, vpaddlq_u16(acc16));
    }
    // Under 64 bytes left: at most three whole vectors and a partial one.
    let mut acc16 = vdupq_n_u16(0);
    while at + 16 <= len {
        // SAFETY: at + 16 <= len.
        acc16 = vpadalq_u8(acc16, vcntq_u8(unsafe { load(bytes, at) }));
        at += 16;
    }
    let r = len - at;
    if r > 0 {
        // The slice's last 16 bytes (len >= 16), keeping the last r < 16.
        // SAFETY: len >= 16; r + 16 < 32 = TAIL_MASK.len().
        let (v, keep) = unsafe { (load(bytes, len - 16), load(&TAIL_MASK, r)) };
        acc16 = vpadalq_u8(acc16, vcntq_u8(vandq_u8(v, keep)));
    }
    acc64 = vpadalq_u32(acc64, vpaddlq_u16(acc16));
    vaddvq_u64(acc64)
}

/// The index of the first nonzero byte of `x` (which has one).
#[target_feature(enable = "neon")]
#[inline]
fn first_nonzero(x: uint8x16_t) -> usize {
    // 0xff per nonzero byte, then SHRN #4 packs each byte into one nibble of
    // a 64-bit mask (NEON has no movemask).
    let t = vtstq_u8(x, x);
    let m = vget_lane_u64::<0>(vreinterpret_u64_u8(vshrn_n_u16::<4>(vreinterpretq_u16_u8(
        t,
    ))));
    (m.trailing_zeros() / 4) as usize
}

/// The index of the first byte of `bytes` that is not `skip`, or
/// `bytes.len()`.
///
/// # Safety
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
pub(crate) unsafe fn find_not(bytes: &[u8], skip: u8) -> usize {
    let len = bytes.len();
    if len < 16 {
        return scalar::find_not(bytes, skip);
    }
    let pattern = vdupq_n_u8(skip);
    let mut at = 0;
    // Four vectors per branch: XOR with the pattern (nonzero = differs), OR,
    // one UMAXV.
    while at + 64 <= len {
        // SAFETY: at + 64 <= len.
        let x = unsafe {
            [
                veorq_u8(load(bytes, at), pattern),
                veorq_u8(load(bytes, at + 16), pattern),
                veorq_u8(load(bytes, at + 32), pattern),
                veorq_u8(load(bytes, at + 48), pattern),
            ]
        };
        let any = vorrq_u8(vorrq_u8(x[0], x[1]), vorrq_u8(x[2], x[3]));
        if vmaxvq_u8(any) != 0 {
            for (k, xk) in x.into_iter().enumerate() {
                if vmaxvq_u8(xk) != 0 {
                    return at + 16 * k + first_nonzero(xk);
                }
            }
        }
        at += 64;
    }
    while at + 16 <= len {
        // SAFETY: at + 16 <= len.
        let x = veorq_u8(unsafe { load(bytes, at) }, pattern);
        if vmaxvq_u8(x) != 0 {
            return at + first_nonzero(x);
        }
        at += 16;
    }
    if at < len {
        // Overlapping last vector: its bytes before `at` are all `skip`.
        // SAFETY: len >= 16.
        let x = veorq_u8(unsafe { load(bytes, len - 16) }, pattern);
        if vmaxvq_u8(x) != 0 {
            return len - 16 + first_nonzero(x);
        }
    }
    len
}

/// The features this kernel needs.
pub(crate) fn supported(f: &Features) -> bool {
    f.neon
}

/// Its functions: the count, the scan, and the NEON BITOP.
pub(crate) const FNS: Fns = Fns {
    count,
    find_not,
    bitop: super::neon_bitop::combine,
    bitop_count: super::neon_bitop::count,
};
