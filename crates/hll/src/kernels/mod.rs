//! The kernels, one file per instruction set, each reachable only through
//! the CPU-checked candidate lists in `dispatch`.

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;
pub(crate) mod scalar;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;
