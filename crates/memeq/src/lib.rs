//! Fast equality and ordering of short byte strings (hash-table keys) with
//! SSE2, AVX2, AVX-512 and NEON.
//!
//! A hash table spends its key compare in `bcmp` when the keys are byte
//! strings: Rust's `[u8] == [u8]` checks the lengths and calls `bcmp`, an
//! out-of-line call that must first sort out the length. [`eq`] instead
//! inlines a short path for keys up to 64 bytes: overlapping loads (the first
//! and last 16 bytes as SSE2 compares for 16..=32 on x86_64, the first and
//! last 32 for 33..=64; below 16 the first and last 8 or 4 bytes, or bytes
//! 0, n/2 and n-1 as one integer for 1..=3), never a
//! read outside either slice; on x86_64 CPUs with AVX-512 one branch-free
//! pair of masked compares up to 64 bytes. Longer inputs go to the best
//! vector loop the CPU has (AVX-512, AVX2, SSE2, NEON), chosen once at run
//! time.
//!
//! ```
//! assert!(memeq::eq(b"user:1000:profile", b"user:1000:profile"));
//! assert!(!memeq::eq(b"user:1000:profile", b"user:1001:profile"));
//! assert!(!memeq::eq(b"abc", b"abcd")); // different lengths
//!
//! // Fixed-size keys: fully inlined.
//! let k: [u8; 16] = *b"0123456789abcdef";
//! assert!(memeq::eq_fixed(&k, b"0123456789abcdef"));
//!
//! // Ordering with the contract of `a.cmp(b)` (bytes, then length).
//! use core::cmp::Ordering;
//! assert_eq!(memeq::cmp(b"apple", b"apricot"), Ordering::Less);
//! assert_eq!(memeq::cmp(b"abc", b"ab"), Ordering::Greater);
//! ```
//!
//! # As a hash-map key
//!
//! `HashMap` (and `hashbrown`) compare keys with `PartialEq`; a newtype routes
//! that compare through [`eq`]:
//!
//! ```
//! use std::collections::HashMap;
//! use std::hash::{Hash, Hasher};
//!
//! #[derive(Clone, Debug, Eq)]
//! struct Key(Vec<u8>);
//!
//! impl PartialEq for Key {
//!     fn eq(&self, other: &Self) -> bool {
//!         memeq::eq(&self.0, &other.0)
//!     }
//! }
//!
//! // Hash exactly the bytes `eq` compares, so equal keys hash alike.
//! impl Hash for Key {
//!     fn hash<H: Hasher>(&self, h: &mut H) {
//!         self.0.hash(h)
//!     }
//! }
//!
//! let mut m = HashMap::new();
//! m.insert(Key(b"session:42".to_vec()), 1);
//! assert_eq!(m.get(&Key(b"session:42".to_vec())), Some(&1));
//! ```
//!
//! # Kernels
//!
//! [`kernels()`] lists every kernel the CPU supports (for tests and
//! benchmarks); the public functions never show which one runs. The ceiling
//! `CPU_DETECT_MAX_LEVEL` (or `cpu_detect::set_max_level`) lowers the choice.
//!
//! When the choice is made: on x86_64 Linux and Android, when the program
//! loads (an `.init_array` constructor, before `main`), so that [`eq`] and
//! [`cmp`] carry no detection call that the optimiser must assume writes
//! memory (in a hash table's probe loop that costs reloads of the table's
//! fields at every compare: 4-8% of a lookup, measured). There the
//! environment variable is the ceiling that counts: `set_max_level` runs too
//! late to change the choice. Elsewhere on x86_64 the first call chooses, and
//! other architectures choose on the first call over 64 bytes.
//!
//! # Features
//! - `std` (default): run-time CPU detection that needs the standard library
//!   (passed on to `cpu-detect`) and the `CPU_DETECT_MAX_LEVEL` ceiling. The
//!   crate is `#![no_std]`; without `std`, x86 detection still works.
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs, unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]
// A pure function whose result is dropped is a bug in the caller.
#![warn(clippy::must_use_candidate, clippy::return_self_not_must_use)]

#[cfg(feature = "std")]
extern crate std;

mod dispatch;
mod kernels;

/// The README's examples, run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

use core::cmp::Ordering;
pub use simd_core::Level;

/// Whether `a` and `b` are equal: the same length and the same bytes.
///
/// Exactly `a == b`. Up to 64 bytes the compare is inlined (no call, no
/// function pointer; on x86_64 up to 128 bytes, and on AVX-512 CPUs with no
/// branch on the length up to 64); longer inputs run the best vector kernel.
///
/// ```
/// assert!(memeq::eq(b"", b""));
/// assert!(memeq::eq(&[7u8; 100], &[7u8; 100]));
/// assert!(!memeq::eq(&[7u8; 100], &[7u8; 99]));
/// ```
#[inline]
#[must_use]
pub fn eq(a: &[u8], b: &[u8]) -> bool {
    dispatch::eq(a, b)
}

