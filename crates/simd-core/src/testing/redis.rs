//! What the live tests of `hll::redis` and `bitcount::redis` share (hidden
//! feature `__cluster`): connections to the servers `cargo xtask golden`
//! starts (a test that finds its variable unset prints `skipped:` and
//! passes), keys set to a value of any kind, replies compared as text.

use ::redis::aio::MultiplexedConnection;
use ::redis::cluster::{ClusterClient, ClusterConnection};
use ::redis::{ConnectionLike, RedisResult};
use core::future::Future;
use std::string::{String, ToString};
use std::vec::Vec;
use std::{println, vec};

pub use tokio::runtime::Runtime;

/// A sync connection, an async one to the same servers, and the runtime
/// that drives the async one.
pub struct Connections<C, A> {
    /// The sync connection.
    pub con: C,
    /// The async connection.
    pub acon: A,
    /// A current-thread runtime, for `rt.block_on(..)` of `acon`'s calls.
    pub rt: Runtime,
}

/// The Valkey cluster at `VALKEY_CLUSTER_URL`, or `None` (after printing
/// `skipped:`) when the variable is unset.
///
/// # Panics
/// If the cluster cannot be reached.
#[must_use]
pub fn cluster() -> Option<Connections<ClusterConnection, ::redis::cluster_async::ClusterConnection>>
{
    let client = ClusterClient::new(vec![url("VALKEY_CLUSTER_URL")?]).expect("cluster URL");
    Some(connect(client.get_connection(), || {
        client.get_async_connection()
    }))
}

/// The single server at the URL in `var` (`REDIS_URL`, `VALKEY_URL`), or
/// `None` (after printing `skipped:`) when the variable is unset.
///
/// # Panics
/// If the server cannot be reached.
#[must_use]
pub fn server(var: &str) -> Option<Connections<::redis::Connection, MultiplexedConnection>> {
    let client = ::redis::Client::open(url(var)?.as_str()).expect("server URL");
    Some(connect(client.get_connection(), || {
        client.get_multiplexed_async_connection()
    }))
}

/// The URL in `var`, or `None` (after printing `skipped:`).
fn url(var: &str) -> Option<String> {
    let url = std::env::var(var).ok();
    if url.is_none() {
        println!("skipped: {var} not set");
    }
    url
}

/// `con`, and the async connection `open` makes, on a new runtime.
fn connect<C, A, F>(con: RedisResult<C>, open: impl FnOnce() -> F) -> Connections<C, A>
where
    F: Future<Output = RedisResult<A>>,
{
    let con = con.expect("connection");
    let rt = runtime();
    let acon = rt
        .block_on(async { open().await })
        .expect("async connection");
    Connections { con, acon, rt }
}

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// A key's value before a call.
#[derive(Clone, Debug)]
pub enum Val {
    /// No key.
    Missing,
    /// A string of these bytes.
    Str(Vec<u8>),
    /// A list (`GET` answers `WRONGTYPE`).
    List,
}

/// Sets `key` to `v` (deleting what it held).
///
/// # Panics
/// If the server refuses.
pub fn put<C: ConnectionLike>(con: &mut C, key: &str, v: &Val) {
    let _: i64 = ::redis::cmd("DEL").arg(key).query(con).unwrap();
    match v {
        Val::Missing => {}
        Val::Str(b) => ::redis::cmd("SET")
            .arg(key)
            .arg(b)
            .query::<()>(con)
            .unwrap(),
        Val::List => {
            let _: i64 = ::redis::cmd("RPUSH").arg(key).arg("x").query(con).unwrap();
        }
    }
}

/// `GET key` (a list answers `WRONGTYPE`).
pub fn get<C: ConnectionLike>(con: &mut C, key: &str) -> Result<Option<Vec<u8>>, String> {
    text(::redis::cmd("GET").arg(key).query(con))
}

/// A result as compared: the value or the error's text.
pub fn text<T>(r: RedisResult<T>) -> Result<T, String> {
    r.map_err(|e| e.to_string())
}

/// Which of the three masters own the keys, the slots split in thirds as
/// `cargo xtask golden` assigns them.
#[must_use]
pub fn shards(keys: &[String]) -> [bool; 3] {
    let mut seen = [false; 3];
    for k in keys {
        let s = crate::redis::slot(k.as_bytes());
        seen[usize::from(s > 5460) + usize::from(s > 10921)] = true;
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key names the cluster tests spread: 30 of them reach every
    /// master, one hash tag keeps them on one.
    #[test]
    fn shards_of_keys() {
        let spread: Vec<String> = (0..30).map(|i| std::format!("k:{i}")).collect();
        assert_eq!(shards(&spread), [true; 3]);
        let tagged: Vec<String> = (0..30).map(|i| std::format!("{{k}}:{i}")).collect();
        assert_eq!(shards(&tagged).iter().filter(|&&b| b).count(), 1);
    }
}
