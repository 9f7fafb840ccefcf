//! Raising one register of a sparse string: the servers' `hllSparseSet`
//! step by step (find the opcode, split it around the register, write the
//! new opcodes, fuse neighbours in the bounded VAL merge pass), recording
//! where the string changed for the checkpoint index.

use super::{is_val, is_xzero, is_zero, op_at, val, val_len, val_value};
use super::{VAL_MAX_LEN, VAL_MAX_VALUE, ZERO_MAX_LEN};
use crate::{cache, HDR};
use alloc::vec::Vec;
use simd_core::load;

/// For 8 bytes starting at an opcode boundary: the registers covered by
/// the one-byte opcodes (ZERO, VAL) before the first byte with the XZERO
/// prefix `01`, and that byte's index (8 if none). Bytes before it are all
/// one-byte opcodes, so it is an XZERO head. SWAR: per byte the run is
/// `b & 3` for VAL (top bit set) and `b & 63` for ZERO, plus one.
#[inline(always)]
fn one_byte_runs(x: u64) -> (usize, usize, u64) {
    const TOP: u64 = 0x8080_8080_8080_8080;
    let val = x & TOP;
    let xz = !val & (x << 1) & TOP;
    let j = (xz.trailing_zeros() / 8) as usize;
    let keep = if j == 8 {
        u64::MAX
    } else {
        (1u64 << (8 * j)) - 1
    };
    let runs = x & (0x3f3f_3f3f_3f3f_3f3f ^ ((val >> 7) * 0x3c)) & keep;
    let pairs = (runs & 0x00ff_00ff_00ff_00ff) + ((runs >> 8) & 0x00ff_00ff_00ff_00ff);
    (
        (pairs.wrapping_mul(0x0001_0001_0001_0001) >> 48) as usize + j,
        j,
        runs,
    )
}

/// Appends the zero-run opcode for `len` registers (`1..=16384`).
#[inline(always)]
fn push_zeros(push: &mut impl FnMut(u8), len: usize) {
    if len > ZERO_MAX_LEN {
        let l = len - 1;
        push(0x40 | (l >> 8) as u8);
        push(l as u8);
    } else {
        push((len - 1) as u8);
    }
}

/// Where a register-set walk may start: an opcode boundary (absolute offset)
/// and the first register it covers. Start of stream: `Cursor::START`.
#[derive(Clone, Copy)]
pub(crate) struct Cursor {
    pub(super) off: usize,
    pub(super) first: usize,
}

impl Cursor {
    pub(crate) const START: Cursor = Cursor { off: HDR, first: 0 };
}

/// The outcome of [`set`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Set {
    /// The register already held `count` or more.
    Unchanged,
    /// The bytes changed (the cache is invalidated).
    Changed,
    /// The value does not fit or the string would pass the size limit: the
    /// caller converts to dense and sets the register there.
    NeedsDense,
}

/// Raises register `index` to `count` in the sparse string `bytes` exactly
/// as the servers' `hllSparseSet` does (see the spec's five steps).
///
/// `cur` must be at an opcode boundary that does not cover `index` (or be
/// [`Cursor::START`]); on return it is moved to a boundary that stays valid
/// for any later call with a larger index (used by merges, which set
/// registers in ascending order, to avoid rescanning the prefix).
#[inline]
pub(crate) fn set(
    bytes: &mut Vec<u8>,
    index: usize,
    count: u8,
    limit: usize,
    cur: &mut Cursor,
) -> Set {
    let mut edit = Edit::NONE;
    set_edit(bytes, index, count, limit, cur, &mut edit)
}

/// Where a [`set`] that changed the string changed it, for `Index::update`:
/// bytes before `start` are untouched, and from the first opcode boundary
/// at or after `sync` on, the string is the old one shifted by `delta`
/// bytes.
#[derive(Clone, Copy)]
pub(crate) struct Edit {
    pub(super) start: Cursor,
    pub(super) sync: usize,
    pub(super) delta: isize,
    /// When nothing fused: where the split opcodes lie, so the checkpoints
    /// inside the edit follow without walking the new bytes.
    pub(super) split: Option<Split>,
}

/// The opcodes of an edit that fused nothing: the untouched opcode at
/// `Edit::start` (unless it is the split one), then from offset `p` the run
/// before `index` (`ln` bytes, registers `first..index`), VAL at `index`,
/// the run after it (registers `index + 1..=last`).
#[derive(Clone, Copy)]
pub(super) struct Split {
    pub(super) p: usize,
    pub(super) first: usize,
    pub(super) index: usize,
    pub(super) ln: usize,
    pub(super) last: usize,
}

