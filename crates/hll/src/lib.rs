//! HyperLogLog byte-for-byte compatible with Redis and Valkey strings.
//!
//! An [`Hll`] owns exactly the bytes a server stores under a HyperLogLog key
//! (sparse or dense, header with the cached cardinality). Adding, counting
//! and merging here leaves the same bytes `PFADD`, `PFCOUNT` and `PFMERGE`
//! leave on Redis (>= 5) or Valkey, so sketches move freely between
//! processes and servers as plain strings: `GET` one from a server and
//! count or merge it locally, or build one locally and `SET` it.
//!
//! ```
//! use hll::Hll;
//!
//! let mut h = Hll::new();                      // PFADD k
//! assert!(h.add(b"a"));                        // PFADD k a   -> 1
//! h.add_all([&b"b"[..], b"c"]);                // PFADD k b c
//! assert!(!h.add(b"a"));                       // PFADD k a   -> 0
//! assert_eq!(h.count(), 3);                    // PFCOUNT k   -> 3
//! assert_eq!(
//!     &h.as_bytes()[16..],                     // GET k (the sparse body)
//!     &[0x60, 0xf3, 0x80, 0x50, 0xb1, 0x84, 0x4b, 0xfb, 0x80, 0x42, 0x5a][..]
//! );
//!
//! let mut other = Hll::new();
//! other.add_all((0..1000u32).map(|i| i.to_le_bytes()));
//! assert_eq!(hll::count_union(&[&h, &other]), 1008); // PFCOUNT k other (estimate of 1003)
//! h.merge(&[&other]);                                // PFMERGE k other
//! assert_eq!(h.count(), 1008);
//!
//! let copy = Hll::from_bytes(h.as_bytes()).unwrap(); // SET k2 <bytes>
//! assert_eq!(copy, h);
//! ```
//!
//! # Exactness
//! Element hashing (MurmurHash64A, seed `0xadc83b19`), the sparse opcode
//! splitting and its five-step VAL merge pass (so sparse bytes depend on
//! insertion order exactly as on a server), promotion to dense at a value
//! above 32 or past [`DEFAULT_SPARSE_MAX_BYTES`] (configurable, like
//! `hll-sparse-max-bytes`), the f64 estimator and the cache bytes all follow
//! the servers; the test suite checks golden bytes recorded from Redis 7.0.15
//! and Valkey 9.1.2, and a live differential test runs thousands of random
//! commands against both.
//!
//! # Validation: where this crate is stricter than a server
//! [`Hll::from_bytes`] validates the whole string up front, so every later
//! operation is infallible. Its [`ErrorKind`] matches the server's answer:
//! - [`ErrorKind::NotHll`] (server: `WRONGTYPE`): shorter than 16 bytes,
//!   magic not `HYLL`, encoding byte above 1, dense and not exactly 12304
//!   bytes. Servers check exactly this on every command.
//! - [`ErrorKind::Corrupted`] (server: `INVALIDOBJ`): sparse opcodes that do
//!   not cover exactly 16384 registers. Servers only notice this when they
//!   read all registers (`PFCOUNT` without a valid cache, `PFMERGE`, a
//!   promotion). **Stricter:** a server lets `PFADD` succeed on such a string
//!   (often) and returns a valid cached count without looking; `from_bytes`
//!   rejects the string in every case.
//! - A sparse string whose last opcode is an XZERO missing its second byte is
//!   read by servers with that byte taken from the string's NUL terminator,
//!   i.e. as 0. `from_bytes` does the same and **accepts** it when the
//!   registers then add up to 16384 (as servers do, e.g. `PFCOUNT` answers),
//!   completing the opcode: [`Hll::as_bytes`] then returns the input plus
//!   one `0x00` byte. (What a server's `PFADD` does next to such a truncated
//!   opcode is itself unspecified: it writes past the string's length.)
//! - Hostile strings (CVE-2019-10192/10193 runs past register 16383,
//!   CVE-2025-32023's 131072+ XZERO opcodes overflowing a 32-bit sum) are
//!   rejected at the first opcode that passes register 16383: one pass,
//!   `usize` sums, no allocation beyond a copy of the input.
//! - Unused header bytes 5..8 are accepted with any value and kept, as
//!   servers do.
//!
//! # The degenerate all-63 dense string
//! A crafted dense string whose registers are all 63 (or any dense string
//! whose registers all hold 51 or more: values 52..=63 are ignored by the
//! estimator) makes the estimator divide by zero. Both servers then answer
//! `PFCOUNT` with -9223372036854775808 and write cache bytes
//! `00 00 00 00 00 00 00 80`, which still mark the cache invalid.
//! [`Hll::count`] and [`count_union`] return the same bits as a `u64`,
//! `1 << 63` = 9223372036854775808, and `count` writes the same cache bytes
//! (so a later `count` recomputes, like the server). Any estimate of 2^63 or
//! more maps to this value; nothing panics.
//!
//! # Features
//! - `std` (default): the `CPU_DETECT_MAX_LEVEL` ceiling (an environment
//!   variable). Without it the crate is `no_std` and needs `alloc` (an
//!   [`Hll`] owns a `Vec<u8>`); kernels are still chosen at run time, and
//!   [`Error`] implements `core::error::Error` either way.
//! - `serde`: `Serialize`/`Deserialize` for [`Hll`] as the Redis bytes
//!   (deserialization validates with [`Hll::from_bytes`]).
//! - `redis` (implies `std`): `redis::FromRedisValue` and
//!   `redis::ToRedisArgs` for [`Hll`], so `GET` reads one (as
//!   `Option<Hll>` where the key may be missing; invalid bytes are a
//!   `ParseError` naming what is wrong) and `SET` stores one as one bulk
//!   argument.
//!
//! # Speed
//! Merging and counting convert between the packed 6-bit dense registers
//! and one byte per register with SIMD kernels (AVX2, AVX-512 VBMI, NEON,
//! scalar elsewhere), chosen once at run time; sparse inputs decode straight
//! into the byte-per-register accumulator. [`kernels`] lists them.
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs, unsafe_op_in_unsafe_fn)]
// A pure function whose result is dropped is a bug in the caller.
#![warn(clippy::must_use_candidate, clippy::return_self_not_must_use)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

