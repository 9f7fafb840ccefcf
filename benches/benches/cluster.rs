//! The cross-slot commands of `hll::redis` and `bitcount::redis` on a live
//! Valkey cluster of three masters (`VALKEY_CLUSTER_URL`; `cargo xtask
//! bench` starts one), side by side with what else a client can do:
//!
//! - `hll/cluster-pfcount` (100 dense HLLs of 12304 bytes, keys spread over
//!   the three masters): `ours` = `hll::redis::pfcount` on a
//!   `ClusterConnection`; `bound:fetch` = the `redis` crate's own cluster
//!   pipeline of the same `GET`s (`cluster_pipe`), values discarded: the
//!   fetch alone; `bound:fetch-by-node` = the same `GET`s one node's
//!   pipeline after the other, as a client on `redis::ConnectionLike` must
//!   send them (`simd_core::redis::get_each`, values discarded);
//!   `one-slot` = the server's `PFCOUNT` of the same
//!   values under one hash tag; `per-key-get` = one `GET` per key, each
//!   merged (`Registers::merge`), then counted.
//! - `hll/cluster-pfcount-async`: the same with `hll::redis::aio::pfcount`
//!   on the async cluster connection; `bound:fetch` = every `GET` sent at
//!   once (the async cluster connection has no cross-slot pipeline).
//! - `bitcount/cluster-bitop_count-and-8` (8 bitmaps of 1 MiB, spread):
//!   `ours` = `bitcount::redis::bitop_count(AND)`; `one-slot` =
//!   `BITOP AND` into a key of the same slot, then `BITCOUNT` of it (two
//!   commands: the cluster pipeline refuses `BITOP`); `per-key-get` = one `GET` per key folded with
//!   `bitcount::bitop`; and the `-async` group as above.
//!
//! Without `VALKEY_CLUSTER_URL` it prints `skipped:` and measures nothing.

use std::hint::black_box;

use benches::cluster::{
    dense_hlls, fetch, fetch_async, fetch_by_node, keys, per_key_get, per_key_get_async, AndEach,
    Async, MergeEach,
};
use bitcount::BitOp;
use criterion::{BenchmarkId, Criterion, Throughput};
use redis::cluster::ClusterConnection;

type Setup = benches::cluster::Connections<ClusterConnection, Async>;

fn pfcount(c: &mut Criterion, s: &mut Setup) {
    let n = 100;
    let (spread, tagged) = keys(&mut s.con, "hll", &dense_hlls(n));
    let want = hll::redis::pfcount(&mut s.con, &spread).unwrap();
    let server: u64 = redis::cmd("PFCOUNT")
        .arg(&tagged)
        .query(&mut s.con)
        .unwrap();
    assert_eq!(want, server);

    let mut g = c.benchmark_group("hll/cluster-pfcount");
    g.throughput(Throughput::Elements(n as u64));
    let id = |f: &str| BenchmarkId::new(f, n);
    let con = &mut s.con;
    g.bench_function(id("ours"), |b| {
        b.iter(|| hll::redis::pfcount(con, black_box(&spread)).unwrap())
    });
    g.bench_function(id("bound:fetch"), |b| b.iter(|| fetch(con, &spread)));
    g.bench_function(id("bound:fetch-by-node"), |b| {
        b.iter(|| fetch_by_node(con, &spread))
    });
    g.bench_function(id("one-slot"), |b| {
        b.iter(|| {
            redis::cmd("PFCOUNT")
                .arg(&tagged)
                .query::<u64>(con)
                .unwrap()
        })
    });
    g.bench_function(id("per-key-get"), |b| {
        b.iter(|| per_key_get::<MergeEach>(con, &spread))
    });
    g.finish();

    let mut g = c.benchmark_group("hll/cluster-pfcount-async");
    g.throughput(Throughput::Elements(n as u64));
    let (rt, acon) = (&s.rt, &mut s.acon);
    g.bench_function(id("ours"), |b| {
        b.iter(|| {
            rt.block_on(hll::redis::aio::pfcount(acon, black_box(&spread)))
                .unwrap()
        })
    });
    g.bench_function(id("bound:fetch"), |b| {
        b.iter(|| rt.block_on(fetch_async(acon, &spread)))
    });
    g.bench_function(id("one-slot"), |b| {
        b.iter(|| {
            rt.block_on(redis::cmd("PFCOUNT").arg(&tagged).query_async::<u64>(acon))
                .unwrap()
        })
    });
    g.bench_function(id("per-key-get"), |b| {
        b.iter(|| rt.block_on(per_key_get_async::<MergeEach>(acon, &spread)))
    });
    g.finish();
}

