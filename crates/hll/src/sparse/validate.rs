//! Validation of a sparse string: its opcodes must cover exactly 16384
//! registers, checked in one pass that stops at the first opcode past the
//! end (hostile strings cost no more).

use super::op_at;
use crate::error::{Error, ErrorKind};
use crate::{HDR, REGISTERS};

/// What validation found acceptable but in need of completion.
pub(crate) enum Valid {
    /// The stream covers exactly 16384 registers.
    Exact,
    /// It does so only if the missing second byte of a final XZERO is read
    /// as 0 (what C does); the caller appends that byte.
    TruncatedXzero,
}

/// Checks that the opcodes after the header cover exactly 16384 registers.
/// Sums are `usize` and stop at the first opcode that passes 16384, so a
/// hostile string costs at most one pass and no allocation.
pub(crate) fn validate(bytes: &[u8]) -> Result<Valid, Error> {
    let mut p = HDR;
    let mut covered = 0usize;
    while p < bytes.len() {
        let (span, len) = op_at(bytes, p);
        covered += span;
        if covered > REGISTERS {
            return Err(Error::new(
                ErrorKind::Corrupted,
                p,
                "sparse opcode runs past register 16383",
            ));
        }
        if p + len > bytes.len() {
            // Only an XZERO can be cut short (by one byte).
            return if covered == REGISTERS {
                Ok(Valid::TruncatedXzero)
            } else {
                Err(Error::new(
                    ErrorKind::Corrupted,
                    p,
                    "sparse string ends inside an XZERO opcode",
                ))
            };
        }
        p += len;
    }
    if covered != REGISTERS {
        return Err(Error::new(
            ErrorKind::Corrupted,
            bytes.len(),
            "sparse opcodes end before register 16383",
        ));
    }
    Ok(Valid::Exact)
}