impl Edit {
    pub(super) const NONE: Edit = Edit {
        start: Cursor::START,
        sync: 0,
        delta: 0,
        split: None,
    };
}

/// The opcode holding the target register, as [`locate`] finds it.
struct Found {
    /// Its offset and byte length.
    p: usize,
    oplen: usize,
    /// The registers it covers: `first..first + span`.
    first: usize,
    span: usize,
    /// The opcode before it (where the merge pass starts), if known.
    prev: Option<Cursor>,
    /// The opcode before `prev`, if known.
    prevprev: Option<Cursor>,
}

/// [`set`], also reporting the edited range in `edit` (on `Changed`): find
/// the opcode ([`locate`]), build its replacement ([`replacement`]), write
/// it ([`splice`]), then fuse or record the split ([`finish`]).
#[inline(always)]
pub(super) fn set_edit(
    bytes: &mut Vec<u8>,
    index: usize,
    count: u8,
    limit: usize,
    cur: &mut Cursor,
    edit: &mut Edit,
) -> Set {
    if count > VAL_MAX_VALUE {
        return Set::NeedsDense;
    }
    let Some(at) = locate(bytes, index, *cur) else {
        // Unreachable for validated strings; "no change" rather than an
        // index out of bounds.
        return Set::Unchanged;
    };
    // Everything before `prev` stays as it is whatever happens below, and
    // `prevprev` never covers a later (larger) index.
    *cur = at.prevprev.unwrap_or(*cur);
    let op = bytes[at.p];
    if is_val(op) && val_value(op) >= count {
        return Set::Unchanged;
    }
    let last = at.first + at.span - 1;
    let (seq, n) = replacement(op, at.first, index, last, count);
    let end = bytes.len();
    if n > at.oplen && end + (n - at.oplen) > limit {
        return Set::NeedsDense;
    }
    let start = at.prev.unwrap_or(Cursor::START);
    let quiet = no_fusion(bytes, start.off, at.p, at.oplen, seq, n);
    splice(bytes, at.p, at.oplen, seq, n);
    // The unit tests hold `no_fusion` to its promise on every edit they
    // make: the merge pass it skips would have changed nothing.
    #[cfg(test)]
    if quiet {
        let mut passed = bytes.clone();
        merge_pass(&mut passed, start.off);
        assert_eq!(passed[HDR..], bytes[HDR..], "no_fusion said quiet");
    }
    let split = Split {
        p: at.p,
        first: at.first,
        index,
        ln: 0,
        last,
    };
    *edit = finish(bytes, start, quiet, split, op, n, end);
    Set::Changed
}

/// Walks from `cur` to the opcode holding register `index`, remembering the
/// two opcodes before it; `None` if the string ends first (never for a
/// validated string).
///
/// Bulk skip, 8 bytes per step: the one-byte opcodes (ZERO, VAL) before
/// the first XZERO head in the word are summed with SWAR, the XZERO (if
/// any) is added, and the step is taken if all those registers lie below
/// `index`. The word holding the target is walked one opcode at a time
/// from the run lengths in a register. Without it every PFADD on a 2 KB
/// sparse string walks ~1000 opcodes through unpredictable branches.
#[inline(always)]
fn locate(bytes: &[u8], index: usize, cur: Cursor) -> Option<Found> {
    let end = bytes.len();
    let mut p = cur.off;
    let mut first = cur.first;
    let mut prev: Option<Cursor> = None;
    let mut prevprev: Option<Cursor> = None;
    let (span, oplen) = loop {
        if p + 9 <= end {
            let x = load::u64_le(bytes, p);
            let (single, j, runs) = one_byte_runs(x);
            let (xspan, adv) = if j < 8 {
                (op_at(bytes, p + j).0, j + 2)
            } else {
                (0, 8)
            };
            if first + single + xspan <= index {
                // Keep `prev`/`prevprev` = the last two opcodes stepped over.
                if j < 8 {
                    let xfirst = first + single;
                    if j >= 1 {
                        let s1 = op_at(bytes, p + j - 1).0;
                        prevprev = Some(Cursor {
                            off: p + j - 1,
                            first: xfirst - s1,
                        });
                    } else {
                        prevprev = prev;
                    }
                    prev = Some(Cursor {
                        off: p + j,
                        first: xfirst,
                    });
                } else {
                    let last = first + single;
                    let s1 = op_at(bytes, p + 7).0;
                    let s2 = op_at(bytes, p + 6).0;
                    prev = Some(Cursor {
                        off: p + 7,
                        first: last - s1,
                    });
                    prevprev = Some(Cursor {
                        off: p + 6,
                        first: last - s1 - s2,
                    });
                }
                first += single + xspan;
                p += adv;
                continue;
            }
            // The target is in this word: walk its one-byte opcodes on the
            // run lengths already in a register (each step a shift and an
            // add, not a load and a decode), the XZERO at `j` if none holds
            // it.
            let mut r = runs;
            let mut k = 0;
            let found = loop {
                if k == j {
                    break (xspan, 2);
                }
                let sp = (r & 0xff) as usize + 1;
                if index < first + sp {
                    break (sp, 1);
                }
                prevprev = prev;
                prev = Some(Cursor { off: p + k, first });
                first += sp;
                r >>= 8;
                k += 1;
            };
            if found.0 == 0 {
                // k == j == 8: the word's registers do not reach `index`,
                // unreachable after the failed step above.
                return None;
            }
            p += k;
            break found;
        }
        if p >= end {
            return None;
        }
        let (span, len) = op_at(bytes, p);
        if index < first + span {
            break (span, len);
        }
        prevprev = prev;
        prev = Some(Cursor { off: p, first });
        p += len;
        first += span;
    };
    Some(Found {
        p,
        oplen,
        first,
        span,
        prev,
        prevprev,
    })
}

