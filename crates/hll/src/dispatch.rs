//! Which kernel runs: the register kernels' table and the batch hash
//! kernels' table (each best first, ending with scalar) and the cached
//! dispatchers. `crate::kernel` wraps the tables' entries in the public
//! handles tests and benchmarks use to reach every kernel.
//!
//! Every operation works on whole HLLs (12 KiB / 16 KiB), so there is no
//! small-input path: one indirect call is noise next to the work.

use crate::kernels::{scalar, Uninit};
use crate::{DENSE_BODY, REGISTERS};
use simd_core::{Candidate, Level};

/// One kernel's register functions. Their only safety condition is that
/// the CPU has the features the kernel's [`Candidate`] tests.
#[derive(Clone, Copy)]
pub(crate) struct Fns {
    /// `raw[i] = max(raw[i], dense register i)`.
    pub(crate) unpack_max: unsafe fn(&[u8; DENSE_BODY], &mut [u8; REGISTERS]),
    /// `raw[i] = dense register i`, all of `raw` written.
    pub(crate) unpack: unsafe fn(&[u8; DENSE_BODY], &mut Uninit<REGISTERS>),
    /// Raw registers packed into a dense body, all of it written.
    pub(crate) pack: unsafe fn(&[u8; REGISTERS], &mut Uninit<DENSE_BODY>),
    /// Histogram of dense registers.
    pub(crate) histogram_dense: unsafe fn(&[u8; DENSE_BODY]) -> [u32; 64],
    /// Histogram of raw registers.
    pub(crate) histogram_raw: unsafe fn(&[u8; REGISTERS]) -> [u32; 64],
    /// Register-wise max of dense bodies (zeros if none), all of `out`
    /// written.
    pub(crate) union: unsafe fn(&[&[u8; DENSE_BODY]], &mut Uninit<REGISTERS>),
}

const SCALAR_FNS: Fns = Fns {
    unpack_max: scalar::unpack_max,
    unpack: scalar::unpack,
    pack: scalar::pack,
    histogram_dense: scalar::histogram_dense,
    histogram_raw: scalar::histogram_raw,
    union: scalar::union,
};

/// The portable kernel, last in every table.
// SAFETY: the scalar functions run on every CPU.
const SCALAR: Candidate<Fns> =
    unsafe { Candidate::new("scalar", Level::Scalar, |_| true, SCALAR_FNS) };

/// The x86-64 kernels, best first. `avx2-pext` and `avx2-mul` run on every
/// CPU with their features (so tests reach them there) but are picked only
/// where they measured fastest:
/// - `avx2-pext` (AVX2 with the `pext`-assisted pack, see avx2_pext.rs) on
///   AMD Zen 4 (family 0x19 with AVX-512, told by `splits_512bit_ops`) and
///   from Zen 5 (family 0x1A) on; those cores run `avx512` unless a ceiling
///   caps them at AVX2. Zen 3 (family 0x19 without AVX-512) measured the
///   `avx2` pack faster; Zen 1/2 and Hygon run `pext` in microcode.
/// - `avx2-mul` (AVX2 with the unpack split by `vpmullw`, seven vector µops
///   per 32 registers instead of eight, see avx2_mul.rs) on Intel, where it
///   is ~15% faster than the `avx2` unpack.
#[cfg(target_arch = "x86_64")]
pub(crate) static KERNELS: [Candidate<Fns>; 5] = {
    use crate::kernels::x86_64::{avx2, avx2_mul, avx2_pext, avx512};
    let avx2_fns = Fns {
        unpack_max: avx2::unpack_max,
        unpack: avx2::unpack,
        pack: avx2::pack,
        histogram_dense: avx2::histogram_dense,
        histogram_raw: avx2::histogram_raw,
        union: avx2::union,
    };
    let avx512_fns = Fns {
        unpack_max: avx512::unpack_max,
        unpack: avx512::unpack,
        pack: avx512::pack,
        histogram_dense: avx512::histogram_dense,
        // Measured faster than an AVX-512 counter (see avx512.rs).
        histogram_raw: avx2::histogram_raw,
        union: avx512::union,
    };
    let needs_avx512 = |f: &simd_core::Features| f.avx2 && f.avx512f && f.avx512bw && f.avx512vbmi;
    // SAFETY: the avx512 functions (and the avx2 raw histogram) need the
    // features `needs_avx512` tests.
    let avx512 = unsafe { Candidate::new("avx512", Level::Avx512, needs_avx512, avx512_fns) };
    let pext_fns = Fns {
        pack: avx2_pext::pack,
        ..avx2_fns
    };
    // SAFETY: the pext pack needs AVX2 and BMI2, the other functions AVX2.
    let avx2_pext =
        unsafe { Candidate::new("avx2-pext", Level::Avx2, |f| f.avx2 && f.bmi2, pext_fns) }
            .preferred_where(x86::zen4_or_later);
    let mul_fns = Fns {
        unpack_max: avx2_mul::unpack_max,
        unpack: avx2_mul::unpack,
        histogram_dense: avx2_mul::histogram_dense,
        union: avx2_mul::union,
        ..avx2_fns
    };
    // SAFETY: the avx2_mul and avx2 functions need AVX2 only.
    let avx2_mul = unsafe { Candidate::new("avx2-mul", Level::Avx2, |f| f.avx2, mul_fns) }
        .preferred_where(x86::intel);
    // SAFETY: the avx2 functions need AVX2 only.
    let avx2 = unsafe { Candidate::new("avx2", Level::Avx2, |f| f.avx2, avx2_fns) };
    [avx512, avx2_pext, avx2_mul, avx2, SCALAR]
};

