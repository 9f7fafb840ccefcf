//! The async forms of [`pfcount`](super::pfcount) and
//! [`pfmerge`](super::pfmerge) (feature `redis-aio`), for a
//! [`redis::aio::ConnectionLike`] that can be cloned: the `redis` crate's
//! async cluster connection (`redis::cluster_async`, its `cluster-async`
//! feature), `MultiplexedConnection`, `ConnectionManager`.
//!
//! Every key's `GET` is sent at once on a clone of the connection (up to
//! a window that keeps about 8 MiB of values in flight), so each node of a
//! cluster is read concurrently with the others; each value is merged as
//! its reply arrives. Same answers, same errors, same differences from
//! the server as the sync functions.
//!
//! ```no_run
//! # #[cfg(feature = "__cluster")] // `cluster-async`
//! # async fn run() -> redis::RedisResult<()> {
//! let client = redis::cluster::ClusterClient::new(vec!["redis://127.0.0.1:7000/"])?;
//! let mut con = client.get_async_connection().await?;
//! let n = hll::redis::aio::pfcount(&mut con, &["visits:mon", "visits:tue"]).await?;
//! hll::redis::aio::pfmerge(&mut con, "visits:week", &["visits:mon", "visits:tue"]).await?;
//! # let _ = n;
//! # Ok(())
//! # }
//! ```

use super::{fetch, merge_keys, Count, Merge};
use ::redis::aio::ConnectionLike;
use ::redis::{RedisResult, ToRedisArgs};
use core::future::Future;

/// [`pfcount`](super::pfcount) on an async connection.
///
/// # Errors
/// As [`pfcount`](super::pfcount).
pub fn pfcount<'a, C, K>(
    con: &'a mut C,
    keys: &[K],
) -> impl Future<Output = RedisResult<u64>> + Send + 'a
where
    C: ConnectionLike + Clone + Send,
    K: ToRedisArgs,
{
    let keys = fetch::flatten(keys);
    async move {
        let mut count = Count::new(keys.len())?;
        fetch::aio::get_each(con, &keys, &mut |i, r| count.add(i, r)).await?;
        count.finish()
    }
}

/// [`pfmerge`](super::pfmerge) on an async connection.
///
/// # Errors
/// As [`pfmerge`](super::pfmerge); nothing is written then.
pub fn pfmerge<'a, C, D, K>(
    con: &'a mut C,
    dest: D,
    sources: &[K],
) -> impl Future<Output = RedisResult<()>> + Send + 'a
where
    C: ConnectionLike + Clone + Send,
    D: ToRedisArgs,
    K: ToRedisArgs,
{
    let prepared = fetch::one_key(&dest).map(|d| {
        let keys = merge_keys(&d, sources);
        (d, keys)
    });
    async move {
        let (dest, keys) = prepared?;
        let mut merge = Merge::default();
        fetch::aio::get_each(con, &keys, &mut |i, r| merge.add(i, r)).await?;
        let value = merge.finish()?;
        let cmd = fetch::store(&dest, Some(value.as_bytes()), true);
        fetch::aio::send(con, &cmd).await.map(drop)
    }
}
