//! SipHash-1-2 (Redis dict hash, incl. nocase), 1-3 and 2-4, 64/128-bit, with fast loads and SIMD batch hashing.
//!
//! This crate is being built; its API lands with its own issue.
#![no_std]
#![deny(missing_docs, unsafe_op_in_unsafe_fn)]
