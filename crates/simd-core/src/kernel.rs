//! CPU-checked kernel handles: the only way from safe code to a kernel.

use cpu_detect::{Features, Level};

/// A kernel as a crate lists it: a name, the tier it was written for, a test
/// of the CPU features it needs, the function, and optionally a test of the
/// CPUs where [`select`] may pick it ([`Candidate::preferred_where`]).
///
/// `F` is normally an `unsafe fn(..)` pointer whose safety condition is "the
/// CPU has the features `supported` checks".
#[derive(Clone, Copy)]
pub struct Candidate<F> {
    name: &'static str,
    level: Level,
    supported: fn(&Features) -> bool,
    preferred: fn(&Features) -> bool,
    func: F,
}

/// The default preference: everywhere the kernel is supported.
fn anywhere(_: &Features) -> bool {
    true
}

impl<F: Copy> Candidate<F> {
    /// Describes a kernel.
    ///
    /// # Safety
    /// `func` must be safe to call (for every input its own docs accept)
    /// whenever `supported` returns `true` for the running CPU's
    /// [`Features`]. [`Kernel`] handles built from this candidate rely on it.
    pub const unsafe fn new(
        name: &'static str,
        level: Level,
        supported: fn(&Features) -> bool,
        func: F,
    ) -> Self {
        Candidate {
            name,
            level,
            supported,
            preferred: anywhere,
            func,
        }
    }

    /// Lets [`select`] pick this kernel only on CPUs where `preferred` also
    /// holds, while [`supported`] (and [`Candidate::check`]) still list it
    /// wherever it can run: for a kernel that is correct on more CPUs than
    /// it is the fastest on, so that tests reach it on every CPU that can
    /// run it, not only on those the dispatcher gives it to. Safe: the
    /// preference only narrows the dispatcher's choice.
    ///
    /// ```
    /// use simd_core::{Candidate, Level};
    /// fn fast() -> u32 { 2 }
    /// fn plain() -> u32 { 1 }
    /// // SAFETY: both functions are safe to call on every CPU.
    /// let list = unsafe {
    ///     [
    ///         Candidate::new("tuned", Level::Scalar, |_| true, fast as fn() -> u32)
    ///             .preferred_where(|_| false),
    ///         Candidate::new("scalar", Level::Scalar, |_| true, plain as fn() -> u32),
    ///     ]
    /// };
    /// assert_eq!(simd_core::select(&list).name(), "scalar");
    /// assert_eq!(simd_core::supported(&list).count(), 2);
    /// ```
    #[must_use]
    pub const fn preferred_where(self, preferred: fn(&Features) -> bool) -> Self {
        Candidate { preferred, ..self }
    }

    /// The kernel's name (`"scalar"`, `"avx2"`, ...).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The tier the kernel was written for.
    pub fn level(&self) -> Level {
        self.level
    }

    /// Whether the kernel's feature test holds for `f` (any CPU's features,
    /// not only the running one's): for tests that state which features
    /// each kernel needs.
    pub fn supported_on(&self, f: &Features) -> bool {
        (self.supported)(f)
    }

    /// A handle if the running CPU supports this kernel (ignoring the
    /// ceiling), else `None`.
    pub fn check(&self) -> Option<Kernel<F>> {
        if self.supported_on(cpu_detect::features()) {
            Some(Kernel {
                name: self.name,
                level: self.level,
                func: self.func,
            })
        } else {
            None
        }
    }
}

/// A kernel the running CPU supports. It exists only if
/// [`Candidate::check`] succeeded, so calling [`Kernel::func`] is sound as far
/// as CPU features go.
#[derive(Clone, Copy)]
pub struct Kernel<F> {
    name: &'static str,
    level: Level,
    func: F,
}

impl<F: Copy> Kernel<F> {
    /// The kernel's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The tier the kernel was written for.
    pub fn level(&self) -> Level {
        self.level
    }

    /// The function. Its CPU requirement holds (the handle proves it); any
    /// other safety condition is the kernel's own.
    pub fn func(&self) -> F {
        self.func
    }
}

impl<F> core::fmt::Debug for Kernel<F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Kernel")
            .field("name", &self.name)
            .field("level", &self.level)
            .finish()
    }
}

/// Every candidate the running CPU supports, in list order (the ceiling is
/// ignored: tests use this to reach every kernel).
pub fn supported<F: Copy>(candidates: &[Candidate<F>]) -> impl Iterator<Item = Kernel<F>> + '_ {
    candidates.iter().filter_map(Candidate::check)
}

/// The first candidate (list them best first) that the CPU supports, the
/// ceiling ([`cpu_detect::max_level`]) allows and, where the candidate sets
/// one, its [preference](Candidate::preferred_where) accepts.
///
/// # Panics
/// If none qualifies: end every list with a scalar kernel whose check is
/// always true (the panic names the caller's line).
#[track_caller]
pub fn select<F: Copy>(candidates: &[Candidate<F>]) -> Kernel<F> {
    let max = cpu_detect::max_level();
    candidates
        .iter()
        .filter(|c| max.includes(c.level) && (c.preferred)(cpu_detect::features()))
        .find_map(Candidate::check)
        .expect("kernel list must end with an always-supported scalar kernel")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one() -> u32 {
        1
    }
    fn two() -> u32 {
        2
    }

    #[test]
    fn select_skips_unsupported_and_capped() {
        // SAFETY: the functions are safe to call everywhere.
        let list = unsafe {
            [
                Candidate::new("never", Level::Sse42, |_| false, two as fn() -> u32),
                Candidate::new("scalar", Level::Scalar, |_| true, one as fn() -> u32),
            ]
        };
        assert_eq!(select(&list).name(), "scalar");
        assert_eq!((select(&list).func())(), 1);
        assert_eq!(list[0].name(), "never");
        assert_eq!(list[0].level(), Level::Sse42);
        extern crate std;
        assert_eq!(
            std::format!("{:?}", select(&list)),
            "Kernel { name: \"scalar\", level: Scalar }"
        );
        assert_eq!(supported(&list).count(), 1);
    }

    #[test]
    fn select_skips_unpreferred_but_lists_it() {
        // SAFETY: the functions are safe to call everywhere.
        let list = unsafe {
            [
                Candidate::new("elsewhere", Level::Scalar, |_| true, two as fn() -> u32)
                    .preferred_where(|_| false),
                Candidate::new("here", Level::Scalar, |_| true, two as fn() -> u32)
                    .preferred_where(|_| true),
                Candidate::new("scalar", Level::Scalar, |_| true, one as fn() -> u32),
            ]
        };
        assert_eq!(select(&list).name(), "here");
        let names = supported(&list).map(|k| k.name());
        assert!(names.eq(["elsewhere", "here", "scalar"]));
        assert!(list[0].check().is_some());
    }

    #[test]
    fn ceiling_lowers_choice() {
        // SAFETY: the functions are safe to call everywhere.
        let list = unsafe {
            [
                Candidate::new("fancy", Level::Avx512, |_| true, two as fn() -> u32),
                Candidate::new("scalar", Level::Scalar, |_| true, one as fn() -> u32),
            ]
        };
        // `Avx512` is included only when the (possibly capped) level allows it.
        let expect = if cpu_detect::max_level().includes(Level::Avx512) {
            "fancy"
        } else {
            "scalar"
        };
        assert_eq!(select(&list).name(), expect);
        assert_eq!(supported(&list).count(), 2);
    }
}
