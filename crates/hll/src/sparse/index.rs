//! The checkpoint index of a sparse string: where to start a set's walk
//! for each block of 128 registers, kept exact across edits.

use super::edit::{set_edit, Cursor, Edit, Set};
use super::op_at;
use crate::{HDR, REGISTERS};
use alloc::vec::Vec;

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

#[cfg(test)]
mod tests {
    use super::super::edit::{set, Cursor, Set};
    use super::super::{val, validate, Valid, VAL_MAX_VALUE};
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
