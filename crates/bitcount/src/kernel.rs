//! [`Kernel`]: one kernel of the table as a CPU-checked handle, for tests,
//! benchmarks and callers that pick a kernel themselves.

use crate::bitop::{bitop_slice_with, result_len};
use crate::dispatch::KERNELS;
use crate::kernels::Fns;
use crate::op::{BitOp, BitopError};
use crate::range::{self, BitposRange, Unit};
use cpu_detect::Level;

/// One kernel the running CPU supports (from [`kernels`] or
/// [`selected_kernel`]): its count, its BITPOS byte scan and its BITOP, one
/// instruction set (a set without a function of its own for an operation
/// uses another's: the `popcnt` kernel scans and runs BITOP with the
/// portable code, `avx512bw` counts and runs BITOP with the `avx2` code).
///
/// The methods call the kernel directly, without the small-input paths or
/// the dispatcher, so tests reach every kernel and benchmarks measure each
/// one.
///
/// ```
/// use bitcount::BitOp;
/// let data = [0xa5u8; 1000];
/// for k in bitcount::kernels() {
///     assert_eq!(k.count(&data), 4000, "kernel {}", k.name());
///     assert_eq!(k.bitop_count(BitOp::Xor, &[&[0xff; 300], &[0x0f; 100]]), Ok(2000));
/// }
/// ```
#[derive(Clone, Copy)]
pub struct Kernel(simd_core::Kernel<Fns>);

impl core::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Kernel")
            .field("name", &self.name())
            .field("level", &self.level())
            .finish()
    }
}

impl Kernel {
    /// The kernel's name: `avx512`, `avx512bw`, `avx2`, `popcnt`, `neon`,
    /// `zbb` or `scalar`.
    #[must_use]
    pub fn name(&self) -> &'static str {
        self.0.name()
    }

    /// The tier the kernel was written for (what the
    /// `CPU_DETECT_MAX_LEVEL` ceiling is compared with).
    #[must_use]
    pub fn level(&self) -> Level {
        self.0.level()
    }

    /// [`count`](crate::count) through this kernel.
    #[must_use]
    pub fn count(&self, bytes: &[u8]) -> u64 {
        // SAFETY: the handle exists only if the CPU has the kernel's
        // features, the count's only safety condition.
        unsafe { (self.0.func().count)(bytes) }
    }

    /// [`count_range`](crate::count_range) through this kernel.
    #[must_use]
    pub fn count_range(&self, bytes: &[u8], start: i64, end: i64, unit: Unit) -> u64 {
        range::count_range(bytes, start, end, unit, |b| self.count(b))
    }

    /// The index of the first byte of `bytes` that is not `skip`, or
    /// `bytes.len()`: the scan behind [`bitpos`](crate::bitpos) (`skip` is
    /// 0x00 when looking for a set bit, 0xff for a clear one).
    #[must_use]
    pub fn find_not(&self, bytes: &[u8], skip: u8) -> usize {
        // SAFETY: the handle proves the CPU has the kernel's features, the
        // scan's only safety condition.
        unsafe { (self.0.func().find_not)(bytes, skip) }
    }

    /// [`bitpos`](crate::bitpos) through this kernel's scan.
    #[must_use]
    pub fn bitpos(&self, bytes: &[u8], bit: bool, range: BitposRange) -> i64 {
        range::bitpos(bytes, bit, range, |b, s| self.find_not(b, s))
    }

    /// [`bitop`](crate::bitop) through this kernel.
    ///
    /// # Errors
    /// As [`bitop`](crate::bitop).
    #[cfg(feature = "alloc")]
    pub fn bitop(
        &self,
        op: BitOp,
        dest: &mut alloc::vec::Vec<u8>,
        sources: &[&[u8]],
    ) -> Result<usize, BitopError> {
        let f = self.0.func().bitop;
        crate::bitop::bitop_vec_with(op, dest, sources, |op, d, s| {
            // SAFETY: the handle proves the CPU has the kernel's features,
            // the BITOP function's only safety condition.
            unsafe { f(op, d, s) };
        })
    }

    /// [`bitop_into`](crate::bitop_into) through this kernel.
    ///
    /// # Errors
    /// As [`bitop_into`](crate::bitop_into).
    pub fn bitop_into(
        &self,
        op: BitOp,
        dest: &mut [u8],
        sources: &[&[u8]],
    ) -> Result<usize, BitopError> {
        let f = self.0.func().bitop;
        bitop_slice_with(op, dest, sources, |op, d, s| {
            // SAFETY: the handle proves the CPU has the kernel's features,
            // the BITOP function's only safety condition.
            unsafe { f(op, d, s) };
        })
    }

    /// [`bitop_count`](crate::bitop_count) through this kernel.
    ///
    /// # Errors
    /// As [`bitop`](crate::bitop).
    pub fn bitop_count(&self, op: BitOp, sources: &[&[u8]]) -> Result<u64, BitopError> {
        op.check(sources.len())?;
        // SAFETY: the handle proves the CPU has the kernel's features, the
        // BITOP count's only safety condition.
        Ok(unsafe { (self.0.func().bitop_count)(op, sources, result_len(sources)) })
    }
}

/// Every kernel the CPU supports, whatever the ceiling, best first, ending
/// with `scalar`: what tests and benchmarks loop over. Under
/// `CPU_DETECT_MAX_LEVEL=avx2` an AVX-512 machine still lists `avx512`
/// first; [`selected_kernel`] is the one the dispatcher runs.
///
/// ```
/// let names: Vec<&str> = bitcount::kernels().map(|k| k.name()).collect();
/// assert_eq!(names.last(), Some(&"scalar"));
/// ```
pub fn kernels() -> impl Iterator<Item = Kernel> {
    simd_core::supported(&KERNELS).map(Kernel)
}

/// The kernel the dispatcher picks under the ceiling: the first of
/// [`kernels`] whose [`level`](Kernel::level) the ceiling allows.
/// [`count`](crate::count), [`bitpos`](crate::bitpos) and the BITOP
/// functions run its functions above their inlined short-input paths (on
/// x86_64 CPUs that split 256-bit operations, AMD Zen 1, `count` runs the
/// `popcnt` kernel's loop where this is `avx2`).
///
/// ```
/// let k = bitcount::selected_kernel();
/// assert!(bitcount::kernels().any(|x| x.name() == k.name()));
/// println!("bitcount runs {} ({:?})", k.name(), k.level());
/// ```
#[must_use]
pub fn selected_kernel() -> Kernel {
    Kernel(simd_core::select(&KERNELS))
}
