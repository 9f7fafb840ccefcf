//! The sparse encoding: validation, the register-set routine PFADD and
//! PFMERGE use (byte for byte the servers' opcode splitting and bounded VAL
//! merge pass), and decoding into a histogram or a raw accumulator.
//!
//! All offsets here are absolute offsets into the whole string (header
//! included), so no sub-slice bookkeeping can drift.

use crate::error::{Error, ErrorKind};
use crate::{HDR, REGISTERS};
use alloc::vec::Vec;
use simd_core::load;

/// Largest run a ZERO opcode holds.
const ZERO_MAX_LEN: usize = 64;
/// Largest value a VAL opcode holds.
pub(crate) const VAL_MAX_VALUE: u8 = 32;
/// Largest run a VAL opcode holds.
const VAL_MAX_LEN: usize = 4;

#[inline(always)]
fn is_zero(b: u8) -> bool {
    b & 0xc0 == 0
}
#[inline(always)]
fn is_xzero(b: u8) -> bool {
    b & 0xc0 == 0x40
}
#[inline(always)]
fn is_val(b: u8) -> bool {
    b & 0x80 != 0
}
#[inline(always)]
fn val_value(b: u8) -> u8 {
    ((b >> 2) & 31) + 1
}
#[inline(always)]
fn val_len(b: u8) -> usize {
    usize::from(b & 3) + 1
}
#[inline(always)]
fn val(value: u8, len: usize) -> u8 {
    debug_assert!((1..=32).contains(&value) && (1..=4).contains(&len));
    0x80 | ((value - 1) << 2) | (len - 1) as u8
}

/// Span (registers covered) and byte length of the opcode at `p`. A
/// truncated XZERO reads its missing byte as 0, as C reads the terminator;
/// validated strings never end in one (it is completed on input).
#[inline(always)]
fn op_at(bytes: &[u8], p: usize) -> (usize, usize) {
    let b = bytes[p];
    if is_val(b) {
        (val_len(b), 1)
    } else if is_zero(b) {
        (usize::from(b & 63) + 1, 1)
    } else {
        let lo = bytes.get(p + 1).copied().unwrap_or(0);
        ((usize::from(b & 63) << 8 | usize::from(lo)) + 1, 2)
    }
}

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

