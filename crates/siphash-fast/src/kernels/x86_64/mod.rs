//! x86_64 batch kernels. One-shot hashing stays scalar (one `mov` per
//! block); SIMD pays off only across independent inputs.

pub(crate) mod avx2;
pub(crate) mod avx512;
