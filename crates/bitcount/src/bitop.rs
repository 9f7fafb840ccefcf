//! `BITOP`: the eight operations of Redis 8.2, their server-side argument
//! checks, and BITCOUNT of a result without building it.

use core::fmt;
use core::mem::MaybeUninit;
use core::str::FromStr;

use crate::dispatch;

/// A `BITOP` operation. X is the first source, Y1..Yn the others; every
/// source counts as zero-padded on the right to the longest one.
///
/// ```
/// use bitcount::BitOp;
/// assert_eq!("andor".parse::<BitOp>(), Ok(BitOp::AndOr));
/// assert_eq!(BitOp::Diff1.to_string(), "DIFF1");
/// assert!("NAND".parse::<BitOp>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BitOp {
    /// Bits set in every source.
    And,
    /// Bits set in some source.
    Or,
    /// Bits set in an odd number of sources.
    Xor,
    /// Bits clear in X (exactly one source; the result has X's length).
    Not,
    /// `X & !(Y1 | .. | Yn)`: in X and in no other source (2+ sources).
    Diff,
    /// `!X & (Y1 | .. | Yn)`: in some other source but not in X (2+).
    Diff1,
    /// `X & (Y1 | .. | Yn)`: in X and in some other source (2+).
    AndOr,
    /// Bits set in exactly one source.
    One,
}

impl BitOp {
    /// All eight, in the order of Redis' documentation.
    pub const ALL: [BitOp; 8] = [
        BitOp::And,
        BitOp::Or,
        BitOp::Xor,
        BitOp::Not,
        BitOp::Diff,
        BitOp::Diff1,
        BitOp::AndOr,
        BitOp::One,
    ];

    /// The server's name of the operation (`AND`, .., `ONE`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            BitOp::And => "AND",
            BitOp::Or => "OR",
            BitOp::Xor => "XOR",
            BitOp::Not => "NOT",
            BitOp::Diff => "DIFF",
            BitOp::Diff1 => "DIFF1",
            BitOp::AndOr => "ANDOR",
            BitOp::One => "ONE",
        }
    }

    /// The server's checks on the number of sources, in its order.
    ///
    /// # Errors
    /// As [`bitop`].
    pub const fn check(self, sources: usize) -> Result<(), BitopError> {
        match (self, sources) {
            (_, 0) => Err(BitopError::NoSources),
            (BitOp::Not, 1) => Ok(()),
            (BitOp::Not, _) => Err(BitopError::NotSingleSource),
            (BitOp::Diff | BitOp::Diff1 | BitOp::AndOr, 1) => Err(BitopError::TooFewSources(self)),
            _ => Ok(()),
        }
    }
}

impl fmt::Display for BitOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for BitOp {
    type Err = BitopError;

    /// The server's names, ASCII case-insensitively; anything else is
    /// [`BitopError::Syntax`].
    fn from_str(s: &str) -> Result<BitOp, BitopError> {
        BitOp::ALL
            .into_iter()
            .find(|op| op.name().eq_ignore_ascii_case(s))
            .ok_or(BitopError::Syntax)
    }
}

/// Why a `BITOP` call is refused; `Display` gives the server's error reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BitopError {
    /// An operation name that is none of the eight: `ERR syntax error`.
    Syntax,
    /// No source at all (the server's arity error).
    NoSources,
    /// `NOT` with more than one source.
    NotSingleSource,
    /// `DIFF`, `DIFF1` or `ANDOR` with a single source.
    TooFewSources(BitOp),
    /// [`bitop_into`]: the destination is shorter than the result.
    DestinationTooShort {
        /// The result's length.
        needed: usize,
        /// The destination's length.
        len: usize,
    },
}

impl fmt::Display for BitopError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BitopError::Syntax => f.write_str("ERR syntax error"),
            BitopError::NoSources => {
                f.write_str("ERR wrong number of arguments for 'bitop' command")
            }
            BitopError::NotSingleSource => {
                f.write_str("ERR BITOP NOT must be called with a single source key.")
            }
            BitopError::TooFewSources(op) => write!(
                f,
                "ERR BITOP {op} must be called with at least two source keys."
            ),
            BitopError::DestinationTooShort { needed, len } => write!(
                f,
                "the destination holds {len} bytes, the BITOP result needs {needed}"
            ),
        }
    }
}

impl core::error::Error for BitopError {}

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