/// The README's examples, run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod dense;
mod dispatch;
mod error;
mod estimate;
mod hash;
mod kernels;
#[cfg(feature = "redis")]
mod redis_impl;
mod registers;
#[cfg(feature = "serde")]
mod serde_impl;
mod sparse;

use alloc::vec::Vec;
use core::fmt;

pub use dispatch::{
    hash_kernels, kernels, selected_hash_kernel, selected_kernel, HashKernel, Kernel,
};
pub use error::{Error, ErrorKind};
pub use hash::{hash, hash_batch, murmurhash64a, SEED};
pub use registers::Registers;

/// Index bits.
const P: u32 = 14;
/// Hash bits left for the run length.
const Q: u32 = 64 - P;
/// Number of registers (2^14).
pub const REGISTERS: usize = 1 << P;
/// Bytes of the header (magic, encoding, 3 unused, 8 cache).
pub const HEADER_BYTES: usize = 16;
const HDR: usize = HEADER_BYTES;
/// Bytes of the dense register body (16384 x 6 bits).
pub const DENSE_BODY: usize = REGISTERS * 6 / 8;
/// Bytes of a dense string, header included.
pub const DENSE_BYTES: usize = HDR + DENSE_BODY;
/// The servers' default `hll-sparse-max-bytes`: a sparse string that would
/// grow past this many bytes (header included) is converted to dense.
pub const DEFAULT_SPARSE_MAX_BYTES: usize = 3000;

/// Dense batches of [`Hll::add_all`] from this many elements on go through
/// one-byte registers (an unpack and a pack of the body pay for themselves
/// past this).
const UNPACK_MIN: usize = 256;

const ENC_DENSE: u8 = 0;
const ENC_SPARSE: u8 = 1;

/// What `PFADD k` stores for a new key: sparse, one XZERO of 16384, cache
/// invalid.
const EMPTY: [u8; 18] = [
    b'H', b'Y', b'L', b'L', ENC_SPARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x7f, 0xff,
];

/// A HyperLogLog stored as the exact bytes of a Redis/Valkey string value.
///
/// Equality and hashing compare the bytes (the sparse size limit is a
/// setting, not part of the value).
#[derive(Clone)]
pub struct Hll {
    bytes: Vec<u8>,
    sparse_max_bytes: usize,
    /// Checkpoints into the sparse string for `add`, built on the first
    /// sparse add and dropped by every other edit of the opcodes (merge,
    /// promotion). Not part of the value.
    index: Option<alloc::boxed::Box<sparse::Index>>,
}

