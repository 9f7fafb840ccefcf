//! `GET` of many keys in few round trips, on one server or a Redis/Valkey
//! Cluster (feature `redis`): the plumbing behind `hll::redis` and
//! `bitcount::redis`, whose commands read their keys here and fold the
//! values themselves. Not an API of its own beyond that: it follows those
//! crates' needs.
//!
//! Sync ([`get_each`]): a connection that pipelines (one server) gets one
//! pipeline of `GET`s per batch. A cluster connection
//! (`supports_pipelining()` is false there) is asked `CLUSTER SLOTS` once
//! per call, the keys are grouped by the node owning their slot, and each
//! group goes as one pipeline per batch, routed by its first key; nodes
//! are read in turn. Keys that all share one slot skip the topology
//! question. A reply that redirects (`MOVED`, `ASK`: the slot moved since
//! `CLUSTER SLOTS`) is read again as a single `GET`, which the cluster
//! connection follows; so is every key of a batch that a cluster
//! connection fails as a whole on one error reply (`WRONGTYPE`), to learn
//! whose it was.
//!
//! Async ([`aio::get_each`], feature `redis-aio`): every `GET` is a request
//! of its own on a clone of the connection, up to a window of them in
//! flight; a multiplexed connection pipelines them, a cluster connection
//! sends each to its node, so nodes are read concurrently.
//!
//! # Batches
//! Replies are handed to the caller's fold one at a time, in arrival
//! order, and dropped after. The `redis` crate returns a pipeline's
//! replies together, so a batch (per node; the async window likewise) is
//! bounded: the first holds 128 keys, before any value size is known;
//! later ones as many as fit 8 MiB at the largest value seen so far, at
//! least 1 and at most 1024.
//!
//! ```no_run
//! # fn main() -> redis::RedisResult<()> {
//! let mut con = redis::Client::open("redis://127.0.0.1/")?.get_connection()?;
//! let keys = simd_core::redis::flatten(&["a", "b", "c"]);
//! let mut bytes = 0; // the values' total length
//! simd_core::redis::get_each(&mut con, &keys, &mut |_i, reply| {
//!     bytes += reply.ok().flatten().map_or(0, |v| v.len());
//! })?;
//! println!("{bytes} bytes in {} keys", keys.len());
//! # Ok(())
//! # }
//! ```

use ::redis::{Cmd, ConnectionLike, ErrorKind, RedisError, RedisResult, ToRedisArgs, Value};
use std::format;
use std::vec;
use std::vec::Vec;

/// Keys in the first batch (per node), before any value size is known.
const FIRST_BATCH: usize = 128;
/// The bytes a later batch aims at.
const BATCH_BYTES: usize = 8 << 20;
/// At most this many keys per batch.
const MAX_BATCH: usize = 1024;

/// One key's `GET`: its bytes, `None` for a missing key, or the server's
/// error (`WRONGTYPE` for a key of another type).
pub type Reply = RedisResult<Option<Vec<u8>>>;

/// The batch size once values of up to `max_len` bytes have been seen.
fn next_batch(max_len: usize) -> usize {
    (BATCH_BYTES / max_len.max(1)).clamp(1, MAX_BATCH)
}

/// Each key's arguments, flattened (as `cmd.arg(keys)` would send them):
/// the keys [`get_each`] takes.
#[must_use]
pub fn flatten<K: ToRedisArgs>(keys: &[K]) -> Vec<Vec<u8>> {
    keys.iter().flat_map(|k| k.to_redis_args()).collect()
}

/// The destination, which must be exactly one argument.
///
/// # Errors
/// A client error when `dest` is no argument or several.
pub fn one_key<D: ToRedisArgs>(dest: &D) -> RedisResult<Vec<u8>> {
    let mut args = dest.to_redis_args();
    match (args.pop(), args.is_empty()) {
        (Some(key), true) => Ok(key),
        _ => Err(RedisError::from((
            ErrorKind::Client,
            "the destination must be exactly one key",
        ))),
    }
}

/// An error reply with the server's text, as the `redis` crate reports one
/// read from a server (`text` without the leading `-`), so that a check
/// made on the client answers the server's own error text.
#[must_use]
pub fn server_error(text: &str) -> RedisError {
    let resp = format!("-{text}\r\n");
    match ::redis::parse_redis_value(resp.as_bytes()) {
        Ok(Value::ServerError(e)) => e.into(),
        Ok(_) => RedisError::from((ErrorKind::Client, "not an error reply")),
        Err(e) => e,
    }
}

