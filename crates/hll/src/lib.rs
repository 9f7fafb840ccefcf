//! HyperLogLog byte-for-byte compatible with Redis/Valkey strings (PFADD/PFCOUNT/PFMERGE), with SIMD merge and count.
//!
//! This crate is being built; its API lands with its own issue.
#![no_std]
#![deny(missing_docs, unsafe_op_in_unsafe_fn)]
