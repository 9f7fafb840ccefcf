//! x86_64 kernels: POPCNT, AVX2 and AVX-512.

pub(crate) mod avx2;
pub(crate) mod avx512;
pub(crate) mod popcnt;