/// Where the x86-64 kernels that are not picked everywhere are picked.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use simd_core::{Features, Vendor};

    /// AMD Zen 4 (family 0x19 with AVX-512) and Zen 5 (0x1A) on: `avx2-pext`.
    pub(super) fn zen4_or_later(f: &Features) -> bool {
        f.vendor == Vendor::Amd && (f.family >= 0x1A || f.splits_512bit_ops())
    }

    /// Intel: `avx2-mul`.
    pub(super) fn intel(f: &Features) -> bool {
        f.vendor == Vendor::Intel
    }
}

/// The aarch64 kernels, best first.
#[cfg(target_arch = "aarch64")]
pub(crate) static KERNELS: [Candidate<Fns>; 2] = {
    use crate::kernels::aarch64::neon;
    let neon_fns = Fns {
        unpack_max: neon::unpack_max,
        unpack: neon::unpack,
        pack: neon::pack,
        histogram_dense: neon::histogram_dense,
        histogram_raw: neon::histogram_raw,
        union: neon::union,
    };
    // SAFETY: the NEON functions need NEON only.
    let neon = unsafe { Candidate::new("neon", Level::Neon, |f| f.neon, neon_fns) };
    [neon, SCALAR]
};

/// The kernels: the portable one only.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub(crate) static KERNELS: [Candidate<Fns>; 1] = [SCALAR];

simd_core::dispatch! {
    /// `raw[i] = max(raw[i], dense register i)` with the best kernel.
    pub(crate) fn unpack_max(dense: &[u8; DENSE_BODY], raw: &mut [u8; REGISTERS]) -> () = &KERNELS, .unpack_max;
}
simd_core::dispatch! {
    /// `raw[i] = dense register i` (all of `raw` written) with the best kernel.
    pub(crate) fn unpack(dense: &[u8; DENSE_BODY], raw: &mut Uninit<REGISTERS>) -> () = &KERNELS, .unpack;
}
simd_core::dispatch! {
    /// Packs raw registers into a dense body (all of it written) with the
    /// best kernel.
    pub(crate) fn pack(raw: &[u8; REGISTERS], dense: &mut Uninit<DENSE_BODY>) -> () = &KERNELS, .pack;
}
simd_core::dispatch! {
    /// Histogram of dense registers with the best kernel.
    pub(crate) fn histogram_dense(dense: &[u8; DENSE_BODY]) -> [u32; 64] = &KERNELS, .histogram_dense;
}
simd_core::dispatch! {
    /// Histogram of raw registers with the best kernel.
    pub(crate) fn histogram_raw(raw: &[u8; REGISTERS]) -> [u32; 64] = &KERNELS, .histogram_raw;
}
simd_core::dispatch! {
    /// `out[i]` = the largest register `i` of the dense bodies (0 if none),
    /// all of `out` written, with the best kernel.
    pub(crate) fn union(inputs: &[&[u8; DENSE_BODY]], out: &mut Uninit<REGISTERS>) -> () = &KERNELS, .union;
}

/// A batch hash (MurmurHash64A of many elements): `out[i] = hash(elements[i])`
/// for `i < elements.len()` (`out` at least as long). Safety: the CPU has
/// the kernel's features.
pub(crate) type HashBatchFn = unsafe fn(&[&[u8]], &mut [u64]);

// A table of its own: its AVX-512F kernel needs F alone (no VBMI) and is picked nowhere.
/// The batch hash kernels, best first, ending with scalar. The AVX-512F
/// kernel measured no faster than the scalar loop (see its file); there is
/// no AVX2 or NEON kernel: neither has a 64-bit multiply, and the 32-bit
/// emulation costs more per lane than a scalar multiply saves
/// (PERFORMANCE.md, "Batch hashing").
#[cfg(target_arch = "x86_64")]
pub(crate) static HASH_KERNELS: [Candidate<HashBatchFn>; 2] = {
    use crate::kernels::x86_64::avx512_hash;
    let f: HashBatchFn = avx512_hash::hash_batch;
    // SAFETY: the kernel needs AVX-512F, which the test checks, and accepts
    // any slices.
    let avx512 = unsafe { Candidate::new("avx512", Level::Avx512, |f| f.avx512f, f) };
    [avx512.preferred_where(|_| false), SCALAR_HASH]
};

