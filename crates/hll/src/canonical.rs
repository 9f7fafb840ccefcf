//! The canonical string of a set of registers: what `PFMERGE` stores in a
//! new key from sparse sources holding them. Built in one pass over the
//! registers in ascending order ([`SparseBuilder`]), with the servers'
//! promotion rule applied step by step.

use crate::kernels::Aligned;
use crate::sparse::{self, VAL_MAX_VALUE};
use crate::{cache, dense, Error, ErrorKind, Hll, HDR, REGISTERS};
use alloc::boxed::Box;
use alloc::vec::Vec;

/// A zeroed byte-per-register scratch array.
fn zeroed() -> Box<Aligned<[u8; REGISTERS]>> {
    Box::new(Aligned([0u8; REGISTERS]))
}

/// Register index (low 14 bits) and value (run length of zeros above them
/// plus one, 1..=51) that a hash raises: `PFADD` of an element with this
/// hash sets register `index` to at least `value`.
///
/// ```
/// let (index, value) = hll::register_of(hll::hash(b"a"));
/// let mut h = hll::Hll::new();
/// h.add(b"a");
/// assert_eq!(h.register(index), value);
/// ```
#[inline]
#[must_use]
pub fn register_of(hash: u64) -> (usize, u8) {
    crate::hash::index_count(hash)
}

/// Appends the zero-run opcode for `len` registers (`1..=16384`).
#[inline(always)]
fn push_zeros(out: &mut Vec<u8>, len: usize) {
    if len > 64 {
        let l = len - 1;
        out.extend_from_slice(&[0x40 | (l >> 8) as u8, l as u8]);
    } else {
        out.push((len - 1) as u8);
    }
}

/// Bytes of the zero-run opcode for `len` registers (0 for none).
#[inline(always)]
fn zeros_len(len: usize) -> usize {
    match len {
        0 => 0,
        1..=64 => 1,
        _ => 2,
    }
}

/// Why [`SparseBuilder::push`] refused a register.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Refused {
    /// The index is not above the previous one.
    Order,
    /// `PFMERGE` would convert to dense here (a value above 32, or the
    /// string past the size limit).
    Dense,
}

/// Sets registers in ascending order into the empty sparse string, as
/// `PFMERGE` does into a new key: each set splits the trailing zero run,
/// then the bounded VAL merge pass fuses the new `VAL` with the one before
/// it when the values match and the run stays within 4. The size check
/// uses the length before that fusion, as the servers' `hllSparseSet`
/// does, so a string can convert to dense one byte short of the limit.
pub(crate) struct SparseBuilder {
    /// Header and the opcodes of registers `0..next` (the trailing zero
    /// run is not written until [`finish`](SparseBuilder::finish)).
    out: Vec<u8>,
    /// The first register not yet covered.
    next: usize,
    /// Length of the string with its trailing zero run.
    len: usize,
    limit: usize,
    /// Value and run length of the last opcode when it is a VAL ending at
    /// `next`.
    last_val: Option<(u8, usize)>,
}

impl SparseBuilder {
    pub(crate) fn new(limit: usize) -> SparseBuilder {
        Self::reusing(Vec::with_capacity(64), limit)
    }

    /// A builder writing into `out` (cleared first; its allocation kept).
    pub(crate) fn reusing(mut out: Vec<u8>, limit: usize) -> SparseBuilder {
        out.clear();
        out.extend_from_slice(&crate::EMPTY[..HDR]);
        SparseBuilder {
            out,
            next: 0,
            len: HDR + zeros_len(REGISTERS),
            limit,
            last_val: None,
        }
    }

    /// Sets register `index` (below 16384) to `value` (1..=63).
    #[inline]
    pub(crate) fn push(&mut self, index: usize, value: u8) -> Result<(), Refused> {
        debug_assert!(index < REGISTERS && value > 0);
        if index < self.next {
            return Err(Refused::Order);
        }
        if value > VAL_MAX_VALUE {
            return Err(Refused::Dense);
        }
        let gap = index - self.next;
        let old = zeros_len(REGISTERS - self.next);
        let seq = zeros_len(gap) + 1 + zeros_len(REGISTERS - index - 1);
        if seq > old && self.len + (seq - old) > self.limit {
            return Err(Refused::Dense);
        }
        self.len = self.len + seq - old;
        if gap > 0 {
            push_zeros(&mut self.out, gap);
            self.last_val = None;
        }
        match self.last_val {
            Some((v, run)) if v == value && run < 4 => {
                // The merge pass fuses VAL(v, run) and VAL(v, 1).
                if let Some(b) = self.out.last_mut() {
                    *b += 1;
                }
                self.len -= 1;
                self.last_val = Some((v, run + 1));
            }
            _ => {
                self.out.push(0x80 | ((value - 1) << 2));
                self.last_val = Some((value, 1));
            }
        }
        self.next = index + 1;
        Ok(())
    }

