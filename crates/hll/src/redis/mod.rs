//! `PFCOUNT` and `PFMERGE` over keys in any hash slots (feature `redis`):
//! the keys are read with `GET` and counted or merged here, so a Redis or
//! Valkey Cluster answers what one server would, where the server's own
//! command refuses keys of several slots (`CROSSSLOT`).
//!
//! The functions take any [`redis::ConnectionLike`]: a cluster connection
//! (`redis::cluster::ClusterConnection`, the `redis` crate's `cluster`
//! feature) or a plain one. [`aio`] (feature `redis-aio`) has the same
//! functions for `redis::aio::ConnectionLike` (`redis::cluster_async`,
//! `MultiplexedConnection`).
//!
//! ```no_run
//! # #[cfg(feature = "__cluster")] // the `redis` crate's `cluster` feature
//! # fn main() -> redis::RedisResult<()> {
//! let client = redis::cluster::ClusterClient::new(vec!["redis://127.0.0.1:7000/"])?;
//! let mut con = client.get_connection()?;
//! let n = hll::redis::pfcount(&mut con, &["visits:mon", "visits:tue"])?; // PFCOUNT
//! hll::redis::pfmerge(&mut con, "visits:week", &["visits:mon", "visits:tue"])?; // PFMERGE
//! # let _ = n;
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "__cluster"))]
//! # fn main() {}
//! ```
//!
//! # How the keys are read
//! A connection that pipelines (one server) gets one pipeline of `GET`s.
//! On a cluster connection the node owning each slot is asked once per
//! call (`CLUSTER SLOTS`; skipped when all keys share a slot), and the keys
//! of each node go as one pipeline, routed by the connection; nodes are
//! read one after another. The async form sends every `GET` at once on
//! clones of the connection, so nodes are read concurrently. Each value is
//! merged into a 16 KiB register accumulator as it is taken from its
//! batch and dropped; a batch holds up to 128 keys at first, then as many
//! as fit 8 MiB at the largest value seen.
//!
//! # Differences from the server's commands
//! - Not atomic: the keys are read at slightly different times (on
//!   different nodes), and `pfmerge` writes what it read, so a write to a
//!   key in between is not seen, or is overwritten in the destination.
//! - `pfcount` of one key does not write the count it computes back into
//!   the key's cache, as `PFCOUNT` does; the count is the same.
//! - `pfmerge` stores with `SET ... KEEPTTL` (the destination keeps its
//!   time to live, as with `PFMERGE`); it assumes the server's default
//!   `hll-sparse-max-bytes` (3000).
//! - Validation is [`Hll::from_bytes`]'s: a sparse string whose opcodes do
//!   not cover 16384 registers is refused (`INVALIDOBJ`) by `pfmerge` and
//!   by `pfcount` of several keys, as the servers do; `pfcount` of one key
//!   answers a valid cached count without reading the registers, as they do.
//!
//! Errors carry the server's text: a key of another type answers the
//! server's `WRONGTYPE Operation against a key holding the wrong kind of
//! value` (from its `GET`), a string that is not a HyperLogLog
//! `WRONGTYPE Key is not a valid HyperLogLog string value.`, a corrupted
//! one `INVALIDOBJ Corrupted HLL object detected`; with several bad keys,
//! the first in argument order (the destination first for `pfmerge`)
//! decides, and nothing is written.

use crate::{Hll, Registers};
use ::redis::{ConnectionLike, RedisError, RedisResult, ToRedisArgs};
use alloc::vec::Vec;
use simd_core::redis::{self as fetch, FirstError};

#[cfg(feature = "redis-aio")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis-aio")))]
pub mod aio;

/// `PFCOUNT key ...` over keys in any slots: the count of the union of
/// their HyperLogLogs (missing keys count as empty; one key answers its
/// cached count when valid).
///
/// ```no_run
/// # fn main() -> redis::RedisResult<()> {
/// let mut con = redis::Client::open("redis://127.0.0.1/")?.get_connection()?;
/// let n = hll::redis::pfcount(&mut con, &["a", "b", "c"])?;
/// # let _ = n;
/// # Ok(())
/// # }
/// ```
///
/// # Errors
/// The server's, as `PFCOUNT` answers them (see the [module docs](self)):
/// no key, a key of another type, a string that is not a valid HyperLogLog;
/// and the connection's.
pub fn pfcount<C, K>(con: &mut C, keys: &[K]) -> RedisResult<u64>
where
    C: ConnectionLike + ?Sized,
    K: ToRedisArgs,
{
    let keys = fetch::flatten(keys);
    let mut count = Count::new(keys.len())?;
    fetch::get_each(con, &keys, &mut |i, r| count.add(i, r))?;
    count.finish()
}

