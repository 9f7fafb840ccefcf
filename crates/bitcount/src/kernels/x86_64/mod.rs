//! x86_64 kernels: POPCNT, AVX2 and AVX-512.

pub(crate) mod avx2;
pub(crate) mod avx2_bitop;
pub(crate) mod avx512;
pub(crate) mod avx512_bitop;
pub(crate) mod popcnt;
pub(crate) mod sse2_bitop;

/// POPCNT of the little-endian word at `p + at` (`at` known only at run
/// time), read by POPCNT itself, as inline assembly: it inlines into
/// callers without the `popcnt` target feature (the dispatcher's inlined
/// short path), and a load-op instruction is one macro-op on AMD cores.
/// Where the offset is a constant, [`popcnt_pair`] folds it into the
/// instruction instead.
///
/// # Safety
/// The CPU must support POPCNT; the 8 bytes at `p + at` are readable.
#[inline(always)]
pub(crate) unsafe fn popcnt_word_at(p: *const u8, at: usize) -> u64 {
    let n: u64;
    // SAFETY: the caller guarantees POPCNT and that the 8 bytes at
    // `p + at` are readable; the instruction reads only those bytes.
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

/// POPCNT of the two little-endian words at `p + OFF`, summed, read by
/// POPCNT itself (a load-op instruction is one macro-op on AMD cores; LLVM
/// cannot fold a load into an `asm!` register operand), with `OFF` a
/// constant displacement. For the dispatcher's inlined short path and the
/// `avx2` kernel's side stream. Inline assembly also keeps the optimizer
/// from turning it into vector table lookups: written as `count_ones` on
/// unchecked loads, the side stream was vectorized back onto the very
/// pipes it is meant to spare. A pair with one displacement also saves
/// the `lea` per word that [`popcnt_word_at`] costs in the side stream.
///
/// # Safety
/// The CPU must support POPCNT; the 16 bytes at `p + OFF` are readable.
#[inline(always)]
pub(crate) unsafe fn popcnt_pair<const OFF: usize>(p: *const u8) -> u64 {
    let (a, b): (u64, u64);
    // SAFETY: the caller guarantees POPCNT and that the 16 bytes at
    // `p + OFF` are readable; the instructions read only those bytes. `a` is written while `p` is still read, so it must not
    // share its register (`out`, not `lateout`).
    unsafe {
        core::arch::asm!(
            "popcnt {a}, qword ptr [{p} + {off}]",
            "popcnt {b}, qword ptr [{p} + {off} + 8]",
            p = in(reg) p,
            off = const OFF,
            a = out(reg) a,
            b = out(reg) b,
            options(pure, readonly, nostack)
        )
    };
    a + b
}
