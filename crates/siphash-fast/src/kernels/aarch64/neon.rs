//! NEON batch kernel: two inputs hashed side by side, one per 64-bit lane.
//!
//! NEON has no 64-bit rotate: 13, 16, 17 and 21 are `shl` + `sri` (shift
//! right and insert, so no separate `orr`), 32 is one `rev64` on 32-bit
//! elements. Lanes of different lengths run together up to the shorter word
//! count, then `cmhs` + `bsl` keep the finished lane's state. An odd input
//! left over goes through the scalar one-shot.
//!
//! With two lanes and a rotate that costs two instructions, this kernel is
//! about even with the scalar code on wide out-of-order cores; it wins on
//! cores with few scalar ALUs.

use core::arch::aarch64::*;

use crate::kernels::scalar::{self, final_word, keys, Native, State};
use crate::kernels::{lane_word, Fns};
use simd_core::Features;

/// Advanced SIMD (baseline on aarch64 Linux and macOS).
pub(crate) fn supported(f: &Features) -> bool {
    f.neon
}

/// One-shots are scalar; batches use NEON.
pub(crate) const FNS: Fns = Fns {
    batch12: batch::<1, 2>,
    batch13: batch::<1, 3>,
    batch24: batch::<2, 4>,
    ..scalar::FNS
};

const LANES: usize = 2;

#[derive(Clone, Copy)]
struct V {
    v0: uint64x2_t,
    v1: uint64x2_t,
    v2: uint64x2_t,
    v3: uint64x2_t,
}

#[target_feature(enable = "neon")]
#[inline]
fn rotl13(x: uint64x2_t) -> uint64x2_t {
    vsriq_n_u64::<51>(vshlq_n_u64::<13>(x), x)
}

#[target_feature(enable = "neon")]
#[inline]
fn rotl16(x: uint64x2_t) -> uint64x2_t {
    vsriq_n_u64::<48>(vshlq_n_u64::<16>(x), x)
}

#[target_feature(enable = "neon")]
#[inline]
fn rotl17(x: uint64x2_t) -> uint64x2_t {
    vsriq_n_u64::<47>(vshlq_n_u64::<17>(x), x)
}

#[target_feature(enable = "neon")]
#[inline]
fn rotl21(x: uint64x2_t) -> uint64x2_t {
    vsriq_n_u64::<43>(vshlq_n_u64::<21>(x), x)
}

#[target_feature(enable = "neon")]
#[inline]
fn rotl32(x: uint64x2_t) -> uint64x2_t {
    vreinterpretq_u64_u32(vrev64q_u32(vreinterpretq_u32_u64(x)))
}

#[target_feature(enable = "neon")]
#[inline]
fn round(s: &mut V) {
    s.v0 = vaddq_u64(s.v0, s.v1);
    s.v2 = vaddq_u64(s.v2, s.v3);
    s.v1 = veorq_u64(rotl13(s.v1), s.v0);
    s.v3 = veorq_u64(rotl16(s.v3), s.v2);
    s.v0 = rotl32(s.v0);
    s.v2 = vaddq_u64(s.v2, s.v1);
    s.v0 = vaddq_u64(s.v0, s.v3);
    s.v1 = veorq_u64(rotl17(s.v1), s.v2);
    s.v3 = veorq_u64(rotl21(s.v3), s.v0);
    s.v2 = rotl32(s.v2);
}

#[target_feature(enable = "neon")]
#[inline]
fn compress<const C: usize>(s: &mut V, m: uint64x2_t) {
    s.v3 = veorq_u64(s.v3, m);
    for _ in 0..C {
        round(s);
    }
    s.v0 = veorq_u64(s.v0, m);
}

#[target_feature(enable = "neon")]
#[inline]
fn finish<const D: usize>(mut s: V) -> uint64x2_t {
    s.v2 = veorq_u64(s.v2, vdupq_n_u64(0xff));
    for _ in 0..D {
        round(&mut s);
    }
    veorq_u64(veorq_u64(s.v0, s.v1), veorq_u64(s.v2, s.v3))
}

/// Word `j` of each lane, lane 0 in the low element.
///
/// `inline(always)` (which a `#[target_feature]` function cannot have):
/// LLVM otherwise keeps this out of line and returns the vector through
/// memory, which cost a third of the batch time.
///
/// # Safety
/// The CPU must support NEON.
#[inline(always)]
unsafe fn words(g: &[&[u8]], nfull: &[usize; LANES], fin: &[u64; LANES], j: usize) -> uint64x2_t {
    // SAFETY: the caller guarantees NEON.
    unsafe {
        vcombine_u64(
            vcreate_u64(lane_word(g[0], nfull[0], fin[0], j)),
            vcreate_u64(lane_word(g[1], nfull[1], fin[1], j)),
        )
    }
}

/// SipHash-C-D of each input into `out` (up to the shorter of the two).
#[target_feature(enable = "neon")]
pub(crate) fn batch<const C: usize, const D: usize>(
    key: &[u8; 16],
    inputs: &[&[u8]],
    out: &mut [u64],
) {
    let n = inputs.len().min(out.len());
    let whole = n - n % LANES;
    let (k0, k1) = keys(key);
    let init = State::new(k0, k1, false);
    for (g, o) in inputs[..whole]
        .chunks_exact(LANES)
        .zip(out[..whole].chunks_exact_mut(LANES))
    {
        let nfull: [usize; LANES] = [g[0].len() / 8, g[1].len() / 8];
        let fin: [u64; LANES] = [
            final_word::<Native, false>(g[0]),
            final_word::<Native, false>(g[1]),
        ];
        let lo = nfull[0].min(nfull[1]);
        let hi = nfull[0].max(nfull[1]);
        let mut s = V {
            v0: vdupq_n_u64(init.v0),
            v1: vdupq_n_u64(init.v1),
            v2: vdupq_n_u64(init.v2),
            v3: vdupq_n_u64(init.v3),
        };
        for j in 0..=lo {
            // SAFETY: this function requires NEON.
            compress::<C>(&mut s, unsafe { words(g, &nfull, &fin, j) });
        }
        if hi > lo {
            let nf = vcombine_u64(vcreate_u64(nfull[0] as u64), vcreate_u64(nfull[1] as u64));
            for j in lo + 1..=hi {
                // Lane i absorbs word j while nfull[i] >= j.
                let active = vcgeq_u64(nf, vdupq_n_u64(j as u64));
                let mut t = s;
                // SAFETY: this function requires NEON.
                compress::<C>(&mut t, unsafe { words(g, &nfull, &fin, j) });
                s.v0 = vbslq_u64(active, t.v0, s.v0);
                s.v1 = vbslq_u64(active, t.v1, s.v1);
                s.v2 = vbslq_u64(active, t.v2, s.v2);
                s.v3 = vbslq_u64(active, t.v3, s.v3);
            }
        }
        let h = finish::<D>(s);
        // SAFETY: `o` is exactly 2 u64 of writable memory; `st1` needs only
        // 8-byte alignment for u64 elements, which `&mut [u64]` has.
        unsafe { vst1q_u64(o.as_mut_ptr(), h) };
    }
    scalar::batch::<Native, C, D>(key, &inputs[whole..n], &mut out[whole..n]);
}