/// `PFMERGE dest source ...` over keys in any slots: `dest`'s current value
/// (if any) and the sources merged with `PFMERGE`'s rules and stored in
/// `dest` with `SET` (`KEEPTTL`), byte for byte the string `PFMERGE` leaves.
///
/// ```no_run
/// # fn main() -> redis::RedisResult<()> {
/// let mut con = redis::Client::open("redis://127.0.0.1/")?.get_connection()?;
/// hll::redis::pfmerge(&mut con, "all", &["a", "b", "c"])?;
/// # Ok(())
/// # }
/// ```
///
/// # Errors
/// The server's, as `PFMERGE` answers them (see the [module docs](self));
/// nothing is written then. And the connection's.
pub fn pfmerge<C, D, K>(con: &mut C, dest: D, sources: &[K]) -> RedisResult<()>
where
    C: ConnectionLike + ?Sized,
    D: ToRedisArgs,
    K: ToRedisArgs,
{
    let dest = fetch::one_key(&dest)?;
    let keys = merge_keys(&dest, sources);
    let mut merge = Merge::default();
    fetch::get_each(con, &keys, &mut |i, r| merge.add(i, r))?;
    let value = merge.finish()?;
    let cmd = fetch::store(&dest, Some(value.as_bytes()), true);
    con.req_command(&cmd)?.extract_error().map(drop)
}

/// The destination, then the sources.
fn merge_keys<K: ToRedisArgs>(dest: &[u8], sources: &[K]) -> Vec<Vec<u8>> {
    let mut keys = Vec::with_capacity(sources.len() + 1);
    keys.push(dest.to_vec());
    keys.extend(fetch::flatten(sources));
    keys
}

/// The server's error for bytes that are not an acceptable HyperLogLog.
fn hll_error(e: crate::Error) -> RedisError {
    fetch::server_error(match e.kind() {
        crate::ErrorKind::NotHll => "WRONGTYPE Key is not a valid HyperLogLog string value.",
        crate::ErrorKind::Corrupted => "INVALIDOBJ Corrupted HLL object detected",
    })
}

/// `PFCOUNT`, folded one reply at a time.
struct Count {
    keys: usize,
    /// One key: its count.
    single: u64,
    /// Several keys: the union so far.
    union: Option<Registers>,
    error: FirstError,
}

impl Count {
    fn new(keys: usize) -> RedisResult<Count> {
        if keys == 0 {
            return Err(fetch::server_error(
                "ERR wrong number of arguments for 'pfcount' command",
            ));
        }
        Ok(Count {
            keys,
            single: 0,
            union: None,
            error: FirstError::default(),
        })
    }

    fn add(&mut self, i: usize, r: fetch::Reply) {
        let bytes = match r {
            Ok(Some(b)) => b,
            Ok(None) => return,
            Err(e) => return self.error.note(i, e),
        };
        if self.keys == 1 {
            match count_one(bytes) {
                Ok(c) => self.single = c,
                Err(e) => self.error.note(i, e),
            }
            return;
        }
        match Hll::from_vec(bytes) {
            Ok(h) => self.union.get_or_insert_with(Registers::new).merge(&h),
            Err(e) => self.error.note(i, hll_error(e)),
        }
    }

    fn finish(self) -> RedisResult<u64> {
        self.error.check()?;
        Ok(match (self.keys, self.union) {
            (1, _) => self.single,
            (_, Some(r)) => r.estimate(),
            (_, None) => 0,
        })
    }
}

/// `PFCOUNT key` of one value: a valid cached count is answered after the
/// header checks alone, as the server does.
fn count_one(bytes: Vec<u8>) -> RedisResult<u64> {
    let header_ok = bytes.len() >= crate::HDR
        && bytes.starts_with(b"HYLL")
        && match bytes.get(4) {
            Some(&crate::ENC_DENSE) => bytes.len() == crate::DENSE_BYTES,
            Some(&e) => e <= 1,
            None => false,
        };
    if header_ok {
        if let Some(cache) = bytes.get(8..16) {
            let mut card = [0u8; 8];
            card.copy_from_slice(cache);
            if card[7] & 0x80 == 0 {
                return Ok(u64::from_le_bytes(card));
            }
        }
    }
    let mut h = Hll::from_vec(bytes).map_err(hll_error)?;
    Ok(h.count())
}

/// `PFMERGE`, folded one reply at a time: the destination is kept, the
/// sources' registers go into one accumulator.
#[derive(Default)]
struct Merge {
    dest: Option<Hll>,
    union: Option<Registers>,
    any_dense: bool,
    error: FirstError,
}

impl Merge {
    fn add(&mut self, i: usize, r: fetch::Reply) {
        let bytes = match r {
            Ok(Some(b)) => b,
            Ok(None) => return,
            Err(e) => return self.error.note(i, e),
        };
        let h = match Hll::from_vec(bytes) {
            Ok(h) => h,
            Err(e) => return self.error.note(i, hll_error(e)),
        };
        if i == 0 {
            self.dest = Some(h);
        } else {
            self.any_dense |= !h.is_sparse();
            self.union.get_or_insert_with(Registers::new).merge(&h);
        }
    }

    /// The string `PFMERGE` leaves in the destination.
    fn finish(self) -> RedisResult<Hll> {
        self.error.check()?;
        let mut dest = self.dest.unwrap_or_default();
        match self.union {
            // `Hll::merge` looks at the sources' registers and whether any
            // is dense: one source standing for all, dense if any was,
            // else sparse without a size limit (every register of a sparse
            // string is at most 32, so it stays sparse).
            Some(union) => {
                let all = if self.any_dense {
                    union.to_hll()
                } else {
                    union.to_merged_hll_with(usize::MAX)
                };
                dest.merge(&[&all]);
            }
            None => dest.merge(&[]),
        }
        Ok(dest)
    }
}
