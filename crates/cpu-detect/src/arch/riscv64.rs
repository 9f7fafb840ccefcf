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
    hwprobe(KEY_IMA_EXT_0).is_some_and(|mask| mask & bit != 0)
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
    if let Some(v) = hwprobe(KEY_MISALIGNED_SCALAR_PERF) {
        return from_hwprobe(v);
    }
    match hwprobe(KEY_CPUPERF_0) {
        Some(v) => from_hwprobe(v & 7),
        None => MisalignedAccess::Unknown,
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
    if ret != 0 || pair.key == -1 {
        None
    } else {
        Some(pair.value)
    }
}