/// The server refused this one command (wrong type, a redirect): the
/// other keys' replies still stand. Anything else (I/O, protocol) ends the
/// call.
fn is_reply_error(e: &RedisError) -> bool {
    matches!(e.kind(), ErrorKind::Server(_) | ErrorKind::Extension)
}

/// A `GET` reply as a [`Reply`].
fn reply(v: Value) -> Reply {
    match v {
        Value::Nil => Ok(None),
        Value::BulkString(b) => Ok(Some(b)),
        Value::ServerError(e) => Err(e.into()),
        _ => Err(RedisError::from((
            ErrorKind::UnexpectedReturnType,
            "GET answered neither a string nor nil",
        ))),
    }
}

/// `GET key`.
fn get(key: &[u8]) -> Cmd {
    let mut c = ::redis::cmd("GET");
    c.arg(key);
    c
}

/// `SET dest value` (with `KEEPTTL` where the server's command keeps the
/// key's time to live) or, for `None`, `DEL dest`: how a cross-slot
/// command stores its result.
#[must_use]
pub fn store(dest: &[u8], value: Option<&[u8]>, keep_ttl: bool) -> Cmd {
    match value {
        Some(v) => {
            let mut c = ::redis::cmd("SET");
            c.arg(dest).arg(v);
            if keep_ttl {
                c.arg("KEEPTTL");
            }
            c
        }
        None => {
            let mut c = ::redis::cmd("DEL");
            c.arg(dest);
            c
        }
    }
}

/// The error of the key earliest in argument order, as a server, which
/// checks the keys in order, answers: a fold notes each key's error as its
/// reply arrives, in any order.
#[derive(Debug, Default)]
pub struct FirstError(Option<(usize, RedisError)>);

impl FirstError {
    /// Notes key `i`'s error; it is kept if no earlier key's is.
    pub fn note(&mut self, i: usize, e: RedisError) {
        if self.0.as_ref().is_none_or(|(j, _)| i < *j) {
            self.0 = Some((i, e));
        }
    }

    /// Whether any key's error has been noted.
    #[must_use]
    pub fn is_set(&self) -> bool {
        self.0.is_some()
    }

    /// The earliest key's error, if any.
    ///
    /// # Errors
    /// That error.
    pub fn check(self) -> RedisResult<()> {
        match self.0 {
            Some((_, e)) => Err(e),
            None => Ok(()),
        }
    }
}

/// The cluster hash slot of a key (CRC16/XMODEM of the key or of its
/// non-empty `{hash tag}`, mod 16384).
pub(crate) fn slot(key: &[u8]) -> u16 {
    let tagged = key.iter().position(|&b| b == b'{').and_then(|open| {
        let rest = key.get(open + 1..)?;
        let len = rest.iter().position(|&b| b == b'}')?;
        (len > 0).then(|| rest.get(..len)).flatten()
    });
    let mut crc = 0u16;
    for &b in tagged.unwrap_or(key) {
        crc ^= u16::from(b) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc % 16384
}

/// The indices of `keys` grouped by the node that owns their slot,
/// according to `CLUSTER SLOTS`; `None` when that cannot be had.
fn groups_by_node<C: ConnectionLike + ?Sized>(
    con: &mut C,
    keys: &[Vec<u8>],
) -> Option<Vec<Vec<usize>>> {
    let slots: Vec<u16> = keys.iter().map(|k| slot(k)).collect();
    if slots.iter().all(|&s| Some(&s) == slots.first()) {
        // One slot: the connection routes the pipeline there itself.
        return Some(vec![(0..keys.len()).collect()]);
    }
    let mut ask = ::redis::cmd("CLUSTER");
    ask.arg("SLOTS");
    let Ok(Value::Array(ranges)) = con.req_command(&ask) else {
        return None;
    };
    // (first slot, last slot, node) and the nodes as (host, port).
    let mut owners: Vec<(i64, i64, usize)> = Vec::new();
    let mut nodes: Vec<(Vec<u8>, i64)> = Vec::new();
    for r in ranges {
        let Value::Array(r) = r else { continue };
        let (Some(Value::Int(lo)), Some(Value::Int(hi)), Some(Value::Array(master))) =
            (r.first(), r.get(1), r.get(2))
        else {
            continue;
        };
        let host = match master.first() {
            Some(Value::BulkString(h)) => h.clone(),
            Some(Value::SimpleString(h)) => h.clone().into_bytes(),
            _ => continue,
        };
        let Some(Value::Int(port)) = master.get(1) else {
            continue;
        };
        let node = match nodes.iter().position(|(h, p)| *h == host && p == port) {
            Some(n) => n,
            None => {
                nodes.push((host, *port));
                nodes.len() - 1
            }
        };
        owners.push((*lo, *hi, node));
    }
    let mut groups: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, &s) in slots.iter().enumerate() {
        let s = i64::from(s);
        match owners.iter().find(|(lo, hi, _)| (*lo..=*hi).contains(&s)) {
            Some(&(_, _, n)) => groups.get_mut(n)?.push(i),
            // An unserved slot: the key's own GET gets the server's error.
            None => groups.push(vec![i]),
        }
    }
    groups.retain(|g| !g.is_empty());
    Some(groups)
}

