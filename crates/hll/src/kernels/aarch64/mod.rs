//! aarch64 kernels (Advanced SIMD).

pub(crate) mod neon;
