//! One group's registers, in the form that is fastest for its size: the
//! raised registers as a short list while few, a byte per register once
//! many. Only the canonical string ([`Group::write`]) is observable, so the
//! form and the order of the adds never show in the output.

use hll::{Hll, Registers};
use std::mem::size_of;

/// A group turns dense past this many distinct registers (its list then
/// holds at most twice as many entries: 4 KiB, a quarter of the dense form).
const DENSE_AT: usize = 512;

/// A full list is sorted and deduplicated from this many entries on
/// (shorter ones just grow).
const COMPACT_MIN: usize = 64;

/// Registers a group holds inline, before its first allocation.
const INLINE: usize = 6;

/// The first capacity of a list spilled from the inline form.
const FIRST_LIST: usize = 16;

/// Heap bytes of the dense form: the register array.
const DENSE_HEAP: usize = hll::REGISTERS;

/// A register and its value as one list entry: index in bits 8..22, value
/// in bits 0..8, so sorting puts an index's values together, largest last.
#[inline(always)]
fn pair(index: usize, value: u8) -> u32 {
    (index as u32) << 8 | u32::from(value)
}

#[inline(always)]
fn unpair(p: u32) -> (usize, u8) {
    ((p >> 8) as usize, p as u8)
}

/// Sorts `v` and moves each index once, with its largest value, to the
/// front; the number of entries kept there.
fn compact_slice(v: &mut [u32]) -> usize {
    v.sort_unstable();
    let mut w = 0;
    for r in 0..v.len() {
        let x = v[r];
        if w > 0 && v[w - 1] >> 8 == x >> 8 {
            v[w - 1] = x;
        } else {
            v[w] = x;
            w += 1;
        }
    }
    w
}

/// Sorts `v` and keeps each index once, with its largest value.
fn compact(v: &mut Vec<u32>) {
    let kept = compact_slice(v);
    v.truncate(kept);
}

/// The registers of one group.
#[derive(Debug)]
pub(crate) enum Group {
    /// The first raised registers (see [`pair`]), without a heap
    /// allocation (most groups of a query with millions of groups).
    Few { len: u8, pairs: [u32; INLINE] },
    /// Raised registers (see [`pair`]), an index possibly more than once.
    Pairs(Vec<u32>),
    /// A byte per register (inline: the array's address is read from the
    /// group itself, one dependent load less per add than a boxed handle).
    Dense(Registers),
}

// Groups live in one vector, a million of them at times.
const _: () = assert!(size_of::<Group>() <= 32);

impl Default for Group {
    fn default() -> Group {
        Group::Few {
            len: 0,
            pairs: [0; INLINE],
        }
    }
}

impl Group {
    /// Adds the element with this hash; the change in heap bytes.
    #[inline(always)]
    pub(crate) fn add_hash(&mut self, hash: u64) -> isize {
        if let Group::Dense(r) = self {
            r.add_hash(hash);
            return 0;
        }
        let (i, value) = hll::register_of(hash);
        self.push(pair(i, value))
    }

    /// Hints that [`add_hash`](Group::add_hash) of `hash` will write soon:
    /// the dense register, or the end of the list.
    #[inline(always)]
    pub(crate) fn prefetch_add(&self, hash: u64) {
        let at: *const u8 = match self {
            Group::Dense(r) => &r.as_array()[hll::register_of(hash).0],
            Group::Pairs(v) => v.as_ptr().wrapping_add(v.len()).cast(),
            Group::Few { .. } => return,
        };
        simd_core::prefetch_read(at);
    }

    /// Appends a list entry; the change in heap bytes.
    #[inline(always)]
    fn push(&mut self, p: u32) -> isize {
        match self {
            Group::Few { len, pairs } if usize::from(*len) < INLINE => {
                pairs[usize::from(*len)] = p;
                *len += 1;
                0
            }
            Group::Pairs(v) if v.len() < v.capacity() => {
                v.push(p);
                0
            }
            _ => self.push_full(p),
        }
    }

    /// Raises register `index` to `value` (both in range); the change in
    /// heap bytes.
    #[inline]
    fn raise(&mut self, index: usize, value: u8) -> isize {
        match self {
            Group::Dense(r) => {
                let raised = r.merge_pairs([(index, value)]);
                debug_assert!(raised.is_ok());
                0
            }
            _ => self.push(pair(index, value)),
        }
    }

    /// A push onto a full list: compact it, turn dense if it holds too
    /// many registers, else grow it when compaction freed less than half.
    #[cold]
    #[inline(never)]
    fn push_full(&mut self, p: u32) -> isize {
        if let Group::Few { len, pairs } = self {
            let mut v = Vec::with_capacity(FIRST_LIST);
            v.extend_from_slice(&pairs[..usize::from(*len)]);
            v.push(p);
            *self = Group::Pairs(v);
            return (FIRST_LIST * size_of::<u32>()) as isize;
        }
        let Group::Pairs(v) = self else {
            return 0;
        };
        let before = v.capacity();
        if v.len() >= COMPACT_MIN {
            compact(v);
        }
        if v.len() >= DENSE_AT {
            v.push(p);
            return self.densify() - (before * size_of::<u32>()) as isize;
        }
        if v.len() * 2 > before {
            v.reserve(before.max(4));
        }
        v.push(p);
        ((v.capacity() - before) * size_of::<u32>()) as isize
    }

