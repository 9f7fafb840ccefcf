//! The kernels, one file per instruction set, each reachable only through
//! the CPU-checked candidate lists in `dispatch`, and what they share: the
//! output buffers, the union of several bodies and (in `murmur.rs`)
//! MurmurHash64A.

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;
pub(crate) mod murmur;
pub(crate) mod scalar;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;

use crate::{DENSE_BODY, REGISTERS};
use core::mem::MaybeUninit;

/// Output buffers a kernel writes in full before anyone reads them: the
/// unpacked registers of `unpack` and the dense body of `pack`. Taking
/// them uninitialised spares the callers a 12-16 KiB memset per call.
pub(crate) type Uninit<const N: usize> = [MaybeUninit<u8>; N];

/// A 64-byte-aligned buffer for the register arrays the kernels read and
/// write in whole vectors: no 64-byte access then straddles a cache line
/// (Intel cores pay for such a split access twice; Zen 5 barely notices).
#[repr(C, align(64))]
pub(crate) struct Aligned<T>(pub(crate) T);

/// A fresh uninitialised output buffer.
#[inline(always)]
pub(crate) fn uninit<const N: usize>() -> Uninit<N> {
    [MaybeUninit::uninit(); N]
}

/// The buffer after a kernel wrote every byte of it.
///
/// # Safety
/// Every byte of `buf` must have been written.
#[inline(always)]
pub(crate) unsafe fn assume_init<const N: usize>(buf: &mut Uninit<N>) -> &mut [u8; N] {
    // SAFETY: MaybeUninit<u8> has u8's layout; the caller vouches that each
    // byte is initialised.
    unsafe { &mut *buf.as_mut_ptr().cast::<[u8; N]>() }
}

/// An initialised buffer seen as an output buffer, for a kernel to write.
///
/// # Safety
/// Only initialised bytes may be written through the result (the kernels
/// write nothing else): writing `MaybeUninit::uninit()` would leave `buf`
/// holding uninitialised bytes, which safe code could then read.
#[inline(always)]
pub(crate) unsafe fn as_uninit<const N: usize>(buf: &mut [u8; N]) -> &mut Uninit<N> {
    // SAFETY: MaybeUninit<u8> has u8's layout; the caller writes only
    // initialised bytes through it, so `buf` stays initialised.
    unsafe { &mut *buf.as_mut_ptr().cast::<Uninit<N>>() }
}

/// The union of dense bodies from one set's `unpack` and `unpack_max`
/// (one pass per input): `out[i]` = the largest register `i` of `inputs`,
/// 0 if there are none. The sets without a fused union kernel use it.
///
/// # Safety
/// The CPU must support `unpack` and `unpack_max` (each set passes its
/// own, under the same check).
#[inline]
pub(crate) unsafe fn union_with(
    inputs: &[&[u8; DENSE_BODY]],
    out: &mut Uninit<REGISTERS>,
    unpack: unsafe fn(&[u8; DENSE_BODY], &mut Uninit<REGISTERS>),
    unpack_max: unsafe fn(&[u8; DENSE_BODY], &mut [u8; REGISTERS]),
) {
    let Some((first, rest)) = inputs.split_first() else {
        out.fill(MaybeUninit::new(0));
        return;
    };
    // SAFETY: the caller's CPU requirement.
    unsafe { unpack(first, out) };
    // SAFETY: unpack wrote every byte of out.
    let raw = unsafe { assume_init(out) };
    for d in rest {
        // SAFETY: the caller's CPU requirement.
        unsafe { unpack_max(d, raw) };
    }
}
