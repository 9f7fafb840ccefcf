//! `BITOP` and BITCOUNT of a result without building it: the public
//! functions, on top of the dispatcher (the operations and their checks
//! are in `op.rs`).

use core::mem::MaybeUninit;

use crate::dispatch;
use crate::op::{BitOp, BitopError};

/// The length of `op`'s result over `sources`: the longest source (NOT:
/// the only one).
#[inline(always)]
pub(crate) fn result_len(sources: &[&[u8]]) -> usize {
    sources.iter().map(|s| s.len()).max().unwrap_or(0)
}

/// `BITOP op dest k1 .. kn` then `GET dest`: `dest`'s old bytes are
/// replaced by the result (its capacity reused) and the result's length is
/// returned. An empty result is what the server's deleted key reads as.
///
/// ```
/// use bitcount::{bitop, BitOp};
/// let (a, b, c) = (&[0b1101_1000u8][..], &[0b0001_1001u8][..], &[0b0110_1100u8][..]);
/// let mut dest = Vec::new();
/// assert_eq!(bitop(BitOp::And, &mut dest, &[a, b, c]), Ok(1));
/// assert_eq!(dest, [0b0000_1000]);
/// bitop(BitOp::Diff, &mut dest, &[a, b, c]).unwrap();
/// assert_eq!(dest, [0b1000_0000]);
/// bitop(BitOp::One, &mut dest, &[a, b, c]).unwrap();
/// assert_eq!(dest, [0b1010_0101]);
/// // Shorter sources are zero-padded: AND ends in zeros, NOT keeps X's length.
/// bitop(BitOp::And, &mut dest, &[b"\xff\xff\xff", b"\x0f"]).unwrap();
/// assert_eq!(dest, [0x0f, 0, 0]);
/// assert!(bitop(BitOp::Not, &mut dest, &[a, b]).is_err());
/// ```
///
/// # Errors
/// The server's: no source ([`BitopError::NoSources`]), `NOT` with more
/// than one, `DIFF`/`DIFF1`/`ANDOR` with one; `dest` is left unchanged.
#[cfg(feature = "alloc")]
#[inline]
pub fn bitop(
    op: BitOp,
    dest: &mut alloc::vec::Vec<u8>,
    sources: &[&[u8]],
) -> Result<usize, BitopError> {
    bitop_vec_with(op, dest, sources, dispatch::bitop)
}

/// [`bitop`] into the first bytes of a caller's buffer, returning the
/// result's length (the bytes after it are left as they were).
///
/// ```
/// let mut buf = [0u8; 8];
/// let n = bitcount::bitop_into(bitcount::BitOp::Or, &mut buf, &[b"\x01\x02", b"\x10"]);
/// assert_eq!(n, Ok(2));
/// assert_eq!(&buf[..2], &[0x11, 0x02]);
/// ```
///
/// # Errors
/// As [`bitop`], and [`BitopError::DestinationTooShort`] when `dest` is
/// shorter than the result (nothing is written then).
#[inline]
pub fn bitop_into(op: BitOp, dest: &mut [u8], sources: &[&[u8]]) -> Result<usize, BitopError> {
    bitop_slice_with(op, dest, sources, dispatch::bitop)
}

/// `BITCOUNT` of what [`bitop`] would produce, in one pass over the
/// sources, writing nothing: the sizes of intersections (`And`), unions
/// (`Or`), differences (`Diff`), for example a Jaccard similarity.
///
/// ```
/// use bitcount::{bitop_count, BitOp};
/// let (a, b) = (&[0b1111_0000u8, 0xff][..], &[0b1010_1010u8][..]);
/// let inter = bitop_count(BitOp::And, &[a, b]).unwrap(); // 2
/// let union = bitop_count(BitOp::Or, &[a, b]).unwrap(); // 6 + 8
/// assert_eq!((inter, union), (2, 14));
/// assert_eq!(bitop_count(BitOp::Not, &[a]), Ok(4));
/// ```
///
/// # Errors
/// As [`bitop`].
#[inline]
pub fn bitop_count(op: BitOp, sources: &[&[u8]]) -> Result<u64, BitopError> {
    op.check(sources.len())?;
    Ok(dispatch::bitop_count(op, sources, result_len(sources)))
}

/// The destination of a kernel: `n` bytes it writes in full.
pub(crate) type Out<'a> = &'a mut [MaybeUninit<u8>];

/// [`bitop`] with a given kernel.
#[cfg(feature = "alloc")]
#[inline(always)]
pub(crate) fn bitop_vec_with(
    op: BitOp,
    dest: &mut alloc::vec::Vec<u8>,
    sources: &[&[u8]],
    kernel: impl FnOnce(BitOp, Out<'_>, &[&[u8]]),
) -> Result<usize, BitopError> {
    op.check(sources.len())?;
    let n = result_len(sources);
    dest.clear();
    dest.reserve(n);
    kernel(op, &mut dest.spare_capacity_mut()[..n], sources);
    // SAFETY: the kernel contract: every one of the `n` bytes is written.
    unsafe { dest.set_len(n) };
    Ok(n)
}

/// [`bitop_into`] with a given kernel.
#[inline(always)]
pub(crate) fn bitop_slice_with(
    op: BitOp,
    dest: &mut [u8],
    sources: &[&[u8]],
    kernel: impl FnOnce(BitOp, Out<'_>, &[&[u8]]),
) -> Result<usize, BitopError> {
    op.check(sources.len())?;
    let n = result_len(sources);
    let len = dest.len();
    let Some(dest) = dest.get_mut(..n) else {
        return Err(BitopError::DestinationTooShort { needed: n, len });
    };
    // SAFETY: `MaybeUninit<u8>` has `u8`'s layout, and the kernel only
    // writes initialized bytes, so `dest` stays initialized.
    let out = unsafe { &mut *(dest as *mut [u8] as *mut [MaybeUninit<u8>]) };
    kernel(op, out, sources);
    Ok(n)
}
