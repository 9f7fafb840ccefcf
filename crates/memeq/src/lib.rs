//! Fast equality and ordering of short byte strings (hash-table keys) with
//! SSE2, AVX2, AVX-512 and NEON.
//!
//! A hash table spends its key compare in `bcmp` when the keys are byte
//! strings: Rust's `[u8] == [u8]` checks the lengths and calls `bcmp`, an
//! out-of-line call that must first sort out the length. [`eq`] instead
//! inlines a short path for keys up to 64 bytes: overlapping loads (the first
//! and last 16 bytes as SSE2 compares for 16..=32 on x86_64, the first and
//! last 32 for 33..=64; below 16 the first and last 8 or 4 bytes, or bytes
//! 0, n/2 and n-1 as one integer for 1..=3), never a read outside either
//! slice; on x86_64 CPUs with AVX-512 one masked 32-byte compare up to 32
//! bytes and two 32-byte compares for 33..=64. Longer inputs go to the best
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
//! # In a hash table's probe loop: [`Comparer`]
//!
//! The first call of [`eq`] or [`cmp`] detects the CPU; every later call
//! loads the cached answer (one byte) and could, as far as the optimiser
//! knows, still call the detection, which may write memory: in a probe loop
//! that makes it reload the table's fields around every compare (4-8% of
//! a lookup). A [`Comparer`], made once outside the loop, holds the answer
//! itself, so its compares carry no detection:
//!
//! ```
//! let keys: Vec<&[u8]> = vec![b"user:1", b"user:2", b"session:42"];
//! let by = memeq::Comparer::new();
//! let hit = keys.iter().position(|k| by.eq(k, b"session:42"));
//! assert_eq!(hit, Some(2));
//! ```
//!
//! # As a hash-map key
//!
//! With the `hashbrown` feature, `Bytes` looks keys up by `&[u8]` in a
//! `hashbrown::HashMap<Vec<u8>, V>` (or `Box<[u8]>`, `[u8; N]` keys)
//! through `hashbrown::Equivalent`, compared with [`eq`] and without
//! allocating:
//!
//! ```
//! # #[cfg(feature = "hashbrown")] {
//! let mut m = hashbrown::HashMap::new();
//! m.insert(b"session:42".to_vec(), 1);
//! assert_eq!(m.get(&memeq::Bytes(b"session:42")), Some(&1));
//! # }
//! ```
//!
//! With `std`'s `HashMap`, which compares through `Borrow` and `Eq`, a
//! newtype key whose `PartialEq` calls [`eq`] routes the compare through
//! it (lookups then need a key of the newtype).
//!
//! # Kernels
//!
//! [`kernels()`] lists every kernel the CPU supports, whatever the ceiling
//! (for tests and benchmarks); [`selected_kernel()`] is the one the
//! dispatcher picks: the best the CPU supports and the ceiling
//! (`CPU_DETECT_MAX_LEVEL`, or `cpu_detect::set_max_level` before the first
//! call) allows. The choice is made by the first call, or by
//! [`Comparer::new`]; no code runs before `main`.
//!
//! # Features
//! - `std` (default): run-time CPU detection that needs the standard library
//!   (passed on to `cpu-detect`) and the `CPU_DETECT_MAX_LEVEL` ceiling. The
//!   crate is `#![no_std]`; without `std`, x86 detection still works.
//! - `hashbrown`: `Bytes`, lookups by `&[u8]` through
//!   `hashbrown::Equivalent` (needs `alloc` for the `Vec` and `Box` keys).
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(
    missing_docs,
    unsafe_op_in_unsafe_fn,
    clippy::undocumented_unsafe_blocks
)]
// A pure function whose result is dropped is a bug in the caller.
#![warn(clippy::must_use_candidate, clippy::return_self_not_must_use)]

#[cfg(feature = "hashbrown")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

mod dispatch;
#[cfg(feature = "hashbrown")]
mod equivalent;
mod kernels;

#[cfg(feature = "hashbrown")]
#[cfg_attr(docsrs, doc(cfg(feature = "hashbrown")))]
pub use equivalent::Bytes;

/// The README's examples, run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

use core::cmp::Ordering;
pub use simd_core::Level;

