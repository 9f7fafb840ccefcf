//! Which kernel runs: one CPU-checked candidate list per operation (best
//! first, ending with scalar), the cached dispatchers, and the public
//! [`Kernel`] handle tests and benchmarks use to reach every kernel.
//!
//! Every operation works on whole HLLs (12 KiB / 16 KiB), so there is no
//! small-input path: one indirect call is noise next to the work.

use crate::kernels::{scalar, Uninit};
use crate::{DENSE_BODY, REGISTERS};
use simd_core::{Candidate, Features, Level};

type UnpackMaxFn = unsafe fn(&[u8; DENSE_BODY], &mut [u8; REGISTERS]);
type UnpackFn = unsafe fn(&[u8; DENSE_BODY], &mut Uninit<REGISTERS>);
type PackFn = unsafe fn(&[u8; REGISTERS], &mut Uninit<DENSE_BODY>);
type HistDenseFn = unsafe fn(&[u8; DENSE_BODY]) -> [u32; 64];
type HistRawFn = unsafe fn(&[u8; REGISTERS]) -> [u32; 64];
type UnionFn = unsafe fn(&[&[u8; DENSE_BODY]], &mut Uninit<REGISTERS>);

/// One instruction set's six kernels and its CPU check. The functions'
/// only safety condition is that `supported` holds for the running CPU;
/// `preferred` narrows where the dispatchers pick the set (tests and
/// benchmarks reach it wherever it is supported).
struct Set {
    name: &'static str,
    level: Level,
    supported: fn(&Features) -> bool,
    preferred: fn(&Features) -> bool,
    unpack_max: UnpackMaxFn,
    unpack: UnpackFn,
    pack: PackFn,
    histogram_dense: HistDenseFn,
    histogram_raw: HistRawFn,
    union: UnionFn,
}

const SCALAR: Set = Set {
    name: "scalar",
    level: Level::Scalar,
    supported: |_| true,
    preferred: |_| true,
    unpack_max: scalar::unpack_max,
    unpack: scalar::unpack,
    pack: scalar::pack,
    histogram_dense: scalar::histogram_dense,
    histogram_raw: scalar::histogram_raw,
    union: scalar::union,
};

/// The candidate for one function `f` of `set`: listed where `supported`
/// holds, dispatched where `preferred` also does.
///
/// # Safety
/// `f` must be one of `set`'s functions.
const unsafe fn candidate<F: Copy>(set: &Set, f: F) -> Candidate<F> {
    // SAFETY: `f` is one of `set`'s functions (the caller's condition), and
    // each set's functions need exactly the CPU features its `supported`
    // checks and accept every input of their types (see each kernel file);
    // `preferred` only narrows the dispatchers' choice.
    unsafe { Candidate::new(set.name, set.level, set.supported, f) }.preferred_where(set.preferred)
}

