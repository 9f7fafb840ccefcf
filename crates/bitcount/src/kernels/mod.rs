//! The kernels, one algorithm per file; reachable only through the
//! candidate lists in `dispatch.rs`. This file holds what they share: the
//! function table each one fills ([`Fns`]) and the prefetch distances.

use crate::op::BitOp;
use core::mem::MaybeUninit;

pub(crate) mod bitop;
pub(crate) mod scalar;

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;

#[cfg(target_arch = "riscv64")]
pub(crate) mod riscv64;

/// A count kernel: the set bits of a slice.
pub(crate) type CountFn = unsafe fn(&[u8]) -> u64;
/// A scan kernel: the index of the first byte that is not `skip`.
pub(crate) type FindFn = unsafe fn(&[u8], u8) -> usize;
/// A BITOP kernel: the operation over `dst.len()` bytes into `dst` (the
/// contract in `kernels/bitop.rs`), returning `dst.len()`.
pub(crate) type BitopFn = unsafe fn(BitOp, &mut [MaybeUninit<u8>], &[&[u8]]) -> usize;
/// A BITOP count kernel: the set bits of the operation over `n` bytes.
pub(crate) type BitopCountFn = unsafe fn(BitOp, &[&[u8]], usize) -> u64;

/// One kernel's functions. Each one's only safety condition is that the
/// CPU has the features its table entry tests.
#[derive(Clone, Copy)]
pub(crate) struct Fns {
    pub(crate) count: CountFn,
    pub(crate) find_not: FindFn,
    pub(crate) bitop: BitopFn,
    pub(crate) bitop_count: BitopCountFn,
}

/// Inputs of at least this many bytes issue software prefetches ahead of the
/// stream (the `avx2`, `popcnt` and `neon` kernels; the `avx512` kernel
/// has its own thresholds and distances, see `x86_64/avx512.rs`). Below it
/// the data is likely cached.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) const PREFETCH_MIN: usize = 1 << 20;

/// How far ahead of the current load the prefetches point: at 125 MB 8 KB
/// measured fastest (1-2 KB were slower than none, 16 KB a little slower).
/// NEON uses the same distance.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) const PREFETCH_AHEAD: usize = 8192;