    /// The sparse string with the registers set so far, cache invalid.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        if self.next < REGISTERS {
            push_zeros(&mut self.out, REGISTERS - self.next);
        }
        cache::invalidate(&mut self.out);
        debug_assert_eq!(self.out.len(), self.len);
        self.out
    }
}

/// The canonical string of `raw`: sparse while `PFMERGE` keeps it sparse,
/// else dense with the empty HLL's header (cache invalid).
pub(crate) fn from_raw(raw: &[u8; REGISTERS], limit: usize) -> Hll {
    if HDR + runs(raw) > limit {
        return dense_from_raw(raw, limit);
    }
    let mut b = SparseBuilder::new(limit);
    // Eight registers at a time past the zero ones.
    for (c, chunk) in raw.chunks_exact(8).enumerate() {
        if chunk.iter().all(|&v| v == 0) {
            continue;
        }
        for (k, &v) in chunk.iter().enumerate() {
            if v != 0 && b.push(c * 8 + k, v).is_err() {
                return dense_from_raw(raw, limit);
            }
        }
    }
    Hll {
        bytes: b.finish(),
        sparse_max_bytes: limit,
        index: None,
    }
}

/// The number of maximal runs of equal registers. Every sparse opcode
/// covers registers of one value, so a sparse string of `raw` (fused or
/// not) holds at least this many bytes after its header: past the limit,
/// the canonical string is dense without trying the sparse one.
fn runs(raw: &[u8; REGISTERS]) -> usize {
    let (a, b) = (&raw[..REGISTERS - 1], &raw[1..]);
    // Byte counters per 64 registers (they vectorise; a usize count did not).
    let mut changes = 0;
    let (mut ca, mut cb) = (a.chunks_exact(64), b.chunks_exact(64));
    for (x, y) in (&mut ca).zip(&mut cb) {
        let mut c = 0u8;
        for k in 0..64 {
            c += u8::from(x[k] != y[k]);
        }
        changes += usize::from(c);
    }
    let tail = ca.remainder().iter().zip(cb.remainder());
    1 + changes + tail.filter(|(x, y)| x != y).count()
}

fn dense_from_raw(raw: &[u8; REGISTERS], limit: usize) -> Hll {
    let mut h = Hll::new().with_sparse_max_bytes(limit);
    h.promote_with(raw);
    h.invalidate();
    h
}

pub(crate) fn invalid_register(index: usize, value: u8) -> Error {
    if index >= REGISTERS {
        Error::new(ErrorKind::Corrupted, index, "register index past 16383")
    } else {
        Error::new(
            ErrorKind::Corrupted,
            usize::from(value),
            "register value past 63",
        )
    }
}

/// The nonzero registers of an [`Hll`], ascending (see
/// [`Hll::nonzero_registers`]).
#[derive(Clone, Debug)]
pub struct NonzeroRegisters<'a> {
    bytes: &'a [u8],
    /// Sparse: the next opcode's offset. Dense: the next register.
    pos: usize,
    /// Sparse: the first register of the opcode at `pos`.
    register: usize,
    /// The VAL run being yielded: value and registers left.
    run: (u8, usize),
    sparse: bool,
}

impl Iterator for NonzeroRegisters<'_> {
    type Item = (usize, u8);

    #[inline]
    fn next(&mut self) -> Option<(usize, u8)> {
        if self.sparse {
            self.next_sparse()
        } else {
            self.next_dense()
        }
    }
}