/// Whether `a` and `b` are equal: the same length and the same bytes.
///
/// Exactly `a == b`. Up to 64 bytes the compare is inlined (no call, no
/// function pointer; on x86_64 up to 128 bytes, and on AVX-512 CPUs one
/// masked compare up to 32 bytes); longer inputs run the best vector kernel.
///
/// ```
/// assert!(memeq::eq(b"", b""));
/// assert!(memeq::eq(&[7u8; 100], &[7u8; 100]));
/// assert!(!memeq::eq(&[7u8; 100], &[7u8; 99]));
/// ```
#[inline]
#[must_use]
pub fn eq(a: &[u8], b: &[u8]) -> bool {
    dispatch::eq::<true>(dispatch::cached_class(), a, b)
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
        unsafe { kernels::short::eq_upto64(a.as_ptr(), b.as_ptr(), N) }
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
#[inline(always)]
#[must_use]
pub fn cmp(a: &[u8], b: &[u8]) -> Ordering {
    cmp_in::<true>(dispatch::cached_class(), a, b)
}

/// [`cmp`] with the class given; `LAZY`: it may still be unknown.
#[inline(always)]
fn cmp_in<const LAZY: bool>(class: dispatch::Class, a: &[u8], b: &[u8]) -> Ordering {
    let (pa, pb, la, lb) = (a.as_ptr(), b.as_ptr(), a.len(), b.len());
    let n = la.min(lb);
    if n <= 64 {
        // SAFETY: both slices hold at least n <= 64 bytes.
        return unsafe { dispatch::cmp_upto64::<LAZY>(class, pa, pb, n, la, lb) };
    }
    order_at(a, b, dispatch::mismatch_above64::<LAZY>(class, a, b))
}

/// The order given the first differing index `i` (or the shorter length).
#[inline(always)]
fn order_at(a: &[u8], b: &[u8], i: usize) -> Ordering {
    match (a.get(i), b.get(i)) {
        (Some(x), Some(y)) => x.cmp(y),
        _ => a.len().cmp(&b.len()),
    }
}

/// The compares of [`eq`] and [`cmp`] with the kernel choice made once:
/// a capability handle to make outside a hot loop (a hash table's probe
/// loop), whose compares load nothing and call no detection. Copy it
/// freely; it is one byte plus the picked kernel.
///
/// ```
/// use core::cmp::Ordering;
/// let by = memeq::Comparer::new();
/// assert!(by.eq(b"user:1000", b"user:1000"));
/// assert_eq!(by.cmp(b"a", b"b"), Ordering::Less);
/// println!("comparing with {}", by.kernel().name());
/// ```
#[derive(Clone, Copy)]
pub struct Comparer {
    class: dispatch::Class,
    kernel: simd_core::Kernel<dispatch::Fns>,
}

impl Comparer {
    /// Detects the CPU (once per process; later calls reuse the answer) and
    /// picks the kernel [`eq`] and [`cmp`] use, under the ceiling.
    #[must_use]
    pub fn new() -> Comparer {
        Comparer {
            class: dispatch::class(),
            kernel: simd_core::select(&dispatch::KERNELS),
        }
    }

    /// [`eq`]: the same answer, the same inlined short paths.
    #[inline(always)]
    #[must_use]
    pub fn eq(&self, a: &[u8], b: &[u8]) -> bool {
        dispatch::eq::<false>(self.class, a, b)
    }

    /// [`cmp`]: the same answer, the same inlined short paths.
    #[inline(always)]
    #[must_use]
    pub fn cmp(&self, a: &[u8], b: &[u8]) -> Ordering {
        cmp_in::<false>(self.class, a, b)
    }

    /// The kernel it runs on inputs past the inlined short paths.
    #[must_use]
    pub fn kernel(&self) -> Kernel {
        Kernel(self.kernel)
    }
}

impl Default for Comparer {
    fn default() -> Self {
        Comparer::new()
    }
}

impl core::fmt::Debug for Comparer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Comparer")
            .field("kernel", &self.kernel.name())
            .finish()
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
pub struct Kernel(simd_core::Kernel<dispatch::Fns>);

impl Kernel {
    /// The kernel's name (`"avx512"`, `"avx2"`, `"sse2"`, `"neon"`, `"scalar"`).
    #[must_use]
    pub fn name(&self) -> &'static str {
        self.0.name()
    }

    /// The tier the kernel was written for.
    #[must_use]
    pub fn level(&self) -> Level {
        self.0.level()
    }

    /// [`eq`] through this kernel (every length, no inlined short path).
    #[must_use]
    pub fn eq(&self, a: &[u8], b: &[u8]) -> bool {
        // SAFETY: the handle exists only if the CPU supports the kernel, its
        // functions' only precondition.
        unsafe { (self.0.func().eq)(a, b) }
    }

    /// The index of the first byte where `a` and `b` differ, or the shorter
    /// length if one is a prefix of the other.
    #[must_use]
    pub fn mismatch(&self, a: &[u8], b: &[u8]) -> usize {
        // SAFETY: the handle exists only if the CPU supports the kernel, its
        // functions' only precondition.
        unsafe { (self.0.func().mismatch)(a, b) }
    }

    /// [`cmp`] through this kernel.
    #[must_use]
    pub fn cmp(&self, a: &[u8], b: &[u8]) -> Ordering {
        order_at(a, b, self.mismatch(a, b))
    }
}

/// Every kernel the running CPU supports, best first, ending with
/// `scalar`. The ceiling (`CPU_DETECT_MAX_LEVEL`) does not filter this
/// list: under `avx2` it still starts with `avx512` on a CPU that has it,
/// so tests reach every kernel; [`selected_kernel()`] is what the ceiling
/// allows.
pub fn kernels() -> impl Iterator<Item = Kernel> {
    simd_core::supported(&dispatch::KERNELS).map(Kernel)
}

/// The kernel [`eq`] and [`cmp`] run on inputs past their inlined short
/// paths: the best one the CPU supports and the ceiling allows.
///
/// ```
/// let k = memeq::selected_kernel();
/// assert!(cpu_detect::allows(k.level()));
/// assert!(memeq::kernels().any(|x| x.name() == k.name()));
/// ```
#[must_use]
pub fn selected_kernel() -> Kernel {
    Kernel(simd_core::select(&dispatch::KERNELS))
}