/// The opcodes replacing `op` (which covers registers `first..=last`) once
/// register `index` holds `count`, little-endian in the first `n` bytes of
/// the result: the run before `index`, VAL(count), the run after it.
#[inline(always)]
fn replacement(op: u8, first: usize, index: usize, last: usize, count: u8) -> (u64, usize) {
    let mut seq = 0u64;
    let mut n = 0;
    let mut push = |b: u8| {
        seq |= u64::from(b) << (8 * n);
        n += 1;
    };
    if is_val(op) {
        let v = val_value(op);
        if index != first {
            push(val(v, index - first));
        }
        push(val(count, 1));
        if index != last {
            push(val(v, last - index));
        }
    } else {
        if index != first {
            push_zeros(&mut push, index - first);
        }
        push(val(count, 1));
        if index != last {
            push_zeros(&mut push, last - index);
        }
    }
    (seq, n)
}

/// Replaces the `oplen` bytes at `p` by the `n` bytes of `seq`, moving the
/// tail.
#[inline(always)]
fn splice(bytes: &mut Vec<u8>, p: usize, oplen: usize, seq: u64, n: usize) {
    let end = bytes.len();
    // The 8 bytes from p after the edit: the new opcodes, then the old
    // bytes that followed the replaced opcode (read before the move).
    let t = p + oplen;
    let word = (end >= t + 8).then(|| seq | load::u64_le(bytes, t) << (8 * n));
    if n > oplen {
        // Grow by the bytes that the move below overwrites (no memset), as
        // a fixed 4-byte append then a cut (a variable-length copy was a
        // `memcpy` call).
        bytes.extend_from_slice(&[0; 4]);
        bytes.truncate(end + (n - oplen));
        bytes.copy_within(p + oplen..end, p + n);
    } else if n < oplen {
        // A non-canonical XZERO of one register became one VAL.
        bytes.copy_within(p + oplen..end, p + n);
        bytes.truncate(end - (oplen - n));
    }
    match word {
        Some(w) if p + 8 <= bytes.len() => bytes[p..p + 8].copy_from_slice(&w.to_le_bytes()),
        _ => bytes[p..p + n].copy_from_slice(&seq.to_le_bytes()[..n]),
    }
}

/// After [`splice`] wrote the `n` new bytes at `split.p` into a string
/// that was `end` bytes long: the merge pass from `start` unless the edit
/// is `quiet` (then only the cache is invalidated), and the [`Edit`] the
/// index follows. `op` is the replaced opcode (for the run before the new
/// VAL, `split.ln`).
#[inline(always)]
fn finish(
    bytes: &mut Vec<u8>,
    start: Cursor,
    quiet: bool,
    split: Split,
    op: u8,
    n: usize,
    end: usize,
) -> Edit {
    let p = split.p;
    let (touched, split) = if quiet {
        cache::invalidate(bytes);
        let ln = if split.index == split.first {
            0
        } else if is_val(op) || split.index - split.first <= ZERO_MAX_LEN {
            1
        } else {
            2
        };
        (start.off, Some(Split { ln, ..split }))
    } else {
        (merge_pass(bytes, start.off), None)
    };
    // The split wrote below p + n (before fusions moved it) and the
    // fusions below `touched`: past both, the bytes are the old ones
    // shifted.
    Edit {
        start,
        sync: (p + n).max(touched),
        delta: bytes.len() as isize - end as isize,
        split,
    }
}

