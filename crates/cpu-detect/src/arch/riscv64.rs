//! riscv64 detection through the Linux `riscv_hwprobe` syscall (number 258,
//! Linux >= 6.4): Zbb, V and misaligned scalar access speed. qemu-user before
//! 8.1 answers ENOSYS; then only what the build enables is reported.

use crate::{Features, MisalignedAccess};

pub(crate) fn detect() -> Features {
    Features {
        zbb: zbb(),
        v: v(),
        misaligned_scalar: misaligned(),
        ..Features::default()
    }
}

/// `RISCV_HWPROBE_KEY_IMA_EXT_0`: a bit mask of extensions.
const KEY_IMA_EXT_0: i64 = 4;
/// Bits of `KEY_IMA_EXT_0`.
const EXT_V: u64 = 1 << 2;
const EXT_ZBB: u64 = 1 << 4;

// Extensions the build enables are always there; otherwise ask the kernel.
// (std's `is_riscv_feature_detected!` asks the same syscall, but "v" is not
// stable there, and this way no_std builds detect too.)
fn zbb() -> bool {
    cfg!(target_feature = "zbb") || ext(EXT_ZBB)
}

fn v() -> bool {
    cfg!(target_feature = "v") || ext(EXT_V)
}

#[cfg(target_os = "linux")]
fn ext(bit: u64) -> bool {
    has_bit(hwprobe(KEY_IMA_EXT_0), bit)
}

/// Whether an `IMA_EXT_0` answer (if any) has `bit` set.
#[cfg(target_os = "linux")]
fn has_bit(mask: Option<u64>, bit: u64) -> bool {
    mask.is_some_and(|mask| mask & bit != 0)
}

#[cfg(not(target_os = "linux"))]
fn ext(_bit: u64) -> bool {
    false
}

/// `RISCV_HWPROBE_KEY_MISALIGNED_SCALAR_PERF` (Linux >= 6.11).
const KEY_MISALIGNED_SCALAR_PERF: i64 = 9;
/// `RISCV_HWPROBE_KEY_CPUPERF_0`, whose low 3 bits held the same answer before.
const KEY_CPUPERF_0: i64 = 5;

/// Maps a hwprobe misaligned-performance value to the enum.
pub(crate) fn from_hwprobe(value: u64) -> MisalignedAccess {
    match value {
        1 => MisalignedAccess::Emulated,
        2 => MisalignedAccess::Slow,
        3 => MisalignedAccess::Fast,
        4 => MisalignedAccess::Unsupported,
        _ => MisalignedAccess::Unknown,
    }
}

#[cfg(target_os = "linux")]
fn misaligned() -> MisalignedAccess {
    misaligned_from(hwprobe(KEY_MISALIGNED_SCALAR_PERF), || {
        hwprobe(KEY_CPUPERF_0)
    })
}

/// The misaligned-access answer from the two keys that have held it: the
/// newer key where the kernel knows it, else the low 3 bits of the older
/// one (asked only then), else unknown.
#[cfg(target_os = "linux")]
fn misaligned_from(
    scalar_perf: Option<u64>,
    cpuperf_0: impl FnOnce() -> Option<u64>,
) -> MisalignedAccess {
    match scalar_perf {
        Some(v) => from_hwprobe(v),
        None => cpuperf_0().map_or(MisalignedAccess::Unknown, |v| from_hwprobe(v & 7)),
    }
}

#[cfg(not(target_os = "linux"))]
fn misaligned() -> MisalignedAccess {
    MisalignedAccess::Unknown
}

/// One key through `riscv_hwprobe`; `None` on ENOSYS (or any error) and when
/// the kernel does not know the key (it answers key = -1).
#[cfg(target_os = "linux")]
fn hwprobe(key: i64) -> Option<u64> {
    #[repr(C)]
    struct Pair {
        key: i64,
        value: u64,
    }
    let mut pair = Pair { key, value: 0 };
    let ret: isize;
    // SAFETY: syscall 258 is riscv_hwprobe(pairs, pair_count, cpusetsize,
    // cpus, flags). It writes only into the one `Pair` we pass; cpusetsize 0
    // with a null cpu set asks about all online CPUs. A kernel without the
    // syscall returns -ENOSYS and writes nothing.
    unsafe {
        core::arch::asm!(
            "ecall",
            in("a7") 258usize,
            inlateout("a0") &mut pair as *mut Pair as usize => ret,
            in("a1") 1usize,
            in("a2") 0usize,
            in("a3") 0usize,
            in("a4") 0usize,
            options(nostack)
        );
    }
    answer(ret, pair.key, pair.value)
}