macro_rules! lists {
    ($($set:expr),+ $(,)?) => {
        // SAFETY (all six lists): each function is taken from the set it is
        // listed with.
        static UNPACK_MAX: &[Candidate<UnpackMaxFn>] =
            &[$(unsafe { candidate(&$set, $set.unpack_max) }),+];
        static UNPACK: &[Candidate<UnpackFn>] = &[$(unsafe { candidate(&$set, $set.unpack) }),+];
        static PACK: &[Candidate<PackFn>] = &[$(unsafe { candidate(&$set, $set.pack) }),+];
        static HIST_DENSE: &[Candidate<HistDenseFn>] =
            &[$(unsafe { candidate(&$set, $set.histogram_dense) }),+];
        static HIST_RAW: &[Candidate<HistRawFn>] =
            &[$(unsafe { candidate(&$set, $set.histogram_raw) }),+];
        static UNION: &[Candidate<UnionFn>] = &[$(unsafe { candidate(&$set, $set.union) }),+];
    };
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::*;
    use crate::kernels::x86_64::{avx2, avx2_mul, avx2_pext, avx512};
    use simd_core::Vendor;

    pub(super) const AVX512: Set = Set {
        name: "avx512",
        level: Level::Avx512,
        supported: |f| f.avx2 && f.avx512f && f.avx512bw && f.avx512vbmi,
        preferred: |_| true,
        unpack_max: avx512::unpack_max,
        unpack: avx512::unpack,
        pack: avx512::pack,
        histogram_dense: avx512::histogram_dense,
        // Measured faster than an AVX-512 counter (see avx512.rs).
        histogram_raw: avx2::histogram_raw,
        union: avx512::union,
    };

    /// The AVX2 set with the `pext`-assisted pack; the other four kernels
    /// are AVX2's. It runs on any CPU with AVX2 and BMI2 (and is listed,
    /// hence tested, on all of them), but the dispatchers pick it only on
    /// AMD Zen 4 (family 0x19 with AVX-512, told by
    /// `splits_512bit_ops`) and from Zen 5 (family 0x1A) on, where it
    /// measured faster than the `avx2` pack (see avx2_pext.rs). Those
    /// cores run the `avx512` set unless a ceiling caps them at AVX2. Zen 3
    /// (family 0x19 without AVX-512) has the same fast `pext` but measured
    /// the `avx2` pack faster, Zen
    /// 1/2 and Hygon run `pext` in microcode, so they and Intel keep the
    /// `avx2` set.
    pub(super) const AVX2_PEXT: Set = Set {
        name: "avx2-pext",
        level: Level::Avx2,
        supported: |f| f.avx2 && f.bmi2,
        preferred: |f| f.vendor == Vendor::Amd && (f.family >= 0x1A || f.splits_512bit_ops()),
        unpack_max: avx2::unpack_max,
        unpack: avx2::unpack,
        pack: avx2_pext::pack,
        histogram_dense: avx2::histogram_dense,
        histogram_raw: avx2::histogram_raw,
        union: avx2::union,
    };

    /// The AVX2 set with the unpack split by `vpmullw` (seven vector µops
    /// per 32 registers instead of eight; see avx2_mul.rs), in `unpack_max`,
    /// `unpack`, the dense histogram and the union's one-body groups; pack
    /// and raw histogram are AVX2's. Listed on every CPU with AVX2, picked
    /// on Intel only, where it is ~15% faster than the `avx2` unpack; AMD
    /// cores keep the `avx2` form.
    pub(super) const AVX2_MUL: Set = Set {
        name: "avx2-mul",
        level: Level::Avx2,
        supported: |f| f.avx2,
        preferred: |f| f.vendor == Vendor::Intel,
        unpack_max: avx2_mul::unpack_max,
        unpack: avx2_mul::unpack,
        pack: avx2::pack,
        histogram_dense: avx2_mul::histogram_dense,
        histogram_raw: avx2::histogram_raw,
        union: avx2_mul::union,
    };

    pub(super) const AVX2: Set = Set {
        name: "avx2",
        level: Level::Avx2,
        supported: |f| f.avx2,
        preferred: |_| true,
        unpack_max: avx2::unpack_max,
        unpack: avx2::unpack,
        pack: avx2::pack,
        histogram_dense: avx2::histogram_dense,
        histogram_raw: avx2::histogram_raw,
        union: avx2::union,
    };
}

#[cfg(target_arch = "aarch64")]
const NEON: Set = Set {
    name: "neon",
    level: Level::Neon,
    supported: |f| f.neon,
    preferred: |_| true,
    unpack_max: crate::kernels::aarch64::neon::unpack_max,
    unpack: crate::kernels::aarch64::neon::unpack,
    pack: crate::kernels::aarch64::neon::pack,
    histogram_dense: crate::kernels::aarch64::neon::histogram_dense,
    histogram_raw: crate::kernels::aarch64::neon::histogram_raw,
    union: crate::kernels::aarch64::neon::union,
};

#[cfg(target_arch = "x86_64")]
lists!(
    x86::AVX512,
    x86::AVX2_PEXT,
    x86::AVX2_MUL,
    x86::AVX2,
    SCALAR
);
#[cfg(target_arch = "aarch64")]
lists!(NEON, SCALAR);
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
lists!(SCALAR);

simd_core::dispatch! {
    /// `raw[i] = max(raw[i], dense register i)` with the best kernel.
    pub(crate) fn unpack_max(dense: &[u8; DENSE_BODY], raw: &mut [u8; REGISTERS]) -> () = UNPACK_MAX;
}
simd_core::dispatch! {
    /// `raw[i] = dense register i` (all of `raw` written) with the best kernel.
    pub(crate) fn unpack(dense: &[u8; DENSE_BODY], raw: &mut Uninit<REGISTERS>) -> () = UNPACK;
}
simd_core::dispatch! {
    /// Packs raw registers into a dense body (all of it written) with the
    /// best kernel.
    pub(crate) fn pack(raw: &[u8; REGISTERS], dense: &mut Uninit<DENSE_BODY>) -> () = PACK;
}
simd_core::dispatch! {
    /// Histogram of dense registers with the best kernel.
    pub(crate) fn histogram_dense(dense: &[u8; DENSE_BODY]) -> [u32; 64] = HIST_DENSE;
}
simd_core::dispatch! {
    /// Histogram of raw registers with the best kernel.
    pub(crate) fn histogram_raw(raw: &[u8; REGISTERS]) -> [u32; 64] = HIST_RAW;
}
simd_core::dispatch! {
    /// `out[i]` = the largest register `i` of the dense bodies (0 if none),
    /// all of `out` written, with the best kernel.
    pub(crate) fn union(inputs: &[&[u8; DENSE_BODY]], out: &mut Uninit<REGISTERS>) -> () = UNION;
}

