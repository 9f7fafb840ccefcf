//! Runtime CPU feature detection for the kernels of the kvprims crates.
//!
//! [`features()`] detects once, caches the answer in a static, and is one
//! atomic load afterwards. [`max_level()`] condenses the features into the
//! [`Level`] tiers that kernels are written for, lowered by an optional
//! ceiling: the `CPU_DETECT_MAX_LEVEL` environment variable (with `std`) or
//! [`set_max_level`]. A ceiling lowers what dispatchers choose, never raises it:
//! it is how the test suite reaches every tier on one machine, and how a user
//! avoids AVX-512 frequency effects.
//!
//! ```
//! let f = cpu_detect::features();
//! let level = cpu_detect::max_level();
//! if level.includes(cpu_detect::Level::Avx2) {
//!     assert!(f.avx2 && f.bmi2);
//! }
//! println!("running at {level}");
//! ```
//!
//! # Features
//! - `std` (default): aarch64 SVE detection (through the standard library)
//!   and the environment variable. Without it x86 (CPUID through
//!   `cpufeatures`) and riscv64 Linux (the `riscv_hwprobe` system call)
//!   still detect at run time, aarch64 NEON is known at compile time either
//!   way, and only [`set_max_level`] sets a ceiling.
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(
    missing_docs,
    unsafe_op_in_unsafe_fn,
    clippy::undocumented_unsafe_blocks
)]
// A pure function whose result is dropped is a bug in the caller.
#![warn(clippy::must_use_candidate, clippy::return_self_not_must_use)]

#[cfg(feature = "std")]
extern crate std;

/// The README's examples, run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod arch;
mod cap;
mod level;

pub use cap::{ceiling, set_max_level};
pub use level::{Level, ParseLevelError};

use core::sync::atomic::{AtomicU8, Ordering};

/// How fast the CPU performs misaligned scalar loads (riscv64 Linux
/// `riscv_hwprobe`; other targets report [`MisalignedAccess::Fast`] where the
/// architecture guarantees it and [`MisalignedAccess::Unknown`] otherwise).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MisalignedAccess {
    /// Not known: no probe, the kernel answered ENOSYS or did not know the key.
    #[default]
    Unknown,
    /// Trapped and emulated by the kernel: thousands of cycles each.
    Emulated,
    /// Supported in hardware but slower than byte loads.
    Slow,
    /// As fast as (or faster than) assembling the word from bytes.
    Fast,
    /// Not supported at all.
    Unsupported,
}

impl MisalignedAccess {
    /// The lower-case name used in reports (`unknown`, `emulated`, ...).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            MisalignedAccess::Unknown => "unknown",
            MisalignedAccess::Emulated => "emulated",
            MisalignedAccess::Slow => "slow",
            MisalignedAccess::Fast => "fast",
            MisalignedAccess::Unsupported => "unsupported",
        }
    }
}

/// The x86 CPU vendor (CPUID leaf 0); [`Vendor::Other`] on other
/// architectures and for vendors not listed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Vendor {
    /// Not x86, or a vendor string not listed here.
    #[default]
    Other,
    /// `GenuineIntel`.
    Intel,
    /// `AuthenticAMD`.
    Amd,
    /// `HygonGenuine` (Zen 1 derived).
    Hygon,
}

impl Vendor {
    /// The vendor of a CPUID leaf-0 vendor string (EBX, EDX, ECX bytes).
    #[must_use]
    pub const fn from_id(id: &[u8; 12]) -> Vendor {
        match id {
            b"GenuineIntel" => Vendor::Intel,
            b"AuthenticAMD" => Vendor::Amd,
            b"HygonGenuine" => Vendor::Hygon,
            _ => Vendor::Other,
        }
    }
}

