//! The error of [`Hll::from_bytes`](crate::Hll::from_bytes): which server
//! error it corresponds to, what is wrong, and where.

use core::fmt;

/// The class of a rejected string, matching what Redis and Valkey answer.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// Not a HyperLogLog string at all: too short, wrong magic, unknown
    /// encoding byte, or a dense string of the wrong length. A server answers
    /// `WRONGTYPE Key is not a valid HyperLogLog string value.`
    NotHll,
    /// A HyperLogLog header over a corrupted sparse body (the opcodes do not
    /// cover exactly 16384 registers). A server answers
    /// `INVALIDOBJ Corrupted HLL object detected` when it reads the registers.
    Corrupted,
}

impl ErrorKind {
    /// The error code a server replies with: `"WRONGTYPE"` or `"INVALIDOBJ"`.
    #[must_use]
    pub const fn server_code(self) -> &'static str {
        match self {
            ErrorKind::NotHll => "WRONGTYPE",
            ErrorKind::Corrupted => "INVALIDOBJ",
        }
    }
}

/// Why a byte string is not an acceptable HyperLogLog.
///
/// ```
/// use hll::{ErrorKind, Hll};
/// let err = Hll::from_bytes(b"hello world").unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::NotHll);
/// assert_eq!(err.kind().server_code(), "WRONGTYPE");
/// assert_eq!(err.offset(), 11);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Error {
    kind: ErrorKind,
    offset: usize,
    reason: &'static str,
}

impl Error {
    pub(crate) const fn new(kind: ErrorKind, offset: usize, reason: &'static str) -> Error {
        Error {
            kind,
            offset,
            reason,
        }
    }

    /// `NotHll` (server: WRONGTYPE) or `Corrupted` (server: INVALIDOBJ).
    #[must_use]
    pub const fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The byte offset in the input where the problem was found (for a length
    /// problem: the length; for a sparse opcode: the opcode's first byte).
    #[must_use]
    pub const fn offset(&self) -> usize {
        self.offset
    }

    /// A short description of the problem.
    #[must_use]
    pub const fn reason(&self) -> &'static str {
        self.reason
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            ErrorKind::NotHll => "not a valid HyperLogLog string",
            ErrorKind::Corrupted => "corrupted HyperLogLog",
        };
        write!(
            f,
            "{} {}: {} (at byte offset {})",
            self.kind.server_code(),
            what,
            self.reason,
            self.offset
        )
    }
}

impl core::error::Error for Error {}