type HashBatchFn = unsafe fn(&[&[u8]], &mut [u64]);

/// The batch hash kernels (MurmurHash64A of many elements at once), best
/// first, ending with scalar. Separate from the register kernel sets: their
/// CPU needs differ (AVX-512F alone here, VBMI there). The AVX-512F kernel
/// is listed wherever it runs but picked nowhere (it measured no faster
/// than the scalar loop; see its file). There is no AVX2 or NEON kernel:
/// neither has a 64-bit multiply, and the 32-bit emulation costs more per
/// lane than a scalar multiply saves (PERFORMANCE.md, "Batch hashing").
#[cfg(target_arch = "x86_64")]
static HASH_BATCH: &[Candidate<HashBatchFn>] = &[
    // SAFETY: the kernel needs AVX-512F, which the test checks, and accepts
    // any slices.
    unsafe {
        Candidate::new(
            "avx512",
            Level::Avx512,
            |f| f.avx512f,
            crate::kernels::x86_64::avx512_hash::hash_batch as HashBatchFn,
        )
    }
    .preferred_where(|_| false),
    // SAFETY: runs on every CPU.
    unsafe {
        Candidate::new(
            "scalar",
            Level::Scalar,
            |_| true,
            scalar::hash_batch as HashBatchFn,
        )
    },
];
#[cfg(not(target_arch = "x86_64"))]
static HASH_BATCH: &[Candidate<HashBatchFn>] =
    // SAFETY: runs on every CPU.
    &[unsafe {
        Candidate::new(
            "scalar",
            Level::Scalar,
            |_| true,
            scalar::hash_batch as HashBatchFn,
        )
    }];

simd_core::dispatch! {
    /// `out[i] = hash(elements[i])` for every `i` of `elements` (`out` at
    /// least as long) with the best kernel.
    pub(crate) fn hash_batch(elements: &[&[u8]], out: &mut [u64]) -> () = HASH_BATCH;
}

/// A batch hash kernel ([`hash_batch`](crate::hash_batch)), proven runnable
/// on this CPU: the way tests and benchmarks call a specific one. Obtain
/// them from [`hash_kernels`].
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
        // SAFETY: the handle exists only if the CPU supports this kernel;
        // the kernels accept any slices.
        unsafe { (self.0.func())(&elements[..n], &mut out[..n]) }
    }
}

/// Every batch hash kernel the running CPU can run (ignoring the
/// `CPU_DETECT_MAX_LEVEL` ceiling, and including `"avx512"`, which the
/// dispatcher does not pick), scalar last.
pub fn hash_kernels() -> impl Iterator<Item = HashKernel> {
    simd_core::supported(HASH_BATCH).map(HashKernel)
}

/// The name of the batch hash kernel the dispatcher uses on this machine
/// (after the ceiling).
#[must_use]
pub fn selected_hash_kernel() -> &'static str {
    simd_core::select(HASH_BATCH).name()
}

/// One instruction set's kernels, proven runnable on this CPU: the way tests
/// and benchmarks call a specific kernel. Obtain them from [`kernels`].
#[derive(Clone, Copy, Debug)]
pub struct Kernel {
    unpack_max: simd_core::Kernel<UnpackMaxFn>,
    unpack: simd_core::Kernel<UnpackFn>,
    pack: simd_core::Kernel<PackFn>,
    histogram_dense: simd_core::Kernel<HistDenseFn>,
    histogram_raw: simd_core::Kernel<HistRawFn>,
    union: simd_core::Kernel<UnionFn>,
}

