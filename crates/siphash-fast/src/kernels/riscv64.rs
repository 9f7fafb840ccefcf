//! riscv64 word-load kernel: every 8-byte block with one `ld`, whatever its
//! alignment.
//!
//! Plain Rust (`u64::from_le_bytes`) compiles to eight `lbu` plus shifts and
//! ors on `riscv64gc`, because the base ISA lets misaligned accesses trap
//! and be emulated (thousands of cycles). This kernel issues `ld`/`lwu`/`lhu`
//! through inline assembly instead. That is always *correct* on Linux (the
//! kernel or firmware emulates a misaligned access if the hardware does not
//! do it), so the kernel is listed by `kernels()` wherever the OS does not
//! report misaligned access as unsupported, and tests run it under qemu; the
//! dispatcher *prefers* it only when `riscv_hwprobe` reports misaligned scalar
//! access as fast (Redis measured +65% hashes/s from word loads on an SG2044).
//!
//! The block loop is the `#[inline(never)]` function
//! [`siphash_rv64_word_blocks`], a distinctive symbol that
//! `scripts/check-riscv-disasm.sh` finds in the disassembly to check that it
//! loads with `ld` and never with `lbu`.

use core::arch::asm;

use crate::kernels::scalar::{self, hash128, hash64, Loader, State};
use crate::kernels::Fns;
use cpu_detect::MisalignedAccess;
use simd_core::Features;

/// Misaligned `ld` is correct here: Linux performs or emulates it, unless it
/// reports misaligned access as unsupported.
pub(crate) fn runs(f: &Features) -> bool {
    cfg!(target_os = "linux") && f.misaligned_scalar != MisalignedAccess::Unsupported
}

/// Misaligned `ld` is worth it: the hardware does it fast.
pub(crate) fn preferred(f: &Features) -> bool {
    runs(f) && f.misaligned_scalar == MisalignedAccess::Fast
}

/// The word-load kernel: every function reads words with `ld`.
pub(crate) const FNS: Fns = Fns {
    sip12: |k, d| hash64::<Words, 1, 2, false>(k, d),
    sip12_nocase: |k, d| hash64::<Words, 1, 2, true>(k, d),
    sip13: |k, d| hash64::<Words, 1, 3, false>(k, d),
    sip24: |k, d| hash64::<Words, 2, 4, false>(k, d),
    sip13_128: |k, d| hash128::<Words, 1, 3>(k, d),
    sip24_128: |k, d| hash128::<Words, 2, 4>(k, d),
    batch12: |k, i, o| scalar::batch::<Words, 1, 2>(k, i, o),
    batch13: |k, i, o| scalar::batch::<Words, 1, 3>(k, i, o),
    batch24: |k, i, o| scalar::batch::<Words, 2, 4>(k, i, o),
};

#[inline(always)]
fn ld(b: &[u8; 8]) -> u64 {
    let w: u64;
    // SAFETY: `b` is 8 readable bytes. A misaligned `ld` is performed by the
    // hardware or emulated by Linux (`runs` excludes systems that report it
    // unsupported); riscv64 is little-endian, so `w` is the LE word.
    unsafe {
        asm!("ld {w}, 0({p})", w = lateout(reg) w, p = in(reg) b.as_ptr(),
             options(pure, readonly, nostack, preserves_flags));
    }
    w
}

#[inline(always)]
fn lwu(b: &[u8; 4]) -> u64 {
    let w: u64;
    // SAFETY: as for `ld`, with 4 readable bytes.
    unsafe {
        asm!("lwu {w}, 0({p})", w = lateout(reg) w, p = in(reg) b.as_ptr(),
             options(pure, readonly, nostack, preserves_flags));
    }
    w
}

#[inline(always)]
fn lhu(b: &[u8; 2]) -> u64 {
    let w: u64;
    // SAFETY: as for `ld`, with 2 readable bytes.
    unsafe {
        asm!("lhu {w}, 0({p})", w = lateout(reg) w, p = in(reg) b.as_ptr(),
             options(pure, readonly, nostack, preserves_flags));
    }
    w
}

/// Word loads through inline assembly.
pub(crate) struct Words;

impl Loader for Words {
    #[inline(always)]
    fn word(b: &[u8; 8]) -> u64 {
        ld(b)
    }

    /// At most two overlapping loads, as `simd_core::load::tail_u64_le`.
    #[inline(always)]
    fn small(b: &[u8]) -> u64 {
        let n = b.len();
        if n >= 4 {
            let lo = lwu(b[..4].try_into().expect("4 bytes"));
            let hi = lwu(b[n - 4..].try_into().expect("4 bytes"));
            lo | (hi << (8 * (n - 4)))
        } else if n >= 2 {
            let lo = lhu(b[..2].try_into().expect("2 bytes"));
            lo | (u64::from(b[n - 1]) << (8 * (n - 1)))
        } else if n == 1 {
            u64::from(b[0])
        } else {
            0
        }
    }

    #[inline(always)]
    fn blocks<const C: usize, const FOLD: bool>(s: &mut State, data: &[u8]) {
        siphash_rv64_word_blocks::<C, FOLD>(s, data);
    }
}

/// The word path's block loop: one `ld` per block. Kept out of line under
/// this name so the disassembly check can find it.
#[inline(never)]
fn siphash_rv64_word_blocks<const C: usize, const FOLD: bool>(s: &mut State, data: &[u8]) {
    for chunk in data.chunks_exact(8) {
        let m = ld(chunk.try_into().expect("chunks_exact(8)"));
        s.compress::<C>(if FOLD { scalar::fold_ascii(m) } else { m });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The policy for every answer the kernel can get about misaligned
    /// loads (qemu-user reports one of them; the others are set here):
    /// listed unless the kernel reports them unsupported, preferred only
    /// where they are fast.
    #[test]
    fn policy_for_each_misaligned_access() {
        use MisalignedAccess::*;
        for (access, listed, chosen) in [
            (Unknown, true, false),
            (Emulated, true, false),
            (Slow, true, false),
            (Fast, true, true),
            (Unsupported, false, false),
        ] {
            let mut f = Features::default();
            f.misaligned_scalar = access;
            assert_eq!(runs(&f), listed && cfg!(target_os = "linux"), "{access:?}");
            assert_eq!(
                preferred(&f),
                chosen && cfg!(target_os = "linux"),
                "{access:?}"
            );
        }
    }
}