fn bitop_count(c: &mut Criterion, s: &mut Setup) {
    let (n, len) = (8, 1 << 20);
    let values: Vec<Vec<u8>> = (0..n)
        .map(|i| benches::bytes(0xb17 + i as u64, len))
        .collect();
    let (spread, tagged) = keys(&mut s.con, "bit", &values);
    // The cluster pipeline refuses BITOP: two commands.
    let server = |con: &mut ClusterConnection| -> u64 {
        let _: u64 = redis::cmd("BITOP")
            .arg("AND")
            .arg("{bench:bit}:dest")
            .arg(&tagged)
            .query(con)
            .unwrap();
        redis::cmd("BITCOUNT")
            .arg("{bench:bit}:dest")
            .query(con)
            .unwrap()
    };
    let want = bitcount::redis::bitop_count(&mut s.con, BitOp::And, &spread).unwrap();
    assert_eq!(want, server(&mut s.con));

    let mut g = c.benchmark_group("bitcount/cluster-bitop_count-and-8");
    g.throughput(Throughput::Bytes((n * len) as u64));
    let id = |f: &str| BenchmarkId::new(f, len);
    let con = &mut s.con;
    g.bench_function(id("ours"), |b| {
        b.iter(|| bitcount::redis::bitop_count(con, BitOp::And, black_box(&spread)).unwrap())
    });
    g.bench_function(id("bound:fetch"), |b| b.iter(|| fetch(con, &spread)));
    g.bench_function(id("bound:fetch-by-node"), |b| {
        b.iter(|| fetch_by_node(con, &spread))
    });
    g.bench_function(id("one-slot"), |b| b.iter(|| server(con)));
    g.bench_function(id("per-key-get"), |b| {
        b.iter(|| per_key_get::<AndEach>(con, &spread))
    });
    g.finish();

    let mut g = c.benchmark_group("bitcount/cluster-bitop_count-and-8-async");
    g.throughput(Throughput::Bytes((n * len) as u64));
    let (rt, acon) = (&s.rt, &mut s.acon);
    g.bench_function(id("ours"), |b| {
        b.iter(|| {
            rt.block_on(bitcount::redis::aio::bitop_count(
                acon,
                BitOp::And,
                black_box(&spread),
            ))
            .unwrap()
        })
    });
    g.bench_function(id("bound:fetch"), |b| {
        b.iter(|| rt.block_on(fetch_async(acon, &spread)))
    });
    g.bench_function(id("one-slot"), |b| {
        b.iter(|| {
            rt.block_on(async {
                let _: u64 = redis::cmd("BITOP")
                    .arg("AND")
                    .arg("{bench:bit}:dest")
                    .arg(&tagged)
                    .query_async(acon)
                    .await
                    .unwrap();
                redis::cmd("BITCOUNT")
                    .arg("{bench:bit}:dest")
                    .query_async::<u64>(acon)
                    .await
                    .unwrap()
            })
        })
    });
    g.bench_function(id("per-key-get"), |b| {
        b.iter(|| rt.block_on(per_key_get_async::<AndEach>(acon, &spread)))
    });
    g.finish();
}

fn cluster(c: &mut Criterion) {
    let Some(mut s) = benches::cluster::connect() else {
        return;
    };
    pfcount(c, &mut s);
    bitop_count(c, &mut s);
}

criterion::criterion_group! {
    name = benches;
    config = benches::config();
    targets = cluster
}
criterion::criterion_main!(benches);