impl Kernel {
    /// The kernel's name: `"scalar"`, `"avx2"`, `"avx2-mul"`, `"avx2-pext"`,
    /// `"avx512"`, `"neon"`.
    #[must_use]
    pub fn name(&self) -> &'static str {
        self.unpack_max.name()
    }

    /// The tier it was written for.
    #[must_use]
    pub fn level(&self) -> Level {
        self.unpack_max.level()
    }

    /// `raw[i] = max(raw[i], register i of the dense body)` (the merge step
    /// of `PFCOUNT k1 k2 ..` and `PFMERGE`).
    pub fn unpack_max(&self, dense: &[u8; DENSE_BODY], raw: &mut [u8; REGISTERS]) {
        // SAFETY: the handle exists only if the CPU supports this kernel.
        unsafe { (self.unpack_max.func())(dense, raw) }
    }

    /// `raw[i] = register i of the dense body` (the first dense input of a
    /// union: no zeroed accumulator needed).
    pub fn unpack(&self, dense: &[u8; DENSE_BODY], raw: &mut [u8; REGISTERS]) {
        // SAFETY: the handle exists only if the CPU supports this kernel,
        // and the kernel writes initialised bytes only (as_uninit's
        // condition).
        unsafe { (self.unpack.func())(dense, crate::kernels::as_uninit(raw)) }
    }

    /// Packs raw registers (values `0..=63`) into a dense body.
    pub fn pack(&self, raw: &[u8; REGISTERS], dense: &mut [u8; DENSE_BODY]) {
        // SAFETY: the handle exists only if the CPU supports this kernel,
        // and the kernel writes initialised bytes only (as_uninit's
        // condition).
        unsafe { (self.pack.func())(raw, crate::kernels::as_uninit(dense)) }
    }

    /// Histogram of the registers of a dense body.
    #[must_use]
    pub fn histogram_dense(&self, dense: &[u8; DENSE_BODY]) -> [u32; 64] {
        // SAFETY: the handle exists only if the CPU supports this kernel.
        unsafe { (self.histogram_dense.func())(dense) }
    }

    /// Histogram of raw registers (values `0..=63`; for larger bytes the
    /// result is unspecified but memory-safe).
    #[must_use]
    pub fn histogram_raw(&self, raw: &[u8; REGISTERS]) -> [u32; 64] {
        // SAFETY: the handle exists only if the CPU supports this kernel.
        unsafe { (self.histogram_raw.func())(raw) }
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
        // SAFETY: the handle exists only if the CPU supports this kernel,
        // and the kernel writes initialised bytes only (as_uninit's
        // condition).
        unsafe { (self.union.func())(inputs, crate::kernels::as_uninit(raw)) }
    }
}

/// Every kernel set the running CPU can run (ignoring the
/// `CPU_DETECT_MAX_LEVEL` ceiling, and including sets the dispatchers pick
/// only on other CPUs, such as `"avx2-pext"` outside AMD Zen 4 and later
/// and `"avx2-mul"` outside Intel),
/// best first, scalar last.
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
    // The six lists hold the same sets in the same order with the same
    // checks, so their supported subsequences line up.
    simd_core::supported(UNPACK_MAX)
        .zip(simd_core::supported(UNPACK))
        .zip(simd_core::supported(PACK))
        .zip(simd_core::supported(HIST_DENSE))
        .zip(simd_core::supported(HIST_RAW))
        .zip(simd_core::supported(UNION))
        .map(
            |(((((unpack_max, unpack), pack), histogram_dense), histogram_raw), union)| Kernel {
                unpack_max,
                unpack,
                pack,
                histogram_dense,
                histogram_raw,
                union,
            },
        )
}

