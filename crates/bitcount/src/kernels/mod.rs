//! The kernels, one algorithm per file; reachable only through the
//! candidate lists in `dispatch.rs`.

pub(crate) mod scalar;

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;

#[cfg(target_arch = "riscv64")]
pub(crate) mod riscv64;

/// Inputs of at least this many bytes issue software prefetches ahead of the
/// stream (NEON only: on x86_64 every kernel measured faster without them).
/// Below it the data is likely cached (or the hardware prefetcher has caught
/// up).
#[cfg(target_arch = "aarch64")]
pub(crate) const PREFETCH_MIN: usize = 1 << 20;

/// How far ahead of the current load the prefetches point.
#[cfg(target_arch = "aarch64")]
pub(crate) const PREFETCH_AHEAD: usize = 1024;