impl<'a> NonzeroRegisters<'a> {
    /// The nonzero registers of a server string, validated as
    /// [`Hll::from_bytes`] validates it, without copying it.
    ///
    /// ```
    /// let mut h = hll::Hll::new();
    /// h.add(b"a");
    /// let it = hll::NonzeroRegisters::from_bytes(h.as_bytes()).unwrap();
    /// assert!(it.eq(h.nonzero_registers()));
    /// assert!(hll::NonzeroRegisters::from_bytes(b"HYLL").is_err());
    /// ```
    pub fn from_bytes(bytes: &'a [u8]) -> Result<NonzeroRegisters<'a>, Error> {
        Hll::check(bytes)?;
        // A truncated final XZERO reads its missing byte as 0, as validated.
        Ok(Self::over(bytes))
    }

    /// Over a string known to be valid.
    fn over(bytes: &'a [u8]) -> NonzeroRegisters<'a> {
        let sparse = bytes[4] == crate::ENC_SPARSE;
        NonzeroRegisters {
            bytes,
            pos: if sparse { HDR } else { 0 },
            register: 0,
            run: (0, 0),
            sparse,
        }
    }
}

impl NonzeroRegisters<'_> {
    fn next_sparse(&mut self) -> Option<(usize, u8)> {
        loop {
            if self.run.1 > 0 {
                self.run.1 -= 1;
                self.register += 1;
                return Some((self.register - 1, self.run.0));
            }
            let b = *self.bytes.get(self.pos)?;
            if b & 0x80 != 0 {
                let len = usize::from(b & 3) + 1;
                if self.register + len > REGISTERS {
                    return None;
                }
                self.run = (((b >> 2) & 31) + 1, len);
                self.pos += 1;
            } else if b & 0x40 == 0 {
                self.register += usize::from(b & 63) + 1;
                self.pos += 1;
            } else {
                let lo = self.bytes.get(self.pos + 1).copied().unwrap_or(0);
                self.register += (usize::from(b & 63) << 8 | usize::from(lo)) + 1;
                self.pos += 2;
            }
        }
    }

    fn next_dense(&mut self) -> Option<(usize, u8)> {
        while self.pos < REGISTERS {
            // Four registers are three bytes: skip them while all zero.
            if self.pos.is_multiple_of(4) {
                let at = HDR + self.pos / 4 * 3;
                if self.bytes[at..at + 3] == [0, 0, 0] {
                    self.pos += 4;
                    continue;
                }
            }
            let i = self.pos;
            self.pos += 1;
            let v = dense::get(self.bytes, i);
            if v != 0 {
                return Some((i, v));
            }
        }
        None
    }
}

impl Hll {
    /// The canonical string of a set of registers: what `PFMERGE` stores
    /// in a new key from sparse sources holding them. Every nonzero
    /// register is set in ascending index order into the empty sparse
    /// string; the string turns dense where a value is above 32 or it
    /// would pass [`DEFAULT_SPARSE_MAX_BYTES`](crate::DEFAULT_SPARSE_MAX_BYTES)
    /// (the servers' `hll-sparse-max-bytes` default); the cache is marked
    /// invalid. The string depends only on the registers, never on the
    /// order of the adds that raised them (a sparse [`Hll::add`] string
    /// does), so equal registers give equal bytes.
    ///
    /// `registers` are `(index, value)` pairs in any order; a repeated
    /// index keeps its largest value and value 0 sets nothing. An index
    /// past 16383 or a value past 63 is an error (kind
    /// [`ErrorKind::Corrupted`]). Ascending input is encoded as it comes;
    /// any other order costs one 16 KiB scratch array.
    ///
    /// ```
    /// use hll::Hll;
    ///
    /// let mut a = Hll::new();
    /// a.add_all(["x", "y", "z"]);
    /// // The same registers, listed in another order:
    /// let mut regs: Vec<(usize, u8)> = a.nonzero_registers().collect();
    /// regs.reverse();
    /// let c = Hll::from_registers(regs).unwrap();
    /// assert_eq!(c.registers(), a.registers());
    /// assert_eq!(c, a.to_canonical());
    /// assert!(Hll::from_registers([(16384, 1)]).is_err());
    /// ```
    pub fn from_registers<I>(registers: I) -> Result<Hll, Error>
    where
        I: IntoIterator<Item = (usize, u8)>,
    {
        Self::from_registers_with(registers, crate::DEFAULT_SPARSE_MAX_BYTES)
    }

