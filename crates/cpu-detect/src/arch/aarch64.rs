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