impl Default for Hll {
    fn default() -> Hll {
        Hll::new()
    }
}

impl PartialEq for Hll {
    fn eq(&self, other: &Hll) -> bool {
        self.bytes == other.bytes
    }
}
impl Eq for Hll {}

impl core::hash::Hash for Hll {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.bytes.hash(state)
    }
}

impl Hll {
    /// The empty HyperLogLog, byte for byte what `PFADD k` (no elements)
    /// stores: sparse, 18 bytes, cache marked invalid.
    ///
    /// ```
    /// assert_eq!(hll::Hll::new().as_bytes(), b"HYLL\x01\0\0\0\0\0\0\0\0\0\0\x80\x7f\xff");
    /// ```
    #[must_use]
    pub fn new() -> Hll {
        Hll {
            bytes: EMPTY.to_vec(),
            sparse_max_bytes: DEFAULT_SPARSE_MAX_BYTES,
            index: None,
        }
    }

    /// The same HLL with another sparse size limit (the server setting
    /// `hll-sparse-max-bytes`; default 3000). Byte-exact results need the
    /// same limit as the server the bytes are exchanged with.
    ///
    /// ```
    /// let mut h = hll::Hll::new().with_sparse_max_bytes(0);
    /// h.add(b"x"); // any growth now converts to dense
    /// assert!(!h.is_sparse());
    /// ```
    #[must_use]
    pub fn with_sparse_max_bytes(mut self, limit: usize) -> Hll {
        self.sparse_max_bytes = limit;
        self
    }

    /// Sets the sparse size limit (see [`Hll::with_sparse_max_bytes`]).
    ///
    /// ```
    /// let mut h = hll::Hll::new();
    /// h.set_sparse_max_bytes(350);
    /// assert_eq!(h.sparse_max_bytes(), 350);
    /// ```
    pub fn set_sparse_max_bytes(&mut self, limit: usize) {
        self.sparse_max_bytes = limit;
    }

    /// The sparse size limit in use.
    #[must_use]
    pub fn sparse_max_bytes(&self) -> usize {
        self.sparse_max_bytes
    }

    /// Validates a server string (see the crate docs for what is accepted)
    /// and takes a copy.
    ///
    /// ```
    /// use hll::{ErrorKind, Hll};
    /// let h = Hll::from_bytes(b"HYLL\x01\0\0\0\0\0\0\0\0\0\0\x80\x7f\xff").unwrap();
    /// assert!(h.is_sparse());
    /// // One register short of 16384: what a server calls INVALIDOBJ.
    /// let e = Hll::from_bytes(b"HYLL\x01\0\0\0\0\0\0\0\0\0\0\x80\x7f\xfe").unwrap_err();
    /// assert_eq!(e.kind(), ErrorKind::Corrupted);
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Hll, Error> {
        Self::check(bytes)?;
        Hll::from_vec(bytes.to_vec())
    }

    /// Like [`Hll::from_bytes`], taking ownership of the buffer (no copy).
    ///
    /// ```
    /// let mut a = hll::Hll::new();
    /// a.add(b"x");
    /// // What a GET of the key would return, parsed back without a copy.
    /// let b = hll::Hll::from_vec(a.as_bytes().to_vec()).unwrap();
    /// assert_eq!(a, b);
    /// ```
    pub fn from_vec(mut bytes: Vec<u8>) -> Result<Hll, Error> {
        if Self::check(&bytes)? {
            bytes.push(0);
        }
        Ok(Hll {
            bytes,
            sparse_max_bytes: DEFAULT_SPARSE_MAX_BYTES,
            index: None,
        })
    }

    /// Validates; `Ok(true)` if a truncated final XZERO must be completed.
    fn check(bytes: &[u8]) -> Result<bool, Error> {
        use ErrorKind::NotHll;
        if bytes.len() < HDR {
            return Err(Error::new(
                NotHll,
                bytes.len(),
                "shorter than the 16-byte header",
            ));
        }
        if &bytes[..4] != b"HYLL" {
            return Err(Error::new(NotHll, 0, "magic is not \"HYLL\""));
        }
        match bytes[4] {
            ENC_DENSE if bytes.len() != DENSE_BYTES => Err(Error::new(
                NotHll,
                bytes.len(),
                "dense string is not exactly 12304 bytes (offset = its length)",
            )),
            ENC_DENSE => Ok(false),
            ENC_SPARSE => match sparse::validate(bytes)? {
                sparse::Valid::Exact => Ok(false),
                sparse::Valid::TruncatedXzero => Ok(true),
            },
            _ => Err(Error::new(
                NotHll,
                4,
                "encoding byte is neither 0 (dense) nor 1 (sparse)",
            )),
        }
    }

