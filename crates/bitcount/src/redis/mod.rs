//! `BITOP` over keys in any hash slots (feature `redis`): the keys are read
//! with `GET` and combined here, so a Redis or Valkey Cluster answers what
//! one server would, where the server's own command refuses keys of
//! several slots (`CROSSSLOT`). All eight operations of Redis 8.2 work
//! against any server, since the server only stores the result.
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
//! use bitcount::BitOp;
//! let client = redis::cluster::ClusterClient::new(vec!["redis://127.0.0.1:7000/"])?;
//! let mut con = client.get_connection()?;
//! let both = bitcount::redis::bitop_count(&mut con, BitOp::And, &["seen:mon", "seen:tue"])?;
//! let len = bitcount::redis::bitop(&mut con, BitOp::Or, "seen:any", &["seen:mon", "seen:tue"])?;
//! # let _ = (both, len);
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
//! folded into the result as it is taken from its batch and dropped (the
//! fold holds the result so far and one scratch buffer of its size; `DIFF`,
//! `DIFF1` and `ANDOR` keep the first key's value too, `ONE` a second
//! accumulator); a batch holds up to 128 keys at first, then as many as fit
//! 8 MiB at the largest value seen.
//!
//! # Speed
//! `bitop_count(AND)` of 8 bitmaps of 1 MiB over three masters: `ours`,
//! the `redis` crate's own cluster pipeline of the same `GET`s
//! (`bound:fetch`: it writes to every node before reading any), the same
//! `GET`s one node after the other as a function on
//! [`redis::ConnectionLike`] must send them (`bound:fetch-by-node`), the
//! server's `BITOP` + `BITCOUNT` of the same values
//! under one hash tag (`one-slot`), and one `GET` per key folded with
//! [`bitop`](crate::bitop) (`per-key-get`); the `-async` row with the
//! async functions and connection. Moving 8 MiB to the client is the cost:
//! where the keys can share a slot, the server's own command is faster.
//!
//! Intel(R) Xeon(R) Processor, 2 cores; 2026-12-07 (UTC), commit 44b2a0c; `cargo xtask bench --compare`, 3 Valkey 9.1.2 masters on loopback.
//!
//! | operation | ours | bound, others (time, vs ours) |
//! |---|---|---|
//! | bitop_count-and-8 | 4.16 ms | bound:fetch 4.79 ms (1.15x); bound:fetch-by-node 3.16 ms (0.76x); one-slot 655.55 us (0.16x); per-key-get 4.53 ms (1.09x) |
//! | bitop_count-and-8-async | 4.18 ms | bound:fetch 4.06 ms (0.97x); one-slot 679.77 us (0.16x); per-key-get 5.28 ms (1.26x) |
//!
//! # Differences from the server's command
//! - Not atomic: the keys are read at slightly different times (on
//!   different nodes), so a write to a source in between may or may not be
//!   seen.
//! - The result is stored with `SET`, or `DEL` when it is empty, as
//!   `BITOP` leaves it (no time to live either way); large results travel
//!   back to the server once.
//!
//! Errors carry the server's text: the argument checks of
//! [`BitOp::check`](crate::BitOp::check) (Redis 8.2's), and a key of another
//! type answers the server's `WRONGTYPE Operation against a key holding the
//! wrong kind of value` (from its `GET`); with several bad keys the first in
//! argument order decides, and nothing is written.

use crate::{count, BitOp};
use ::redis::{ConnectionLike, RedisResult, ToRedisArgs};
use alloc::vec::Vec;
use simd_core::redis::{self as fetch, FirstError};

#[cfg(feature = "redis-aio")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis-aio")))]
pub mod aio;

/// `BITOP op dest key ...` over keys in any slots: the result stored in
/// `dest` (deleted when empty, as the server does), and its length
/// returned, as `BITOP` replies.
///
/// ```no_run
/// # fn main() -> redis::RedisResult<()> {
/// let mut con = redis::Client::open("redis://127.0.0.1/")?.get_connection()?;
/// let len = bitcount::redis::bitop(&mut con, bitcount::BitOp::Xor, "d", &["a", "b"])?;
/// # let _ = len;
/// # Ok(())
/// # }
/// ```
///
/// # Errors
/// The server's (see the [module docs](self)); nothing is written then.
/// And the connection's.
pub fn bitop<C, D, K>(con: &mut C, op: BitOp, dest: D, keys: &[K]) -> RedisResult<usize>
where
    C: ConnectionLike + ?Sized,
    D: ToRedisArgs,
    K: ToRedisArgs,
{
    let dest = fetch::one_key(&dest)?;
    let keys = fetch::flatten(keys);
    let mut fold = Fold::new(op, keys.len())?;
    fetch::get_each(con, &keys, &mut |i, r| fold.add(i, r))?;
    let result = fold.finish()?;
    let cmd = fetch::store(&dest, (!result.is_empty()).then_some(&result[..]), false);
    con.req_command(&cmd)?.extract_error()?;
    Ok(result.len())
}

