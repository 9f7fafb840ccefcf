//! x86/x86_64 detection through `cpufeatures` (CPUID plus the XGETBV check
//! that the OS saves ymm/zmm state), no_std.

use crate::{Features, MisalignedAccess};

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
        ..Features::default()
    }
}
