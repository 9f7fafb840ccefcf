//! Redis `BITCOUNT` and `BITPOS` over byte strings, with POPCNT, AVX2,
//! AVX-512, NEON and RISC-V Zbb kernels chosen at run time.
//!
//! Every function answers exactly what a Redis (7.x) or Valkey server answers
//! for a string value holding `bytes`: bit 0 is the most significant bit of
//! byte 0, negative indices count from the end, out-of-range indices are
//! clamped, and empty ranges answer 0 (`BITCOUNT`) or -1 (`BITPOS`).
//!
//! ```
//! use bitcount::{bitpos, count, count_range, BitposRange, Unit};
//!
//! let v = b"foobar";
//! assert_eq!(count(v), 26); //                             BITCOUNT k
//! assert_eq!(count_range(v, 1, 1, Unit::Byte), 6); //      BITCOUNT k 1 1
//! assert_eq!(count_range(v, 5, 30, Unit::Bit), 17); //     BITCOUNT k 5 30 BIT
//!
//! let w = [0xff, 0xf0, 0x00];
//! assert_eq!(bitpos(&w, false, BitposRange::All), 12); //  BITPOS k 0
//! assert_eq!(bitpos(&w, true, BitposRange::From(2)), -1); // BITPOS k 1 2
//! let r = BitposRange::Between { start: 7, end: 15, unit: Unit::Bit };
//! assert_eq!(bitpos(&w, true, r), 7); //                   BITPOS k 1 7 15 BIT
//! // The string is zero-padded on the right unless an end is given:
//! assert_eq!(bitpos(&[0xff], false, BitposRange::All), 8);
//! let r = BitposRange::Between { start: 0, end: -1, unit: Unit::Byte };
//! assert_eq!(bitpos(&[0xff], false, r), -1);
//! ```
//!
//! `BITOP` with the eight operations of Redis 8.2, and `BITCOUNT` of its
//! result without building it ([`bitop`], [`bitop_into`], [`bitop_count`]):
//!
//! ```
//! use bitcount::{bitop, bitop_count, BitOp};
//! let (a, b): (&[u8], &[u8]) = (b"\xf0\x0f", b"\xff");
//! let mut dest = Vec::new();
//! assert_eq!(bitop(BitOp::Xor, &mut dest, &[a, b]), Ok(2)); // BITOP XOR d a b
//! assert_eq!(dest, [0x0f, 0x0f]);
//! assert_eq!(bitop_count(BitOp::AndOr, &[a, b]), Ok(4)); //    BITOP ANDOR d a b + BITCOUNT d
//! ```
//!
//! # Kernels
//!
//! The first call picks the best kernel the CPU supports (and the
//! `CPU_DETECT_MAX_LEVEL` ceiling allows) and caches it; later calls cost one
//! relaxed load and an indirect call (on x86_64 `count` calls its kernel
//! directly, with no function pointer). Small inputs never reach the
//! dispatcher: on x86_64 up to 64 bytes are counted inline with POPCNT
//! (behind one cached CPU check; SWAR without POPCNT; on CPUs with
//! AVX-512 VPOPCNTDQ/VL and BMI2, one masked 64-byte load and VPOPCNTQ
//! instead, with no branch on the length), and longer inputs call the
//! AVX-512, AVX2 or POPCNT kernel the dispatcher would pick directly (the
//! POPCNT one in place of AVX2 on cores that split 256-bit operations);
//! elsewhere up to 32 bytes take an inlined scalar path. [`kernels`] lists
//! every kernel the running CPU supports, for tests and benchmarks:
//!
//! ```
//! let data = [0xa5u8; 1000];
//! for k in bitcount::kernels() {
//!     assert_eq!(k.count(&data), 4000, "kernel {}", k.name());
//! }
//! ```
//!
//! | target | count kernels (best first) | BITPOS scan |
//! |---|---|---|
//! | x86_64 | `avx512` (VPOPCNTQ), `avx2` (Harley-Seal), `popcnt`, `scalar` | AVX-512, AVX2, SWAR |
//! | aarch64 | `neon` (CNT + pairwise widening adds), `scalar` | NEON, SWAR |
//! | riscv64 | `zbb` (`cpop`), `scalar` | SWAR |
//! | others | `scalar` (SWAR) | SWAR |
//!
//! # Features
//! - `std` (default): run-time CPU detection on aarch64/riscv64 and the
//!   `CPU_DETECT_MAX_LEVEL` ceiling. Without it the crate is `no_std`; x86
//!   detection still works.
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs, unsafe_op_in_unsafe_fn)]
// A pure function whose result is dropped is a bug in the caller.
#![warn(clippy::must_use_candidate, clippy::return_self_not_must_use)]

#[cfg(feature = "std")]
extern crate std;

#[cfg(feature = "alloc")]
extern crate alloc;

/// The README's examples, run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod bitop;
mod dispatch;
mod kernels;
mod range;

#[cfg(feature = "alloc")]
pub use bitop::bitop;
pub use bitop::{bitop_count, bitop_into, bitop_kernels, BitOp, BitopError, BitopKernel};
pub use range::{BitposRange, Unit};

