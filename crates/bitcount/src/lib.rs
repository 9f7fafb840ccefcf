//! Redis BITCOUNT/BITPOS over byte strings with POPCNT, AVX2, AVX-512, NEON and RISC-V Zbb kernels.
//!
//! This crate is being built; its API lands with its own issue.
#![no_std]
#![deny(missing_docs, unsafe_op_in_unsafe_fn)]
