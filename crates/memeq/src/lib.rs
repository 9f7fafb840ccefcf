//! Fast equality and ordering of short byte strings (hash-table keys) with SSE, AVX2, AVX-512 and NEON.
//!
//! This crate is being built; its API lands with its own issue.
#![no_std]
#![deny(missing_docs, unsafe_op_in_unsafe_fn)]