/// The number of set bits in `bytes`: `BITCOUNT key` on a string holding
/// `bytes` (a missing key is the empty slice and answers 0).
///
/// ```
/// assert_eq!(bitcount::count(b""), 0);
/// assert_eq!(bitcount::count(&[0xff, 0x01]), 9);
/// ```
#[inline]
#[must_use]
pub fn count(bytes: &[u8]) -> u64 {
    dispatch::count(bytes)
}

/// `BITCOUNT key start end [BYTE|BIT]`: the set bits between `start` and
/// `end` (both inclusive, in bytes or bits; negative values count from the
/// end, `-1` being the last).
///
/// ```
/// use bitcount::{count_range, Unit};
/// assert_eq!(count_range(b"foobar", 0, 0, Unit::Byte), 4); // BITCOUNT k 0 0
/// assert_eq!(count_range(b"foobar", -2, -1, Unit::Byte), 7); // BITCOUNT k -2 -1
/// assert_eq!(count_range(b"foobar", 5, 30, Unit::Bit), 17); // BITCOUNT k 5 30 BIT
/// assert_eq!(count_range(b"foobar", 3, 1, Unit::Byte), 0); // empty range
/// ```
#[inline]
#[must_use]
pub fn count_range(bytes: &[u8], start: i64, end: i64, unit: Unit) -> u64 {
    range::count_range(bytes, start, end, unit, dispatch::count)
}

/// `BITPOS key bit [start [end [BYTE|BIT]]]`: the position of the first bit
/// equal to `bit` in the range, or -1.
///
/// Without an end ([`BitposRange::All`], [`BitposRange::From`]) the string
/// counts as zero-padded on the right, so looking for a clear bit in a run of
/// set bits answers the first bit after the string. An empty slice is an
/// existing empty string: -1 for both bits.
///
/// ```
/// use bitcount::{bitpos, BitposRange, Unit};
/// assert_eq!(bitpos(&[0x00, 0x10], true, BitposRange::All), 11); // BITPOS k 1
/// assert_eq!(bitpos(&[0xff, 0xff], false, BitposRange::From(1)), 16); // BITPOS k 0 1
/// let r = BitposRange::Between { start: 0, end: 0, unit: Unit::Byte };
/// assert_eq!(bitpos(&[0x00, 0x10], true, r), -1); // BITPOS k 1 0 0
/// assert_eq!(bitpos(&[], false, BitposRange::All), -1);
/// ```
#[inline]
#[must_use]
pub fn bitpos(bytes: &[u8], bit: bool, range: BitposRange) -> i64 {
    range::bitpos(bytes, bit, range, dispatch::find_not)
}

/// One kernel the running CPU supports (from [`kernels`]): its count
/// function and the BITPOS byte scan of the same instruction set (the SWAR
/// scan where the set has none of its own).
///
/// The methods call the kernel directly, without the small-input path or the
/// dispatcher, so tests reach every kernel and benchmarks measure each one.
#[derive(Clone, Copy, Debug)]
pub struct Kernel {
    count: simd_core::Kernel<dispatch::CountFn>,
    find: simd_core::Kernel<dispatch::FindFn>,
}

impl Kernel {
    /// The kernel's name: `avx512`, `avx2`, `popcnt`, `neon`, `zbb` or
    /// `scalar`.
    #[must_use]
    pub fn name(&self) -> &'static str {
        self.count.name()
    }

    /// The tier the kernel was written for.
    #[must_use]
    pub fn level(&self) -> cpu_detect::Level {
        self.count.level()
    }

    /// [`count`] through this kernel.
    #[must_use]
    pub fn count(&self, bytes: &[u8]) -> u64 {
        // SAFETY: the handle exists only if the CPU has the kernel's
        // features, its only safety condition.
        unsafe { (self.count.func())(bytes) }
    }

    /// [`count_range`] through this kernel.
    #[must_use]
    pub fn count_range(&self, bytes: &[u8], start: i64, end: i64, unit: Unit) -> u64 {
        range::count_range(bytes, start, end, unit, |b| self.count(b))
    }

    /// The index of the first byte of `bytes` that is not `skip`, or
    /// `bytes.len()`: the scan behind [`bitpos`] (`skip` is 0x00 when looking
    /// for a set bit, 0xff for a clear one).
    #[must_use]
    pub fn find_not(&self, bytes: &[u8], skip: u8) -> usize {
        // SAFETY: as in `count`, the handle proves the CPU features.
        unsafe { (self.find.func())(bytes, skip) }
    }

    /// [`bitpos`] through this kernel's scan.
    #[must_use]
    pub fn bitpos(&self, bytes: &[u8], bit: bool, range: BitposRange) -> i64 {
        range::bitpos(bytes, bit, range, |b, s| self.find_not(b, s))
    }
}

/// Every kernel the running CPU supports, best first, ending with `scalar`
/// (the `CPU_DETECT_MAX_LEVEL` ceiling is ignored: this is for tests and
/// benchmarks).
pub fn kernels() -> impl Iterator<Item = Kernel> {
    simd_core::supported(&dispatch::COUNT).map(|count| Kernel {
        count,
        find: dispatch::find_kernel(count.name()),
    })
}