/// The CPU features the kvprims kernels care about. Fields of other
/// architectures are `false`.
///
/// x86 features that need OS support for wider registers (AVX, AVX2, AVX-512)
/// are reported only when the OS saves the ymm/zmm state (XGETBV).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Features {
    /// x86 SSE2.
    pub sse2: bool,
    /// x86 SSSE3 (`pshufb`).
    pub ssse3: bool,
    /// x86 SSE4.1.
    pub sse41: bool,
    /// x86 SSE4.2.
    pub sse42: bool,
    /// x86 POPCNT.
    pub popcnt: bool,
    /// x86 AVX.
    pub avx: bool,
    /// x86 AVX2.
    pub avx2: bool,
    /// x86 BMI1.
    pub bmi1: bool,
    /// x86 BMI2.
    pub bmi2: bool,
    /// x86 AVX-512 Foundation.
    pub avx512f: bool,
    /// x86 AVX-512 byte and word instructions.
    pub avx512bw: bool,
    /// x86 AVX-512 vector length extensions (128/256-bit forms).
    pub avx512vl: bool,
    /// x86 AVX-512 `vpopcntd`/`vpopcntq`.
    pub avx512vpopcntdq: bool,
    /// x86 AVX-512 `vpopcntb`/`vpopcntw`.
    pub avx512bitalg: bool,
    /// x86 AVX-512 `vpermb` and `vpmultishiftqb`.
    pub avx512vbmi: bool,
    /// x86 AVX-512 VBMI2 (compress/expand bytes, concatenated shifts).
    pub avx512vbmi2: bool,
    /// aarch64 Advanced SIMD.
    pub neon: bool,
    /// aarch64 Scalable Vector Extension.
    pub sve: bool,
    /// riscv64 Zbb (basic bit manipulation, `cpop`).
    pub zbb: bool,
    /// riscv64 V (vector extension).
    pub v: bool,
    /// Speed of misaligned scalar loads.
    pub misaligned_scalar: MisalignedAccess,
    /// x86 vendor, for the few kernels whose speed (not correctness)
    /// differs between vendors' cores.
    pub vendor: Vendor,
    /// x86 family as the vendors number it (CPUID leaf 1: the base family,
    /// plus the extended family when the base is 0xF): 6 for Intel Core,
    /// 0x17 for AMD Zen 1/2, 0x19 for Zen 3/4, 0x1A for Zen 5; 0 elsewhere.
    pub family: u16,
    /// x86 model as the vendors number it (CPUID leaf 1: the base model,
    /// plus the extended model shifted left by 4 when the base family is 6
    /// or 0xF): on AMD family 0x17 below 0x30 for Zen 1 / Zen+, from 0x30
    /// for Zen 2; 0 elsewhere.
    pub model: u8,
}

impl Features {
    /// Whether the CPU executes each 256-bit AVX/AVX2 operation as two
    /// 128-bit halves (AMD Zen 1 and Zen+, family 0x17 below model 0x30,
    /// and the Zen 1 based Hygon Dhyana, family 0x18), so that 256-bit
    /// kernels gain little over 128-bit or scalar ones there. A speed
    /// hint, never a correctness condition.
    ///
    /// ```
    /// let f = cpu_detect::features();
    /// if f.splits_256bit_ops() {
    ///     assert!(f.avx);
    /// }
    /// ```
    #[must_use]
    pub const fn splits_256bit_ops(&self) -> bool {
        self.avx
            && match self.vendor {
                Vendor::Amd => self.family == 0x17 && self.model < 0x30,
                Vendor::Hygon => self.family == 0x18,
                _ => false,
            }
    }

    /// Whether the CPU executes each 512-bit AVX-512 operation as two
    /// 256-bit halves (AMD Zen 4, family 0x19: the one AMD family with
    /// AVX-512 before Zen 5's full-width units), so that 256-bit loops
    /// keep up with 512-bit ones there and, without the cache-line
    /// alignment a 64-byte load needs, beat them. A speed hint, never a
    /// correctness condition.
    ///
    /// ```
    /// let f = cpu_detect::features();
    /// if f.splits_512bit_ops() {
    ///     assert!(f.avx512f);
    /// }
    /// ```
    #[must_use]
    pub const fn splits_512bit_ops(&self) -> bool {
        self.avx512f && matches!(self.vendor, Vendor::Amd) && self.family == 0x19
    }
}

struct Cell {
    state: AtomicU8,
    value: core::cell::UnsafeCell<Features>,
}

// SAFETY: `value` is written once, by the thread that moved `state` from
// UNINIT to BUSY, and read only after `state` is READY (release/acquire).
unsafe impl Sync for Cell {}

const UNINIT: u8 = 0;
const BUSY: u8 = 1;
const READY: u8 = 2;