/// `BITCOUNT` of what `BITOP op dest key ...` would store, over keys in any
/// slots, writing nothing.
///
/// ```no_run
/// # fn main() -> redis::RedisResult<()> {
/// let mut con = redis::Client::open("redis://127.0.0.1/")?.get_connection()?;
/// let both = bitcount::redis::bitop_count(&mut con, bitcount::BitOp::And, &["a", "b"])?;
/// # let _ = both;
/// # Ok(())
/// # }
/// ```
///
/// # Errors
/// As [`bitop`].
pub fn bitop_count<C, K>(con: &mut C, op: BitOp, keys: &[K]) -> RedisResult<u64>
where
    C: ConnectionLike + ?Sized,
    K: ToRedisArgs,
{
    let keys = fetch::flatten(keys);
    let mut fold = Fold::new(op, keys.len())?;
    fetch::get_each(con, &keys, &mut |i, r| fold.add(i, r))?;
    Ok(count(&fold.finish()?))
}

/// A `BITOP`, folded one value at a time in any order (missing keys are
/// empty strings): `acc` is the result so far for `AND`/`OR`/`XOR`, the OR
/// of every key but the first for `DIFF`/`DIFF1`/`ANDOR`, the bits set in
/// exactly one key so far for `ONE` (with `more`: in two or more).
struct Fold {
    op: BitOp,
    /// The first key's value (`NOT`, `DIFF`, `DIFF1`, `ANDOR`).
    first: Vec<u8>,
    acc: Option<Vec<u8>>,
    more: Vec<u8>,
    /// `ONE`: the bits of the new value already set once.
    both: Vec<u8>,
    scratch: Vec<u8>,
    error: FirstError,
}

impl Fold {
    fn new(op: BitOp, keys: usize) -> RedisResult<Fold> {
        op.check(keys)
            .map_err(|e| fetch::server_error(&alloc::format!("{e}")))?;
        Ok(Fold {
            op,
            first: Vec::new(),
            acc: None,
            more: Vec::new(),
            both: Vec::new(),
            scratch: Vec::new(),
            error: FirstError::default(),
        })
    }

    /// `into = op(a, b)` through the scratch buffer.
    fn apply(scratch: &mut Vec<u8>, op: BitOp, into: &mut Vec<u8>, b: &[u8]) {
        // Two sources pass every operation's check but NOT's, never asked.
        if crate::bitop(op, scratch, &[into, b]).is_ok() {
            core::mem::swap(into, scratch);
        }
    }

    fn add(&mut self, i: usize, r: fetch::Reply) {
        let v = match r {
            Ok(v) => v.unwrap_or_default(),
            Err(e) => return self.error.note(i, e),
        };
        if self.error.is_set() {
            return;
        }
        let first_apart = matches!(
            self.op,
            BitOp::Not | BitOp::Diff | BitOp::Diff1 | BitOp::AndOr
        );
        if first_apart && i == 0 {
            self.first = v;
            return;
        }
        let Some(acc) = &mut self.acc else {
            self.acc = Some(v);
            return;
        };
        match self.op {
            BitOp::And | BitOp::Or | BitOp::Xor => Self::apply(&mut self.scratch, self.op, acc, &v),
            BitOp::Diff | BitOp::Diff1 | BitOp::AndOr => {
                Self::apply(&mut self.scratch, BitOp::Or, acc, &v)
            }
            BitOp::One => {
                // more |= once & v; once = (once ^ v) & !more
                if crate::bitop(BitOp::And, &mut self.both, &[acc, &v]).is_ok() {
                    Self::apply(&mut self.scratch, BitOp::Or, &mut self.more, &self.both);
                }
                Self::apply(&mut self.scratch, BitOp::Xor, acc, &v);
                Self::apply(&mut self.scratch, BitOp::Diff, acc, &self.more);
            }
            // One key only: it is `first`.
            BitOp::Not => {}
        }
    }

    /// The result's bytes (empty: the server deletes the destination).
    fn finish(mut self) -> RedisResult<Vec<u8>> {
        self.error.check()?;
        let acc = self.acc.take().unwrap_or_default();
        let mut out = Vec::new();
        let sources: &[&[u8]] = match self.op {
            BitOp::And | BitOp::Or | BitOp::Xor | BitOp::One => return Ok(acc),
            BitOp::Not => &[&self.first],
            BitOp::Diff | BitOp::Diff1 | BitOp::AndOr => &[&self.first, &acc],
        };
        crate::bitop(self.op, &mut out, sources)
            .map_err(|e| fetch::server_error(&alloc::format!("{e}")))?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    /// Folding in any arrival order gives `bitop` over all the sources.
    #[test]
    fn fold_matches_bitop() {
        let values: Vec<Vec<u8>> = vec![
            vec![0b1101_1000, 0xff, 0x01],
            vec![],
            vec![0b0001_1001],
            vec![0b0110_1100, 0x0f],
            vec![0xff, 0xf0, 0x0f, 0xaa],
        ];
        let refs: Vec<&[u8]> = values.iter().map(|v| &v[..]).collect();
        let orders: [[usize; 5]; 3] = [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [2, 0, 4, 1, 3]];
        for op in BitOp::ALL {
            let n = if op == BitOp::Not { 1 } else { values.len() };
            let mut want = Vec::new();
            crate::bitop(op, &mut want, &refs[..n]).unwrap();
            for order in orders {
                let mut fold = Fold::new(op, n).unwrap();
                for &i in order.iter().filter(|&&i| i < n) {
                    let v = values[i].clone();
                    fold.add(i, Ok((!v.is_empty()).then_some(v)));
                }
                assert_eq!(fold.finish().unwrap(), want, "{op} {order:?}");
            }
        }
        assert!(Fold::new(BitOp::Not, 2).is_err());
        assert!(Fold::new(BitOp::And, 0).is_err());
    }
}