/// The name of the kernel set the dispatchers use on this machine (after
/// the ceiling): the first of [`kernels`] that the ceiling allows and that
/// is meant for this CPU.
#[must_use]
pub fn selected_kernel() -> &'static str {
    simd_core::select(UNPACK_MAX).name()
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::x86::{AVX2, AVX2_MUL, AVX2_PEXT};
    use simd_core::{Features, Vendor};

    /// A CPU of this vendor and family with AVX2 and BMI2.
    fn cpu(vendor: Vendor, family: u16) -> Features {
        let mut f = Features::default();
        f.avx2 = true;
        f.bmi2 = true;
        f.vendor = vendor;
        f.family = family;
        f
    }

    /// Whether the dispatchers pick `set` on `f` (ignoring the ceiling).
    fn picked(set: &super::Set, f: &Features) -> bool {
        (set.supported)(f) && (set.preferred)(f)
    }

    /// `set` runs on each of these CPUs (so it is listed and tested there)
    /// but the dispatchers do not pick it.
    fn listed_not_picked(set: &super::Set, cpus: &[(Vendor, u16)]) {
        for &(vendor, family) in cpus {
            let f = cpu(vendor, family);
            assert!((set.supported)(&f), "{} {vendor:?} {family:#x}", set.name);
            assert!(!picked(set, &f), "{} {vendor:?} {family:#x}", set.name);
        }
    }

    /// The `pext` pack is picked only on AMD Zen 4 and from Zen 5 on: Zen
    /// 1/2 and Hygon microcode `pext`, Zen 3 (family 0x19 as Zen 4, told
    /// apart by AVX-512) measured the plain AVX2 pack faster, and Intel
    /// keeps the plain AVX2 set. It is listed (so tested) on every CPU with
    /// AVX2 and BMI2.
    #[test]
    fn pext_pack_picked_only_on_amd_zen4_and_later() {
        let picked = |f: &Features| picked(&AVX2_PEXT, f);
        assert!(picked(&cpu(Vendor::Amd, 0x1A)));
        assert!(picked(&cpu(Vendor::Amd, 0x1B)));
        // Zen 4: family 0x19 with AVX-512 (still picked under a ceiling,
        // which does not change the features).
        let mut zen4 = cpu(Vendor::Amd, 0x19);
        zen4.avx512f = true;
        assert!(picked(&zen4));
        // Intel with AVX-512 keeps the plain AVX2 set.
        let mut intel512 = cpu(Vendor::Intel, 6);
        intel512.avx512f = true;
        assert!(!picked(&intel512));
        listed_not_picked(
            &AVX2_PEXT,
            &[
                (Vendor::Amd, 0x19),
                (Vendor::Amd, 0x17),
                (Vendor::Hygon, 0x18),
                (Vendor::Intel, 6),
                (Vendor::Other, 0),
            ],
        );
        let mut no_bmi2 = cpu(Vendor::Amd, 0x1A);
        no_bmi2.bmi2 = false;
        assert!(!(AVX2_PEXT.supported)(&no_bmi2));
        // The plain AVX2 set stays for everyone with AVX2.
        for f in [
            cpu(Vendor::Intel, 6),
            cpu(Vendor::Amd, 0x17),
            cpu(Vendor::Amd, 0x19),
        ] {
            assert!((AVX2.supported)(&f) && (AVX2.preferred)(&f));
        }
    }

    /// The multiply-split unpack is picked on Intel only, with AVX2 alone
    /// or with AVX-512 (under an AVX2 ceiling), and listed wherever AVX2
    /// runs.
    #[test]
    fn mul_unpack_picked_only_on_intel() {
        let picked = |f: &Features| picked(&AVX2_MUL, f);
        assert!(picked(&cpu(Vendor::Intel, 6)));
        let mut intel512 = cpu(Vendor::Intel, 6);
        intel512.avx512f = true;
        assert!(picked(&intel512));
        listed_not_picked(
            &AVX2_MUL,
            &[
                (Vendor::Amd, 0x17),
                (Vendor::Amd, 0x19),
                (Vendor::Amd, 0x1A),
                (Vendor::Hygon, 0x18),
                (Vendor::Other, 0),
            ],
        );
        let mut no_avx2 = cpu(Vendor::Intel, 6);
        no_avx2.avx2 = false;
        assert!(!(AVX2_MUL.supported)(&no_avx2));
    }
}

#[cfg(test)]
mod needs {
    /// Each kernel set's feature test asks for exactly the features its
    /// kernels use, in all six lists (a CPU with part of a set, AVX-512F
    /// without VBMI say, exists even where the test machine has all or
    /// none of it).
    #[test]
    fn feature_tests_state_each_sets_needs() {
        use simd_core::testing::assert_kernel_needs;
        #[cfg(target_arch = "x86_64")]
        let table: &[(&str, &[&str])] = &[
            ("avx512", &["avx2", "avx512f", "avx512bw", "avx512vbmi"]),
            ("avx2-pext", &["avx2", "bmi2"]),
            ("avx2-mul", &["avx2"]),
            ("avx2", &["avx2"]),
            ("scalar", &[]),
        ];
        #[cfg(target_arch = "aarch64")]
        let table: &[(&str, &[&str])] = &[("neon", &["neon"]), ("scalar", &[])];
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        let table: &[(&str, &[&str])] = &[("scalar", &[])];
        assert_kernel_needs(super::UNPACK_MAX, table);
        assert_kernel_needs(super::UNPACK, table);
        assert_kernel_needs(super::PACK, table);
        assert_kernel_needs(super::HIST_DENSE, table);
        assert_kernel_needs(super::HIST_RAW, table);
        assert_kernel_needs(super::UNION, table);
        #[cfg(target_arch = "x86_64")]
        let hash: &[(&str, &[&str])] = &[("avx512", &["avx512f"]), ("scalar", &[])];
        #[cfg(not(target_arch = "x86_64"))]
        let hash: &[(&str, &[&str])] = &[("scalar", &[])];
        assert_kernel_needs(super::HASH_BATCH, hash);
    }
}