/// One key's `GET`, routed (and redirected) by the connection.
fn get_one<C: ConnectionLike + ?Sized>(con: &mut C, key: &[u8]) -> RedisResult<Reply> {
    match con.req_command(&get(key)) {
        Ok(v) => Ok(reply(v)),
        Err(e) if is_reply_error(&e) => Ok(Err(e)),
        Err(e) => Err(e),
    }
}

/// `GET`s every key (see the [module docs](self) for how) and passes each
/// reply, with the key's index, to `fold`, in arrival order.
///
/// # Errors
/// An error that is not a reply to one key (I/O, protocol) ends the call;
/// a key's own error reply (`WRONGTYPE`) goes to `fold`.
pub fn get_each<C: ConnectionLike + ?Sized>(
    con: &mut C,
    keys: &[Vec<u8>],
    fold: &mut dyn FnMut(usize, Reply),
) -> RedisResult<()> {
    if keys.is_empty() {
        return Ok(());
    }
    let groups = if con.supports_pipelining() {
        vec![(0..keys.len()).collect()]
    } else {
        match groups_by_node(con, keys) {
            Some(g) => g,
            // No topology to be had: one GET per key.
            None => (0..keys.len()).map(|i| vec![i]).collect(),
        }
    };
    let mut batch = FIRST_BATCH;
    let mut max_len = 0;
    let mut packed = Vec::new();
    for group in &groups {
        let mut rest = &group[..];
        while !rest.is_empty() {
            let (now, later) = rest.split_at(batch.min(rest.len()));
            rest = later;
            packed.clear();
            for &i in now {
                get(&keys[i]).write_packed_command(&mut packed);
            }
            let replies: Vec<Reply> = if now.len() == 1 && !con.supports_pipelining() {
                vec![get_one(con, &keys[now[0]])?]
            } else {
                // The pipeline's raw bytes: `redis::Pipeline::query` refuses
                // a cluster connection, whose `req_packed_commands` sends
                // them to the node of the first key.
                match con.req_packed_commands(&packed, 0, now.len()) {
                    Ok(values) => values.into_iter().map(reply).collect(),
                    // A cluster connection fails a whole pipeline on one
                    // error reply: the batch is read again key by key to
                    // learn whose it was.
                    Err(e) if is_reply_error(&e) => now
                        .iter()
                        .map(|&i| get_one(con, &keys[i]))
                        .collect::<RedisResult<_>>()?,
                    Err(e) => return Err(e),
                }
            };
            if replies.len() != now.len() {
                return Err(RedisError::from((
                    ErrorKind::Client,
                    "a pipeline answered another number of replies",
                )));
            }
            for (&i, r) in now.iter().zip(replies) {
                let r = match r {
                    Err(e) if e.is_cluster_error() => get_one(con, &keys[i])?,
                    r => r,
                };
                if let Ok(Some(v)) = &r {
                    max_len = max_len.max(v.len());
                }
                fold(i, r);
            }
            batch = next_batch(max_len);
        }
    }
    Ok(())
}

/// The async form of [`get_each`] (feature `redis-aio`).
#[cfg(feature = "redis-aio")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis-aio")))]
pub mod aio {
    use super::{get, is_reply_error, next_batch, reply, Reply, FIRST_BATCH};
    use ::redis::aio::ConnectionLike;
    use ::redis::{RedisResult, Value};
    use core::future::{poll_fn, Future};
    use core::pin::Pin;
    use core::task::Poll;
    use std::boxed::Box;
    use std::vec::Vec;

