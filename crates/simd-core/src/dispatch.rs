//! The cached function pointer behind [`dispatch!`](crate::dispatch!).

use core::sync::atomic::{AtomicPtr, Ordering};

/// One cached function pointer, stored type-erased. Used through
/// [`dispatch!`](crate::dispatch!), which keeps the stored type fixed.
pub struct FnCache(AtomicPtr<()>);

impl FnCache {
    /// A cache holding `initial` (the resolver function, erased).
    pub const fn new(initial: *mut ()) -> Self {
        FnCache(AtomicPtr::new(initial))
    }

    /// The cached pointer. Relaxed is enough: every value ever stored is a
    /// valid function pointer of the same type, and any of them is correct.
    #[inline(always)]
    pub fn load(&self) -> *mut () {
        self.0.load(Ordering::Relaxed)
    }

    /// Replaces the cached pointer.
    #[inline]
    pub fn store(&self, f: *mut ()) {
        self.0.store(f, Ordering::Relaxed)
    }
}

/// Defines a function that runs the best kernel of a candidate list.
///
/// The first call resolves the kernel with [`select`](crate::select) (CPU
/// features and the ceiling), caches its pointer and calls it; later calls
/// load the pointer (one relaxed load) and call it. The candidates are
/// `Candidate<unsafe fn(ARGS) -> RET>` and the list must end with an
/// always-supported scalar kernel.
///
/// A crate with several functions per kernel keeps one table of
/// `Candidate<Fns>` (a struct of `unsafe fn` fields) and names the field
/// after the table: `= &TABLE, .field;`. Then every function of a kernel
/// shares one name, level and feature test, and `kernels()` lists the
/// table itself:
///
/// ```
/// use simd_core::{Candidate, Level};
/// #[derive(Clone, Copy)]
/// struct Fns {
///     len: unsafe fn(&[u8]) -> usize,
///     first: unsafe fn(&[u8]) -> Option<u8>,
/// }
/// unsafe fn len_scalar(b: &[u8]) -> usize { b.len() }
/// unsafe fn first_scalar(b: &[u8]) -> Option<u8> { b.first().copied() }
/// // SAFETY: both functions run on every CPU.
/// static TABLE: [Candidate<Fns>; 1] = [unsafe {
///     Candidate::new("scalar", Level::Scalar, |_| true, Fns { len: len_scalar, first: first_scalar })
/// }];
/// simd_core::dispatch! {
///     /// Length, dispatched from the table.
///     pub fn len(b: &[u8]) -> usize = &TABLE, .len;
/// }
/// simd_core::dispatch! {
///     /// First byte, dispatched from the table.
///     pub fn first(b: &[u8]) -> Option<u8> = &TABLE, .first;
/// }
/// assert_eq!((len(b"abc"), first(b"abc")), (3, Some(b'a')));
/// ```
///
/// ```
/// use simd_core::{Candidate, Level};
/// unsafe fn len_scalar(b: &[u8]) -> usize { b.len() }
/// // SAFETY: runs on every CPU.
/// static K: [Candidate<unsafe fn(&[u8]) -> usize>; 1] =
///     [unsafe { Candidate::new("scalar", Level::Scalar, |_| true, len_scalar) }];
/// simd_core::dispatch! {
///     /// Length, dispatched.
///     pub fn len(b: &[u8]) -> usize = &K;
/// }
/// assert_eq!(len(b"abc"), 3);
/// ```
#[macro_export]
macro_rules! dispatch {
    (
        $(#[$meta:meta])*
        $vis:vis fn $name:ident($($arg:ident : $ty:ty),* $(,)?) -> $ret:ty = $candidates:expr $(, .$field:ident)?;
    ) => {
        $(#[$meta])*
        #[inline]
        $vis fn $name($($arg: $ty),*) -> $ret {
            type Func = unsafe fn($($ty),*) -> $ret;
            static CACHE: $crate::FnCache = $crate::FnCache::new(resolve as Func as *mut ());

            unsafe fn resolve($($arg: $ty),*) -> $ret {
                let kernel = $crate::select($candidates);
                let f: Func = kernel.func()$(.$field)?;
                CACHE.store(f as *mut ());
                // SAFETY: `select` returned a kernel the CPU supports, which
                // is the only condition on these kernels' functions (on
                // each function of a table's entry alike).
                unsafe { f($($arg),*) }
            }

            // SAFETY: CACHE only ever holds `resolve` or a function chosen by
            // `select`, both of type `Func`, erased to `*mut ()`.
            let f = unsafe { ::core::mem::transmute::<*mut (), Func>(CACHE.load()) };
            // SAFETY: `resolve` is always safe to call; any other stored
            // function came from a CPU-checked `Kernel`.
            unsafe { f($($arg),*) }
        }
    };
}

#[cfg(test)]
mod tests {
    use crate::{Candidate, Level};
    use core::sync::atomic::{AtomicUsize, Ordering};

    /// How many times the dispatcher below asked whether its kernel runs.
    static CHECKS: AtomicUsize = AtomicUsize::new(0);

    fn runs(_: &crate::Features) -> bool {
        CHECKS.fetch_add(1, Ordering::Relaxed);
        true
    }

    unsafe fn double(x: u32) -> u32 {
        2 * x
    }

    type Double = unsafe fn(u32) -> u32;

    // SAFETY: `double` runs on every CPU.
    static K: [Candidate<Double>; 1] =
        [unsafe { Candidate::new("scalar", Level::Scalar, runs, double) }];

    crate::dispatch! {
        fn doubled(x: u32) -> u32 = &K;
    }

    /// The first call resolves (one CPU check), later calls reuse the cached
    /// pointer.
    #[test]
    fn resolves_once() {
        assert_eq!(doubled(1), 2);
        assert_eq!(doubled(2), 4);
        assert_eq!(doubled(3), 6);
        assert_eq!(CHECKS.load(Ordering::Relaxed), 1);
    }
}
