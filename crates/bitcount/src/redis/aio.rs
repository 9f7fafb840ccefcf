//! The async forms of [`bitop`](super::bitop) and
//! [`bitop_count`](super::bitop_count) (feature `redis-aio`), for a
//! [`redis::aio::ConnectionLike`] that can be cloned: the `redis` crate's
//! async cluster connection (`redis::cluster_async`, its `cluster-async`
//! feature), `MultiplexedConnection`, `ConnectionManager`.
//!
//! Every key's `GET` is sent at once on a clone of the connection (up to
//! a window that keeps about 8 MiB of values in flight), so each node of a
//! cluster is read concurrently with the others; each value is folded in
//! as its reply arrives. Same answers, same errors, same differences from
//! the server as the sync functions.
//!
//! ```no_run
//! # #[cfg(feature = "__cluster")] // `cluster-async`
//! # async fn run() -> redis::RedisResult<()> {
//! use bitcount::BitOp;
//! let client = redis::cluster::ClusterClient::new(vec!["redis://127.0.0.1:7000/"])?;
//! let mut con = client.get_async_connection().await?;
//! let both = bitcount::redis::aio::bitop_count(&mut con, BitOp::And, &["a", "b"]).await?;
//! bitcount::redis::aio::bitop(&mut con, BitOp::Or, "any", &["a", "b"]).await?;
//! # let _ = both;
//! # Ok(())
//! # }
//! ```

use super::{fetch, Fold};
use crate::{count, BitOp};
use ::redis::aio::ConnectionLike;
use ::redis::{RedisResult, ToRedisArgs};
use core::future::Future;

/// [`bitop`](super::bitop) on an async connection.
///
/// # Errors
/// As [`bitop`](super::bitop); nothing is written then.
pub fn bitop<'a, C, D, K>(
    con: &'a mut C,
    op: BitOp,
    dest: D,
    keys: &[K],
) -> impl Future<Output = RedisResult<usize>> + Send + 'a
where
    C: ConnectionLike + Clone + Send,
    D: ToRedisArgs,
    K: ToRedisArgs,
{
    let dest = fetch::one_key(&dest);
    let keys = fetch::flatten(keys);
    async move {
        let dest = dest?;
        let mut fold = Fold::new(op, keys.len())?;
        fetch::aio::get_each(con, &keys, &mut |i, r| fold.add(i, r)).await?;
        let result = fold.finish()?;
        let cmd = fetch::store(&dest, (!result.is_empty()).then_some(&result[..]), false);
        fetch::aio::send(con, &cmd).await?;
        Ok(result.len())
    }
}

/// [`bitop_count`](super::bitop_count) on an async connection.
///
/// # Errors
/// As [`bitop`](super::bitop).
pub fn bitop_count<'a, C, K>(
    con: &'a mut C,
    op: BitOp,
    keys: &[K],
) -> impl Future<Output = RedisResult<u64>> + Send + 'a
where
    C: ConnectionLike + Clone + Send,
    K: ToRedisArgs,
{
    let keys = fetch::flatten(keys);
    async move {
        let mut fold = Fold::new(op, keys.len())?;
        fetch::aio::get_each(con, &keys, &mut |i, r| fold.add(i, r)).await?;
        Ok(count(&fold.finish()?))
    }
}