    /// [`from_registers`](Hll::from_registers) with another sparse size
    /// limit (`hll-sparse-max-bytes`).
    pub fn from_registers_with<I>(registers: I, sparse_max_bytes: usize) -> Result<Hll, Error>
    where
        I: IntoIterator<Item = (usize, u8)>,
    {
        let mut h = Hll::new().with_sparse_max_bytes(sparse_max_bytes);
        h.set_registers(registers)?;
        Ok(h)
    }

    /// Replaces the value by the canonical string of `registers` (see
    /// [`Hll::from_registers`]), under this HLL's sparse size limit,
    /// reusing its allocation: one buffer serves a whole column of
    /// strings. On an error the value is the empty HLL.
    ///
    /// ```
    /// let mut h = hll::Hll::new();
    /// for i in 0..3 {
    ///     h.set_registers([(i, 1)]).unwrap();
    ///     assert_eq!(h.nonzero_registers().collect::<Vec<_>>(), [(i, 1)]);
    /// }
    /// ```
    pub fn set_registers<I>(&mut self, registers: I) -> Result<(), Error>
    where
        I: IntoIterator<Item = (usize, u8)>,
    {
        let limit = self.sparse_max_bytes;
        self.index = None;
        let mut it = registers.into_iter();
        let mut b = SparseBuilder::reusing(core::mem::take(&mut self.bytes), limit);
        while let Some((i, v)) = it.next() {
            if i >= REGISTERS || v > 63 {
                *self = Hll::new().with_sparse_max_bytes(limit);
                return Err(invalid_register(i, v));
            }
            if v == 0 {
                continue;
            }
            if b.push(i, v).is_err() {
                // Out of order, or dense: finish on a byte per register.
                let mut scratch = zeroed();
                let raw = &mut scratch.0;
                sparse::max_into(&b.finish(), raw);
                raw[i] = raw[i].max(v);
                for (i, v) in it {
                    if i >= REGISTERS || v > 63 {
                        *self = Hll::new().with_sparse_max_bytes(limit);
                        return Err(invalid_register(i, v));
                    }
                    raw[i] = raw[i].max(v);
                }
                *self = from_raw(raw, limit);
                return Ok(());
            }
        }
        self.bytes = b.finish();
        Ok(())
    }

    /// The canonical string with this HLL's registers (see
    /// [`Hll::from_registers`]): what `PFMERGE new self` stores when
    /// `self` is sparse. The sparse size limit is kept.
    ///
    /// ```
    /// // 62 adjacent registers at 1, set in two orders (hashes whose
    /// // registers are 0..62, with one trailing zero above the index):
    /// let hashes: Vec<u64> = (0..62u64).map(|i| i | 1 << 14).collect();
    /// let (mut up, mut down) = (hll::Hll::new(), hll::Hll::new());
    /// hashes.iter().for_each(|&x| { up.add_hash(x); });
    /// hashes.iter().rev().for_each(|&x| { down.add_hash(x); });
    /// assert_ne!(up, down); // PFADD's bytes depend on the order
    /// assert_eq!(up.to_canonical(), down.to_canonical());
    /// ```
    #[must_use]
    pub fn to_canonical(&self) -> Hll {
        let limit = self.sparse_max_bytes;
        let made = if self.is_sparse() {
            Self::from_registers_with(self.nonzero_registers(), limit)
        } else {
            let mut scratch = zeroed();
            self.max_into(&mut scratch.0);
            Ok(from_raw(&scratch.0, limit))
        };
        match made {
            Ok(h) => h,
            // A validated string holds registers below 16384 of at most 63.
            Err(_) => unreachable!("an Hll's registers are in range"),
        }
    }

