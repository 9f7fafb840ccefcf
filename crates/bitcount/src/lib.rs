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
//! One table per target lists the kernels, best first; each kernel has a
//! count, a BITPOS scan and a BITOP. The first call picks the best kernel
//! the CPU supports and the `CPU_DETECT_MAX_LEVEL` ceiling allows
//! ([`selected_kernel`]) and caches it; later calls cost one relaxed load
//! and an indirect call. Nothing runs before `main`. Small inputs never
//! reach the function pointer: on x86_64 `count` counts up to 64 bytes
//! inline (behind one cached byte naming the picked kernel: one masked
//! 64-byte load and VPOPCNTQ on CPUs with AVX-512 VPOPCNTDQ/VL, POPCNT on
//! words elsewhere, SWAR without POPCNT) and calls the picked kernel's
//! count directly above that (the POPCNT one in place of AVX2 on cores
//! that split 256-bit operations); elsewhere up to 32 bytes take an
//! inlined scalar path. BITPOS scans up to 32 bytes and BITOP results up
//! to 64 bytes run inline too. [`kernels`] lists every kernel the CPU
//! supports, whatever the ceiling, for tests and benchmarks:
//!
//! ```
//! let data = [0xa5u8; 1000];
//! for k in bitcount::kernels() {
//!     assert_eq!(k.count(&data), 4000, "kernel {}", k.name());
//! }
//! let picked = bitcount::selected_kernel();
//! assert!(bitcount::kernels().any(|k| k.name() == picked.name()));
//! ```
//!
//! | target | kernels (best first) | count | BITPOS scan | BITOP |
//! |---|---|---|---|---|
//! | x86_64 | `avx512` | VPOPCNTQ | AVX-512BW | AVX-512 (VPTERNLOGQ) |
//! | | `avx512bw` (no VPOPCNTDQ) | AVX2 | AVX-512BW | AVX2 |
//! | | `avx2` | Harley-Seal | AVX2 | AVX2 |
//! | | `popcnt` | POPCNT | SWAR | `u64` words |
//! | aarch64 | `neon` | CNT + pairwise widening adds | NEON | NEON |
//! | riscv64 | `zbb` | `cpop` | SWAR | `u64` words |
//! | all | `scalar` | SWAR | SWAR | `u64` words |
//!
//! # Features
//! - `std` (default): run-time CPU detection on aarch64/riscv64 and the
//!   `CPU_DETECT_MAX_LEVEL` ceiling. Without it the crate is `no_std`; x86
//!   detection still works.
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

#[cfg(feature = "alloc")]
extern crate alloc;

/// The README's examples, run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod bitop;
mod dispatch;
mod kernel;
mod kernels;
mod op;
mod range;
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub mod redis;

#[cfg(feature = "alloc")]
pub use bitop::bitop;
pub use bitop::{bitop_count, bitop_into};
pub use cpu_detect::Level;
pub use kernel::{kernels, selected_kernel, Kernel};
pub use op::{BitOp, BitopError};
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
/// The server's rules, in its order: two negative indices with
/// `start > end` answer 0 (checked before anything else); then each
/// negative index gets the length (in the unit) added, a start still below
/// 0 becomes 0, an end below 0 becomes 0 and one past the string the last
/// index; a start past the end then answers 0. So `-10 -20` answers 0 on
/// any string, while `-20 -10` on a 6-byte string clamps to `0 0` and
/// counts byte 0.
///
/// ```
/// use bitcount::{count_range, Unit};
/// assert_eq!(count_range(b"foobar", 0, 0, Unit::Byte), 4); // BITCOUNT k 0 0
/// assert_eq!(count_range(b"foobar", -2, -1, Unit::Byte), 7); // BITCOUNT k -2 -1
/// assert_eq!(count_range(b"foobar", 5, 30, Unit::Bit), 17); // BITCOUNT k 5 30 BIT
/// assert_eq!(count_range(b"foobar", 3, 1, Unit::Byte), 0); // empty range
/// // Both negative, start > end: 0, although both would clamp to byte 0.
/// assert_eq!(count_range(b"foobar", -10, -20, Unit::Byte), 0); // BITCOUNT k -10 -20
/// assert_eq!(count_range(b"foobar", -20, -10, Unit::Byte), 4); // BITCOUNT k -20 -10
/// assert_eq!(count_range(b"foobar", -1, -3, Unit::Byte), 0); // BITCOUNT k -1 -3
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
/// The range is normalised as in [`count_range`], except that the server's
/// BITPOS has no rule for two negative indices with `start > end`: they
/// clamp like any others (`-41 -43` on a 3-byte string searches byte 0).
///
/// ```
/// use bitcount::{bitpos, BitposRange, Unit};
/// assert_eq!(bitpos(&[0x00, 0x10], true, BitposRange::All), 11); // BITPOS k 1
/// assert_eq!(bitpos(&[0xff, 0xff], false, BitposRange::From(1)), 16); // BITPOS k 0 1
/// let r = BitposRange::Between { start: 0, end: 0, unit: Unit::Byte };
/// assert_eq!(bitpos(&[0x00, 0x10], true, r), -1); // BITPOS k 1 0 0
/// assert_eq!(bitpos(&[], false, BitposRange::All), -1);
/// let r = BitposRange::Between { start: -41, end: -43, unit: Unit::Byte };
/// assert_eq!(bitpos(&[0x35, 0xa6, 0x51], true, r), 2); // BITPOS k 1 -41 -43
/// ```
#[inline]
#[must_use]
pub fn bitpos(bytes: &[u8], bit: bool, range: BitposRange) -> i64 {
    range::bitpos(bytes, bit, range, dispatch::find_not)
}
