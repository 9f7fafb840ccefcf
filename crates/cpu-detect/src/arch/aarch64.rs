//! aarch64 detection: NEON is baseline on the Linux/macOS targets; SVE needs
//! the OS (std).

use crate::{Features, MisalignedAccess};

pub(crate) fn detect() -> Features {
    Features {
        neon: cfg!(target_feature = "neon"),
        sve: sve(),
        // ARMv8-A performs misaligned normal loads in hardware.
        misaligned_scalar: MisalignedAccess::Fast,
        ..Features::default()
    }
}

#[cfg(feature = "std")]
fn sve() -> bool {
    std::arch::is_aarch64_feature_detected!("sve")
}

#[cfg(not(feature = "std"))]
fn sve() -> bool {
    cfg!(target_feature = "sve")
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;

    /// Each flag agrees with the standard library's own run-time detection
    /// (`AT_HWCAP` on Linux), through the public, cached path; ARMv8-A
    /// loads misaligned words in hardware; other architectures' fields
    /// stay clear.
    #[test]
    fn features_agree_with_std() {
        extern crate std;
        use std::arch::is_aarch64_feature_detected as std_has;
        let f = crate::features();
        assert_eq!(f.neon, std_has!("neon"), "neon");
        assert_eq!(f.sve, std_has!("sve"), "sve");
        assert_eq!(f.misaligned_scalar, MisalignedAccess::Fast);
        assert!(!f.sse2 && !f.avx2 && !f.avx512f && !f.zbb && !f.v);
        assert_eq!(*f, detect());
    }
}
