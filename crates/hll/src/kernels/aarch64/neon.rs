//! NEON kernels. The dense layout is made for `vld3q_u8`: it de-interleaves
//! 48 bytes into the first, second and third byte of 16 groups, and each
//! register of a group is two shifts and an OR of those; `vld4q_u8` /
//! `vst4q_u8` do the matching interleave on the raw side. Pack is the
//! reverse with `vst3q_u8`. Histogram: a 16-value window of byte counters
//! (`vceqq_u8` + `vsubq_u8`, flushed with `vaddlvq_u8`), values outside the
//! window counted one by one.

use crate::kernels::{assume_init, uninit, Aligned, Uninit};
use crate::{DENSE_BODY, REGISTERS};
use core::arch::aarch64::*;

const REGS: usize = 64;
const BYTES: usize = 48;

/// `raw[i] = max(raw[i], dense register i)`.
///
/// # Safety
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
pub(crate) unsafe fn unpack_max(dense: &[u8; DENSE_BODY], raw: &mut [u8; REGISTERS]) {
    // SAFETY: raw is 16384 initialised bytes; same CPU requirement.
    unsafe { unpack_to::<true>(dense, raw.as_mut_ptr()) }
}

/// `raw[i] = dense register i`, every byte of `raw` written.
///
/// # Safety
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
pub(crate) unsafe fn unpack(dense: &[u8; DENSE_BODY], raw: &mut Uninit<REGISTERS>) {
    // SAFETY: raw is 16384 writable bytes, only written; same CPU requirement.
    unsafe { unpack_to::<false>(dense, raw.as_mut_ptr().cast()) }
}

/// The unpack loop: with `MAX`, `out[i] = max(out[i], register i)`, else
/// `out[i] = register i`.
///
/// # Safety
/// NEON; `out` valid for 16384 bytes of writes, and of reads of
/// initialised bytes when `MAX`.
#[inline]
#[target_feature(enable = "neon")]
unsafe fn unpack_to<const MAX: bool>(dense: &[u8; DENSE_BODY], out: *mut u8) {
    let six = vdupq_n_u8(0x3f);
    for c in 0..REGISTERS / REGS {
        // SAFETY: 48c + 48 <= 12288.
        let d = unsafe { vld3q_u8(dense.as_ptr().add(c * BYTES)) };
        let r0 = vandq_u8(d.0, six);
        let r1 = vandq_u8(vorrq_u8(vshrq_n_u8::<6>(d.0), vshlq_n_u8::<2>(d.1)), six);
        let r2 = vandq_u8(vorrq_u8(vshrq_n_u8::<4>(d.1), vshlq_n_u8::<4>(d.2)), six);
        let r3 = vshrq_n_u8::<2>(d.2);
        // SAFETY: 64c + 64 <= 16384: the load and store are in bounds
        // (caller); the load only when the bytes are initialised.
        unsafe {
            let o = out.add(c * REGS);
            let new = if MAX {
                let old = vld4q_u8(o);
                uint8x16x4_t(
                    vmaxq_u8(old.0, r0),
                    vmaxq_u8(old.1, r1),
                    vmaxq_u8(old.2, r2),
                    vmaxq_u8(old.3, r3),
                )
            } else {
                uint8x16x4_t(r0, r1, r2, r3)
            };
            vst4q_u8(o, new);
        }
    }
}

