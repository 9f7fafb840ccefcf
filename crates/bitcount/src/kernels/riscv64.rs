//! riscv64 Zbb: the `cpop` instruction on aligned `u64` words, detected at
//! run time (the generic riscv64gc target does not include Zbb, so
//! `count_ones` elsewhere compiles to a bit-twiddling sequence).
//!
//! Loads are aligned (`align_to`): many RISC-V cores trap and emulate
//! misaligned loads, and without the guarantee the compiler would assemble
//! each word from bytes.

use crate::kernels::scalar;
use crate::kernels::Fns;
use simd_core::Features;

/// The number of set bits in `bytes`.
///
/// # Safety
/// The CPU must support the Zbb extension.
#[target_feature(enable = "zbb")]
pub(crate) unsafe fn count(bytes: &[u8]) -> u64 {
    // SAFETY: every bit pattern is a valid u64, so viewing the aligned
    // middle of the slice as words is sound.
    let (head, words, tail) = unsafe { bytes.align_to::<u64>() };
    let (mut a, mut b, mut c, mut d) = (0u64, 0u64, 0u64, 0u64);
    for &x in head.iter().chain(tail) {
        a += u64::from(x.count_ones());
    }
    // Four sums: cpop + add chains in parallel on superscalar cores.
    let mut quads = words.chunks_exact(4);
    for q in &mut quads {
        a += u64::from(q[0].count_ones());
        b += u64::from(q[1].count_ones());
        c += u64::from(q[2].count_ones());
        d += u64::from(q[3].count_ones());
    }
    for w in quads.remainder() {
        b += u64::from(w.count_ones());
    }
    (a + b) + (c + d)
}

/// The features this kernel needs.
pub(crate) fn supported(f: &Features) -> bool {
    f.zbb
}

/// Its functions: the count; the scan and BITOP are the portable ones
/// (Zbb helps only the popcount).
pub(crate) const FNS: Fns = Fns {
    count,
    ..scalar::FNS
};
