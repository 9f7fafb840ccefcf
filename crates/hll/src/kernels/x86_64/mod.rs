//! x86-64 kernels: AVX2 (Valkey's layout, plus a windowed histogram), an
//! AVX2 unpack split by multiplies for Intel, an AVX2 + BMI2 pack for AMD
//! Zen 4 and later, and AVX-512 VBMI (byte permutes and multishift); the
//! eight-lane AVX-512F MurmurHash64A for batch adds.

pub(crate) mod avx2;
pub(crate) mod avx2_mul;
pub(crate) mod avx2_pext;
pub(crate) mod avx512;
pub(crate) mod avx512_hash;
