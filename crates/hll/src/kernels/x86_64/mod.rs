//! x86-64 kernels: AVX2 (Valkey's layout, plus a windowed histogram) and
//! AVX-512 VBMI (byte permutes and multishift).

pub(crate) mod avx2;
pub(crate) mod avx512;