/// Where a register-set walk may start: an opcode boundary (absolute offset)
/// and the first register it covers. Start of stream: `Cursor::START`.
#[derive(Clone, Copy)]
pub(crate) struct Cursor {
    off: usize,
    first: usize,
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

/// Where a [`set`] that changed the string changed it, for [`Index::update`]:
/// bytes before `start` are untouched, and from the first opcode boundary
/// at or after `sync` on, the string is the old one shifted by `delta`
/// bytes.
#[derive(Clone, Copy)]
pub(crate) struct Edit {
    start: Cursor,
    sync: usize,
    delta: isize,
    /// When nothing fused: where the split opcodes lie, so the checkpoints
    /// inside the edit follow without walking the new bytes.
    split: Option<Split>,
}

/// The opcodes of an edit that fused nothing: the untouched opcode at
/// `Edit::start` (unless it is the split one), then from offset `p` the run
/// before `index` (`ln` bytes, registers `first..index`), VAL at `index`,
/// the run after it (registers `index + 1..=last`).
#[derive(Clone, Copy)]
struct Split {
    p: usize,
    first: usize,
    index: usize,
    ln: usize,
    last: usize,
}

impl Edit {
    const NONE: Edit = Edit {
        start: Cursor::START,
        sync: 0,
        delta: 0,
        split: None,
    };
}

/// [`set`], also reporting the edited range in `edit` (on `Changed`).
#[inline(always)]
fn set_edit(
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
    let end = bytes.len();
    let mut p = cur.off;
    let mut first = cur.first;
    // The two opcodes before `p` (offset, first register), if known.
    let mut prev: Option<Cursor> = None;
    let mut prevprev: Option<Cursor> = None;
    // Bulk skip, 8 bytes per step: the one-byte opcodes (ZERO, VAL) before
    // the first XZERO head in the word are summed with SWAR, the XZERO (if
    // any) is added, and the step is taken if all those registers lie below
    // `index`. The word holding the target is walked one opcode at a time
    // from the run lengths in a register.
    // Without it every PFADD on a 2 KB sparse string walks ~1000 opcodes
    // through unpredictable branches.
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
                return Set::Unchanged;
            }
            p += k;
            break found;
        }
        if p >= end {
            // Unreachable for validated strings; report "no change" rather
            // than index out of bounds.
            return Set::Unchanged;
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
    // Everything before `prev` stays as it is whatever happens below, and
    // `prevprev` never covers a later (larger) index.
    *cur = prevprev.unwrap_or(*cur);
    let op = bytes[p];
    if is_val(op) && val_value(op) >= count {
        return Set::Unchanged;
    }

    // The opcodes replacing the one at `p`, little-endian in `seq` (n
    // bytes): the run before `index`, VAL(count), the run after it.
    let last = first + span - 1;
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

    if n > oplen && end + (n - oplen) > limit {
        return Set::NeedsDense;
    }
    let start = prev.unwrap_or(Cursor::START);
    let quiet = no_fusion(bytes, start.off, p, oplen, seq, n);
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
    // The unit tests hold `no_fusion` to its promise on every edit they
    // make: the merge pass it skips would have changed nothing.
    #[cfg(test)]
    if quiet {
        let mut passed = bytes.clone();
        merge_pass(&mut passed, start.off);
        assert_eq!(passed[HDR..], bytes[HDR..], "no_fusion said quiet");
    }
    let (touched, split) = if quiet {
        bytes[15] |= 0x80;
        let ln = if index == first {
            0
        } else if is_val(op) || index - first <= ZERO_MAX_LEN {
            1
        } else {
            2
        };
        (
            start.off,
            Some(Split {
                p,
                first,
                index,
                ln,
                last,
            }),
        )
    } else {
        (merge_pass(bytes, start.off), None)
    };
    // The split wrote below p + n (before fusions moved it) and the
    // fusions below `touched`: past both, the bytes are the old ones
    // shifted.
    *edit = Edit {
        start,
        sync: (p + n).max(touched),
        delta: bytes.len() as isize - end as isize,
        split,
    };
    Set::Changed
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

/// log2 of the registers per [`Index`] block.
const BLOCK_SHIFT: u32 = 7;
/// Blocks of the [`Index`] (128 of 128 registers).
const BLOCKS: usize = REGISTERS >> BLOCK_SHIFT;

/// A checkpoint per block of 128 registers: the offset and first register
/// of the opcode holding the block's first register. It lets an add start
/// its walk a few opcodes before its target instead of at the start of the
/// string (an O(length) walk, ~300 ns at 2 KB), and it is kept exact
/// across edits: checkpoints before the edit stay, the few inside it are
/// found again by a short walk, and the ones after it shift by the size
/// change (one vectorizable pass over 128 `u16`).
///
/// Offsets and registers fit `u16`: a valid sparse string has at most
/// 16384 opcodes of at most 2 bytes.
#[derive(Clone)]
pub(crate) struct Index {
    off: [u16; BLOCKS],
    first: [u16; BLOCKS],
}

impl Index {
    /// The checkpoints of a validated sparse string (one walk).
    pub(crate) fn build(bytes: &[u8]) -> Index {
        let mut idx = Index {
            off: [HDR as u16; BLOCKS],
            first: [0; BLOCKS],
        };
        idx.fill(bytes, Cursor::START, 0, usize::MAX);
        idx
    }

    /// Walks from `c` (an opcode boundary), setting the checkpoints of
    /// blocks `b..` until every block is set or an opcode boundary at or
    /// past `stop` is reached; returns the first block left unset.
    #[inline(always)]
    fn fill(&mut self, bytes: &[u8], c: Cursor, mut b: usize, stop: usize) -> usize {
        let (mut p, mut first) = (c.off, c.first);
        while b < BLOCKS && p < stop && p < bytes.len() {
            let (span, len) = op_at(bytes, p);
            while b < BLOCKS && b << BLOCK_SHIFT < first + span {
                self.off[b] = p as u16;
                self.first[b] = first as u16;
                b += 1;
            }
            p += len;
            first += span;
        }
        b
    }

    /// A cursor to start [`set`] from for register `index`: an opcode
    /// boundary before the opcode holding `index` (close to it), or the
    /// start when that opcode is the first.
    #[inline(always)]
    fn cursor(&self, bytes: &[u8], index: usize) -> Cursor {
        let b = index >> BLOCK_SHIFT;
        let c = Cursor {
            off: usize::from(self.off[b]),
            first: usize::from(self.first[b]),
        };
        if c.first + op_at(bytes, c.off).0 <= index {
            return c;
        }
        // `c` holds `index`: start from the checkpoint of the register
        // before it (an earlier opcode), so `set` learns the previous
        // opcode, where its merge pass starts.
        if c.first == 0 {
            return Cursor::START;
        }
        let b = (c.first - 1) >> BLOCK_SHIFT;
        Cursor {
            off: usize::from(self.off[b]),
            first: usize::from(self.first[b]),
        }
    }

    /// Brings the checkpoints up to date after `edit`.
    #[inline(always)]
    fn update(&mut self, bytes: &[u8], edit: &Edit) {
        // Blocks starting before the edit's first opcode are held by
        // untouched opcodes before it.
        let b0 = (edit.start.first + (1 << BLOCK_SHIFT) - 1) >> BLOCK_SHIFT;
        let b = match edit.split {
            // The blocks starting in the edit's registers, from the known
            // layout (selects, no opcode decoding).
            Some(sp) => {
                let mut b = b0;
                while b < BLOCKS && b << BLOCK_SHIFT <= sp.last {
                    let r = b << BLOCK_SHIFT;
                    let (off, first) = if r < sp.first {
                        (edit.start.off, edit.start.first)
                    } else if r < sp.index {
                        (sp.p, sp.first)
                    } else if r == sp.index {
                        (sp.p + sp.ln, sp.index)
                    } else {
                        (sp.p + sp.ln + 1, sp.index + 1)
                    };
                    self.off[b] = off as u16;
                    self.first[b] = first as u16;
                    b += 1;
                }
                b
            }
            None => self.fill(bytes, edit.start, b0, edit.sync),
        };
        // The rest are held by opcodes of the shifted tail.
        let d = edit.delta as u16; // two's complement add
        let b = b as u16;
        for (i, o) in self.off.iter_mut().enumerate() {
            // Every entry, masked: a fixed trip count, no loop exit that
            // depends on `b` (~7% faster than shifting `off[b..]` only).
            *o = o.wrapping_add(d & 0u16.wrapping_sub(u16::from(i as u16 >= b)));
        }
    }
}

/// [`set`] starting from the checkpoint in `idx`, which it keeps up to date.
#[inline]
pub(crate) fn set_indexed(
    bytes: &mut Vec<u8>,
    index: usize,
    count: u8,
    limit: usize,
    idx: &mut Index,
) -> Set {
    let mut cur = idx.cursor(bytes, index);
    let mut edit = Edit::NONE;
    let r = set_edit(bytes, index, count, limit, &mut cur, &mut edit);
    if r == Set::Changed {
        idx.update(bytes, &edit);
    }
    r
}

/// Step 6: up to five steps from `p`, fusing adjacent VALs of equal value
/// whose runs add up to at most 4; then invalidates the cached count.
/// Returns the end of what it rewrote (the fused byte, everything after it
/// shifted), or `p` if it fused nothing.
fn merge_pass(bytes: &mut Vec<u8>, mut p: usize) -> usize {
    bytes[15] |= 0x80;
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

/// Calls `run(first_register, len, value)` for every VAL opcode of a
/// validated sparse string; zero runs are skipped. Stops (never panics) if
/// a run would pass register 16383.
#[inline(always)]
fn for_each_val(bytes: &[u8], mut run: impl FnMut(usize, usize, u8)) {
    let mut p = HDR;
    let mut i = 0usize;
    while p < bytes.len() {
        let b = bytes[p];
        if is_val(b) {
            let len = val_len(b);
            if i + len > REGISTERS {
                return;
            }
            run(i, len, val_value(b));
            i += len;
            p += 1;
        } else if is_zero(b) {
            i += usize::from(b & 63) + 1;
            p += 1;
        } else {
            let (span, len) = op_at(bytes, p);
            i += span;
            p += len;
        }
    }
}

/// Register `i` of a validated sparse string (linear in its length).
pub(crate) fn get(bytes: &[u8], i: usize) -> u8 {
    let mut out = 0;
    for_each_val(bytes, |first, len, v| {
        if (first..first + len).contains(&i) {
            out = v;
        }
    });
    out
}

/// Register-wise max of a sparse string into a raw accumulator, straight
/// from the opcodes (no dense copy).
pub(crate) fn max_into(bytes: &[u8], raw: &mut [u8; REGISTERS]) {
    for_each_val(bytes, |first, len, v| {
        for r in &mut raw[first..first + len] {
            *r = (*r).max(v);
        }
    });
}

/// Register histogram of a sparse string.
pub(crate) fn histogram(bytes: &[u8]) -> [u32; 64] {
    let mut h = [0u32; 64];
    let mut nonzero = 0u32;
    for_each_val(bytes, |_, len, v| {
        h[usize::from(v)] += len as u32;
        nonzero += len as u32;
    });
    h[0] = REGISTERS as u32 - nonzero;
    h
}

/// Writes the PFDEBUG DECODE form: `z:N` (ZERO), `Z:N` (XZERO), `v:V,N`
/// (VAL), separated by single spaces.
pub(crate) fn decode(bytes: &[u8], f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
    let mut p = HDR;
    let mut sep = "";
    while p < bytes.len() {
        let b = bytes[p];
        let (span, len) = op_at(bytes, p);
        if is_val(b) {
            write!(f, "{sep}v:{},{}", val_value(b), span)?;
        } else if is_zero(b) {
            write!(f, "{sep}z:{span}")?;
        } else {
            write!(f, "{sep}Z:{span}")?;
        }
        sep = " ";
        p += len;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use simd_core::testing::{scaled, Rng};

    fn index_eq(a: &Index, b: &Index) -> bool {
        a.off == b.off && a.first == b.first
    }

    /// A random valid sparse string, non-canonical opcodes included (short
    /// XZEROs, adjacent ZEROs, unfused VALs).
    fn random_string(rng: &mut Rng) -> Vec<u8> {
        let mut v = crate::EMPTY[..HDR].to_vec();
        let mut left = REGISTERS;
        while left > 0 {
            let span = match rng.below(4) {
                0 => {
                    let l = (1 + rng.below(64) as usize).min(left);
                    v.push((l - 1) as u8);
                    l
                }
                1 => {
                    let top = if rng.below(4) == 0 { 3 } else { 300 };
                    let l = (1 + rng.below(top) as usize).min(left);
                    v.push(0x40 | ((l - 1) >> 8) as u8);
                    v.push((l - 1) as u8);
                    l
                }
                _ => {
                    let l = (1 + rng.below(4) as usize).min(left);
                    v.push(val(1 + rng.below(6) as u8, l));
                    l
                }
            };
            left -= span;
        }
        v
    }

    /// A fusion that grows the opcode before the target over a block
    /// boundary changes that block's checkpoint (and what precedes it: a
    /// 2-byte XZERO instead of a 1-byte VAL); the index must follow.
    #[test]
    fn fusion_over_block_boundary() {
        let mut a = crate::EMPTY[..HDR].to_vec();
        // XZERO 0..=124, VAL(4) 125..=126, VAL(3) 127, VAL(4) 128,
        // XZERO 129..=16383; block 1 starts at register 128.
        a.extend_from_slice(&[0x40, 124, val(4, 2), val(3, 1), val(4, 1), 0x7f, 0x7e]);
        assert!(matches!(validate(&a), Ok(Valid::Exact)));
        let mut b = a.clone();
        let mut idx = Index::build(&a);
        for (i, c) in [(127, 4), (128, 5), (126, 6)] {
            set_both_ways(&mut a, &mut b, &mut idx, (i, c));
        }
    }

    /// Sets register `i` to `c` (limit 3000) in `a` through `idx` and in `b`
    /// by a walk from the start: same answer, same bytes, and `idx` then
    /// equals a fresh build.
    #[track_caller]
    fn set_both_ways(
        a: &mut Vec<u8>,
        b: &mut Vec<u8>,
        idx: &mut Index,
        (i, c): (usize, u8),
    ) -> Set {
        let r1 = set_indexed(a, i, c, 3000, idx);
        let r2 = set(b, i, c, 3000, &mut { Cursor::START });
        assert_eq!(r1, r2);
        assert_eq!(a, b, "set({i}, {c})");
        assert!(index_eq(idx, &Index::build(a)), "set({i}, {c})");
        r1
    }

    /// A non-canonical XZERO of one register at a block's first register,
    /// raised near the end of the string (so the merge pass runs): the
    /// string shrinks by a byte, and the block's checkpoint must point at
    /// the new VAL, not at the old offset shifted.
    #[test]
    fn shrink_at_block_start() {
        // XZERO 0..=127, XZERO(1) 128, XZERO 129..=16383.
        raise_both_ways(
            &[0x40, 127, 0x40, 0, 0x7f, 0x7e],
            (128, 5),
            &[0x40, 127, val(5, 1), 0x7f, 0x7e],
        );
    }

    /// A merge-pass fusion after the edited opcode, of a pair whose second
    /// VAL starts a block: that block's checkpoint moves to the fused VAL.
    #[test]
    fn fusion_after_the_edit_at_block_start() {
        // XZERO 0..=125, ZERO(1) 126, VAL(3,1) 127, VAL(3,1) 128 (an unfused
        // pair), XZERO 129..=16383.
        raise_both_ways(
            &[0x40, 125, 0x00, val(3, 1), val(3, 1), 0x7f, 0x7e],
            (126, 5),
            &[0x40, 125, val(5, 1), val(3, 2), 0x7f, 0x7e],
        );
    }

    /// Sets register `index` to `count` in the sparse string with opcodes
    /// `body`, through the index and by a walk from the start: both change
    /// it into `want`, and the index then equals a fresh build.
    fn raise_both_ways(body: &[u8], edit: (usize, u8), want: &[u8]) {
        let mut a = crate::EMPTY[..HDR].to_vec();
        a.extend_from_slice(body);
        assert!(validate(&a).is_ok());
        let mut b = a.clone();
        let mut idx = Index::build(&a);
        assert_eq!(set_both_ways(&mut a, &mut b, &mut idx, edit), Set::Changed);
        assert_eq!(a[HDR..], *want);
    }

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

    /// Indexed adds leave the same bytes as walks from the start, and the
    /// index stays what a fresh build gives.
    #[test]
    fn index_matches_plain_walk() {
        let mut rng = Rng::new(7);
        for round in 0..scaled(48, 2) {
            let (mut a, limit) = if round % 3 == 2 {
                (random_string(&mut rng), 40_000)
            } else {
                (crate::EMPTY.to_vec(), 3000)
            };
            let mut b = a.clone();
            let mut idx = Index::build(&a);
            let mut n = 0usize;
            // Narrow windows and small values make splits and fusions of
            // VAL runs common.
            let window = [REGISTERS, 600, 40][round % 3];
            // Every other narrow window straddles a checkpoint block
            // boundary, where fusions can grow an opcode over it.
            let base = if round % 2 == 1 && window < REGISTERS {
                let edge = (1 + rng.below(BLOCKS as u64 - 1) as usize) << BLOCK_SHIFT;
                edge.saturating_sub(window / 2).min(REGISTERS - window)
            } else {
                rng.below((REGISTERS - window + 1) as u64) as usize
            };
            for _ in 0..scaled(1500, 50) {
                let i = base + rng.below(window as u64) as usize;
                let top = if rng.below(8) == 0 { 40 } else { 4 };
                let c = 1 + rng.below(top) as u8;
                let r1 = set_indexed(&mut a, i, c, limit, &mut idx);
                let r2 = set(&mut b, i, c, limit, &mut { Cursor::START });
                n += 1;
                assert_eq!(r1, r2);
                assert_eq!(a, b, "round {round}: set({i}, {c})");
                assert!(
                    index_eq(&idx, &Index::build(&a)),
                    "round {round}: set({i}, {c})"
                );
                if r1 == Set::NeedsDense && c <= VAL_MAX_VALUE {
                    break;
                }
            }
            assert!(n >= 50);
        }
    }
}
