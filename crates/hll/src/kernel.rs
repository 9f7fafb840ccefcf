//! The public kernel handles: [`Kernel`] (the register kernels) and
//! [`HashKernel`] (the batch hash kernels), each proven runnable on the
//! running CPU, and the functions that list them and name the ones the
//! dispatchers pick.

use crate::dispatch::{Fns, HashBatchFn, HASH_KERNELS, KERNELS};
use crate::{DENSE_BODY, REGISTERS};
use simd_core::Level;

/// One instruction set's register kernels, proven runnable on this CPU: the
/// way tests and benchmarks call a specific kernel. Obtain them from
/// [`kernels`] or [`selected_kernel`].
#[derive(Clone, Copy, Debug)]
pub struct Kernel(simd_core::Kernel<Fns>);

impl Kernel {
    /// The kernel's name: `"scalar"`, `"avx2"`, `"avx2-mul"`, `"avx2-pext"`,
    /// `"avx512"`, `"neon"`.
    #[must_use]
    pub fn name(&self) -> &'static str {
        self.0.name()
    }

    /// The tier it was written for.
    #[must_use]
    pub fn level(&self) -> Level {
        self.0.level()
    }

    /// `raw[i] = max(raw[i], register i of the dense body)` (the merge step
    /// of `PFCOUNT k1 k2 ..` and `PFMERGE`).
    pub fn unpack_max(&self, dense: &[u8; DENSE_BODY], raw: &mut [u8; REGISTERS]) {
        // SAFETY: the handle exists only if the CPU has the kernel's
        // features, its functions' only condition.
        unsafe { (self.0.func().unpack_max)(dense, raw) }
    }

    /// `raw[i] = register i of the dense body` (the first dense input of a
    /// union: no zeroed accumulator needed).
    pub fn unpack(&self, dense: &[u8; DENSE_BODY], raw: &mut [u8; REGISTERS]) {
        // SAFETY: the handle proves the CPU features, and the kernel writes
        // initialised bytes only (as_uninit's condition).
        unsafe { (self.0.func().unpack)(dense, crate::kernels::as_uninit(raw)) }
    }

    /// Packs raw registers (values `0..=63`) into a dense body.
    pub fn pack(&self, raw: &[u8; REGISTERS], dense: &mut [u8; DENSE_BODY]) {
        // SAFETY: the handle proves the CPU features, and the kernel writes
        // initialised bytes only (as_uninit's condition).
        unsafe { (self.0.func().pack)(raw, crate::kernels::as_uninit(dense)) }
    }

    /// Histogram of the registers of a dense body.
    #[must_use]
    pub fn histogram_dense(&self, dense: &[u8; DENSE_BODY]) -> [u32; 64] {
        // SAFETY: the handle exists only if the CPU has the kernel's
        // features, its functions' only condition.
        unsafe { (self.0.func().histogram_dense)(dense) }
    }

    /// Histogram of raw registers (values `0..=63`; for larger bytes the
    /// result is unspecified but memory-safe).
    #[must_use]
    pub fn histogram_raw(&self, raw: &[u8; REGISTERS]) -> [u32; 64] {
        // SAFETY: the handle exists only if the CPU has the kernel's
        // features, its functions' only condition.
        unsafe { (self.0.func().histogram_raw)(raw) }
    }

    /// `raw[i]` = the largest register `i` of the dense bodies, 0 if there
    /// are none (the merge step of `PFCOUNT k1 k2 ..` and `PFMERGE` for
    /// every dense input at once: kernels with a fused union read each
    /// body once and write `raw` once per four bodies).
    ///
    /// ```
    /// let (mut a, mut b) = ([0u8; hll::REGISTERS], [0u8; hll::REGISTERS]);
    /// a[7] = 5;
    /// b[7] = 3;
    /// b[16383] = 63;
    /// let s = hll::kernels().last().unwrap(); // scalar
    /// let (mut da, mut db) = ([0u8; hll::DENSE_BODY], [0u8; hll::DENSE_BODY]);
    /// s.pack(&a, &mut da);
    /// s.pack(&b, &mut db);
    /// for k in hll::kernels() {
    ///     let mut raw = [0xffu8; hll::REGISTERS]; // every byte is written
    ///     k.union(&[&da, &db], &mut raw);
    ///     assert_eq!((raw[7], raw[16383], raw[0]), (5, 63, 0), "{}", k.name());
    /// }
    /// ```
    pub fn union(&self, inputs: &[&[u8; DENSE_BODY]], raw: &mut [u8; REGISTERS]) {
        // SAFETY: the handle proves the CPU features, and the kernel writes
        // initialised bytes only (as_uninit's condition).
        unsafe { (self.0.func().union)(inputs, crate::kernels::as_uninit(raw)) }
    }
}

