//! Shared plumbing for the kvprims primitive crates.
//!
//! - [`Candidate`] / [`Kernel`]: a kernel is reachable only through a
//!   CPU-checked handle; [`select`] picks the best one the CPU and the
//!   ceiling allow, [`supported`] lists every one the CPU can run (for tests).
//! - [`dispatch!`]: a function that resolves its kernel on the first call,
//!   caches the function pointer in an `AtomicPtr`, and afterwards costs one
//!   relaxed load and an indirect call; from a list of functions, or from a
//!   field of a table of per-kernel function structs (`= &TABLE, .field`).
//! - [`Choice`]: the picked kernel as a one-byte code of the crate's own,
//!   for inlined short paths that run the picked kernel's code with no
//!   indirect call, and for capability handles that copy the code once
//!   out of a hot loop.
//! - [`load`]: little-endian unaligned loads from slices, never out of bounds.
//! - [`prefetch_read`]: a software prefetch hint.
//! - `testing` (feature `testing`): run a check over every length at every
//!   start offset inside a padded buffer, or flush against `PROT_NONE` guard
//!   pages (`testing::Guarded`).
//! - `redis` (feature `redis`; `redis::aio` with `redis-aio`): `GET` of
//!   many keys in few round trips on one server or a Redis/Valkey Cluster,
//!   the plumbing behind `hll::redis` and `bitcount::redis`.
//!
//! # The idiom
//!
//! Each crate keeps, in its `dispatch.rs`, one table of candidates per
//! kernel family, best first and ending with scalar (`Candidate<Fns>` when a
//! kernel has several functions), the [`dispatch!`] functions that call it,
//! and its rules for short inputs. Adding a kernel is one file under
//! `kernels/` and one table line; `supported(&TABLE)` then hands it to every
//! oracle test, and `testing::assert_kernel_needs` states its features.
//!
//! # Putting a small-input path before the dispatcher
//!
//! A `#[target_feature]` kernel cannot be inlined into a caller without the
//! feature, so each dispatched call is a real indirect call. Tiny inputs should
//! branch to an `#[inline]` scalar path *before* calling the dispatched
//! function:
//!
//! ```
//! use simd_core::{Candidate, Level};
//!
//! /// Sum of bytes, the scalar kernel.
//! unsafe fn sum_scalar(bytes: &[u8]) -> u64 {
//!     bytes.iter().map(|&b| u64::from(b)).sum()
//! }
//!
//! // SAFETY: the scalar kernel runs on every CPU.
//! static KERNELS: [Candidate<unsafe fn(&[u8]) -> u64>; 1] =
//!     [unsafe { Candidate::new("scalar", Level::Scalar, |_| true, sum_scalar) }];
//!
//! simd_core::dispatch! {
//!     /// The dispatched sum.
//!     fn sum_dispatched(bytes: &[u8]) -> u64 = &KERNELS;
//! }
//!
//! #[inline]
//! pub fn sum(bytes: &[u8]) -> u64 {
//!     if bytes.len() < 64 {
//!         return bytes.iter().map(|&b| u64::from(b)).sum(); // inlined, no pointer load
//!     }
//!     sum_dispatched(bytes)
//! }
//! assert_eq!(sum(&[1u8; 100]), 100);
//! ```
//!
//! Where the short path should be the picked kernel's own code (an AVX-512
//! masked compare, say), branch on a [`Choice`] code instead of the
//! length alone: see its docs.
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(
    missing_docs,
    unsafe_op_in_unsafe_fn,
    clippy::undocumented_unsafe_blocks
)]
// A pure function whose result is dropped is a bug in the caller.
#![warn(clippy::must_use_candidate, clippy::return_self_not_must_use)]

#[cfg(feature = "std")]
extern crate std;

mod choice;
mod dispatch;
mod kernel;
pub mod load;
mod prefetch;
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub mod redis;
#[cfg(feature = "testing")]
pub mod testing;

pub use choice::Choice;
pub use cpu_detect::{Features, Level, Vendor};
pub use dispatch::FnCache;
pub use kernel::{select, supported, Candidate, Kernel};
pub use prefetch::prefetch_read;
