//! x86/x86_64 detection through `cpufeatures` (CPUID plus the XGETBV check
//! that the OS saves ymm/zmm state), no_std.

use crate::{Features, MisalignedAccess, Vendor};
#[cfg(target_arch = "x86")]
use core::arch::x86::{__cpuid, CpuidResult};
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::{__cpuid, CpuidResult};

cpufeatures::new!(has_sse2, "sse2");
cpufeatures::new!(has_ssse3, "ssse3");
cpufeatures::new!(has_sse41, "sse4.1");
cpufeatures::new!(has_sse42, "sse4.2");
cpufeatures::new!(has_popcnt, "popcnt");
cpufeatures::new!(has_avx, "avx");
cpufeatures::new!(has_avx2, "avx2");
cpufeatures::new!(has_bmi1, "bmi1");
cpufeatures::new!(has_bmi2, "bmi2");
cpufeatures::new!(has_avx512f, "avx512f");
cpufeatures::new!(has_avx512bw, "avx512bw");
cpufeatures::new!(has_avx512vl, "avx512vl");
cpufeatures::new!(has_avx512vpopcntdq, "avx512vpopcntdq");
cpufeatures::new!(has_avx512bitalg, "avx512bitalg");
cpufeatures::new!(has_avx512vbmi, "avx512vbmi");
cpufeatures::new!(has_avx512vbmi2, "avx512vbmi2");

pub(crate) fn detect() -> Features {
    let (vendor, family, model) = vendor_family();
    Features {
        sse2: has_sse2::get(),
        ssse3: has_ssse3::get(),
        sse41: has_sse41::get(),
        sse42: has_sse42::get(),
        popcnt: has_popcnt::get(),
        avx: has_avx::get(),
        avx2: has_avx2::get(),
        bmi1: has_bmi1::get(),
        bmi2: has_bmi2::get(),
        avx512f: has_avx512f::get(),
        avx512bw: has_avx512bw::get(),
        avx512vl: has_avx512vl::get(),
        avx512vpopcntdq: has_avx512vpopcntdq::get(),
        avx512bitalg: has_avx512bitalg::get(),
        avx512vbmi: has_avx512vbmi::get(),
        avx512vbmi2: has_avx512vbmi2::get(),
        // x86 performs misaligned loads in hardware at full speed (within a
        // cache line) on every CPU this project targets.
        misaligned_scalar: MisalignedAccess::Fast,
        vendor,
        family,
        model,
        ..Features::default()
    }
}

/// CPUID `leaf` (subleaf 0).
#[allow(unused_unsafe)] // `__cpuid` is a safe function in newer Rust
fn cpuid(leaf: u32) -> CpuidResult {
    // SAFETY: CPUID exists on every x86-64 CPU and on every x86 CPU
    // `cpufeatures` supports (it executes CPUID itself); leaves above the
    // maximum return unspecified values, never fault.
    unsafe { __cpuid(leaf) }
}

/// The vendor (leaf 0), the family and the model (leaf 1); unknown under
/// Miri, which cannot run CPUID (as `cpufeatures` then reports only
/// compile-time features).
fn vendor_family() -> (Vendor, u16, u8) {
    if cfg!(miri) {
        return (Vendor::Other, 0, 0);
    }
    let l0 = cpuid(0);
    let mut id = [0u8; 12];
    id[..4].copy_from_slice(&l0.ebx.to_le_bytes());
    id[4..8].copy_from_slice(&l0.edx.to_le_bytes());
    id[8..].copy_from_slice(&l0.ecx.to_le_bytes());
    let (family, model) = if l0.eax >= 1 {
        let eax = cpuid(1).eax;
        (family_of(eax), model_of(eax))
    } else {
        (0, 0)
    };
    (Vendor::from_id(&id), family, model)
}

/// The family in CPUID leaf 1's EAX: bits 8..12, plus bits 20..28 when
/// those read 0xF.
pub(crate) fn family_of(eax: u32) -> u16 {
    let base = (eax >> 8) & 0xf;
    let family = if base == 0xf {
        base + ((eax >> 20) & 0xff)
    } else {
        base
    };
    family as u16
}

