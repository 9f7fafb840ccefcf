//! One byte per register: the form to add many elements in (a hash, a byte
//! max), converted from and to the Redis string once per batch.

use crate::kernels::{self, Aligned};
use crate::{cache, dense, dispatch, estimate, hash, Error, Hll, DENSE_BYTES, HDR, REGISTERS};
use alloc::boxed::Box;
use alloc::vec::Vec;

/// The 16384 registers of a HyperLogLog, one byte each, with the 16-byte
/// header of the Redis string they came from.
///
/// An add is a hash and a one-byte max, where a dense [`Hll`] reads and
/// writes a 6-bit field across two bytes and a sparse one edits opcodes:
/// the form to build large HLLs in, converting once at each end.
///
/// Once an HLL is dense, its string depends only on its header and its
/// registers, so [`to_hll`](Registers::to_hll) gives byte for byte the
/// string the same adds and merges leave on a dense [`Hll`] (or one the
/// adds convert to dense, as they do past 32 or the sparse size limit).
/// Sparse strings also depend on the order registers were set in, so a
/// `Registers` never produces one, except through
/// [`to_merged_hll`](Registers::to_merged_hll), which gives exactly what
/// `PFMERGE` into a new key builds from a sparse string with these
/// registers.
///
/// ```
/// use hll::{Hll, Registers};
///
/// let mut h = Hll::new();
/// h.add_all((0..5000u32).map(|i| i.to_le_bytes())); // dense from here on
/// let mut r = Registers::from_hll(&h);
/// for i in 5000..9000u32 {
///     assert_eq!(r.add(&i.to_le_bytes()), h.add(&i.to_le_bytes()));
/// }
/// assert_eq!(r.to_hll(), h); // the same string, byte for byte
/// assert_eq!(r.count(), h.count());
/// ```
pub struct Registers {
    header: [u8; HDR],
    regs: Box<Aligned<[u8; REGISTERS]>>,
}

impl Clone for Registers {
    fn clone(&self) -> Registers {
        Registers {
            header: self.header,
            regs: Box::new(Aligned(self.regs.0)),
        }
    }
}

impl Default for Registers {
    fn default() -> Registers {
        Registers::new()
    }
}

impl PartialEq for Registers {
    fn eq(&self, other: &Registers) -> bool {
        self.header == other.header && self.regs.0 == other.regs.0
    }
}
impl Eq for Registers {}

impl core::fmt::Debug for Registers {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let set = self.regs.0.iter().filter(|&&r| r != 0).count();
        f.debug_struct("Registers")
            .field("set", &set)
            .field("cached_count", &self.cached_count())
            .finish()
    }
}

/// Raises the register `hash` selects; whether it changed. No branch on
/// the registers: the byte is always written back.
#[inline(always)]
pub(crate) fn raise(regs: &mut [u8; REGISTERS], hash: u64) -> bool {
    let (index, count) = hash::index_count(hash);
    let r = &mut regs[index];
    let old = *r;
    *r = old.max(count);
    count > old
}

/// How far past each element [`raise_all`] prefetches.
const PREFETCH_BYTES: usize = 2048;

/// Adds every element's hash to `regs`, setting `*changed` once a register
/// changes. `changed` lives with the caller so that a panic in the caller's
/// iterator still leaves it saying whether the adds so far changed
/// something (the callers settle the cache, or pack, in a `Drop`).
#[inline]
pub(crate) fn raise_all<T: AsRef<[u8]>>(
    regs: &mut [u8; REGISTERS],
    elements: impl Iterator<Item = T>,
    changed: &mut bool,
) {
    for e in elements {
        let e = e.as_ref();
        simd_core::prefetch_read(e.as_ptr().wrapping_add(PREFETCH_BYTES));
        *changed |= raise(regs, hash::hash(e));
    }
}

/// The cache of a header whose registers are being raised: invalidated
/// when dropped if they changed, so also when the caller's iterator panics.
struct SettleCache<'a> {
    header: &'a mut [u8; HDR],
    changed: bool,
}

impl Drop for SettleCache<'_> {
    fn drop(&mut self) {
        cache::invalidate_if(self.header, self.changed);
    }
}

impl Registers {
    /// The registers of [`Hll::new`] (all zero, cache invalid).
    ///
    /// ```
    /// let r = hll::Registers::new();
    /// assert_eq!(r.estimate(), 0);
    /// assert_eq!(r.to_merged_hll(), hll::Hll::new());
    /// ```
    #[must_use]
    pub fn new() -> Registers {
        let mut header = [0u8; HDR];
        header.copy_from_slice(&crate::EMPTY[..HDR]);
        Registers {
            header,
            regs: Box::new(Aligned([0u8; REGISTERS])),
        }
    }

