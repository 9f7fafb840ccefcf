//! The kernels, one file per instruction set, and what they share: the
//! table of functions each one fills ([`Fns`]: the one-shot hashes with the
//! kernel's way of loading words, and the batch hashes with its SIMD width)
//! and the batch lanes' word loader. The candidate list that picks one
//! (`ALL`) is in `dispatch.rs`.

pub(crate) mod scalar;

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;

#[cfg(target_arch = "riscv64")]
pub(crate) mod riscv64;

/// A one-shot 64-bit hash. Safety: the CPU has the kernel's features.
pub(crate) type OneShot = unsafe fn(&[u8; 16], &[u8]) -> u64;
/// A one-shot 128-bit hash. Safety: the CPU has the kernel's features.
pub(crate) type OneShot128 = unsafe fn(&[u8; 16], &[u8]) -> u128;
/// A batch hash: `out[i]` = hash of `inputs[i]` for `i < min(len, len)`.
/// Safety: the CPU has the kernel's features.
pub(crate) type Batch = unsafe fn(&[u8; 16], &[&[u8]], &mut [u64]);

/// One kernel's functions.
#[derive(Clone, Copy)]
pub(crate) struct Fns {
    pub(crate) sip12: OneShot,
    pub(crate) sip12_nocase: OneShot,
    pub(crate) sip13: OneShot,
    pub(crate) sip24: OneShot,
    pub(crate) sip13_128: OneShot128,
    pub(crate) sip24_128: OneShot128,
    pub(crate) batch12: Batch,
    pub(crate) batch13: Batch,
    pub(crate) batch24: Batch,
}

/// The word a batch lane absorbs at block `j`: data block `j` while
/// `j < nfull`, else the lane's final word (lanes past their final word are
/// masked off by the kernels, so what they read there does not matter).
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(dead_code)
)]
#[inline(always)]
pub(crate) fn lane_word(data: &[u8], nfull: usize, fin: u64, j: usize) -> u64 {
    if j < nfull {
        let b: &[u8; 8] = data[8 * j..8 * j + 8].try_into().expect("8 bytes");
        u64::from_le_bytes(*b)
    } else {
        fin
    }
}