/// The model in CPUID leaf 1's EAX: bits 4..8, plus bits 16..20 shifted
/// left by 4 when the base family reads 6 or 0xF.
pub(crate) fn model_of(eax: u32) -> u8 {
    let base = (eax >> 4) & 0xf;
    let model = match (eax >> 8) & 0xf {
        6 | 0xf => base | ((eax >> 16) & 0xf) << 4,
        _ => base,
    };
    model as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families() {
        // CPUID.1:EAX signatures: Zen 2 (EPYC Rome), Zen 3 (Milan), Zen 5,
        // an Intel Skylake, a Pentium 4.
        assert_eq!(family_of(0x0083_0F10), 0x17);
        assert_eq!(family_of(0x00A0_0F11), 0x19);
        assert_eq!(family_of(0x00B0_0F00), 0x1A);
        assert_eq!(family_of(0x0005_0654), 6);
        assert_eq!(family_of(0x0000_0F29), 0xF);
    }

    #[test]
    fn models() {
        // Zen 1 (EPYC Naples), Zen+ (Pinnacle Ridge), Zen 2 (Rome), Zen 3
        // (Milan), an Intel Skylake, a Pentium 4, a Pentium III (family 6,
        // no extended model).
        assert_eq!(model_of(0x0080_0F12), 0x01);
        assert_eq!(model_of(0x0080_0F82), 0x08);
        assert_eq!(model_of(0x0083_0F10), 0x31);
        assert_eq!(model_of(0x00A0_0F11), 0x01);
        assert_eq!(model_of(0x0005_0654), 0x55);
        assert_eq!(model_of(0x0000_0F29), 0x02);
        assert_eq!(model_of(0x0000_0683), 0x08);
    }

    /// Where the environment says what the CPU is (CI's qemu cells set
    /// `KVPRIMS_EXPECT_SPLIT_256` to 1 under `-cpu EPYC`, a Zen 1, and to
    /// 0 under the other models), detection must agree.
    #[test]
    #[cfg(feature = "std")]
    #[cfg_attr(miri, ignore = "Miri cannot run CPUID")]
    fn split_256bit_as_the_environment_expects() {
        if let Ok(want) = std::env::var("KVPRIMS_EXPECT_SPLIT_256") {
            let f = crate::features();
            assert_eq!(
                f.splits_256bit_ops(),
                want == "1",
                "{:?} family {:#x} model {:#x}",
                f.vendor,
                f.family,
                f.model
            );
        }
    }

    /// Each x86 flag: std's name for it, Linux's name in `/proc/cpuinfo`,
    /// our answer, and std's own run-time answer (its own CPUID and XGETBV
    /// reader).
    #[cfg(feature = "std")]
    fn flags(f: &Features) -> [(&'static str, &'static str, bool, bool); 16] {
        extern crate std;
        use std::is_x86_feature_detected as std_has;
        [
            ("sse2", "sse2", f.sse2, std_has!("sse2")),
            ("ssse3", "ssse3", f.ssse3, std_has!("ssse3")),
            ("sse4.1", "sse4_1", f.sse41, std_has!("sse4.1")),
            ("sse4.2", "sse4_2", f.sse42, std_has!("sse4.2")),
            ("popcnt", "popcnt", f.popcnt, std_has!("popcnt")),
            ("avx", "avx", f.avx, std_has!("avx")),
            ("avx2", "avx2", f.avx2, std_has!("avx2")),
            ("bmi1", "bmi1", f.bmi1, std_has!("bmi1")),
            ("bmi2", "bmi2", f.bmi2, std_has!("bmi2")),
            ("avx512f", "avx512f", f.avx512f, std_has!("avx512f")),
            ("avx512bw", "avx512bw", f.avx512bw, std_has!("avx512bw")),
            ("avx512vl", "avx512vl", f.avx512vl, std_has!("avx512vl")),
            (
                "avx512vpopcntdq",
                "avx512_vpopcntdq",
                f.avx512vpopcntdq,
                std_has!("avx512vpopcntdq"),
            ),
            (
                "avx512bitalg",
                "avx512_bitalg",
                f.avx512bitalg,
                std_has!("avx512bitalg"),
            ),
            (
                "avx512vbmi",
                "avx512vbmi",
                f.avx512vbmi,
                std_has!("avx512vbmi"),
            ),
            (
                "avx512vbmi2",
                "avx512_vbmi2",
                f.avx512vbmi2,
                std_has!("avx512vbmi2"),
            ),
        ]
    }

    /// Every flag agrees with the standard library's own run-time
    /// detection.
    #[test]
    #[cfg(feature = "std")]
    #[cfg_attr(miri, ignore = "Miri cannot run CPUID")]
    fn features_agree_with_std() {
        // Through the public, cached path (`arch::detect`, `init`).
        let f = crate::features();
        for (name, _, ours, theirs) in flags(f) {
            assert_eq!(ours, theirs, "{name}");
        }
        assert_eq!(f.misaligned_scalar, MisalignedAccess::Fast);
        assert!(!f.neon && !f.zbb);
    }

    /// Vendor, family and model agree with what Linux reports in
    /// `/proc/cpuinfo`, where that file describes this CPU: under qemu-user
    /// it describes the host, so the test skips CI's qemu cells (they set
    /// `KVPRIMS_EXPECT_SPLIT_256`) and any run where the file's flags
    /// disagree with CPUID's.
    #[test]
    #[cfg(all(feature = "std", target_os = "linux"))]
    #[cfg_attr(miri, ignore = "Miri cannot run CPUID")]
    fn identity_agrees_with_proc_cpuinfo() {
        extern crate std;
        use std::string::{String, ToString};
        if std::env::var_os("KVPRIMS_EXPECT_SPLIT_256").is_some() {
            return;
        }
        let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") else {
            return;
        };
        let field = |key: &str| -> Option<String> {
            info.lines().find_map(|l| {
                let (k, v) = l.split_once(':')?;
                (k.trim() == key).then(|| v.trim().to_string())
            })
        };
        let listed = field("flags").unwrap_or_default();
        let has = |flag: &str| listed.split_whitespace().any(|x| x == flag);
        let f = detect();
        let same = flags(&f)
            .iter()
            .all(|&(_, linux, ours, _)| has(linux) == ours);
        if !same {
            std::println!("/proc/cpuinfo describes another CPU (qemu-user?): skipped");
            return;
        }
        let id = field("vendor_id").unwrap_or_default();
        let mut v = [0u8; 12];
        if id.len() == 12 {
            v.copy_from_slice(id.as_bytes());
        }
        assert_eq!(f.vendor, Vendor::from_id(&v), "{id}");
        assert_eq!(Some(f.family.to_string()), field("cpu family"));
        assert_eq!(Some(f.model.to_string()), field("model"));
    }

    /// A CPU with AVX of this vendor, family and model.
    fn cpu(vendor: Vendor, family: u16, model: u8) -> Features {
        Features {
            avx: true,
            vendor,
            family,
            model,
            ..Features::default()
        }
    }

    #[test]
    fn split_256bit() {
        assert!(cpu(Vendor::Amd, 0x17, 0x01).splits_256bit_ops());
        assert!(cpu(Vendor::Amd, 0x17, 0x18).splits_256bit_ops());
        assert!(cpu(Vendor::Hygon, 0x18, 0x01).splits_256bit_ops());
        assert!(cpu(Vendor::Amd, 0x17, 0x2f).splits_256bit_ops());
        // Models 0x30-0x3f are Zen 2 (Rome).
        assert!(!cpu(Vendor::Amd, 0x17, 0x30).splits_256bit_ops());
        assert!(!cpu(Vendor::Amd, 0x17, 0x31).splits_256bit_ops());
        assert!(!cpu(Vendor::Amd, 0x19, 0x01).splits_256bit_ops());
        assert!(!cpu(Vendor::Intel, 6, 0x55).splits_256bit_ops());
        let no_avx = Features {
            avx: false,
            ..cpu(Vendor::Amd, 0x17, 0x01)
        };
        assert!(!no_avx.splits_256bit_ops());
    }

    #[test]
    fn split_512bit() {
        let cpu = |vendor, family, model| Features {
            avx512f: true,
            ..cpu(vendor, family, model)
        };
        assert!(cpu(Vendor::Amd, 0x19, 0x11).splits_512bit_ops());
        assert!(cpu(Vendor::Amd, 0x19, 0x61).splits_512bit_ops());
        assert!(!cpu(Vendor::Amd, 0x1a, 0x02).splits_512bit_ops());
        assert!(!cpu(Vendor::Intel, 6, 0x8f).splits_512bit_ops());
        let zen3 = Features {
            avx512f: false,
            ..cpu(Vendor::Amd, 0x19, 0x01)
        };
        assert!(!zen3.splits_512bit_ops());
    }

    #[test]
    fn vendors() {
        assert_eq!(Vendor::from_id(b"GenuineIntel"), Vendor::Intel);
        assert_eq!(Vendor::from_id(b"AuthenticAMD"), Vendor::Amd);
        assert_eq!(Vendor::from_id(b"HygonGenuine"), Vendor::Hygon);
        assert_eq!(Vendor::from_id(b"CentaurHauls"), Vendor::Other);
    }

    #[test]
    #[cfg_attr(miri, ignore = "Miri cannot run CPUID")]
    fn detected_is_consistent() {
        let (v, f, m) = vendor_family();
        assert_eq!(crate::features().model, m);
        // Every CPU that runs i686 or x86-64 code reports a family of at
        // least 6 (P6 and later, AMD's Athlon included).
        assert!(f >= 6, "family {f:#x}");
        // AMD64 CPUs start at family 0xF (K8); 32-bit code also runs on
        // earlier AMD CPUs (the Athlon, and the CPU qemu-i386 reports).
        #[cfg(target_arch = "x86_64")]
        if v == Vendor::Amd {
            assert!(f >= 0xf, "family {f:#x}");
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = v;
    }
}