    /// The registers and header of `h` (unpacked with the dispatched
    /// kernel when `h` is dense).
    ///
    /// ```
    /// let mut h = hll::Hll::new();
    /// h.add(b"a");
    /// let r = hll::Registers::from_hll(&h);
    /// assert_eq!(r.as_array()[12711], 2);
    /// ```
    #[must_use]
    pub fn from_hll(h: &Hll) -> Registers {
        let mut header = [0u8; HDR];
        header.copy_from_slice(&h.bytes[..HDR]);
        let mut regs = Box::new(Aligned([0u8; REGISTERS]));
        h.max_into(&mut regs.0);
        Registers { header, regs }
    }

    /// The registers, register `i` at index `i` (values 0..=63).
    #[must_use]
    pub fn as_array(&self) -> &[u8; REGISTERS] {
        &self.regs.0
    }

    /// `PFADD key element`: whether a register changed (then the cached
    /// count is invalidated).
    ///
    /// ```
    /// let mut r = hll::Registers::new();
    /// assert!(r.add(b"apple"));
    /// assert!(!r.add(b"apple"));
    /// ```
    #[inline]
    pub fn add(&mut self, element: &[u8]) -> bool {
        self.add_hash(hash::hash(element))
    }

    /// Adds an element by its [`hash`](crate::hash).
    ///
    /// ```
    /// let (mut a, mut b) = (hll::Registers::new(), hll::Registers::new());
    /// a.add(b"apple");
    /// b.add_hash(hll::hash(b"apple"));
    /// assert_eq!(a, b);
    /// ```
    #[inline]
    pub fn add_hash(&mut self, hash: u64) -> bool {
        let changed = raise(&mut self.regs.0, hash);
        cache::invalidate_if(&mut self.header, changed);
        changed
    }

    /// `PFADD key e1 e2 ...`: whether any register changed. If the iterator
    /// panics, the elements it yielded before are added (and the cache is
    /// invalidated if they changed a register).
    ///
    /// ```
    /// let mut r = hll::Registers::new();
    /// assert!(r.add_all(["a", "b", "c"]));
    /// assert_eq!(r.estimate(), 3);
    /// ```
    pub fn add_all<I, T>(&mut self, elements: I) -> bool
    where
        I: IntoIterator<Item = T>,
        T: AsRef<[u8]>,
    {
        let mut settle = SettleCache {
            header: &mut self.header,
            changed: false,
        };
        raise_all(&mut self.regs.0, elements.into_iter(), &mut settle.changed);
        settle.changed
    }

    /// `PFMERGE self other`: every register raised to `other`'s; the cache
    /// is invalidated (as `PFMERGE` always does).
    ///
    /// ```
    /// let mut a = hll::Registers::new();
    /// a.add(b"x");
    /// let mut b = hll::Hll::new();
    /// b.add(b"y");
    /// a.merge(&b);
    /// assert_eq!(a.estimate(), 2);
    /// ```
    pub fn merge(&mut self, other: &Hll) {
        other.max_into(&mut self.regs.0);
        cache::invalidate(&mut self.header);
    }

    /// `PFMERGE self other` with the other side as registers.
    ///
    /// ```
    /// let (mut a, mut b) = (hll::Registers::new(), hll::Registers::new());
    /// a.add(b"x");
    /// b.add(b"y");
    /// a.merge_registers(&b);
    /// assert_eq!(a.estimate(), 2);
    /// ```
    pub fn merge_registers(&mut self, other: &Registers) {
        for (r, &o) in self.regs.0.iter_mut().zip(other.regs.0.iter()) {
            *r = (*r).max(o);
        }
        cache::invalidate(&mut self.header);
    }

    /// The cached count if the header's cache is valid (see
    /// [`Hll::cached_count`]).
    #[must_use]
    pub fn cached_count(&self) -> Option<u64> {
        cache::get(&self.header)
    }

    /// The count of the registers, ignoring and not touching the cache
    /// (one histogram pass, as [`Hll::estimate`]).
    #[must_use]
    pub fn estimate(&self) -> u64 {
        estimate::estimate(&dispatch::histogram_raw(&self.regs.0))
    }

    /// `PFCOUNT key`: the cached count if valid, else the estimate, written
    /// into the cache (as [`Hll::count`]).
    pub fn count(&mut self) -> u64 {
        if let Some(c) = self.cached_count() {
            return c;
        }
        let c = self.estimate();
        cache::set(&mut self.header, c);
        c
    }

