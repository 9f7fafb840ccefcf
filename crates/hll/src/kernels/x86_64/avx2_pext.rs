//! AVX2 + BMI2 pack for AMD cores from Zen 4 on: the AVX2 kernel's vector
//! steps, each put in place with one lane-crossing `vpermd` and one 32-byte
//! store (instead of two 16-byte stores), and between them a second
//! stream on the integer side: `pext` with mask `0x3f3f..3f` packs eight
//! registers (one `u64`) into the six bytes they take, one 8-byte store.
//!
//! Per 256 registers: seven vector steps (224) and four `pext` words (32),
//! 192 output bytes; each store writes a few junk bytes past its own
//! (8 for a vector step, 2 for a word) that the next store overwrites.
//!
//! Why a separate kernel, and only on AMD Zen 4 and later: the AVX2
//! kernel is bound by its two stores per 32 registers there (about one
//! 32-byte store a cycle), while here the vector side stores once and the
//! two shuffle pipes take the `vpermd`, leaving store slots for the
//! integer stream; the vector side (five µops a step plus the store data
//! on four pipes) takes seven steps of eight and the `pext` stream, one a
//! cycle, the rest. Zen 1/2 (family 0x17) and Hygon run `pext` in
//! microcode; Intel cores (one `vpermd` port, `pext` on a vector port) and
//! Zen 3 measured the AVX2 kernel as fast or faster, so they keep it.

use super::avx2::pack_lanes;
use crate::kernels::Uninit;
use crate::{DENSE_BODY, REGISTERS};
use core::arch::x86_64::*;

/// Vector steps and `pext` words per iteration, registers and output bytes
/// per iteration.
const STEPS: usize = 7;
const WORDS: usize = 4;
const REGS: usize = 32 * STEPS + 8 * WORDS;
const BYTES: usize = REGS / 4 * 3;

/// Packs raw registers (low 6 bits of each byte) into the dense body.
///
/// # Safety
/// The CPU must support AVX2 and BMI2.
#[target_feature(enable = "avx2,bmi2")]
pub(crate) unsafe fn pack(raw: &[u8; REGISTERS], dense: &mut Uninit<DENSE_BODY>) {
    const { assert!(REGISTERS.is_multiple_of(REGS)) };
    let (src, out) = (raw.as_ptr(), dense.as_mut_ptr().cast::<u8>());
    let last = REGISTERS / REGS - 1;
    for i in 0..last {
        // SAFETY: i < last: reads up to (i + 1) * REGS <= 16384 - 256,
        // writes up to i * BYTES + 194 <= 12288 - 190; AVX2 + BMI2.
        unsafe { block::<WORDS>(src.add(i * REGS), out.add(i * BYTES)) };
    }
    // The last block's last word is cut to its six bytes.
    // SAFETY: reads last * REGS + 248 + 8 = 16384, writes up to last *
    // BYTES + 186 + 6 = 12288 (the block's words end at 180 + 8); AVX2 +
    // BMI2.
    unsafe {
        let (r, o) = (src.add(last * REGS), out.add(last * BYTES));
        block::<{ WORDS - 1 }>(r, o);
        let b = packed_word(r.add(REGS - 8)).to_le_bytes();
        core::ptr::copy_nonoverlapping(b.as_ptr(), o.add(BYTES - 6), 6);
    }
}

/// One block: the seven vector steps of `r`'s first 224 registers to `o`,
/// then `W` words of the next 32 (program order is output order, so each
/// store's junk bytes are overwritten by a later store).
///
/// # Safety
/// AVX2 and BMI2; `r` valid for 224 + 8W bytes of reads, `o` for
/// 168 + 6W + 2 bytes of writes.
#[inline]
#[target_feature(enable = "avx2,bmi2")]
unsafe fn block<const W: usize>(r: *const u8, o: *mut u8) {
    let compact = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7);
    let mut v = [_mm256_setzero_si256(); STEPS];
    for (k, v) in v.iter_mut().enumerate() {
        // SAFETY: 32k + 32 <= 224 bytes of r.
        *v = unsafe { pack_lanes(r.add(32 * k)) };
    }
    for (k, &v) in v.iter().enumerate() {
        // SAFETY: 24k + 32 <= 176 <= 168 + 6W + 2 bytes of o (W >= 1).
        unsafe {
            _mm256_storeu_si256(
                o.add(24 * k).cast(),
                _mm256_permutevar8x32_epi32(v, compact),
            )
        };
    }
    for j in 0..W {
        // SAFETY: 224 + 8j + 8 <= 224 + 8W bytes of r; 168 + 6j + 8 <= 168
        // + 6W + 2 bytes of o.
        unsafe { put_word(r.add(32 * STEPS + 8 * j), o.add(24 * STEPS + 6 * j)) };
    }
}

/// The 8 registers at `p` packed into the low 6 bytes of a `u64` (the low
/// 6 bits of each byte, in order; the top 16 bits zero).
///
/// # Safety
/// BMI2; `p` valid for 8 bytes of reads.
#[inline]
#[target_feature(enable = "bmi2")]
unsafe fn packed_word(p: *const u8) -> u64 {
    // SAFETY: the caller vouches for the 8 bytes.
    _pext_u64(
        unsafe { p.cast::<u64>().read_unaligned() },
        0x3f3f_3f3f_3f3f_3f3f,
    )
}

/// Packs the 8 registers at `p` into 6 bytes at `o` (writing 8: the last two
/// are zero).
///
/// # Safety
/// BMI2; `p` valid for 8 bytes of reads, `o` for 8 bytes of writes.
#[inline]
#[target_feature(enable = "bmi2")]
unsafe fn put_word(p: *const u8, o: *mut u8) {
    // SAFETY: the caller vouches for both ranges.
    unsafe { o.cast::<u64>().write_unaligned(packed_word(p).to_le()) }
}