    /// The string value, exactly as a server stores it.
    ///
    /// ```
    /// let mut h = hll::Hll::new();
    /// h.add(b"x");
    /// let value = h.as_bytes(); // what `SET key value` would store
    /// assert_eq!(&value[..4], b"HYLL");
    /// assert_eq!(value[4], 1); // sparse
    /// ```
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The string value, exactly as a server stores it.
    ///
    /// ```
    /// let bytes = hll::Hll::new().into_bytes();
    /// assert_eq!(bytes.len(), 18);
    /// ```
    #[must_use]
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// Whether the sparse encoding is in use (`false`: dense).
    ///
    /// ```
    /// let mut h = hll::Hll::new();
    /// assert!(h.is_sparse());
    /// h.add_all((0..5000u32).map(|i| i.to_le_bytes()));
    /// assert!(!h.is_sparse()); // past the 3000-byte sparse limit
    /// assert_eq!(h.as_bytes().len(), 12304);
    /// ```
    #[must_use]
    pub fn is_sparse(&self) -> bool {
        self.bytes[4] == ENC_SPARSE
    }

    /// `PFADD key element`: whether a register changed (then the cached
    /// count is invalidated).
    ///
    /// To add many elements, [`add_all`](Hll::add_all) gives the same bytes
    /// faster on sparse HLLs (it hashes ahead of the updates: ~27 instead
    /// of ~34 ns per element on Zen 5).
    ///
    /// ```
    /// let mut h = hll::Hll::new();
    /// assert!(h.add(b"apple"));
    /// assert!(!h.add(b"apple")); // already counted: no register changed
    /// assert_eq!(h.count(), 1);
    /// ```
    #[inline]
    pub fn add(&mut self, element: &[u8]) -> bool {
        self.add_hash(hash(element))
    }

    /// Adds an element by its [`hash`] (MurmurHash64A with [`SEED`]), for
    /// callers that hash elsewhere.
    ///
    /// ```
    /// let (mut a, mut b) = (hll::Hll::new(), hll::Hll::new());
    /// a.add(b"apple");
    /// b.add_hash(hll::hash(b"apple"));
    /// assert_eq!(a, b);
    /// ```
    #[inline]
    pub fn add_hash(&mut self, hash: u64) -> bool {
        let (index, count) = hash::index_count(hash);
        if self.is_sparse() {
            self.set_sparse(index, count)
        } else {
            self.set_dense(index, count)
        }
    }

    /// `PFADD key e1 e2 ...`: adds every element in order (a conversion to
    /// dense part-way sends the rest to the dense registers, as on a server);
    /// whether any register changed. The result is byte for byte that of
    /// one [`add`](Hll::add) per element, in order.
    ///
    /// Into a dense HLL, 256 elements or more (as the iterator's
    /// `size_hint` promises, or once 256 have been added) go through one
    /// byte per register: the body is unpacked once, each element costs a
    /// hash and a byte max, and the body is packed once at the end (for
    /// 16-byte elements in one buffer, 2.9-3.5 ns an element on an Emerald
    /// Rapids core against 4.5-8 ns for the loop of `add`). [`Registers`]
    /// keeps that form across calls.
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

    /// Raises one register of a sparse HLL (converting it to dense when the
    /// edit would pass the sparse limit), invalidating the cache if it
    /// changed. Out of line: the sparse edit gives it a large frame.
    fn set_sparse(&mut self, index: usize, count: u8) -> bool {
        debug_assert!(self.is_sparse());
        let bytes = &self.bytes;
        let idx = self
            .index
            .get_or_insert_with(|| alloc::boxed::Box::new(sparse::Index::build(bytes)));
        match sparse::set_indexed(&mut self.bytes, index, count, self.sparse_max_bytes, idx) {
            sparse::Set::Unchanged => false,
            sparse::Set::Changed => true,
            sparse::Set::NeedsDense => {
                self.promote();
                self.set_dense(index, count)
            }
        }
    }

