//! aarch64 kernels: NEON.

pub(crate) mod neon;
pub(crate) mod neon_bitop;