    type Get<'a> = Pin<Box<dyn Future<Output = (usize, RedisResult<Value>)> + Send + 'a>>;

    /// Every key's `GET` as a request of its own on a clone of `con`, up
    /// to a window of them in flight (the batch rules of the
    /// [module docs](super)); `fold` gets each reply, with the key's index,
    /// as it completes.
    ///
    /// # Errors
    /// As [`get_each`](super::get_each).
    pub async fn get_each<C>(
        con: &mut C,
        keys: &[Vec<u8>],
        fold: &mut (dyn FnMut(usize, Reply) + Send),
    ) -> RedisResult<()>
    where
        C: ConnectionLike + Clone + Send,
    {
        let mut pending: Vec<Get<'_>> = Vec::new();
        let mut next = 0;
        let mut window = FIRST_BATCH;
        let mut max_len = 0;
        poll_fn(move |cx| loop {
            while next < keys.len() && pending.len() < window {
                let mut c = C::clone(con);
                let i = next;
                let key = &keys[i];
                pending.push(Box::pin(async move {
                    let cmd = get(key);
                    (i, c.req_packed_command(&cmd).await)
                }));
                next += 1;
            }
            if pending.is_empty() {
                return Poll::Ready(Ok(()));
            }
            let mut done = false;
            let mut j = 0;
            while j < pending.len() {
                let Poll::Ready((i, r)) = pending[j].as_mut().poll(cx) else {
                    j += 1;
                    continue;
                };
                drop(pending.swap_remove(j));
                done = true;
                let r = match r {
                    Ok(v) => reply(v),
                    Err(e) if is_reply_error(&e) => Err(e),
                    Err(e) => return Poll::Ready(Err(e)),
                };
                if let Ok(Some(v)) = &r {
                    max_len = max_len.max(v.len());
                    window = next_batch(max_len);
                }
                fold(i, r);
            }
            if !done {
                return Poll::Pending;
            }
        })
        .await
    }

    /// Sends one command; a server error reply is an `Err`.
    ///
    /// # Errors
    /// The server's error reply, or the connection's error.
    pub async fn send<C: ConnectionLike>(con: &mut C, cmd: &::redis::Cmd) -> RedisResult<Value> {
        con.req_packed_command(cmd).await?.extract_error()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::ToString;

    /// Slots as the cluster specification's examples give them.
    #[test]
    fn slots() {
        // CRC16/XMODEM's check value is 0x31c3 (below 16384).
        assert_eq!(slot(b"123456789"), 0x31c3);
        assert_eq!(slot(b"{user1000}.following"), slot(b"user1000"));
        assert_ne!(slot(b"foo{}{bar}"), slot(b"bar"));
        assert_eq!(slot(b"foo{{bar}}zap"), slot(b"{bar"));
        assert_eq!(slot(b"foo{bar}{zap}"), slot(b"bar"));
        assert_eq!(slot(b""), 0);
        assert!(slot(b"{") < 16384);
    }

    #[test]
    fn errors_and_batches() {
        let e = server_error("WRONGTYPE Key is not a valid HyperLogLog string value.");
        assert_eq!(e.code(), Some("WRONGTYPE"));
        assert!(is_reply_error(&e));
        assert!(e
            .to_string()
            .contains("Key is not a valid HyperLogLog string value."));
        assert_eq!(reply(Value::Nil).unwrap(), None);
        assert!(one_key(&("a", "b")).is_err());
        assert_eq!(one_key(&"a").unwrap(), b"a");
        assert_eq!(next_batch(0), MAX_BATCH);
        assert_eq!(next_batch(usize::MAX), 1);
        assert_eq!(next_batch(12304), 681);
        assert_eq!(flatten(&["a", "b"]), [b"a".to_vec(), b"b".to_vec()]);
    }

    /// The earliest key's error wins, whatever the arrival order.
    #[test]
    fn first_error() {
        let mut first = FirstError::default();
        assert!(!first.is_set());
        first.note(3, server_error("ERR three"));
        first.note(1, server_error("ERR one"));
        first.note(2, server_error("ERR two"));
        assert!(first.is_set());
        let e = first.check().unwrap_err();
        assert!(e.to_string().contains("one"), "{e}");
        assert!(FirstError::default().check().is_ok());
    }
}