    /// The dense string: the header (encoding byte 0, the other 15 bytes
    /// as kept: magic, unused bytes, cache) and the registers packed 6 bits
    /// each. This is the string of a dense [`Hll`] with these registers and
    /// header, so adds and merges give the same bytes here and on a dense
    /// `Hll`, and on a sparse one from where they convert it to dense (a
    /// conversion copies the header, as a server does).
    ///
    /// ```
    /// let r = hll::Registers::new();
    /// let h = r.to_hll();
    /// assert!(!h.is_sparse());
    /// assert_eq!(h.as_bytes().len(), hll::DENSE_BYTES);
    /// ```
    #[must_use]
    pub fn to_hll(&self) -> Hll {
        Hll {
            bytes: self.to_bytes(),
            sparse_max_bytes: crate::DEFAULT_SPARSE_MAX_BYTES,
            index: None,
        }
    }

    /// The bytes of [`to_hll`](Registers::to_hll): 12304, dense.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut d = Vec::with_capacity(DENSE_BYTES);
        d.extend_from_slice(&self.header);
        d[4] = crate::ENC_DENSE;
        d.resize(DENSE_BYTES, 0);
        // SAFETY: pack writes initialised bytes only.
        let body = unsafe { kernels::as_uninit(dense::body_mut(&mut d)) };
        dispatch::pack(&self.regs.0, body);
        d
    }

    /// What `PFMERGE dest src` gives when `dest` does not exist and `src`
    /// is a sparse string holding these registers (the header is not
    /// used): the empty HLL's
    /// header with the cache invalid, sparse with every non-zero register
    /// set in ascending order while that stays within `sparse_max_bytes`
    /// and every value is at most 32, else dense (with these registers).
    ///
    /// ```
    /// let mut r = hll::Registers::new();
    /// r.add_all(["a", "b", "c"]);
    /// let mut h = hll::Hll::new();
    /// h.add_all(["a", "b", "c"]);
    /// // The registers are set in ascending order, as PFMERGE does:
    /// assert_eq!(r.to_merged_hll().registers(), h.registers());
    /// assert!(r.to_merged_hll().is_sparse());
    /// ```
    #[must_use]
    pub fn to_merged_hll(&self) -> Hll {
        self.to_merged_hll_with(crate::DEFAULT_SPARSE_MAX_BYTES)
    }

    /// [`to_merged_hll`](Registers::to_merged_hll) with another sparse size
    /// limit (`hll-sparse-max-bytes`).
    #[must_use]
    pub fn to_merged_hll_with(&self, sparse_max_bytes: usize) -> Hll {
        crate::canonical::from_raw(&self.regs.0, sparse_max_bytes)
    }

    /// [`to_merged_hll_with`](Registers::to_merged_hll_with) through the
    /// servers' register-set routine, one register at a time: the oracle
    /// of the one-pass builder.
    #[cfg(test)]
    pub(crate) fn to_merged_hll_with_set(&self, sparse_max_bytes: usize) -> Hll {
        use crate::sparse;
        let mut h = Hll::new().with_sparse_max_bytes(sparse_max_bytes);
        let raw = &self.regs.0;
        let mut cur = sparse::Cursor::START;
        for (j, &v) in raw.iter().enumerate() {
            if v == 0 {
                continue;
            }
            let r = sparse::set(&mut h.bytes, j, v, sparse_max_bytes, &mut cur);
            if r == sparse::Set::NeedsDense {
                // Registers below j hold raw[..j], the others at most raw[j..].
                h.promote_with(raw);
                break;
            }
        }
        h.invalidate();
        h
    }

    /// Marks the header's cached count invalid.
    pub(crate) fn invalidate_cache(&mut self) {
        cache::invalidate(&mut self.header);
    }

    /// The registers, writable (the cache is the caller's to settle).
    pub(crate) fn raw_mut(&mut self) -> &mut [u8; REGISTERS] {
        &mut self.regs.0
    }

    /// Heap bytes held (the register array).
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        core::mem::size_of::<Aligned<[u8; REGISTERS]>>()
    }
}

impl Registers {
    /// Raises each listed register to at least its value: `PFMERGE` of a
    /// string holding these registers (the cache is invalidated if one
    /// changed). Pairs are `(index, value)` in any order, as
    /// [`Hll::from_registers`] takes them; at an index past 16383 or a
    /// value past 63 it stops with an error, the pairs before it applied.
    ///
    /// ```
    /// let mut r = hll::Registers::new();
    /// r.merge_pairs([(7, 3), (7, 2), (9, 1)]).unwrap();
    /// assert_eq!(r.as_array()[7], 3);
    /// assert!(r.merge_pairs([(0, 64)]).is_err());
    /// ```
    pub fn merge_pairs<I>(&mut self, registers: I) -> Result<(), Error>
    where
        I: IntoIterator<Item = (usize, u8)>,
    {
        let mut changed = false;
        let mut result = Ok(());
        let raw = self.raw_mut();
        for (i, v) in registers {
            if i >= REGISTERS || v > 63 {
                result = Err(crate::canonical::invalid_register(i, v));
                break;
            }
            changed |= v > raw[i];
            raw[i] = raw[i].max(v);
        }
        if changed {
            self.invalidate_cache();
        }
        result
    }
}

