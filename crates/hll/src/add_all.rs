//! `Hll::add_all`: `PFADD` of many elements, hashed ahead of their
//! register updates, through one-byte registers once a long batch is dense.

use crate::kernels::{self, Aligned};
use crate::registers::raise_all;
use crate::{dense, dispatch, hash, Hll, REGISTERS};

/// Dense batches of [`Hll::add_all`] from this many elements on go through
/// one-byte registers (an unpack and a pack of the body pay for themselves
/// past this).
const UNPACK_MIN: usize = 256;

impl Hll {
    /// `PFADD key e1 e2 ...`: adds every element in order (a conversion to
    /// dense part-way sends the rest to the dense registers, as on a server);
    /// whether any register changed. The result is byte for byte that of
    /// one [`add`](Hll::add) per element, in order.
    ///
    /// Into a dense HLL, 256 elements or more (as the iterator's
    /// `size_hint` promises, or once 256 have been added) go through one
    /// byte per register: the body is unpacked once, each element costs a
    /// hash and a byte max, and the body is packed once at the end (the
    /// README's table compares it with the loop of `add`).
    /// [`Registers`](crate::Registers) keeps that form across calls.
    ///
    /// If the iterator panics, the HLL is left a valid string holding the
    /// adds of the elements it yielded before, in order, except that up to
    /// the last eight of them may be missing (hashed ahead, not yet added).
    ///
    /// ```
    /// let mut a = hll::Hll::new();
    /// assert!(a.add_all(["a", "b", "c"]));
    /// let mut b = hll::Hll::new();
    /// for e in ["a", "b", "c"] {
    ///     b.add(e.as_bytes());
    /// }
    /// assert_eq!(a, b);
    /// assert_eq!(a.count(), 3);
    /// ```
    pub fn add_all<I, T>(&mut self, elements: I) -> bool
    where
        I: IntoIterator<Item = T>,
        T: AsRef<[u8]>,
    {
        // Each element is hashed AHEAD elements before its register update,
        // and in program order before the update it overlaps: a sparse
        // update ends in hard-to-predict branches, and a hash computed
        // after them would start only once they resolve (its multiply
        // chain then on the critical path); issued before them, it runs in
        // the shadow of the update. The updates still happen one by one, in
        // order. (Faster than batches of hashes then updates; 4-32 ahead
        // measured the same.) A dense HLL takes the rest of a long batch
        // through one-byte registers instead (see `add_all_unpacked`).
        const AHEAD: usize = 8;
        let mut changed = false;
        let mut it = elements.into_iter();
        // Set once `it` has answered `None` (it is not asked again).
        let mut exhausted = false;
        // Dense adds on the packed registers before switching to one-byte
        // registers: none when the iterator promises a long batch.
        let mut packed = if it.size_hint().0 >= UNPACK_MIN {
            0
        } else {
            UNPACK_MIN
        };
        if self.is_sparse() || packed > 0 {
            let mut ring = [0u64; AHEAD];
            let mut queued = 0;
            while queued < AHEAD {
                let Some(e) = it.next() else {
                    exhausted = true;
                    break;
                };
                ring[queued] = hash(e.as_ref());
                queued += 1;
            }
            // ring[next] is the oldest queued hash once the ring is full.
            let mut next = 0;
            while !exhausted {
                let Some(e) = it.next() else {
                    exhausted = true;
                    break;
                };
                let (index, count) = hash::index_count(ring[next]);
                ring[next] = hash(e.as_ref());
                next = (next + 1) % AHEAD;
                if self.is_sparse() {
                    changed |= self.set_sparse(index, count);
                } else {
                    changed |= self.set_dense(index, count);
                    packed = packed.saturating_sub(1);
                    if packed == 0 {
                        break;
                    }
                }
            }
            for k in 0..queued {
                changed |= self.add_hash(ring[(next + k) % AHEAD]);
            }
        }
        if exhausted {
            return changed;
        }
        // Dense with elements left (if any: an empty rest costs no unpack).
        let Some(first) = it.next() else {
            return changed;
        };
        changed |= self.add_hash(hash(first.as_ref()));
        changed | self.add_all_unpacked(it)
    }

    /// Dense adds through one-byte registers: unpacks the body, raises
    /// bytes, packs it back once; whether a register changed (then the
    /// cache is invalidated, as by each dense add).
    pub(crate) fn add_all_unpacked<T: AsRef<[u8]>>(
        &mut self,
        elements: impl Iterator<Item = T>,
    ) -> bool {
        debug_assert!(!self.is_sparse());
        let mut buf = Aligned(kernels::uninit::<REGISTERS>());
        dispatch::unpack(dense::body(&self.bytes), &mut buf.0);
        let mut repack = Repack {
            hll: self,
            // SAFETY: unpack wrote every byte of buf.
            regs: unsafe { kernels::assume_init(&mut buf.0) },
            changed: false,
        };
        raise_all(repack.regs, elements, &mut repack.changed);
        repack.changed
    }
}

/// One-byte registers unpacked from a dense HLL, packed back into it when
/// dropped if they changed: at the end of a batch, and also when the
/// caller's iterator panics, so the adds made before the panic are kept.
struct Repack<'a> {
    hll: &'a mut Hll,
    regs: &'a mut [u8; REGISTERS],
    changed: bool,
}

impl Drop for Repack<'_> {
    fn drop(&mut self) {
        if self.changed {
            // SAFETY: pack writes initialised bytes only.
            let body = unsafe { kernels::as_uninit(dense::body_mut(&mut self.hll.bytes)) };
            dispatch::pack(self.regs, body);
            self.hll.invalidate();
        }
    }
}
