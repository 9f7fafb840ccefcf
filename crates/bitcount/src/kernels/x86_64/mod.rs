//! x86_64 kernels: POPCNT, AVX2 and AVX-512.

pub(crate) mod avx2;
pub(crate) mod avx512;
pub(crate) mod popcnt;

/// POPCNT of the little-endian word at `p + at`, read by POPCNT itself, as
/// inline assembly: it inlines into callers without the `popcnt` target
/// feature (the dispatcher's inlined short path), a load-op instruction is
/// one macro-op on AMD cores, and the optimizer cannot turn it into vector
/// table lookups (written as `count_ones` on unchecked loads, the `avx2`
/// kernel's side stream was vectorized back onto the very pipes it is
/// meant to spare: 16 KB 166 -> 218 ns on Zen 5 capped at avx2).
///
/// # Safety
/// The CPU must support POPCNT; the 8 bytes at `p + at` are readable.
#[inline(always)]
pub(crate) unsafe fn popcnt_word_at(p: *const u8, at: usize) -> u64 {
    let n: u64;
    // SAFETY: forwarded from the caller; the instruction only reads those 8
    // bytes.
    unsafe {
        core::arch::asm!(
            "popcnt {n}, qword ptr [{p} + {at}]",
            p = in(reg) p,
            at = in(reg) at,
            n = lateout(reg) n,
            options(pure, readonly, nostack)
        )
    };
    n
}
