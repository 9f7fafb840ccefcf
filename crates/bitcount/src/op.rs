//! The `BITOP` operations and the server's errors for them: plain data,
//! below everything that runs an operation (the kernels, the dispatcher,
//! the public functions in `bitop.rs`).

use core::fmt;
use core::str::FromStr;

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
    /// As [`bitop`](fn@crate::bitop).
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
    /// [`bitop_into`](crate::bitop_into): the destination is shorter than
    /// the result.
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
