//! `count` on x86_64: one relaxed load of a cached class (a
//! [`simd_core::Choice`] derived from the kernel `select` picks); when the
//! `avx512` kernel is picked on a CPU that also has AVX-512VL, every input
//! up to 64 bytes is counted by one 512-bit masked load
//! ([`avx512::count_upto64_zmm`]) and longer ones handed to the AVX-512
//! kernel, two tests in all; elsewhere up to 64 bytes are counted inline
//! with POPCNT, longer inputs handed to the AVX-512, the AVX2 or the
//! POPCNT kernel by a direct call (no function-pointer load): the picked
//! kernel's count, except that CPUs which run 256-bit operations as two
//! halves (Zen 1) take POPCNT where the `avx2` count is picked; everything
//! else (the first call, CPUs without POPCNT) through an out-of-line
//! function.
//!
//! The inlined part is kept small on purpose (the SWAR fallback, the CPU
//! detection and the dispatcher call live in [`slow`]): with them inside,
//! LLVM neither inlined `count` into callers nor kept the fast path free of
//! callee-saved register spills.

use super::{count_dispatched, scalar, KERNELS};
use crate::kernels::x86_64::{avx2, avx512, popcnt, popcnt_pair, popcnt_word_at};
use core::num::NonZeroU8;

/// Not detected yet.
const UNKNOWN: u8 = 0;
/// No usable POPCNT (or the `scalar` ceiling): SWAR inline, else the
/// dispatcher.
const SCALAR: u8 = 1;
/// POPCNT usable, and either the `popcnt` kernel is picked or the `avx2`
/// count is (kernels `avx2`, `avx512bw`) on a CPU that runs 256-bit
/// operations as two halves (AMD Zen 1 / Zen+,
/// [`cpu_detect::Features::splits_256bit_ops`]), where the `popcnt` count
/// is as fast or faster at every size (each 256-bit operation costs two
/// µops there).
const POPCNT: u8 = 2;
/// POPCNT usable and the `avx2` count picked (kernels `avx2`, `avx512bw`).
const AVX2: u8 = 3;
/// POPCNT usable and the `avx512` kernel picked (the ceiling allows it and
/// the CPU has its features).
const AVX512: u8 = 4;
/// The `avx512` kernel picked on a CPU that also has AVX-512VL: inputs up
/// to 64 bytes take [`avx512::count_upto64_zmm`] (one masked 512-bit load,
/// no branch on the length), longer ones the AVX-512 kernel after one more
/// test.
const AVX512_WIDE: u8 = 5;

/// One of the classes above, written once by [`classify`]; every value ever
/// stored for a run is the same, so relaxed ordering is enough.
static CHOICE: simd_core::Choice = simd_core::Choice::new();

/// Inputs up to this many bytes are counted inline with POPCNT. At 64
/// the eight inline POPCNTs still beat a call into the AVX-512 kernel
/// (one full vector plus the horizontal sum); measured.
const SMALL: usize = 64;

/// The class of the kernel `select` picks under the ceiling.
#[cold]
fn classify() -> NonZeroU8 {
    let f = cpu_detect::features();
    let class = match simd_core::select(&KERNELS).name() {
        // The short path needs POPCNT; the `avx512` kernel's test does not.
        _ if !f.popcnt => SCALAR,
        "avx512" if f.avx512vl => AVX512_WIDE,
        "avx512" => AVX512,
        "avx512bw" | "avx2" if !f.splits_256bit_ops() => AVX2,
        "scalar" => SCALAR,
        _ => POPCNT,
    };
    NonZeroU8::new(class).unwrap_or(NonZeroU8::MIN)
}

// Below, a class of AVX512_WIDE proves that `select` picked `avx512`
// (AVX-512F/BW/VPOPCNTDQ and BMI2) on a CPU with AVX-512VL; AVX512 that it
// picked `avx512` on a CPU with POPCNT; AVX2 that it picked `avx2` or
// `avx512bw`, whose tests both check AVX2 and POPCNT; POPCNT that the CPU
// has POPCNT (the kernels `popcnt`, `avx2` and `avx512bw` test it).

/// [`crate::count`] on x86_64.
#[inline(always)]
pub(crate) fn count(bytes: &[u8]) -> u64 {
    let class = CHOICE.peek().map_or(UNKNOWN, NonZeroU8::get);
    if class == AVX512_WIDE {
        if bytes.len() <= SMALL {
            // SAFETY: the class proves AVX-512F/BW/VL/VPOPCNTDQ and BMI2;
            // len <= 64 bytes are readable at the slice's pointer.
            return unsafe { avx512::count_upto64_zmm(bytes.as_ptr(), bytes.len()) };
        }
        // SAFETY: the class proves the `avx512` kernel's features.
        return unsafe { avx512::count(bytes) };
    }
    if class >= POPCNT {
        // The POPCNT path, one length test, after the AVX512_WIDE test
        // (one not-taken branch); the other order slowed the AVX-512
        // short path.
        if bytes.len() <= SMALL {
            // SAFETY: every class from POPCNT up proves POPCNT; len <= 64.
            return unsafe { small(bytes) };
        }
        if class >= AVX512 {
            // SAFETY: the class proves the `avx512` kernel's features.
            return unsafe { avx512::count(bytes) };
        }
        if class == AVX2 {
            // SAFETY: the class proves AVX2 and POPCNT, the `avx2` count's
            // features (a direct call: no function-pointer load).
            return unsafe { avx2::count(bytes) };
        }
        // SAFETY: the class (POPCNT) proves POPCNT, the `popcnt` count's
        // only feature (a direct call, as for AVX2).
        return unsafe { popcnt::count(bytes) };
    }
    slow(bytes)
}