impl From<&Hll> for Registers {
    fn from(h: &Hll) -> Registers {
        Registers::from_hll(h)
    }
}

impl From<&Registers> for Hll {
    fn from(r: &Registers) -> Hll {
        r.to_hll()
    }
}

/// Adds every element in order, as [`Registers::add_all`].
impl<T: AsRef<[u8]>> Extend<T> for Registers {
    fn extend<I: IntoIterator<Item = T>>(&mut self, elements: I) {
        self.add_all(elements);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Byte equality with the packed path: dense adds, merges, a sparse
    /// source promoted, and the cache kept by adds that change nothing.
    #[test]
    #[cfg_attr(
        miri,
        ignore = "a dozen 16384-register passes: minutes under Miri; its kernels run there in the tests beside it"
    )]
    fn same_bytes_as_packed_adds_and_merges() {
        let mut h = Hll::new();
        h.add_all((0..5000u32).map(|i| i.to_le_bytes()));
        assert!(!h.is_sparse());
        let mut r = Registers::from_hll(&h);
        assert_eq!(r.to_bytes(), h.as_bytes());
        let n = simd_core::testing::scaled(55_000, 300) as u32;
        for i in 5000..5000 + n {
            let e = i.wrapping_mul(2_654_435_761).to_be_bytes();
            assert_eq!(r.add(&e), h.add(&e));
        }
        assert_eq!(r.to_bytes(), h.as_bytes());
        let mut other = Hll::new();
        other.add_all((0..100u32).map(|i| i.to_be_bytes()));
        h.merge(&[&other]);
        r.merge(&other);
        assert_eq!(r.to_hll(), h);
        assert_eq!(r.count(), h.count());
        assert_eq!(r.to_hll(), h);
        let mut r = Registers::from_hll(&h);
        assert!(!r.add(&5000u32.wrapping_mul(2_654_435_761).to_be_bytes()));
        assert_eq!(r.to_hll(), h);
        assert_eq!(r.cached_count(), h.cached_count());
    }

    /// From a sparse HLL: the dense string is what the promotion leaves
    /// (header copied, encoding 0), and PFMERGE into a new key comes out
    /// sparse or dense as `Hll::merge` makes it.
    #[test]
    fn from_sparse_and_merged() {
        let mut h = Hll::new();
        h.add_all((0..simd_core::testing::scaled(300, 40) as u32).map(|i| i.to_le_bytes()));
        assert!(h.is_sparse());
        let r = Registers::from_hll(&h);
        let mut promoted = h.clone().with_sparse_max_bytes(0);
        // A register raised past the limit converts it; the same raise in r.
        let e = (0u32..)
            .map(|i| (i + 1_000_000).to_le_bytes())
            .find(|e| {
                let (i, c) = hash::index_count(hash::hash(e));
                c > h.register(i)
            })
            .unwrap_or_default();
        let mut r2 = r.clone();
        promoted.add(&e);
        r2.add(&e);
        assert!(!promoted.is_sparse());
        assert_eq!(r2.to_hll(), promoted);
        for limit in [0, 200, 3000] {
            let mut want = Hll::new().with_sparse_max_bytes(limit);
            want.merge(&[&h]);
            assert_eq!(r.to_merged_hll_with(limit), want, "limit {limit}");
        }
        let mut d = Registers::new();
        d.merge_registers(&r);
        assert_eq!(d.as_array(), r.as_array());
        assert_eq!(Registers::new().to_merged_hll(), {
            let mut e = Hll::new();
            e.merge(&[]);
            e
        });
    }

    /// The unpacked dense path leaves the bytes of one add per element.
    #[test]
    fn add_all_unpacked_is_adds() {
        let mut a = Hll::new().with_sparse_max_bytes(0);
        a.add(b"seed");
        let mut b = a.clone();
        b.count();
        let mut c = b.clone();
        let n = simd_core::testing::scaled(3000, 300) as u32;
        let elems: Vec<[u8; 4]> = (0..n).map(|i| i.to_le_bytes()).collect();
        assert!(c.add_all_unpacked(elems.iter()));
        for e in &elems {
            b.add(e);
        }
        assert_eq!(b, c);
        assert!(!c.add_all_unpacked(elems.iter()));
        c.count();
        let before = c.clone();
        assert!(!c.add_all_unpacked(elems.iter()));
        assert_eq!(before, c);
    }
}