    /// Raises one register of a dense HLL, inline and without a branch on
    /// the outcome: the cache is invalidated (bit 7 of byte 15, as
    /// [`invalidate`](Self::invalidate) does) by arithmetic on `changed`.
    #[inline(always)]
    fn set_dense(&mut self, index: usize, count: u8) -> bool {
        let changed = dense::set_max(&mut self.bytes, index, count);
        // The cached count is invalidated only where it is still valid: the
        // header byte is then stored to once, not on every add, so that
        // each add's load of it does not wait for the previous add's store
        // (a chain through memory from add to add; ~2 ns an add). The test
        // is true once per run of adds that changes something, so it is
        // predicted.
        if self.bytes[15] & 0x80 == 0 {
            self.bytes[15] |= u8::from(changed) << 7;
        }
        changed
    }

    /// Converts sparse to dense: the whole header is copied (cache
    /// included), only the encoding byte changes. Never inlined: its 16 KiB
    /// scratch array inlined into `set_sparse` gave every sparse add a
    /// 16 KiB stack frame with four stack-probe stores (no measurable time
    /// change on Zen 5; kept for the smaller frame).
    #[cold]
    #[inline(never)]
    fn promote(&mut self) {
        let mut raw = kernels::Aligned([0u8; REGISTERS]);
        sparse::max_into(&self.bytes, &mut raw.0);
        self.promote_with(&raw.0);
    }

    /// Replaces the (sparse) bytes by a dense string with this header and
    /// these registers.
    fn promote_with(&mut self, raw: &[u8; REGISTERS]) {
        self.index = None;
        // The body is packed into the spare capacity: no 12 KiB memset
        // for bytes the kernel overwrites anyway.
        let mut d = Vec::with_capacity(DENSE_BYTES);
        d.extend_from_slice(&self.bytes[..HDR]);
        d[4] = ENC_DENSE;
        let body: &mut kernels::Uninit<DENSE_BODY> =
            match (&mut d.spare_capacity_mut()[..DENSE_BODY]).try_into() {
                Ok(b) => b,
                Err(_) => unreachable!("capacity is HDR + DENSE_BODY"),
            };
        dispatch::pack(raw, body);
        // SAFETY: pack wrote all DENSE_BODY bytes after the HDR header bytes,
        // within the capacity.
        unsafe { d.set_len(DENSE_BYTES) };
        self.bytes = d;
    }

    fn invalidate(&mut self) {
        self.bytes[15] |= 0x80;
    }

    /// The cached count if the cache is valid (bit 7 of byte 15 clear).
    ///
    /// ```
    /// let mut h = hll::Hll::new();
    /// h.add(b"x");
    /// assert_eq!(h.cached_count(), None); // PFADD invalidated it
    /// assert_eq!(h.count(), 1); // PFCOUNT writes it
    /// assert_eq!(h.cached_count(), Some(1));
    /// ```
    #[must_use]
    pub fn cached_count(&self) -> Option<u64> {
        let c = simd_core::load::u64_le(&self.bytes, 8);
        (c >> 63 == 0).then_some(c)
    }

    /// `PFCOUNT key`: a valid cached count is returned as is; otherwise the
    /// count is computed and written into the cache bytes, as a server does.
    /// See the crate docs for the degenerate all-63 case.
    ///
    /// ```
    /// let mut h = hll::Hll::new();
    /// h.add_all((0..1000u32).map(|i| i.to_le_bytes()));
    /// let c = h.count();
    /// assert!((980..=1020).contains(&c)); // about 0.81% standard error
    /// ```
    pub fn count(&mut self) -> u64 {
        if let Some(c) = self.cached_count() {
            return c;
        }
        let c = self.estimate();
        self.bytes[8..16].copy_from_slice(&c.to_le_bytes());
        c
    }

    /// The count computed from the registers, ignoring and not touching the
    /// cache.
    ///
    /// ```
    /// let mut h = hll::Hll::new();
    /// h.add_all(["a", "b"]);
    /// assert_eq!(h.estimate(), 2);
    /// assert_eq!(h.cached_count(), None); // the cache is left alone
    /// ```
    #[must_use]
    pub fn estimate(&self) -> u64 {
        let h = if self.is_sparse() {
            sparse::histogram(&self.bytes)
        } else {
            dispatch::histogram_dense(dense::body(&self.bytes))
        };
        estimate::estimate(&h)
    }