/// A `riscv_hwprobe` result for one pair: the value, unless the call failed
/// (`ret` a negative errno) or the kernel does not know the key (it set the
/// key to -1).
#[cfg(target_os = "linux")]
fn answer(ret: isize, key: i64, value: u64) -> Option<u64> {
    if ret != 0 || key == -1 {
        None
    } else {
        Some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `RISCV_HWPROBE_MISALIGNED_*` values of the Linux UAPI
    /// (`asm/hwprobe.h`): 0 unknown, 1 emulated, 2 slow, 3 fast, 4
    /// unsupported; values a newer kernel may add read as unknown.
    #[test]
    fn misaligned_values_of_the_uapi() {
        use MisalignedAccess::*;
        for (value, want) in [
            (0, Unknown),
            (1, Emulated),
            (2, Slow),
            (3, Fast),
            (4, Unsupported),
            (5, Unknown),
            (u64::MAX, Unknown),
        ] {
            assert_eq!(from_hwprobe(value), want, "{value}");
        }
    }

    /// The keys and extension bits as the Linux UAPI numbers them
    /// (`RISCV_HWPROBE_KEY_IMA_EXT_0` 4, `..._KEY_CPUPERF_0` 5,
    /// `..._KEY_MISALIGNED_SCALAR_PERF` 9, `RISCV_HWPROBE_IMA_V` bit 2,
    /// `RISCV_HWPROBE_EXT_ZBB` bit 4).
    #[test]
    fn uapi_numbers() {
        assert_eq!(
            (KEY_IMA_EXT_0, KEY_CPUPERF_0, KEY_MISALIGNED_SCALAR_PERF),
            (4, 5, 9)
        );
        assert_eq!((EXT_V, EXT_ZBB), (0b100, 0b1_0000));
    }

    /// A key no kernel knows reads as `None`, with or without the syscall
    /// (a kernel with it answers key -1, one without it ENOSYS).
    #[test]
    #[cfg(target_os = "linux")]
    #[cfg_attr(miri, ignore = "Miri cannot make system calls")]
    fn unknown_key_is_none() {
        assert_eq!(hwprobe(i64::MAX), None);
        assert_eq!(hwprobe(-2), None);
    }

    /// Zbb agrees with the standard library's own run-time detection, and
    /// what the build enables is always reported; through the public,
    /// cached path. Other architectures' fields stay clear.
    #[test]
    #[cfg(feature = "std")]
    #[cfg_attr(miri, ignore = "Miri cannot make system calls")]
    fn features_agree_with_std() {
        extern crate std;
        let f = crate::features();
        assert_eq!(f.zbb, std::arch::is_riscv_feature_detected!("zbb"), "zbb");
        assert!(f.zbb || !cfg!(target_feature = "zbb"));
        assert!(f.v || !cfg!(target_feature = "v"));
        assert!(!f.sse2 && !f.avx2 && !f.neon && !f.sve);
        assert_eq!(*f, detect());
    }

    /// Extension bits read from an answer, and no answer (no syscall) as
    /// none set.
    #[test]
    #[cfg(target_os = "linux")]
    fn extension_bits() {
        let both = EXT_V | EXT_ZBB | 1;
        assert!(has_bit(Some(both), EXT_ZBB) && has_bit(Some(both), EXT_V));
        assert!(!has_bit(Some(EXT_V | 1), EXT_ZBB));
        assert!(!has_bit(Some(EXT_ZBB), EXT_V));
        assert!(!has_bit(Some(0), EXT_ZBB));
        assert!(!has_bit(None, EXT_ZBB) && !has_bit(None, EXT_V));
    }

    /// The newer key wins where the kernel knows it (and the older one is
    /// then not asked); else the low 3 bits of the older key; else unknown.
    #[test]
    #[cfg(target_os = "linux")]
    fn misaligned_from_the_two_keys() {
        use MisalignedAccess::*;
        let never = || -> Option<u64> { panic!("the older key was asked") };
        assert_eq!(misaligned_from(Some(3), never), Fast);
        assert_eq!(misaligned_from(Some(4), never), Unsupported);
        assert_eq!(misaligned_from(Some(0), never), Unknown);
        // CPUPERF_0 holds other bits above the low three.
        assert_eq!(misaligned_from(None, || Some(0b1000 | 2)), Slow);
        assert_eq!(misaligned_from(None, || Some(0b11_1000 | 1)), Emulated);
        assert_eq!(misaligned_from(None, || Some(3)), Fast);
        assert_eq!(misaligned_from(None, || None), Unknown);
    }

    /// A call's result: the value on success for a known key; nothing on
    /// an errno (ENOSYS is -38) or for a key the kernel set to -1.
    #[test]
    #[cfg(target_os = "linux")]
    fn answers() {
        assert_eq!(answer(0, KEY_IMA_EXT_0, 0x14), Some(0x14));
        assert_eq!(answer(0, KEY_MISALIGNED_SCALAR_PERF, 0), Some(0));
        assert_eq!(answer(-38, KEY_IMA_EXT_0, 0), None);
        assert_eq!(answer(-22, KEY_CPUPERF_0, 3), None);
        assert_eq!(answer(0, -1, 0), None);
        assert_eq!(answer(0, 1, 7), Some(7));
    }

    /// Without the syscall (qemu-user before 8.1) only what the build
    /// enables is reported, and misaligned access is unknown.
    #[test]
    #[cfg(target_os = "linux")]
    #[cfg_attr(miri, ignore = "Miri cannot make system calls")]
    fn without_hwprobe_only_the_build() {
        if hwprobe(KEY_IMA_EXT_0).is_some() {
            return;
        }
        assert_eq!(zbb(), cfg!(target_feature = "zbb"));
        assert_eq!(v(), cfg!(target_feature = "v"));
        assert_eq!(misaligned(), MisalignedAccess::Unknown);
    }
}