    /// The registers that are not zero, as `(index, value)` in ascending
    /// index order: straight from the opcodes of a sparse string (as many
    /// steps as opcodes and registers set), from the packed registers of a
    /// dense one (zero groups of four skipped three bytes at a time).
    ///
    /// ```
    /// let mut h = hll::Hll::new();
    /// h.add(b"a");
    /// let (i, v) = hll::register_of(hll::hash(b"a"));
    /// assert_eq!(h.nonzero_registers().collect::<Vec<_>>(), [(i, v)]);
    /// ```
    #[must_use]
    pub fn nonzero_registers(&self) -> NonzeroRegisters<'_> {
        NonzeroRegisters::over(&self.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Registers;
    use alloc::vec;

    /// The pre-existing route: every register set with the servers'
    /// sparse routine (`sparse::set`) in ascending order.
    fn oracle(raw: &[u8; REGISTERS], limit: usize) -> Hll {
        let mut r = Registers::new();
        r.raw_mut().copy_from_slice(raw);
        r.to_merged_hll_with_set(limit)
    }

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// Register sets of every shape that matters: runs of equal values
    /// (VAL fusion up to 4), gaps of 1..=64 and 65+ (ZERO / XZERO), values
    /// above 32, sizes around the limit, at several limits.
    #[test]
    #[cfg_attr(miri, ignore = "16384-register scans per case: minutes under Miri")]
    fn builder_matches_the_servers_sparse_routine() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let cases = 3000;
        for case in 0..cases {
            let mut raw = [0u8; REGISTERS];
            let n = (rng.next() % 3000) as usize;
            let maxv = [1u64, 2, 3, 32, 33, 51][case % 6];
            let mut i = (rng.next() % 100) as usize;
            for _ in 0..n {
                if i >= REGISTERS {
                    break;
                }
                raw[i] = (rng.next() % maxv) as u8 + 1;
                i += match rng.next() % 4 {
                    0 => 1,
                    1 => 1 + (rng.next() % 64) as usize,
                    2 => 60 + (rng.next() % 10) as usize,
                    _ => 1 + (rng.next() % 300) as usize,
                };
            }
            for limit in [0usize, 20, 300, 3000, 10_000] {
                let want = oracle(&raw, limit);
                let got = from_raw(&raw, limit);
                assert_eq!(got.as_bytes(), want.as_bytes(), "case {case} limit {limit}");
                let pairs = raw
                    .iter()
                    .enumerate()
                    .filter(|(_, &v)| v != 0)
                    .map(|(i, &v)| (i, v));
                let from_pairs = Hll::from_registers_with(pairs.clone(), limit).unwrap();
                assert_eq!(from_pairs.as_bytes(), want.as_bytes());
                let mut rev: Vec<(usize, u8)> = pairs.collect();
                rev.reverse();
                let dup = rev.first().copied();
                rev.extend(dup.map(|(i, _)| (i, 1)));
                let from_rev = Hll::from_registers_with(rev, limit).unwrap();
                assert_eq!(from_rev.as_bytes(), want.as_bytes());
            }
        }
    }

    /// The size check counts the byte that the VAL fusion then removes: a
    /// string at exactly the limit turns dense on a register that would
    /// have fused (and stayed sparse at the same length).
    #[test]
    #[cfg_attr(miri, ignore = "16384-register scans per case: minutes under Miri")]
    fn promotion_before_fusion_matches() {
        for n in 1..200usize {
            // n registers with gaps of one (19 + 2(n - 1) bytes), then one
            // register that fuses with the last.
            let mut raw = [0u8; REGISTERS];
            for i in 0..n {
                raw[2 * i] = 3;
            }
            raw[2 * n - 1] = 3;
            let before = 19 + 2 * (n - 1);
            for limit in [before - 1, before, before + 1] {
                let want = oracle(&raw, limit);
                assert_eq!(want.is_sparse(), limit > before, "n {n} limit {limit}");
                assert_eq!(from_raw(&raw, limit).as_bytes(), want.as_bytes());
            }
        }
    }