/// Every register kernel the CPU supports, whatever the ceiling, best
/// first, ending with `"scalar"`. The ceiling (`CPU_DETECT_MAX_LEVEL`,
/// `cpu_detect::set_max_level`) does not filter this list, and it includes
/// kernels the dispatchers pick only on other CPUs (`"avx2-pext"` outside
/// AMD Zen 4 and later, `"avx2-mul"` outside Intel), so tests reach every
/// kernel; [`selected_kernel`] is the one the dispatchers use.
///
/// ```
/// let dense = [0u8; hll::DENSE_BODY];
/// for k in hll::kernels() {
///     let mut raw = [0u8; hll::REGISTERS];
///     k.unpack_max(&dense, &mut raw);
///     assert_eq!(k.histogram_raw(&raw)[0], 16384, "{}", k.name());
/// }
/// ```
pub fn kernels() -> impl Iterator<Item = Kernel> {
    simd_core::supported(&KERNELS).map(Kernel)
}

/// The register kernel the dispatchers use on this machine: the first of
/// [`kernels`] that the ceiling allows and that is meant for this CPU.
///
/// ```
/// let k = hll::selected_kernel();
/// println!("merge and count run on {} ({:?})", k.name(), k.level());
/// ```
#[must_use]
pub fn selected_kernel() -> Kernel {
    Kernel(simd_core::select(&KERNELS))
}

/// A batch hash kernel ([`hash_batch`](crate::hash_batch)), proven runnable
/// on this CPU: the way tests and benchmarks call a specific one. Obtain
/// them from [`hash_kernels`] or [`selected_hash_kernel`].
#[derive(Clone, Copy, Debug)]
pub struct HashKernel(simd_core::Kernel<HashBatchFn>);

impl HashKernel {
    /// The kernel's name: `"scalar"`, `"avx512"`.
    #[must_use]
    pub fn name(&self) -> &'static str {
        self.0.name()
    }

    /// The tier it was written for.
    #[must_use]
    pub fn level(&self) -> Level {
        self.0.level()
    }

    /// `out[i] = hash(elements[i])` for the first
    /// `min(elements.len(), out.len())` elements.
    ///
    /// ```
    /// for k in hll::hash_kernels() {
    ///     let mut out = [0u64; 2];
    ///     k.hash_batch(&[b"a", b"7"], &mut out);
    ///     assert_eq!(out, [hll::hash(b"a"), 5554161992923675127], "{}", k.name());
    /// }
    /// ```
    pub fn hash_batch(&self, elements: &[&[u8]], out: &mut [u64]) {
        let n = elements.len().min(out.len());
        // SAFETY: the handle exists only if the CPU has the kernel's
        // features, and `out` is cut to the inputs' length, the kernels'
        // other condition.
        unsafe { (self.0.func())(&elements[..n], &mut out[..n]) }
    }
}

/// Every batch hash kernel the CPU supports, whatever the ceiling, best
/// first, ending with `"scalar"` (including `"avx512"`, which the
/// dispatcher does not pick: it measured no faster than the scalar loop).
pub fn hash_kernels() -> impl Iterator<Item = HashKernel> {
    simd_core::supported(&HASH_KERNELS).map(HashKernel)
}

/// The batch hash kernel [`hash_batch`](crate::hash_batch) uses on this
/// machine: the first of [`hash_kernels`] that the ceiling allows and that
/// is meant for this CPU.
///
/// ```
/// assert_eq!(hll::selected_hash_kernel().name(), "scalar");
/// ```
#[must_use]
pub fn selected_hash_kernel() -> HashKernel {
    HashKernel(simd_core::select(&HASH_KERNELS))
}
