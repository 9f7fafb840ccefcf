//! SipHash-1-2 (Redis's dict hash, with its `nocase` variant), SipHash-1-3
//! (Rust's `DefaultHasher`) and SipHash-2-4, with 64- and 128-bit output, fast
//! unaligned loads everywhere, and SIMD batch hashing of many inputs at once.
//!
//! ```
//! let key = *b"0123456789abcdef";
//! // Redis/Valkey `siphash()` (dict.c) and `siphash_nocase()`:
//! let h = siphash_fast::siphash12(&key, b"user:1000");
//! assert_eq!(h, siphash_fast::siphash12_nocase(&key, b"USER:1000"));
//! // Rust's HashMap algorithm and the reference parameters:
//! let _ = siphash_fast::siphash13(&key, b"abc");
//! let _ = siphash_fast::siphash24_128(&key, b"abc");
//! // Many keys with one hash key, four or eight at a time in SIMD lanes:
//! let inputs: Vec<&[u8]> = vec![b"a", b"bb", b"ccc", b"dddd", b"eeeee"];
//! let mut out = vec![0u64; inputs.len()];
//! siphash_fast::siphash12_batch(&key, &inputs, &mut out);
//! assert_eq!(out[2], siphash_fast::siphash12(&key, b"ccc"));
//! ```
//!
//! The key is 16 bytes, read as two little-endian `u64` (`k0`, `k1`), as in
//! the reference implementation, Redis and the `siphasher` crate. Results are
//! the reference's output bytes read as a little-endian integer.
//!
//! # Kernels and the instructions they compile to
//!
//! | target | one-shot, streaming | batch | dispatch |
//! |---|---|---|---|
//! | x86_64 | scalar: one `mov` per 8-byte block, tail one `mov` + `shr` (inputs >= 8 B) or two overlapping `mov`s | `avx512` (8 lanes, `vprolq`), `avx2` (4 lanes, `vpshufb`/`vpshufd`/shift+or rotates), scalar | one-shot: none (inlined); batch: cached pointer |
//! | aarch64 | scalar: one `ldr` per block | `neon` (2 lanes, `shl`+`sri` rotates), scalar | as x86_64 |
//! | riscv64gc | `scalar`: 8 × `lbu` + shifts/ors per block; `rv64-word`: one `ld` per block (inline asm) | the same two, as loops of one-shots | `rv64-word` when `riscv_hwprobe` reports fast misaligned access, else `scalar`; inputs < 8 B inlined |
//! | riscv64 with `unaligned-scalar-mem` | scalar: one `ld` per block | `rv64-word`, scalar | one-shot: none (inlined); batch: as riscv64gc |
//!
//! One SipHash is a serial chain of dependent rounds, so one-shot hashing is
//! scalar on every target; SIMD helps only across independent inputs, which
//! is what the batch functions are for. Tests and benchmarks reach every
//! kernel through [`kernels()`]; `CPU_DETECT_MAX_LEVEL=scalar|sse4.2|avx2`
//! lowers what the dispatcher picks.
//!
//! On riscv64 the word-load block loop is the out-of-line function
//! `siphash_rv64_word_blocks`; `scripts/check-riscv-disasm.sh` checks from
//! the disassembly of a riscv64 build that it loads with `ld` and never with
//! `lbu`.
//!
//! # Features
//! - `std` (default): the `CPU_DETECT_MAX_LEVEL` ceiling, and randomly keyed
//!   [`BuildSipHasher`]s ([`Default`], [`BuildSipHasher::new`]). Without it
//!   the crate is `no_std` with the same hash functions, batches and fixed-key
//!   builders.
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(
    missing_docs,
    unsafe_op_in_unsafe_fn,
    clippy::undocumented_unsafe_blocks
)]
// A pure function whose result is dropped is a bug in the caller.
#![warn(clippy::must_use_candidate, clippy::return_self_not_must_use)]

