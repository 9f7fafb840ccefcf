//! aarch64 batch kernel. One-shot hashing stays scalar (one `ldr` per block).

pub(crate) mod neon;
