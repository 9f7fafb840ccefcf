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
#![deny(
    missing_docs,
    unsafe_op_in_unsafe_fn,
    clippy::undocumented_unsafe_blocks
)]
// A pure function whose result is dropped is a bug in the caller.
#![warn(clippy::must_use_candidate, clippy::return_self_not_must_use)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

/// The README's examples, run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod add_all;
mod cache;
mod canonical;
mod dense;
mod dispatch;
mod error;
mod estimate;
mod hash;
mod kernel;
mod kernels;
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub mod redis;
#[cfg(feature = "redis")]
mod redis_impl;
mod registers;
#[cfg(feature = "serde")]
mod serde_impl;
mod sparse;
mod traits;
mod union;

use alloc::vec::Vec;

pub use canonical::{register_of, NonzeroRegisters};
pub use error::{Error, ErrorKind};
pub use hash::{hash, hash_batch, murmurhash64a, SEED};
pub use kernel::{
    hash_kernels, kernels, selected_hash_kernel, selected_kernel, HashKernel, Kernel,
};
pub use registers::Registers;
pub use simd_core::Level;

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
    /// the outcome (the cache is invalidated as `cache::invalidate_if`
    /// describes).
    #[inline(always)]
    fn set_dense(&mut self, index: usize, count: u8) -> bool {
        let changed = dense::set_max(&mut self.bytes, index, count);
        cache::invalidate_if(&mut self.bytes, changed);
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
        cache::invalidate(&mut self.bytes);
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
        cache::get(&self.bytes)
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
        cache::set(&mut self.bytes, c);
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
        let raw = union::union_registers(inputs, &mut buf.0);
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
    let raw = union::union_registers(hlls.iter().copied(), &mut buf.0);
    estimate::estimate(&dispatch::histogram_raw(raw))
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