    /// `raw[i] = max(raw[i], register i)`.
    fn max_into(&self, raw: &mut [u8; REGISTERS]) {
        if self.is_sparse() {
            sparse::max_into(&self.bytes, raw);
        } else {
            dispatch::unpack_max(dense::body(&self.bytes), raw);
        }
    }

    /// `PFMERGE self others...`: `self` is the destination and one of the
    /// inputs. If any input (`self` included) is dense the result is dense;
    /// otherwise every merged register is set in ascending order with the
    /// sparse routine (and the normal conversion rules), exactly as a
    /// server does. The cache is invalidated.
    ///
    /// ```
    /// let (mut a, mut b) = (hll::Hll::new(), hll::Hll::new());
    /// a.add_all(["x", "y"]);
    /// b.add_all(["y", "z"]);
    /// a.merge(&[&b]); // PFMERGE a b
    /// assert_eq!(a.count(), 3);
    /// ```
    pub fn merge(&mut self, others: &[&Hll]) {
        // The sparse path below edits the opcodes without the index.
        self.index = None;
        let mut buf = kernels::Aligned(kernels::uninit());
        let inputs = core::iter::once(&*self).chain(others.iter().copied());
        let any_dense = inputs.clone().any(|h| !h.is_sparse());
        let raw = union_registers(inputs, &mut buf.0);
        if any_dense {
            if self.is_sparse() {
                // Registers of `self` are in `raw` already.
                self.promote_with(raw);
            } else {
                // SAFETY: pack writes initialised bytes only.
                let body = unsafe { kernels::as_uninit(dense::body_mut(&mut self.bytes)) };
                dispatch::pack(raw, body);
            }
        } else {
            let mut cur = sparse::Cursor::START;
            for (j, &v) in raw.iter().enumerate() {
                if v == 0 {
                    continue;
                }
                let r = sparse::set(&mut self.bytes, j, v, self.sparse_max_bytes, &mut cur);
                if r == sparse::Set::NeedsDense {
                    // Registers below j hold raw[..j] already, the others
                    // hold at most raw[j..]: the dense result is raw.
                    self.promote_with(raw);
                    break;
                }
            }
        }
        self.invalidate();
    }

    /// Register `i` (`PFDEBUG GETREG`'s `i`-th value).
    ///
    /// # Panics
    /// If `i >= 16384`.
    ///
    /// ```
    /// let mut h = hll::Hll::new();
    /// h.add(b"x");
    /// let set = (0..16384).filter(|&i| h.register(i) != 0).count();
    /// assert_eq!(set, 1);
    /// ```
    #[must_use]
    pub fn register(&self, i: usize) -> u8 {
        assert!(i < REGISTERS, "register index {i} out of range");
        if self.is_sparse() {
            sparse::get(&self.bytes, i)
        } else {
            dense::get(&self.bytes, i)
        }
    }

    /// All 16384 registers, one byte each (`PFDEBUG GETREG`).
    ///
    /// ```
    /// let mut h = hll::Hll::new();
    /// h.add(b"x");
    /// let r = h.registers();
    /// assert_eq!(r.iter().filter(|&&v| v != 0).count(), 1);
    /// ```
    #[must_use]
    pub fn registers(&self) -> [u8; REGISTERS] {
        let mut raw = [0u8; REGISTERS];
        self.max_into(&mut raw);
        raw
    }
}

/// `PFCOUNT k1 k2 ...`: the count of the union (register-wise max through a
/// byte-per-register accumulator, each input read once); no cache is read
/// or written. An empty slice counts 0, like missing keys.
///
/// ```
/// let mut a = hll::Hll::new();
/// a.add(b"x");
/// let mut b = hll::Hll::new();
/// b.add(b"y");
/// assert_eq!(hll::count_union(&[&a, &b]), 2);
/// ```
#[must_use]
pub fn count_union(hlls: &[&Hll]) -> u64 {
    let mut buf = kernels::Aligned(kernels::uninit());
    let raw = union_registers(hlls.iter().copied(), &mut buf.0);
    estimate::estimate(&dispatch::histogram_raw(raw))
}