/// Whether two `N`-byte arrays are equal; fully inlined for `N <= 64` (the
/// length is a constant, so the overlapping-load offsets fold away).
///
/// ```
/// let a = [1u8; 32];
/// let mut b = a;
/// assert!(memeq::eq_fixed(&a, &b));
/// b[31] = 0;
/// assert!(!memeq::eq_fixed(&a, &b));
/// ```
#[inline(always)]
#[must_use]
pub fn eq_fixed<const N: usize>(a: &[u8; N], b: &[u8; N]) -> bool {
    if N <= 64 {
        // SAFETY: both arrays hold N <= 64 bytes.
        unsafe { dispatch::eq_upto64(a.as_ptr(), b.as_ptr(), N) }
    } else {
        dispatch::eq_long(a, b)
    }
}

/// The lexicographic order of `a` and `b`: the same contract as `a.cmp(b)`
/// (the first differing byte decides, as an unsigned value; if one slice is a
/// prefix of the other, the shorter is less).
///
/// ```
/// use core::cmp::Ordering;
/// assert_eq!(memeq::cmp(b"key:0001", b"key:0002"), Ordering::Less);
/// assert_eq!(memeq::cmp(b"\xff", b"\x00\x00"), Ordering::Greater);
/// assert_eq!(memeq::cmp(b"", b""), Ordering::Equal);
/// ```
#[inline]
#[must_use]
pub fn cmp(a: &[u8], b: &[u8]) -> Ordering {
    let n = a.len().min(b.len());
    if n <= 64 {
        // SAFETY: both slices hold at least n <= 64 bytes.
        return unsafe { dispatch::cmp_upto64(a.as_ptr(), b.as_ptr(), n, a.len(), b.len()) };
    }
    order_at(a, b, dispatch::mismatch_above64(a, b))
}

/// The order given the first differing index `i` (or the shorter length).
#[inline(always)]
fn order_at(a: &[u8], b: &[u8], i: usize) -> Ordering {
    match (a.get(i), b.get(i)) {
        (Some(x), Some(y)) => x.cmp(y),
        _ => a.len().cmp(&b.len()),
    }
}

/// One kernel the running CPU supports, for tests and benchmarks: its
/// functions have the contracts of [`eq`] and [`cmp`].
///
/// ```
/// for k in memeq::kernels() {
///     assert!(k.eq(b"abc", b"abc"), "{}", k.name());
///     assert_eq!(k.mismatch(b"abcd", b"abXd"), 2);
/// }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Kernel {
    eq: simd_core::Kernel<dispatch::EqFn>,
    mismatch: simd_core::Kernel<dispatch::MismatchFn>,
}

impl Kernel {
    /// The kernel's name (`"avx512"`, `"avx2"`, `"sse2"`, `"neon"`, `"scalar"`).
    #[must_use]
    pub fn name(&self) -> &'static str {
        self.eq.name()
    }

    /// The tier the kernel was written for.
    #[must_use]
    pub fn level(&self) -> Level {
        self.eq.level()
    }

    /// [`eq`] through this kernel (every length, no inlined short path).
    #[must_use]
    pub fn eq(&self, a: &[u8], b: &[u8]) -> bool {
        // SAFETY: the handle exists only if the CPU supports the kernel, its
        // only precondition.
        unsafe { (self.eq.func())(a, b) }
    }

    /// The index of the first byte where `a` and `b` differ, or the shorter
    /// length if one is a prefix of the other.
    #[must_use]
    pub fn mismatch(&self, a: &[u8], b: &[u8]) -> usize {
        // SAFETY: as in `eq`.
        unsafe { (self.mismatch.func())(a, b) }
    }

    /// [`cmp`] through this kernel.
    #[must_use]
    pub fn cmp(&self, a: &[u8], b: &[u8]) -> Ordering {
        order_at(a, b, self.mismatch(a, b))
    }
}

/// Every kernel the running CPU supports, best first (the ceiling is ignored,
/// so tests reach them all).
pub fn kernels() -> impl Iterator<Item = Kernel> {
    simd_core::supported(dispatch::EQ)
        .zip(simd_core::supported(dispatch::MISMATCH))
        .map(|(eq, mismatch)| {
            debug_assert_eq!(eq.name(), mismatch.name());
            Kernel { eq, mismatch }
        })
}