    /// Runs of equal values (fused up to 4) and gaps growing one register
    /// at a time up to each limit.
    #[test]
    #[cfg_attr(miri, ignore = "16384-register scans per case: minutes under Miri")]
    fn promotion_at_the_limit_matches() {
        for limit in 16..200usize {
            for v in [1u8, 2] {
                let mut raw = [0u8; REGISTERS];
                for (i, r) in raw.iter_mut().enumerate().take(700) {
                    *r = if i % 5 == 4 { 0 } else { v };
                }
                assert_eq!(
                    from_raw(&raw, limit).as_bytes(),
                    oracle(&raw, limit).as_bytes(),
                    "limit {limit}"
                );
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "16384-register scans per case: minutes under Miri")]
    fn nonzero_registers_of_both_encodings() {
        let mut rng = Rng(77);
        for n in [0usize, 1, 10, 500, 5000] {
            let mut h = Hll::new();
            for _ in 0..n {
                h.add_hash(rng.next());
            }
            let raw = h.registers();
            let want: Vec<(usize, u8)> = raw
                .iter()
                .enumerate()
                .filter(|(_, &v)| v != 0)
                .map(|(i, &v)| (i, v))
                .collect();
            assert_eq!(h.nonzero_registers().collect::<Vec<_>>(), want, "{n}");
            let borrowed = NonzeroRegisters::from_bytes(h.as_bytes()).unwrap();
            assert_eq!(borrowed.collect::<Vec<_>>(), want, "{n}");
            let d = Registers::from_hll(&h).to_hll();
            assert_eq!(d.nonzero_registers().collect::<Vec<_>>(), want, "{n}");
            assert_eq!(h.to_canonical(), oracle(&raw, 3000));
            assert_eq!(d.to_canonical(), oracle(&raw, 3000));
        }
    }

    /// A reused `Hll` gives the same strings as fresh ones, and the empty
    /// HLL after an error; a truncated final XZERO is read as validated.
    #[test]
    #[cfg_attr(miri, ignore = "16384-register scans per case: minutes under Miri")]
    fn set_registers_reuses_and_recovers() {
        let mut h = Hll::new();
        for regs in [
            vec![(5usize, 3u8)],
            vec![],
            (0..2000).map(|i| (i * 3, 2)).collect(),
            vec![(1, 1)],
        ] {
            h.set_registers(regs.iter().copied()).unwrap();
            assert_eq!(h, Hll::from_registers(regs).unwrap());
        }
        assert!(h.set_registers([(1, 1), (0, 99)]).is_err());
        assert_eq!(h, Hll::new());
        assert!(h.set_registers([(1, 1), (2, 1), (0, 99)]).is_err());
        assert_eq!(h, Hll::new());
        // 255 zeros, then an XZERO whose missing second byte, read as 0,
        // makes the 16129 registers left; then a VAL before it.
        let mut truncated = crate::EMPTY[..HDR].to_vec();
        truncated.extend_from_slice(&[0x3f, 0x3f, 0x3f, 0x3e, 0x7f]);
        assert_eq!(NonzeroRegisters::from_bytes(&truncated).unwrap().count(), 0);
        truncated[HDR + 3] = 0x3d;
        truncated.insert(HDR + 4, 0x80);
        let got: Vec<_> = NonzeroRegisters::from_bytes(&truncated).unwrap().collect();
        assert_eq!(got, [(254, 1)]);
        assert!(NonzeroRegisters::from_bytes(&crate::EMPTY[..HDR]).is_err());
    }

    #[test]
    fn runs_counts_maximal_runs() {
        let mut raw = [0u8; REGISTERS];
        assert_eq!(runs(&raw), 1);
        raw[REGISTERS - 1] = 1;
        assert_eq!(runs(&raw), 2);
        raw[0] = 2;
        raw[63] = 2;
        raw[64] = 2;
        raw[65] = 3;
        // 2 | 0.. | 2 2 | 3 | 0.. | 1
        assert_eq!(runs(&raw), 6);
        for seed in 0..simd_core::testing::scaled(20, 0) as u64 {
            let bytes = simd_core::testing::random_bytes(seed, REGISTERS);
            for (r, b) in raw.iter_mut().zip(bytes) {
                *r = b % 3;
            }
            let want = 1 + raw.windows(2).filter(|w| w[0] != w[1]).count();
            assert_eq!(runs(&raw), want);
        }
    }

    #[test]
    fn out_of_range_registers_are_errors() {
        assert!(Hll::from_registers([(16384, 1)]).is_err());
        assert!(Hll::from_registers([(0, 64)]).is_err());
        assert!(Hll::from_registers([(5, 1), (3, 64)]).is_err());
        assert!(Hll::from_registers([(5, 1), (3, 1), (99_999, 1)]).is_err());
        assert_eq!(Hll::from_registers([(3, 0)]).unwrap(), Hll::new());
        assert_eq!(
            Hll::from_registers([(0, 63)]).unwrap().register(0),
            63,
            "values above 32 turn the string dense"
        );
    }
}
