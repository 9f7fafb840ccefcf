//! The kernel the dispatcher picks, as a one-byte code cached for inlined
//! short paths.
//!
//! [`dispatch!`](crate::dispatch!) caches a function pointer: every call
//! is an indirect call, which costs more than the whole work on a few
//! bytes. A crate whose short inputs should run inline, in the kernel the
//! dispatcher picked, caches a [`Choice`] instead: a code of its own
//! (`1..=255`) derived from [`select`](crate::select), loaded with one
//! relaxed load and compared before any pointer is loaded. The code then
//! selects an inlined short path (or a direct call of the kernel's loop).
//!
//! Where a hot loop should carry no detection at all (a hash table's probe
//! loop: a call that may write memory makes the optimiser reload the
//! table's fields around every compare), the crate reads the code once
//! into a handle (memchr's `One::new()` pattern) and branches on the
//! handle's copy.

use core::num::NonZeroU8;
use core::sync::atomic::{AtomicU8, Ordering};

/// A crate's code for the kernel the dispatcher picks, computed on first
/// use and cached in one byte.
///
/// ```
/// use core::num::NonZeroU8;
/// use simd_core::{Candidate, Choice, Level};
///
/// unsafe fn sum_scalar(b: &[u8]) -> u64 { b.iter().map(|&x| u64::from(x)).sum() }
/// // SAFETY: the scalar kernel runs on every CPU.
/// static SUM: [Candidate<unsafe fn(&[u8]) -> u64>; 1] =
///     [unsafe { Candidate::new("scalar", Level::Scalar, |_| true, sum_scalar) }];
///
/// const SCALAR: u8 = 1;
/// static CHOICE: Choice = Choice::new();
///
/// /// The code of the kernel `select` picks (here only one).
/// fn classify() -> NonZeroU8 {
///     match simd_core::select(&SUM).name() {
///         _ => NonZeroU8::new(SCALAR).unwrap(),
///     }
/// }
///
/// assert_eq!(CHOICE.peek(), None); // nothing detected yet
/// assert_eq!(CHOICE.get(classify).get(), SCALAR);
/// assert_eq!(CHOICE.peek().map(NonZeroU8::get), Some(SCALAR));
/// ```
pub struct Choice(AtomicU8);

impl Choice {
    /// Nothing chosen yet.
    #[must_use]
    pub const fn new() -> Self {
        Choice(AtomicU8::new(0))
    }

    /// The cached code; the first call runs `classify` (out of line, cold)
    /// and caches its answer. `classify` must give the same answer on every
    /// call within a run (derive it from [`select`](crate::select) and
    /// [`cpu_detect::features`]), so relaxed ordering is enough and racing
    /// first calls store the same value.
    #[inline(always)]
    pub fn get(&self, classify: fn() -> NonZeroU8) -> NonZeroU8 {
        match self.peek() {
            Some(code) => code,
            None => self.resolve(classify),
        }
    }

    /// The cached code, or `None` before the first [`Choice::get`]. Never
    /// detects, never writes.
    #[inline(always)]
    #[must_use]
    pub fn peek(&self) -> Option<NonZeroU8> {
        NonZeroU8::new(self.0.load(Ordering::Relaxed))
    }

    #[cold]
    #[inline(never)]
    fn resolve(&self, classify: fn() -> NonZeroU8) -> NonZeroU8 {
        let code = classify();
        self.0.store(code.get(), Ordering::Relaxed);
        code
    }
}

impl Default for Choice {
    fn default() -> Self {
        Choice::new()
    }
}

impl core::fmt::Debug for Choice {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("Choice").field(&self.peek()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::sync::atomic::AtomicUsize;

    static CALLS: AtomicUsize = AtomicUsize::new(0);

    fn seven() -> NonZeroU8 {
        CALLS.fetch_add(1, Ordering::Relaxed);
        NonZeroU8::new(7).unwrap()
    }

    /// The classifier runs once; later calls read the cached byte.
    #[test]
    fn classifies_once() {
        let c = Choice::new();
        assert_eq!(c.peek(), None);
        for _ in 0..3 {
            assert_eq!(c.get(seven).get(), 7);
        }
        assert_eq!(CALLS.load(Ordering::Relaxed), 1);
        assert_eq!(c.peek().map(NonZeroU8::get), Some(7));
        extern crate std;
        assert_eq!(std::format!("{c:?}"), "Choice(Some(7))");
    }
}