#[cfg(feature = "std")]
extern crate std;

/// The README's examples, run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod dispatch;
mod hasher;
mod kernels;

pub use hasher::{
    BuildSipHasher, BuildSipHasher12, BuildSipHasher13, BuildSipHasher24, SipHasher, SipHasher12,
    SipHasher13, SipHasher24,
};
pub use simd_core::Level;

use kernels::scalar;

/// SipHash-1-2, 64-bit: Redis's and Valkey's `siphash()`, the hash of every
/// dict key.
///
/// ```
/// // Redis seeds dict hashing with 16 random bytes (dictSetHashFunctionSeed);
/// // with the same seed this gives the value dictGenHashFunction computes.
/// let seed = [0x42u8; 16];
/// let h = siphash_fast::siphash12(&seed, b"mykey");
/// assert_eq!(h, siphash_fast::siphash12(&seed, b"mykey"));
/// ```
#[inline]
#[must_use]
pub fn siphash12(key: &[u8; 16], data: &[u8]) -> u64 {
    dispatch::sip12(key, data)
}

/// Redis's `siphash_nocase()`: [`siphash12`] of `data` with ASCII `A`-`Z`
/// folded to `a`-`z` (every other byte, including bytes >= 0x80, as is),
/// folded eight bytes at a time without copying the input.
///
/// ```
/// let k = [1u8; 16];
/// assert_eq!(siphash_fast::siphash12_nocase(&k, b"GET"), siphash_fast::siphash12(&k, b"get"));
/// ```
#[inline]
#[must_use]
pub fn siphash12_nocase(key: &[u8; 16], data: &[u8]) -> u64 {
    dispatch::sip12_nocase(key, data)
}

/// SipHash-1-3, 64-bit: the algorithm of Rust's `DefaultHasher` (a
/// `Hasher` adds its own framing; this hashes the bytes as given).
///
/// ```
/// use core::hash::Hasher;
/// let key: [u8; 16] = core::array::from_fn(|i| i as u8);
/// // The reference output for the empty input (bytes ab ac 01 58 ..).
/// assert_eq!(siphash_fast::siphash13(&key, b""), 0xabac_0158_050f_c4dc);
/// // The same as the `siphasher` crate's streaming SipHash-1-3.
/// let mut h = siphasher::sip::SipHasher13::new_with_key(&key);
/// h.write(b"hello");
/// assert_eq!(siphash_fast::siphash13(&key, b"hello"), h.finish());
/// ```
#[inline]
#[must_use]
pub fn siphash13(key: &[u8; 16], data: &[u8]) -> u64 {
    dispatch::sip13(key, data)
}

/// SipHash-2-4, 64-bit: the reference parameters.
///
/// ```
/// let key: [u8; 16] = core::array::from_fn(|i| i as u8);
/// assert_eq!(siphash_fast::siphash24(&key, b""), 0x726f_db47_dd0e_0e31);
/// ```
#[inline]
#[must_use]
pub fn siphash24(key: &[u8; 16], data: &[u8]) -> u64 {
    dispatch::sip24(key, data)
}

/// SipHash-1-3 with 128-bit output; `to_le_bytes()` gives the reference's
/// 16 output bytes.
///
/// ```
/// let key: [u8; 16] = core::array::from_fn(|i| i as u8);
/// let h = siphash_fast::siphash13_128(&key, b"");
/// assert_eq!(h.to_le_bytes()[..4], [0xe7, 0x7e, 0xbc, 0xb2]); // the reference's first bytes
/// ```
#[inline]
#[must_use]
pub fn siphash13_128(key: &[u8; 16], data: &[u8]) -> u128 {
    dispatch::sip13_128(key, data)
}

