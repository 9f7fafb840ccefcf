//! What the cluster benchmarks (`benches/cluster.rs`) and the
//! `cluster_timing` harness share (feature `cluster`): the connections,
//! the rows' values and keys, and the rows other than `ours`.

use redis::cluster::{cluster_pipe, ClusterConnection};
use redis::{AsyncCommands, Commands, Value};

pub use simd_core::testing::redis::{cluster as connect, Connections};

/// The async cluster connection.
pub type Async = redis::cluster_async::ClusterConnection;

/// `n` dense HyperLogLogs of 20 000 elements each (12304 bytes).
pub fn dense_hlls(n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| {
            let mut h = hll::Hll::new();
            h.add_all((0..20_000u32).map(|j| format!("{i}:{j}")));
            assert!(!h.is_sparse());
            h.into_bytes()
        })
        .collect()
}

/// `n` keys `bench:{what}:{i}`, spread over the slots, and the same under
/// the hash tag `{bench:{what}}` (one slot), both set to `values`.
pub fn keys(
    con: &mut ClusterConnection,
    what: &str,
    values: &[Vec<u8>],
) -> (Vec<String>, Vec<String>) {
    let n = values.len();
    let spread: Vec<String> = (0..n).map(|i| format!("bench:{what}:{i}")).collect();
    let tagged: Vec<String> = (0..n).map(|i| format!("{{bench:{what}}}:{i}")).collect();
    for (k, v) in spread.iter().chain(&tagged).zip(values.iter().cycle()) {
        let _: () = con.set(k, v).expect("SET");
    }
    (spread, tagged)
}

/// The fetch bound, sync (`bound:fetch`): one cluster pipeline of `GET`s,
/// values discarded; the number of replies.
pub fn fetch(con: &mut ClusterConnection, keys: &[String]) -> u64 {
    let mut p = cluster_pipe();
    for k in keys {
        p.get(k);
    }
    let v: Vec<Value> = p.query(con).expect("cluster pipeline");
    v.len() as u64
}

/// The fetch bound of a client on `redis::ConnectionLike`
/// (`bound:fetch-by-node`): the same `GET`s grouped by node, one node's
/// pipeline after the other (the trait sends and then reads; the cluster
/// pipeline above writes to every node before reading any), through
/// `simd_core::redis::get_each` with the values discarded; the number of
/// replies.
pub fn fetch_by_node(con: &mut ClusterConnection, keys: &[String]) -> u64 {
    let keys = simd_core::redis::flatten(keys);
    let mut n = 0;
    simd_core::redis::get_each(con, &keys, &mut |_, _| n += 1).expect("GET");
    n
}

/// The fetch bound, async: every `GET` in flight at once (the async
/// cluster connection has no cross-slot pipeline).
pub async fn fetch_async(con: &Async, keys: &[String]) -> u64 {
    let gets = keys.iter().map(|k| {
        let mut c = con.clone();
        async move { c.get::<_, Value>(k).await.expect("GET") }
    });
    futures_util::future::join_all(gets).await.len() as u64
}

/// What a `per-key-get` row does on the client: the values, read one
/// `GET` each, folded in one at a time as each arrives.
pub trait Fold: Default {
    /// Folds in the next value.
    fn add(&mut self, value: Vec<u8>);
    /// The row's answer.
    fn finish(self) -> u64;
}

/// `PFCOUNT`: each value merged into one register accumulator, then
/// counted.
#[derive(Default)]
pub struct MergeEach(hll::Registers);

impl Fold for MergeEach {
    fn add(&mut self, value: Vec<u8>) {
        self.0.merge(&hll::Hll::from_vec(value).unwrap());
    }

    fn finish(self) -> u64 {
        self.0.estimate()
    }
}

/// `BITCOUNT` of the `AND`: each value folded in with `bitcount::bitop`.
#[derive(Default)]
pub struct AndEach {
    acc: Option<Vec<u8>>,
    out: Vec<u8>,
}

impl Fold for AndEach {
    fn add(&mut self, value: Vec<u8>) {
        self.acc = Some(match self.acc.take() {
            None => value,
            Some(a) => {
                bitcount::bitop(bitcount::BitOp::And, &mut self.out, &[&a, &value]).unwrap();
                std::mem::replace(&mut self.out, a)
            }
        });
    }

    fn finish(self) -> u64 {
        bitcount::count(&self.acc.unwrap_or_default())
    }
}

/// The `per-key-get` row: one `GET` per key, in turn, folded by `F`.
pub fn per_key_get<F: Fold>(con: &mut ClusterConnection, keys: &[String]) -> u64 {
    let mut fold = F::default();
    for k in keys {
        fold.add(con.get(k).expect("GET"));
    }
    fold.finish()
}

/// [`per_key_get`] on the async connection: each `GET` awaited in turn.
pub async fn per_key_get_async<F: Fold>(con: &mut Async, keys: &[String]) -> u64 {
    let mut fold = F::default();
    for k in keys {
        fold.add(con.get(k).await.expect("GET"));
    }
    fold.finish()
}