/// The batch hash kernels: the portable one only.
#[cfg(not(target_arch = "x86_64"))]
pub(crate) static HASH_KERNELS: [Candidate<HashBatchFn>; 1] = [SCALAR_HASH];

/// The portable batch hash, last in its table.
// SAFETY: the scalar batch hash runs on every CPU and accepts any slices.
const SCALAR_HASH: Candidate<HashBatchFn> =
    unsafe { Candidate::new("scalar", Level::Scalar, |_| true, scalar::hash_batch) };

simd_core::dispatch! {
    /// `out[i] = hash(elements[i])` for every `i` of `elements` (`out` at
    /// least as long) with the best kernel.
    pub(crate) fn hash_batch(elements: &[&[u8]], out: &mut [u64]) -> () = &HASH_KERNELS;
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::{x86, KERNELS};
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

    /// The table entry named `name`.
    fn entry(name: &str) -> &'static simd_core::Candidate<super::Fns> {
        KERNELS.iter().find(|c| c.name() == name).unwrap()
    }

    /// The kernel `name` runs on each of these CPUs (so it is listed and
    /// tested there) but the dispatchers do not pick it.
    fn listed_not_picked(name: &str, prefer: fn(&Features) -> bool, cpus: &[(Vendor, u16)]) {
        for &(vendor, family) in cpus {
            let f = cpu(vendor, family);
            assert!(
                entry(name).supported_on(&f),
                "{name} {vendor:?} {family:#x}"
            );
            assert!(!prefer(&f), "{name} {vendor:?} {family:#x}");
        }
    }

    /// The `pext` pack is picked only on AMD Zen 4 and from Zen 5 on: Zen
    /// 1/2 and Hygon microcode `pext`, Zen 3 (family 0x19 as Zen 4, told
    /// apart by AVX-512) measured the plain AVX2 pack faster, and Intel
    /// keeps the plain AVX2 set. It is listed (so tested) on every CPU with
    /// AVX2 and BMI2.
    #[test]
    fn pext_pack_picked_only_on_amd_zen4_and_later() {
        let picked = |f: &Features| entry("avx2-pext").supported_on(f) && x86::zen4_or_later(f);
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
            "avx2-pext",
            x86::zen4_or_later,
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
        assert!(!entry("avx2-pext").supported_on(&no_bmi2));
        // The plain AVX2 kernel stays for everyone with AVX2 (it has no
        // preference).
        for f in [
            cpu(Vendor::Intel, 6),
            cpu(Vendor::Amd, 0x17),
            cpu(Vendor::Amd, 0x19),
        ] {
            assert!(entry("avx2").supported_on(&f));
        }
    }

    /// The multiply-split unpack is picked on Intel only, with AVX2 alone
    /// or with AVX-512 (under an AVX2 ceiling), and listed wherever AVX2
    /// runs.
    #[test]
    fn mul_unpack_picked_only_on_intel() {
        let picked = |f: &Features| entry("avx2-mul").supported_on(f) && x86::intel(f);
        assert!(picked(&cpu(Vendor::Intel, 6)));
        let mut intel512 = cpu(Vendor::Intel, 6);
        intel512.avx512f = true;
        assert!(picked(&intel512));
        listed_not_picked(
            "avx2-mul",
            x86::intel,
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
        assert!(!entry("avx2-mul").supported_on(&no_avx2));
    }

    /// Each SIMD entry holds its own kernels where it has them, not the
    /// ones its `..` fills in (those would pass every oracle test, only
    /// slowly): the entries differ from their neighbours where they should.
    #[test]
    fn entries_hold_their_own_kernels() {
        let f = |name| entry(name).check().map(|k| k.func());
        let (Some(avx2), Some(pext), Some(mul)) = (f("avx2"), f("avx2-pext"), f("avx2-mul")) else {
            return;
        };
        assert_ne!(pext.pack as usize, avx2.pack as usize);
        assert_eq!(pext.unpack as usize, avx2.unpack as usize);
        assert_ne!(mul.unpack as usize, avx2.unpack as usize);
        assert_ne!(mul.unpack_max as usize, avx2.unpack_max as usize);
        assert_ne!(mul.histogram_dense as usize, avx2.histogram_dense as usize);
        assert_ne!(mul.union as usize, avx2.union as usize);
        assert_eq!(mul.pack as usize, avx2.pack as usize);
    }
}

#[cfg(test)]
mod needs {
    /// Each kernel's feature test asks for exactly the features its
    /// functions use (a CPU with part of a set, AVX-512F without VBMI say,
    /// exists even where the test machine has all or none of it).
    #[test]
    fn feature_tests_state_each_kernels_needs() {
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
        assert_kernel_needs(&super::KERNELS, table);
        #[cfg(target_arch = "x86_64")]
        let hash: &[(&str, &[&str])] = &[("avx512", &["avx512f"]), ("scalar", &[])];
        #[cfg(not(target_arch = "x86_64"))]
        let hash: &[(&str, &[&str])] = &[("scalar", &[])];
        assert_kernel_needs(&super::HASH_KERNELS, hash);
    }
}