/// Everything the inlined path leaves out: the first call (detection)
/// and CPUs without POPCNT (or under the `scalar` ceiling).
#[inline(never)]
fn slow(bytes: &[u8]) -> u64 {
    let class = CHOICE.get(classify).get();
    if bytes.len() > SMALL {
        return match class {
            // SAFETY: the class proves the `avx512` kernel's features.
            AVX512 | AVX512_WIDE => unsafe { avx512::count(bytes) },
            // SAFETY: the class proves AVX2 and POPCNT.
            AVX2 => unsafe { avx2::count(bytes) },
            // SAFETY: the class proves POPCNT.
            POPCNT => unsafe { popcnt::count(bytes) },
            _ => count_dispatched(bytes),
        };
    }
    if class == SCALAR {
        // No POPCNT for the short path: SWAR, without the indirect call.
        return scalar::count(bytes);
    }
    // SAFETY: every other class proves POPCNT; len <= 64.
    unsafe { small(bytes) }
}

/// The inlined count of at most 64 bytes.
///
/// 9..=16 bytes first, straight-line: the first word plus the last one
/// with the bytes both hold shifted out (as laid out by LLVM, the
/// 16-byte count then takes no taken branch besides the caller's).
/// Up to 8 bytes: at most two overlapping
/// loads. From 17 bytes: pairs of words from the front while more than
/// 16 bytes remain (at most three, one predictable branch each), one
/// more word if more than 8 remain, then the last word of the slice,
/// whose first bytes (already counted) are shifted out. No byte loop;
/// the full words are counted by POPCNT straight from memory. Measured
/// faster than a `u128` last pair (its variable shift is ~8
/// instructions), than a word loop, than a `match` on the word count
/// (a jump table: as fast at one fixed length, 2.3x slower on random
/// 1..=64-byte lengths, where its indirect jump mispredicts), and
/// (33..=64 bytes) than a call into the AVX-512 kernel (one masked
/// load and the horizontal sum).
///
/// # Safety
/// The CPU must support POPCNT; `bytes.len() <= 64`.
#[inline(always)]
unsafe fn small(bytes: &[u8]) -> u64 {
    use simd_core::load::{tail_u64_le, u64_le};
    let len = bytes.len();
    debug_assert!(len <= 64);
    let p = bytes.as_ptr();
    // SAFETY: for every call below, the CPU has POPCNT (the caller's
    // condition), and each memory operand lies inside the slice: the
    // first word only when len > 8, a pair at OFF only when
    // len > OFF + 16, the word at `at` only when at + 8 < len.
    unsafe {
        if len <= 16 {
            if len > 8 {
                // The last word overlaps the first by 16 - len bytes
                // (0..=7), its lowest in little-endian order.
                return popcnt_word_at(p, 0) + popcnt(u64_le(bytes, len - 8) >> (8 * (16 - len)));
            }
            return popcnt(tail_u64_le(bytes));
        }
        let mut n = popcnt_pair::<0>(p);
        let mut at = 16;
        if len > 32 {
            n += popcnt_pair::<16>(p);
            at = 32;
            if len > 48 {
                n += popcnt_pair::<32>(p);
                at = 48;
            }
        }
        // 1..=16 bytes remain from `at` (a multiple of 8).
        if at + 8 < len {
            n += popcnt_word_at(p, at);
        }
        // The last word overlaps the counted bytes by (-len mod 8)
        // bytes, the lowest in little-endian order: shift them out
        // (0..=56 bits).
        n + popcnt(u64_le(bytes, len - 8) >> (8 * (len.wrapping_neg() & 7)))
    }
}

/// POPCNT of one word.
///
/// A `#[target_feature(enable = "popcnt")]` function cannot be inlined
/// into this feature-less caller (and a call costs about as much as
/// counting 32 bytes); `asm!` has no such limit.
///
/// # Safety
/// The CPU must support POPCNT.
#[inline(always)]
unsafe fn popcnt(x: u64) -> u64 {
    let n: u64;
    // SAFETY: the caller checked POPCNT; the instruction reads only its
    // register operand. `lateout` lets the output reuse the input
    // register, which avoids POPCNT's false dependency on its
    // destination on some Intel cores.
    unsafe {
        core::arch::asm!(
            "popcnt {n}, {x}",
            x = in(reg) x,
            n = lateout(reg) n,
            options(pure, nomem, nostack)
        )
    };
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use cpu_detect::Level;

    /// After the first count the class follows the dispatch policy,
    /// stated here from the CPU and the ceiling rather than from
    /// [`classify`]'s code (every class counts the same, so the oracle
    /// tests cannot see a wrong one): POPCNT needed for anything but
    /// SWAR, then the `avx512` kernel (with the 64-byte masked short path
    /// where VL also runs), the `avx2` count except on CPUs that split
    /// 256-bit operations, else the `popcnt` one.
    #[test]
    fn class_follows_the_policy() {
        assert_eq!(count(&[0xff; 100]), 800);
        let f = cpu_detect::features();
        let max = cpu_detect::max_level();
        let want = if !(f.popcnt && max.includes(Level::Sse42)) {
            SCALAR
        } else if max.includes(Level::Avx512)
            && f.avx512f
            && f.avx512bw
            && f.avx512vpopcntdq
            && f.bmi2
        {
            if f.avx512vl {
                AVX512_WIDE
            } else {
                AVX512
            }
        } else if max.includes(Level::Avx2) && f.avx2 && !f.splits_256bit_ops() {
            AVX2
        } else {
            POPCNT
        };
        assert_eq!(CHOICE.peek().map(NonZeroU8::get), Some(want));
    }
}