static DETECTED: Cell = Cell {
    state: AtomicU8::new(UNINIT),
    value: core::cell::UnsafeCell::new(Features {
        sse2: false,
        ssse3: false,
        sse41: false,
        sse42: false,
        popcnt: false,
        avx: false,
        avx2: false,
        bmi1: false,
        bmi2: false,
        avx512f: false,
        avx512bw: false,
        avx512vl: false,
        avx512vpopcntdq: false,
        avx512bitalg: false,
        avx512vbmi: false,
        avx512vbmi2: false,
        neon: false,
        sve: false,
        zbb: false,
        v: false,
        misaligned_scalar: MisalignedAccess::Unknown,
        vendor: Vendor::Other,
        family: 0,
        model: 0,
    }),
};

/// The features of the running CPU, detected on the first call and cached.
///
/// The ceiling ([`set_max_level`], `CPU_DETECT_MAX_LEVEL`) does not change
/// what this reports: it only lowers [`max_level`].
///
/// ```
/// let f = cpu_detect::features();
/// #[cfg(target_arch = "x86_64")]
/// if f.avx2 {
///     // an AVX2 kernel may run (if the ceiling allows: see `allows`)
/// }
/// # let _ = f;
/// ```
pub fn features() -> &'static Features {
    if DETECTED.state.load(Ordering::Acquire) != READY {
        init();
    }
    // SAFETY: state is READY, so `value` was fully written and is never
    // written again.
    unsafe { &*DETECTED.value.get() }
}

/// The features of the running CPU if [`features`] has already detected
/// them, else `None`; never detects.
///
/// For hot paths that only run after a detection (a kernel reached through
/// a CPU-checked constructor): one load and a compare, inlined, where
/// [`features`] also carries the call into the detection, which can cost a
/// small caller its callee-saved registers.
///
/// ```
/// let f = cpu_detect::features();
/// assert_eq!(cpu_detect::features_if_detected(), Some(f));
/// ```
#[inline]
pub fn features_if_detected() -> Option<&'static Features> {
    if DETECTED.state.load(Ordering::Acquire) == READY {
        // SAFETY: state is READY, as in `features`.
        Some(unsafe { &*DETECTED.value.get() })
    } else {
        None
    }
}

#[cold]
fn init() {
    match DETECTED
        .state
        .compare_exchange(UNINIT, BUSY, Ordering::Acquire, Ordering::Acquire)
    {
        Ok(_) => {
            let detected = arch::detect();
            // SAFETY: we own the BUSY state: no other thread reads or writes
            // `value` until we publish READY below.
            unsafe { *DETECTED.value.get() = detected };
            DETECTED.state.store(READY, Ordering::Release);
        }
        Err(_) => {
            // Another thread is detecting (a few microseconds of CPUID).
            while DETECTED.state.load(Ordering::Acquire) != READY {
                core::hint::spin_loop();
            }
        }
    }
}

/// The best [`Level`] the CPU supports, ignoring any ceiling.
///
/// ```
/// let level = cpu_detect::detected_level();
/// println!("this CPU: {}", level.name()); // e.g. "avx2"
/// assert!(cpu_detect::Level::ALL.contains(&level));
/// ```
#[must_use]
pub fn detected_level() -> Level {
    Level::of(features())
}

/// The best [`Level`] dispatchers may use: [`detected_level`] lowered by the
/// ceiling, if one is set.
///
/// A ceiling of another architecture's family (say `neon` on x86-64) does not
/// apply; `scalar` applies everywhere.
///
/// ```
/// // Whatever the CPU and the ceiling, the level dispatchers may use is
/// // one they are allowed to use.
/// assert!(cpu_detect::allows(cpu_detect::max_level()));
/// ```
#[must_use]
pub fn max_level() -> Level {
    let detected = detected_level();
    match ceiling() {
        Some(cap) => detected.capped_by(cap),
        None => detected,
    }
}

/// Whether a kernel written for `level` may run now: the CPU supports it and
/// the ceiling allows it.
///
/// ```
/// use cpu_detect::Level;
/// assert!(cpu_detect::allows(Level::Scalar)); // always
/// if cpu_detect::allows(Level::Avx2) {
///     // pick the AVX2 kernel
/// }
/// ```
#[must_use]
pub fn allows(level: Level) -> bool {
    max_level().includes(level)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misaligned_access_names() {
        let all = [
            (MisalignedAccess::Unknown, "unknown"),
            (MisalignedAccess::Emulated, "emulated"),
            (MisalignedAccess::Slow, "slow"),
            (MisalignedAccess::Fast, "fast"),
            (MisalignedAccess::Unsupported, "unsupported"),
        ];
        for (m, name) in all {
            assert_eq!(m.name(), name);
        }
    }
}