/// SipHash-2-4 with 128-bit output; `to_le_bytes()` gives the reference's
/// 16 output bytes.
///
/// ```
/// let key: [u8; 16] = core::array::from_fn(|i| i as u8);
/// let h = siphash_fast::siphash24_128(&key, b"");
/// assert_eq!(h.to_le_bytes()[..4], [0xa3, 0x81, 0x7f, 0x04]);
/// ```
#[inline]
#[must_use]
pub fn siphash24_128(key: &[u8; 16], data: &[u8]) -> u128 {
    dispatch::sip24_128(key, data)
}

macro_rules! batch_fn {
    ($(#[$doc:meta])* $name:ident, $dispatched:ident, $c:literal, $d:literal) => {
        $(#[$doc])*
        ///
        /// # Panics
        /// If `out.len() != inputs.len()` (the panic names the caller's
        /// line).
        #[inline]
        #[track_caller]
        pub fn $name(key: &[u8; 16], inputs: &[&[u8]], out: &mut [u64]) {
            assert_eq!(inputs.len(), out.len(), "one output per input");
            if inputs.len() < dispatch::BATCH_MIN {
                scalar::batch::<scalar::Native, $c, $d>(key, inputs, out);
                return;
            }
            dispatch::$dispatched(key, inputs, out);
        }
    };
}

batch_fn!(
    /// SipHash-1-2 of every input with one key: `out[i] = siphash12(key,
    /// inputs[i])`, hashing 8 (AVX-512), 4 (AVX2) or 2 (NEON) inputs at once.
    /// Inputs may have any lengths; runs of equal lengths are fastest.
    ///
    /// ```
    /// let key = [9u8; 16];
    /// let keys: Vec<Vec<u8>> = (0..100u32).map(|i| format!("key:{i:08}").into_bytes()).collect();
    /// let inputs: Vec<&[u8]> = keys.iter().map(|k| k.as_slice()).collect();
    /// let mut out = vec![0; inputs.len()];
    /// siphash_fast::siphash12_batch(&key, &inputs, &mut out);
    /// assert_eq!(out[42], siphash_fast::siphash12(&key, b"key:00000042"));
    /// ```
    siphash12_batch, batch12, 1, 2
);
batch_fn!(
    /// SipHash-1-3 of every input with one key: `out[i] = siphash13(key,
    /// inputs[i])`, several inputs at once in SIMD lanes.
    siphash13_batch, batch13, 1, 3
);
batch_fn!(
    /// SipHash-2-4 of every input with one key: `out[i] = siphash24(key,
    /// inputs[i])`, several inputs at once in SIMD lanes.
    siphash24_batch, batch24, 2, 4
);

/// A kernel the running CPU supports, for tests and benchmarks: every
/// function through this kernel, whatever the dispatcher would pick.
///
/// ```
/// let key = [3u8; 16];
/// for k in siphash_fast::kernels() {
///     let mut out = [0u64; 5];
///     k.siphash13_batch(&key, &[b"a", b"b", b"c", b"d", b"e"], &mut out);
///     assert_eq!(out[4], siphash_fast::siphash13(&key, b"e"), "{}", k.name());
/// }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Kernel(simd_core::Kernel<kernels::Fns>);

/// Every kernel the running CPU supports, best first, ending with
/// `scalar`. The ceiling (`CPU_DETECT_MAX_LEVEL`) does not filter this
/// list: under `avx2` it still starts with `avx512` on a CPU that has it,
/// so tests reach every kernel; [`selected_kernel()`] is what the ceiling
/// allows.
pub fn kernels() -> impl Iterator<Item = Kernel> {
    simd_core::supported(&dispatch::ALL).map(Kernel)
}

/// The kernel the dispatcher uses for batches (and, on riscv64 built
/// without `unaligned-scalar-mem`, for one-shots of 8 bytes or more): the best one the CPU supports and the
/// ceiling (`CPU_DETECT_MAX_LEVEL`, `cpu_detect::set_max_level`) allows.
///
/// ```
/// println!("batches run on {}", siphash_fast::selected_kernel().name());
/// ```
#[must_use]
pub fn selected_kernel() -> Kernel {
    Kernel(simd_core::select(&dispatch::ALL))
}

impl Kernel {
    /// The kernel's name: `scalar`, `avx2`, `avx512`, `neon`, `rv64-word`.
    #[must_use]
    pub fn name(&self) -> &'static str {
        self.0.name()
    }

    /// The tier it was written for.
    #[must_use]
    pub fn level(&self) -> Level {
        self.0.level()
    }

    /// [`siphash12`] through this kernel.
    #[must_use]
    pub fn siphash12(&self, key: &[u8; 16], data: &[u8]) -> u64 {
        // SAFETY: the handle exists only if the CPU supports the kernel.
        unsafe { (self.0.func().sip12)(key, data) }
    }

    /// [`siphash12_nocase`] through this kernel.
    #[must_use]
    pub fn siphash12_nocase(&self, key: &[u8; 16], data: &[u8]) -> u64 {
        // SAFETY: the handle exists only if the CPU supports the kernel.
        unsafe { (self.0.func().sip12_nocase)(key, data) }
    }

    /// [`siphash13`] through this kernel.
    #[must_use]
    pub fn siphash13(&self, key: &[u8; 16], data: &[u8]) -> u64 {
        // SAFETY: the handle exists only if the CPU supports the kernel.
        unsafe { (self.0.func().sip13)(key, data) }
    }

    /// [`siphash24`] through this kernel.
    #[must_use]
    pub fn siphash24(&self, key: &[u8; 16], data: &[u8]) -> u64 {
        // SAFETY: the handle exists only if the CPU supports the kernel.
        unsafe { (self.0.func().sip24)(key, data) }
    }

    /// [`siphash13_128`] through this kernel.
    #[must_use]
    pub fn siphash13_128(&self, key: &[u8; 16], data: &[u8]) -> u128 {
        // SAFETY: the handle exists only if the CPU supports the kernel.
        unsafe { (self.0.func().sip13_128)(key, data) }
    }

    /// [`siphash24_128`] through this kernel.
    #[must_use]
    pub fn siphash24_128(&self, key: &[u8; 16], data: &[u8]) -> u128 {
        // SAFETY: the handle exists only if the CPU supports the kernel.
        unsafe { (self.0.func().sip24_128)(key, data) }
    }

    /// [`siphash12_batch`] through this kernel (any batch size).
    ///
    /// # Panics
    /// If `out.len() != inputs.len()` (the panic names the caller's line).
    #[track_caller]
    pub fn siphash12_batch(&self, key: &[u8; 16], inputs: &[&[u8]], out: &mut [u64]) {
        assert_eq!(inputs.len(), out.len(), "one output per input");
        // SAFETY: the handle exists only if the CPU supports the kernel.
        unsafe { (self.0.func().batch12)(key, inputs, out) }
    }

    /// [`siphash13_batch`] through this kernel (any batch size).
    ///
    /// # Panics
    /// If `out.len() != inputs.len()` (the panic names the caller's line).
    #[track_caller]
    pub fn siphash13_batch(&self, key: &[u8; 16], inputs: &[&[u8]], out: &mut [u64]) {
        assert_eq!(inputs.len(), out.len(), "one output per input");
        // SAFETY: the handle exists only if the CPU supports the kernel.
        unsafe { (self.0.func().batch13)(key, inputs, out) }
    }

    /// [`siphash24_batch`] through this kernel (any batch size).
    ///
    /// # Panics
    /// If `out.len() != inputs.len()` (the panic names the caller's line).
    #[track_caller]
    pub fn siphash24_batch(&self, key: &[u8; 16], inputs: &[&[u8]], out: &mut [u64]) {
        assert_eq!(inputs.len(), out.len(), "one output per input");
        // SAFETY: the handle exists only if the CPU supports the kernel.
        unsafe { (self.0.func().batch24)(key, inputs, out) }
    }
}
