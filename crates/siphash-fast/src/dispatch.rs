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

use crate::kernels::{self, scalar, Batch, WhichBatch};
use simd_core::Candidate;

/// Below this many inputs a batch is a plain loop of inlined one-shots.
pub(crate) const BATCH_MIN: usize = 4;

static BATCH12: [Candidate<Batch>; kernels::N] = kernels::batch_list(WhichBatch::Sip12);
static BATCH13: [Candidate<Batch>; kernels::N] = kernels::batch_list(WhichBatch::Sip13);
static BATCH24: [Candidate<Batch>; kernels::N] = kernels::batch_list(WhichBatch::Sip24);

simd_core::dispatch! {
    /// SipHash-1-2 batch, best kernel.
    #[allow(clippy::unused_unit)]
    pub(crate) fn batch12(key: &[u8; 16], inputs: &[&[u8]], out: &mut [u64]) -> () = &BATCH12;
}
simd_core::dispatch! {
    /// SipHash-1-3 batch, best kernel.
    #[allow(clippy::unused_unit)]
    pub(crate) fn batch13(key: &[u8; 16], inputs: &[&[u8]], out: &mut [u64]) -> () = &BATCH13;
}
simd_core::dispatch! {
    /// SipHash-2-4 batch, best kernel.
    #[allow(clippy::unused_unit)]
    pub(crate) fn batch24(key: &[u8; 16], inputs: &[&[u8]], out: &mut [u64]) -> () = &BATCH24;
}

/// riscv64 without compile-time fast misaligned loads: run-time choice.
#[cfg(all(target_arch = "riscv64", not(target_feature = "unaligned-scalar-mem")))]
mod rv {
    use crate::kernels::{self, OneShot, OneShot128, Which, Which128};
    use simd_core::Candidate;

    static SIP12: [Candidate<OneShot>; kernels::N] = kernels::oneshot_list(Which::Sip12);
    static SIP12_NOCASE: [Candidate<OneShot>; kernels::N] =
        kernels::oneshot_list(Which::Sip12Nocase);
    static SIP13: [Candidate<OneShot>; kernels::N] = kernels::oneshot_list(Which::Sip13);
    static SIP24: [Candidate<OneShot>; kernels::N] = kernels::oneshot_list(Which::Sip24);
    static SIP13_128: [Candidate<OneShot128>; kernels::N] =
        kernels::oneshot128_list(Which128::Sip13);
    static SIP24_128: [Candidate<OneShot128>; kernels::N] =
        kernels::oneshot128_list(Which128::Sip24);

    simd_core::dispatch! {
        /// SipHash-1-2, best load path.
        pub(crate) fn sip12(key: &[u8; 16], data: &[u8]) -> u64 = &SIP12;
    }
    simd_core::dispatch! {
        /// SipHash-1-2 nocase, best load path.
        pub(crate) fn sip12_nocase(key: &[u8; 16], data: &[u8]) -> u64 = &SIP12_NOCASE;
    }
    simd_core::dispatch! {
        /// SipHash-1-3, best load path.
        pub(crate) fn sip13(key: &[u8; 16], data: &[u8]) -> u64 = &SIP13;
    }
    simd_core::dispatch! {
        /// SipHash-2-4, best load path.
        pub(crate) fn sip24(key: &[u8; 16], data: &[u8]) -> u64 = &SIP24;
    }
    simd_core::dispatch! {
        /// SipHash-1-3 128-bit, best load path.
        pub(crate) fn sip13_128(key: &[u8; 16], data: &[u8]) -> u128 = &SIP13_128;
    }
    simd_core::dispatch! {
        /// SipHash-2-4 128-bit, best load path.
        pub(crate) fn sip24_128(key: &[u8; 16], data: &[u8]) -> u128 = &SIP24_128;
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
    extern crate std;
    use super::*;
    use crate::kernels::ALL;
    use std::vec::Vec;

    /// Each batch dispatcher picks the kernel `selected_kernel()` reports
    /// (the lists are built from the same table; a list left at its scalar
    /// filler would still hash correctly, only slowly).
    #[test]
    fn batch_lists_select_the_reported_kernel() {
        for list in [&BATCH12, &BATCH13, &BATCH24] {
            same_as_all(list);
        }
    }

    /// `list` selects and lists what `ALL` does, and names every kernel in
    /// `ALL`'s order.
    fn same_as_all<F: Copy>(list: &[simd_core::Candidate<F>]) {
        let best = simd_core::select(&ALL).name();
        assert_eq!(simd_core::select(list).name(), best);
        let all: Vec<_> = simd_core::supported(&ALL).map(|k| k.name()).collect();
        let listed: Vec<_> = simd_core::supported(list).map(|k| k.name()).collect();
        assert_eq!(listed, all);
        let every: Vec<_> = ALL.iter().map(|c| c.name()).collect();
        let names: Vec<_> = list.iter().map(|c| c.name()).collect();
        assert_eq!(names, every);
    }

    #[cfg(all(target_arch = "riscv64", not(target_feature = "unaligned-scalar-mem")))]
    #[test]
    fn oneshot_lists_select_the_reported_kernel() {
        use crate::kernels::{oneshot128_list, oneshot_list, Which, Which128};
        for w in [Which::Sip12, Which::Sip12Nocase, Which::Sip13, Which::Sip24] {
            same_as_all(&oneshot_list(w));
        }
        for w in [Which128::Sip13, Which128::Sip24] {
            same_as_all(&oneshot128_list(w));
        }
    }
}