/// Packs raw registers (low 6 bits of each byte) into the dense body.
///
/// # Safety
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
pub(crate) unsafe fn pack(raw: &[u8; REGISTERS], dense: &mut Uninit<DENSE_BODY>) {
    let six = vdupq_n_u8(0x3f);
    for c in 0..REGISTERS / REGS {
        // SAFETY: 64c + 64 <= 16384.
        let r = unsafe { vld4q_u8(raw.as_ptr().add(c * REGS)) };
        let (r0, r1, r2, r3) = (
            vandq_u8(r.0, six),
            vandq_u8(r.1, six),
            vandq_u8(r.2, six),
            vandq_u8(r.3, six),
        );
        let b0 = vorrq_u8(r0, vshlq_n_u8::<6>(r1));
        let b1 = vorrq_u8(vshrq_n_u8::<2>(r1), vshlq_n_u8::<4>(r2));
        let b2 = vorrq_u8(vshrq_n_u8::<4>(r2), vshlq_n_u8::<2>(r3));
        // SAFETY: 48c + 48 <= 12288.
        unsafe {
            vst3q_u8(
                dense.as_mut_ptr().add(c * BYTES).cast(),
                uint8x16x3_t(b0, b1, b2),
            )
        };
    }
}

/// Histogram of the dense registers: unpack into a scratch array, then
/// count it.
///
/// # Safety
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
pub(crate) unsafe fn histogram_dense(dense: &[u8; DENSE_BODY]) -> [u32; 64] {
    let mut raw = Aligned(uninit());
    // SAFETY: same CPU requirement as ours.
    unsafe { unpack(dense, &mut raw.0) };
    // SAFETY: unpack wrote every byte; same CPU requirement as ours.
    unsafe { histogram_raw(assume_init(&mut raw.0)) }
}

const WINDOW: usize = 16;

/// Histogram of raw registers (values `0..=63`; larger bytes count as their
/// low 6 bits, like the scalar kernel).
///
/// # Safety
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
pub(crate) unsafe fn histogram_raw(raw: &[u8; REGISTERS]) -> [u32; 64] {
    let vecs = REGISTERS / 16;
    let load = |i: usize| {
        // SAFETY: i < 1024, so 16i + 16 <= 16384.
        unsafe { vld1q_u8(raw.as_ptr().add(i * 16)) }
    };
    // Window start from the mean register (see the AVX2 kernel).
    let mut sum = 0u64;
    for i in (0..vecs).step_by(64) {
        let mut s = vdupq_n_u16(0);
        for j in i..i + 64 {
            s = vpadalq_u8(s, load(j)); // 64 * 2 * 255 fits u16
        }
        sum += u64::from(vaddlvq_u16(s));
    }
    let base = ((sum / REGISTERS as u64) as u8)
        .saturating_sub(4)
        .min((64 - WINDOW) as u8);

    let mut h = [0u32; 64];
    let basev = vdupq_n_u8(base);
    let top = vdupq_n_u8((WINDOW - 1) as u8);
    let mut acc = [vdupq_n_u8(0); WINDOW];
    for i in 0..vecs {
        let y = vsubq_u8(load(i), basev);
        if vmaxvq_u8(vcgtq_u8(y, top)) != 0 {
            for &b in &raw[i * 16..i * 16 + 16] {
                if usize::from(b.wrapping_sub(base)) >= WINDOW {
                    h[usize::from(b & 63)] += 1;
                }
            }
        }
        for (k, a) in acc.iter_mut().enumerate() {
            *a = vsubq_u8(*a, vceqq_u8(y, vdupq_n_u8(k as u8)));
        }
        if i % 255 == 254 || i == vecs - 1 {
            for (k, a) in acc.iter_mut().enumerate() {
                h[usize::from(base) + k] += u32::from(vaddlvq_u8(*a));
                *a = vdupq_n_u8(0);
            }
        }
    }
    h
}

/// The union of dense bodies: `out[i]` = the largest register `i` of
/// `inputs` (0 if none), one `unpack` / `unpack_max` pass per input.
///
/// # Safety
/// The CPU must support NEON.
pub(crate) unsafe fn union(inputs: &[&[u8; DENSE_BODY]], out: &mut Uninit<REGISTERS>) {
    // SAFETY: this file's unpack and unpack_max, under our own CPU
    // requirement.
    unsafe { crate::kernels::union_with(inputs, out, unpack, unpack_max) }
}