/// The register-wise max of `hlls` in `buf`, each input read once. The
/// dense inputs (the first [`UNION_AT_ONCE`]) go through one union kernel
/// call, which writes every byte of the uninitialised buffer (that spares
/// zeroing 16 KiB first; with no dense input the kernel writes zeros);
/// the sparse inputs and any further dense ones are maxed in after.
fn union_registers<'a, 'h>(
    hlls: impl Iterator<Item = &'h Hll> + Clone,
    buf: &'a mut kernels::Uninit<REGISTERS>,
) -> &'a mut [u8; REGISTERS] {
    let mut bodies = hlls
        .clone()
        .filter(|h| !h.is_sparse())
        .map(|h| dense::body(&h.bytes));
    let n = match bodies.next() {
        Some(first) => {
            let mut dense = [first; UNION_AT_ONCE];
            let mut n = 1;
            for (d, b) in dense[1..].iter_mut().zip(bodies) {
                *d = b;
                n += 1;
            }
            dispatch::union(&dense[..n], buf);
            n
        }
        None => {
            dispatch::union(&[], buf);
            0
        }
    };
    // SAFETY: union wrote every byte of buf.
    let raw = unsafe { kernels::assume_init(buf) };
    let mut dense_seen = 0;
    for h in hlls {
        if !h.is_sparse() {
            dense_seen += 1;
            if dense_seen <= n {
                continue;
            }
        }
        h.max_into(raw);
    }
    raw
}

/// How many dense inputs [`union_registers`] hands to one union kernel call
/// (a stack array of references; the AVX2 kernel takes four per pass).
const UNION_AT_ONCE: usize = 16;

/// `PFDEBUG DECODE` for sparse HLLs (`z:N` ZERO, `Z:N` XZERO, `v:V,N` VAL,
/// space separated); for dense ones `dense` and the number of non-zero
/// registers.
///
/// ```
/// let mut h = hll::Hll::new();
/// h.add(b"a");
/// assert_eq!(h.to_string(), "Z:12711 v:2,1 Z:3672");
/// ```
impl fmt::Display for Hll {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_sparse() {
            sparse::decode(&self.bytes, f)
        } else {
            let set = self.registers().iter().filter(|&&r| r != 0).count();
            write!(f, "dense ({set} registers set)")
        }
    }
}

impl fmt::Debug for Hll {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hll")
            .field(
                "encoding",
                &if self.is_sparse() { "sparse" } else { "dense" },
            )
            .field("len", &self.bytes.len())
            .field("cached_count", &self.cached_count())
            .field("sparse_max_bytes", &self.sparse_max_bytes)
            .finish()
    }
}

