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

/// POPCNT of each of the four little-endian words at `p`, as one block of
/// inline assembly with constant displacements from one base register. The
/// `avx2` kernel's side stream used [`popcnt_word_at`] per word before, and
/// LLVM computed each word's offset with its own `lea`: 16 extra operations
/// per 128 bytes, which kept the side stream from growing past 128 bytes
/// per block (Zen 5, capped at avx2, 192 bytes per block: 16 KB 183-192 ns
/// that way, 152-156 ns this way).
///
/// # Safety
/// The CPU must support POPCNT; the 32 bytes at `p` are readable.
#[inline(always)]
pub(crate) unsafe fn popcnt_4_words(p: *const u8) -> [u64; 4] {
    let (a, b, c, d): (u64, u64, u64, u64);
    // SAFETY: forwarded from the caller; the instructions only read those
    // 32 bytes. The first three outputs are written while `p` is still
    // read, so they must not share its register (`out`, not `lateout`).
    unsafe {
        core::arch::asm!(
            "popcnt {a}, qword ptr [{p}]",
            "popcnt {b}, qword ptr [{p} + 8]",
            "popcnt {c}, qword ptr [{p} + 16]",
            "popcnt {d}, qword ptr [{p} + 24]",
            p = in(reg) p,
            a = out(reg) a,
            b = out(reg) b,
            c = out(reg) c,
            d = lateout(reg) d,
            options(pure, readonly, nostack)
        )
    };
    [a, b, c, d]
}