    /// Moves a list to the dense form; the dense form's heap bytes.
    fn densify(&mut self) -> isize {
        if let Group::Pairs(v) = self {
            debug_assert!(v.len() > INLINE);
            let mut r = Registers::new();
            let raised = r.merge_pairs(v.iter().map(|&p| unpair(p)));
            debug_assert!(raised.is_ok());
            *self = Group::Dense(r);
        }
        DENSE_HEAP as isize
    }

    /// PFMERGE of the server string `bytes` into the group (validated as
    /// `Hll::from_bytes` does; a sparse one is read in place); the change
    /// in heap bytes.
    pub(crate) fn merge_bytes(&mut self, bytes: &[u8]) -> Result<isize, hll::Error> {
        let registers = hll::NonzeroRegisters::from_bytes(bytes)?;
        if bytes[4] == 0 {
            return Ok(self.merge(&Hll::from_bytes(bytes)?));
        }
        Ok(registers.map(|(i, v)| self.raise(i, v)).sum())
    }

    /// PFMERGE of `h` into the group; the change in heap bytes.
    pub(crate) fn merge(&mut self, h: &Hll) -> isize {
        match self {
            Group::Dense(r) => {
                r.merge(h);
                0
            }
            _ if !h.is_sparse() => {
                let before = self.heap_bytes();
                let mut r = Registers::from_hll(h);
                let raised = r.merge_pairs(self.list().iter().map(|&p| unpair(p)));
                debug_assert!(raised.is_ok());
                *self = Group::Dense(r);
                DENSE_HEAP as isize - before as isize
            }
            _ => h.nonzero_registers().map(|(i, v)| self.raise(i, v)).sum(),
        }
    }

    /// The canonical string of the group's registers, written into `out`
    /// (its allocation reused; lists are compacted in place first).
    pub(crate) fn write(&mut self, out: &mut Hll) {
        let written = match self {
            Group::Dense(r) => {
                *out = r.to_merged_hll();
                Ok(())
            }
            Group::Few { len, pairs } => {
                let kept = compact_slice(&mut pairs[..usize::from(*len)]);
                *len = kept as u8;
                out.set_registers(pairs[..kept].iter().map(|&p| unpair(p)))
            }
            Group::Pairs(v) => {
                compact(v);
                out.set_registers(v.iter().map(|&p| unpair(p)))
            }
        };
        // Entries come from register_of and validated strings.
        debug_assert!(written.is_ok());
    }

    /// The canonical string of the group's registers.
    #[cfg(test)]
    pub(crate) fn canonical(&mut self) -> Hll {
        let mut h = Hll::new();
        self.write(&mut h);
        h
    }

    /// The list entries of a group not yet dense.
    fn list(&self) -> &[u32] {
        match self {
            Group::Few { len, pairs } => &pairs[..usize::from(*len)],
            Group::Pairs(v) => v,
            Group::Dense(_) => &[],
        }
    }

    /// Heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        match self {
            Group::Few { .. } => 0,
            Group::Pairs(v) => v.capacity() * size_of::<u32>(),
            Group::Dense(_) => DENSE_HEAP,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_keeps_the_largest_value_once() {
        let mut v = vec![pair(5, 1), pair(3, 2), pair(5, 4), pair(5, 2), pair(0, 1)];
        compact(&mut v);
        assert_eq!(v, [pair(0, 1), pair(3, 2), pair(5, 4)]);
    }

    /// Every size from empty through the switch to dense, fed as element
    /// hashes and as merged strings: the canonical string of the same
    /// registers as PFADD of the elements, and heap bytes as reported.
    #[test]
    fn same_registers_as_pfadd_at_every_size() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for n in [
            0usize, 1, 2, 5, 6, 7, 15, 16, 17, 63, 64, 65, 100, 511, 512, 513, 600, 3000, 20_000,
        ] {
            let mut g = Group::default();
            let mut m = Group::default();
            let mut heap = 0isize;
            let mut heap_m = 0isize;
            let mut want = Hll::new();
            for k in 0..n {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Repeat earlier values now and then.
                let e = if k % 7 == 3 { x % 50 } else { x };
                let e = e.to_le_bytes();
                want.add(&e);
                heap += g.add_hash(hll::hash(&e));
                let mut one = Hll::new();
                one.add(&e);
                heap_m += m.merge_bytes(one.as_bytes()).unwrap();
                assert_eq!(heap as usize, g.heap_bytes());
                assert_eq!(heap_m as usize, m.heap_bytes());
            }
            let c = want.to_canonical();
            assert_eq!(g.canonical(), c, "n = {n}");
            assert_eq!(m.canonical(), c, "n = {n}");
            // A dense string merged into a list, and a list into a dense group.
            let mut d = Group::default();
            d.add_hash(hll::hash(b"extra"));
            d.merge_bytes(Registers::from_hll(&want).to_hll().as_bytes())
                .unwrap();
            let mut both = want.clone();
            both.add(b"extra");
            assert_eq!(d.canonical(), both.to_canonical());
        }
    }
}