impl AsRef<[u8]> for Hll {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl TryFrom<&[u8]> for Hll {
    type Error = Error;
    fn try_from(bytes: &[u8]) -> Result<Hll, Error> {
        Hll::from_bytes(bytes)
    }
}

impl TryFrom<Vec<u8>> for Hll {
    type Error = Error;
    fn try_from(bytes: Vec<u8>) -> Result<Hll, Error> {
        Hll::from_vec(bytes)
    }
}

impl From<Hll> for Vec<u8> {
    fn from(h: Hll) -> Vec<u8> {
        h.bytes
    }
}

/// Adds every element in order, as [`Hll::add_all`] (`PFADD key e1 e2 ...`;
/// the same bytes as one [`add`](Hll::add) per element).
///
/// ```
/// let mut h = hll::Hll::new();
/// h.extend(["a", "b"]);
/// h.extend(vec![b"c".to_vec()]);
/// let mut one_by_one = hll::Hll::new();
/// for e in ["a", "b", "c"] {
///     one_by_one.add(e.as_bytes());
/// }
/// assert_eq!(h, one_by_one);
/// ```
impl<T: AsRef<[u8]>> Extend<T> for Hll {
    fn extend<I: IntoIterator<Item = T>>(&mut self, elements: I) {
        self.add_all(elements);
    }
}

/// A new HLL holding the elements, added in order as by [`Hll::add_all`]
/// (sparse until it outgrows the sparse size limit, as on a server).
///
/// ```
/// let h: hll::Hll = ["apple", "pear", "apple"].into_iter().collect();
/// let mut by_add = hll::Hll::new();
/// by_add.add_all(["apple", "pear", "apple"]);
/// assert_eq!(h, by_add);
/// assert_eq!(h.estimate(), 2);
/// ```
impl<T: AsRef<[u8]>> FromIterator<T> for Hll {
    fn from_iter<I: IntoIterator<Item = T>>(elements: I) -> Hll {
        let mut h = Hll::new();
        h.add_all(elements);
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Equality and hashing follow the bytes: equal strings are equal and
    /// hash alike, one more register set makes them differ.
    #[test]
    fn eq_and_hash_follow_the_bytes() {
        extern crate std;
        use core::hash::BuildHasher;
        let (mut a, mut b) = (Hll::new(), Hll::new());
        a.add(b"x");
        b.add(b"x");
        assert!(a == b);
        let fixed = std::collections::hash_map::RandomState::new();
        let h = |x: &Hll| fixed.hash_one(x);
        assert_eq!(h(&a), h(&b));
        b.add(b"y");
        assert!(a != b);
        assert_ne!(h(&a), h(&b));
    }

    /// The conversions and formatting traits say what the type's docs say.
    #[test]
    fn conversions_and_formatting() {
        extern crate std;
        use std::format;
        let mut h = Hll::new();
        h.add(b"a");
        let bytes = h.as_bytes().to_vec();
        assert_eq!(AsRef::<[u8]>::as_ref(&h), &bytes[..]);
        assert_eq!(Hll::try_from(&bytes[..]).unwrap(), h);
        assert_eq!(Hll::try_from(bytes.clone()).unwrap(), h);
        assert!(Hll::try_from(&bytes[..15]).is_err());
        assert!(Hll::try_from(bytes[..15].to_vec()).is_err());
        assert_eq!(Vec::from(h.clone()), bytes);
        assert_eq!(
            format!("{h:?}"),
            "Hll { encoding: \"sparse\", len: 21, cached_count: None, sparse_max_bytes: 3000 }"
        );
        let mut d = Hll::new().with_sparse_max_bytes(0);
        d.add(b"a");
        d.add(b"b");
        assert_eq!(format!("{d}"), "dense (2 registers set)");
        let e = Hll::from_bytes(b"HYL").unwrap_err();
        assert_eq!(e.reason(), "shorter than the 16-byte header");
        assert_eq!(
            format!("{e}"),
            "WRONGTYPE not a valid HyperLogLog string: shorter than the 16-byte header (at byte offset 3)"
        );
    }

    /// A header with no body: long enough to be a HyperLogLog string, but
    /// its sparse opcodes cover no registers (servers answer INVALIDOBJ);
    /// one byte shorter it is not one (WRONGTYPE).
    #[test]
    fn header_only() {
        let e = Hll::from_bytes(&EMPTY[..HDR]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Corrupted);
        let e = Hll::from_bytes(&EMPTY[..HDR - 1]).unwrap_err();
        assert_eq!((e.kind(), e.offset()), (ErrorKind::NotHll, HDR - 1));
    }

    /// Small enough for Miri, which checks the uninitialised-buffer paths
    /// (the first dense input unpacked without a zeroed accumulator, the
    /// promotion packed into spare capacity) with the scalar kernels.
    #[test]
    fn union_seeded_by_first_dense_input() {
        let mut sparse = Hll::new();
        let mut dense_a = Hll::new().with_sparse_max_bytes(0);
        let mut dense_b = Hll::new().with_sparse_max_bytes(0);
        for i in 0..40u64 {
            sparse.add_hash((i + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
            dense_a.add_hash(i.wrapping_mul(0xc2b2_ae3d_27d4_eb4f));
            dense_b.add_hash(i ^ 0x1234_5678);
        }
        assert!(sparse.is_sparse() && !dense_a.is_sparse() && !dense_b.is_sparse());
        let all = [&sparse, &dense_a, &dense_b];
        let mut want = [0u8; REGISTERS];
        for h in all {
            for (w, r) in want.iter_mut().zip(h.registers()) {
                *w = (*w).max(r);
            }
        }
        for r in 0..3 {
            let order: [&Hll; 3] = core::array::from_fn(|i| all[(i + r) % 3]);
            let mut m = order[0].clone();
            m.merge(&order[1..]);
            assert_eq!(m.registers(), want, "rotation {r}");
            assert_eq!(m.as_bytes().len(), DENSE_BYTES);
            assert_eq!(count_union(&order), m.estimate(), "rotation {r}");
        }
        let mut promoted = sparse.clone();
        promoted.merge(&[&dense_a]);
        assert_eq!(&promoted.as_bytes()[..4], b"HYLL");
        assert_eq!(count_union(&[]), 0);
    }
}
