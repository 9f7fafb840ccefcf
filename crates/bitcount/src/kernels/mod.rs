//! The kernels, one algorithm per file; reachable only through the
//! candidate lists in `dispatch.rs`.

pub(crate) mod bitop;
pub(crate) mod scalar;

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;

#[cfg(target_arch = "riscv64")]
pub(crate) mod riscv64;

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
