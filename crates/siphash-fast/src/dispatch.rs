//! Which kernel runs.
//!
//! - One-shot hashes on x86_64 and aarch64 call the scalar code directly,
//!   inlined: a single SipHash is one serial dependency chain, which no SIMD
//!   kernel shortens, and skipping the function pointer is what keeps 8-byte
//!   inputs fast.
//! - On riscv64 one-shot hashes of 8 bytes or more go through a cached
//!   function pointer: the word-load kernel when `riscv_hwprobe` reports fast
//!   misaligned access, the byte-load scalar kernel otherwise. Shorter inputs,
//!   and every input when the target enables `unaligned-scalar-mem` at compile
//!   time (then plain Rust loads already compile to `ld`), take the inlined
//!   scalar code.
//! - Batches of 4 or more inputs go through a cached function pointer to the
//!   widest SIMD kernel the CPU and the `CPU_DETECT_MAX_LEVEL` ceiling allow;
//!   smaller batches are inlined scalar loops.

use crate::kernels::{scalar, ALL};

/// Below this many inputs a batch is a plain loop of inlined one-shots.
pub(crate) const BATCH_MIN: usize = 4;

simd_core::dispatch! {
    /// SipHash-1-2 batch, best kernel.
    #[allow(clippy::unused_unit)]
    pub(crate) fn batch12(key: &[u8; 16], inputs: &[&[u8]], out: &mut [u64]) -> () = &ALL, .batch12;
}
simd_core::dispatch! {
    /// SipHash-1-3 batch, best kernel.
    #[allow(clippy::unused_unit)]
    pub(crate) fn batch13(key: &[u8; 16], inputs: &[&[u8]], out: &mut [u64]) -> () = &ALL, .batch13;
}
simd_core::dispatch! {
    /// SipHash-2-4 batch, best kernel.
    #[allow(clippy::unused_unit)]
    pub(crate) fn batch24(key: &[u8; 16], inputs: &[&[u8]], out: &mut [u64]) -> () = &ALL, .batch24;
}

/// riscv64 without compile-time fast misaligned loads: run-time choice.
#[cfg(all(target_arch = "riscv64", not(target_feature = "unaligned-scalar-mem")))]
mod rv {
    use crate::kernels::ALL;

    simd_core::dispatch! {
        /// SipHash-1-2, best load path.
        pub(crate) fn sip12(key: &[u8; 16], data: &[u8]) -> u64 = &ALL, .sip12;
    }
    simd_core::dispatch! {
        /// SipHash-1-2 nocase, best load path.
        pub(crate) fn sip12_nocase(key: &[u8; 16], data: &[u8]) -> u64 = &ALL, .sip12_nocase;
    }
    simd_core::dispatch! {
        /// SipHash-1-3, best load path.
        pub(crate) fn sip13(key: &[u8; 16], data: &[u8]) -> u64 = &ALL, .sip13;
    }
    simd_core::dispatch! {
        /// SipHash-2-4, best load path.
        pub(crate) fn sip24(key: &[u8; 16], data: &[u8]) -> u64 = &ALL, .sip24;
    }
    simd_core::dispatch! {
        /// SipHash-1-3 128-bit, best load path.
        pub(crate) fn sip13_128(key: &[u8; 16], data: &[u8]) -> u128 = &ALL, .sip13_128;
    }
    simd_core::dispatch! {
        /// SipHash-2-4 128-bit, best load path.
        pub(crate) fn sip24_128(key: &[u8; 16], data: &[u8]) -> u128 = &ALL, .sip24_128;
    }
}

/// Defines a one-shot entry: riscv64 (run-time load choice) sends inputs of
/// at least one block to the dispatched kernel, everything else is inlined.
macro_rules! oneshot {
    ($name:ident -> $ret:ty) => {
        #[inline]
        pub(crate) fn $name(key: &[u8; 16], data: &[u8]) -> $ret {
            #[cfg(all(target_arch = "riscv64", not(target_feature = "unaligned-scalar-mem")))]
            if data.len() >= 8 {
                return rv::$name(key, data);
            }
            scalar::oneshot::$name(key, data)
        }
    };
}

oneshot!(sip12 -> u64);
oneshot!(sip12_nocase -> u64);
oneshot!(sip13 -> u64);
oneshot!(sip24 -> u64);
oneshot!(sip13_128 -> u128);
oneshot!(sip24_128 -> u128);

#[cfg(test)]
mod tests {
    use super::*;

    /// The reported kernel is one the ceiling allows, and listed; the
    /// dispatched batches (one table, so the same kernel) agree with the
    /// inlined one-shots.
    #[test]
    fn selected_kernel_is_allowed_and_batches_agree() {
        let k = crate::selected_kernel();
        assert!(cpu_detect::allows(k.level()), "{}", k.name());
        assert!(crate::kernels().any(|x| x.name() == k.name()));
        let key = [7u8; 16];
        let inputs: [&[u8]; 5] = [b"a", b"bb", b"ccc", b"dddd", b"eeeee"];
        let mut out = [0u64; 5];
        for (batch, one) in [
            (
                batch12 as fn(&[u8; 16], &[&[u8]], &mut [u64]),
                scalar::oneshot::sip12 as fn(&[u8; 16], &[u8]) -> u64,
            ),
            (batch13, scalar::oneshot::sip13),
            (batch24, scalar::oneshot::sip24),
        ] {
            batch(&key, &inputs, &mut out);
            for (x, h) in inputs.iter().zip(out) {
                assert_eq!(h, one(&key, x));
            }
        }
    }
}