/// Whether the merge pass from `from` (the opcode before `p`, or `p`) is
/// sure to fuse nothing once the opcode at `p` (`oplen` bytes) is replaced
/// by the `n` bytes of `seq`. Decided on the bytes before the edit: the
/// pass's five steps look at opcode heads among its first 11 bytes and
/// their next byte, so if no two neighbours there could fuse (on raw
/// bytes; XZERO low bytes only add false alarms) the pass would do nothing.
/// Reading the edited string instead would stall on store forwarding (an
/// 8-byte load over the bytes just written).
#[inline(always)]
fn no_fusion(bytes: &[u8], from: usize, p: usize, oplen: usize, seq: u64, n: usize) -> bool {
    let t = p + oplen;
    if t + 16 > bytes.len() || p - from > 2 {
        return false;
    }
    let plen = p - from;
    // The 0..=2 bytes before `p` (one masked load, no byte loop).
    let head = load::u64_le(bytes, from) & ((1u64 << (8 * plen)) - 1) | seq << (8 * plen);
    let tail = u128::from(load::u64_le(bytes, t)) | u128::from(load::u64_le(bytes, t + 8)) << 64;
    // At most 2 + 5 head bytes, so at least 9 tail bytes stay in `w`.
    let w = u128::from(head) | tail << (8 * (plen + n));
    !fusable_pair(w as u64) && !fusable_pair((w >> 32) as u64)
}

/// Whether some byte `i` in `0..7` of `x` and byte `i + 1` both have the
/// VAL prefix and the same value bits (a pair the merge pass could fuse).
#[inline(always)]
fn fusable_pair(x: u64) -> bool {
    const TOP: u64 = 0x8080_8080_8080_8080;
    let y = x >> 8;
    let both_val = x & y & TOP;
    // Value bits are 0x7c; their difference plus 0x7f sets bit 7 iff
    // nonzero (no carry out of the byte).
    let diff = ((x ^ y) & 0x7c7c_7c7c_7c7c_7c7c).wrapping_add(0x7f7f_7f7f_7f7f_7f7f);
    both_val & !diff != 0
}

/// Step 6: up to five steps from `p`, fusing adjacent VALs of equal value
/// whose runs add up to at most 4; then invalidates the cached count.
/// Returns the end of what it rewrote (the fused byte, everything after it
/// shifted), or `p` if it fused nothing.
fn merge_pass(bytes: &mut Vec<u8>, mut p: usize) -> usize {
    cache::invalidate(bytes);
    let start = p;
    let mut end = bytes.len();
    let mut touched = start;
    let mut budget = 5;
    while p < end && budget > 0 {
        budget -= 1;
        let b = bytes[p];
        if is_xzero(b) {
            p += 2;
            continue;
        }
        if is_zero(b) {
            p += 1;
            continue;
        }
        if p + 1 < end {
            let c = bytes[p + 1];
            if is_val(c) && val_value(b) == val_value(c) {
                let len = val_len(b) + val_len(c);
                if len <= VAL_MAX_LEN {
                    bytes[p + 1] = val(val_value(b), len);
                    bytes.copy_within(p + 1..end, p);
                    end -= 1;
                    bytes.truncate(end);
                    touched = p + 1;
                    continue; // try the fused VAL with the next one
                }
            }
        }
        p += 1;
    }
    touched
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pair test behind `no_fusion`: adjacent VALs of one value, and
    /// nothing else.
    #[test]
    fn fusable_pairs() {
        let word = |b: &[u8]| {
            let mut w = [0u8; 8];
            w[..b.len()].copy_from_slice(b);
            u64::from_le_bytes(w)
        };
        assert!(!fusable_pair(0));
        assert!(fusable_pair(word(&[val(3, 1), val(3, 2)])));
        assert!(fusable_pair(word(&[
            0,
            0,
            0,
            0,
            0,
            0,
            val(32, 4),
            val(32, 4)
        ])));
        assert!(!fusable_pair(word(&[val(3, 1), val(4, 1)])));
        assert!(!fusable_pair(word(&[val(3, 1), 0, val(3, 1)])));
        // A ZERO or XZERO byte whose low bits read like the VAL's value.
        assert!(!fusable_pair(word(&[val(3, 1), 0x08, 0x48])));
        assert!(!fusable_pair(word(&[0, 0, 0, 0, 0, 0, 0, val(7, 1)])));
    }
}
