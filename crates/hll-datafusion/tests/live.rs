//! The functions' output loaded into real servers with `SET`: `GET` of a
//! server's own `PFADD` of the same values in the same order equals the
//! one-partition `redis_hll` bytes; `PFCOUNT` and `PFMERGE` on what was SET
//! equal `redis_hll_count` and `redis_hll_merge`, with four partitions.
//!
//! Reads `REDIS_URL` and `VALKEY_URL` (`redis://127.0.0.1:PORT/`); prints
//! `skipped: REDIS_URL not set` (or VALKEY_URL) and passes when unset.
//! `cargo xtask ci --only hll-datafusion` starts both servers for it.

mod common;

use common::*;
use hll::Hll;
use redis::Connection;
use std::sync::Arc;

fn connect(var: &str) -> Option<Connection> {
    let Ok(url) = std::env::var(var) else {
        println!("skipped: {var} not set");
        return None;
    };
    let client = redis::Client::open(url.as_str()).expect("bad server URL");
    let mut con = client.get_connection().expect("cannot connect");
    // The bytes below assume the default sparse limit.
    let _: () = redis::cmd("CONFIG")
        .arg("SET")
        .arg("hll-sparse-max-bytes")
        .arg(hll::DEFAULT_SPARSE_MAX_BYTES)
        .query(&mut con)
        .unwrap();
    Some(con)
}

fn pfadd(con: &mut Connection, key: &str, values: &[&[u8]]) {
    let _: () = redis::cmd("DEL").arg(key).query(con).unwrap();
    let _: i64 = redis::cmd("PFADD").arg(key).query(con).unwrap();
    for chunk in values.chunks(1000) {
        let mut cmd = redis::cmd("PFADD");
        cmd.arg(key);
        for v in chunk {
            cmd.arg(*v);
        }
        let _: i64 = cmd.query(con).unwrap();
    }
}

fn get(con: &mut Connection, key: &str) -> Vec<u8> {
    redis::cmd("GET").arg(key).query(con).unwrap()
}

fn set(con: &mut Connection, key: &str, value: &[u8]) {
    let _: () = redis::cmd("SET").arg(key).arg(value).query(con).unwrap();
}

fn pfcount(con: &mut Connection, keys: &[String]) -> u64 {
    redis::cmd("PFCOUNT").arg(keys).query(con).unwrap()
}

async fn against(var: &str) {
    let Some(mut con) = connect(var) else {
        return;
    };
    let prefix = format!("hll-datafusion-live:{}:", std::process::id());
    let key = |s: &str| format!("{prefix}{s}");
    // Sparse, promoted part-way, dense.
    for (k, rows) in [50usize, 2000, 40_000].into_iter().enumerate() {
        let groups = 8;
        let ev = Events::new(k as u64, rows, groups, rows as u64, 9);
        let values: Vec<&[u8]> = ev.s.iter().flatten().map(|s| s.as_bytes()).collect();

        // One partition, in order: the server's own PFADD bytes.
        let ctx = session(1);
        ctx.register_table("t", Arc::new(ev.table(1, 1000)))
            .unwrap();
        let batches = query(
            &ctx,
            "SELECT redis_hll(s), redis_hll_count(redis_hll(s)) FROM t",
        )
        .await;
        let ours = single_hll(&batches);
        pfadd(&mut con, &key("server"), &values);
        let server = get(&mut con, &key("server"));
        assert_eq!(
            ours.as_bytes(),
            &server[..],
            "{var}: {rows} rows, bytes of PFADD"
        );
        set(&mut con, &key("ours"), ours.as_bytes());
        let count = pfcount(&mut con, &[key("ours")]);
        assert_eq!(u64_column(&batches, 1), vec![Some(count)], "{var}: PFCOUNT");
        assert_eq!(count, pfcount(&mut con, &[key("server")]));

        // Four partitions: the registers of the server's PFADD; per group
        // strings SET, then PFMERGE and PFCOUNT of several keys on the
        // server against redis_hll_merge and redis_hll_count.
        let ctx = session(4);
        ctx.register_table("t", Arc::new(ev.table(4, 500))).unwrap();
        let all = single_hll(&query(&ctx, "SELECT redis_hll(s) FROM t").await);
        let server = Hll::from_bytes(&server).unwrap();
        assert_eq!(all.registers(), server.registers(), "{var}: registers");
        let per_group = query(&ctx, "SELECT g, redis_hll(s) FROM t GROUP BY g ORDER BY g").await;
        let mut keys = Vec::new();
        for (g, bytes) in i64_column(&per_group, 0)
            .iter()
            .zip(binary_column(&per_group, 1))
        {
            let bytes = bytes.unwrap();
            let k = key(&format!("g{g}"));
            set(&mut con, &k, &bytes);
            let mut local = Hll::from_bytes(&bytes).unwrap();
            assert_eq!(
                pfcount(&mut con, std::slice::from_ref(&k)),
                local.count(),
                "{var}: group {g}"
            );
            keys.push(k);
        }
        let merged = query(
            &ctx,
            "SELECT redis_hll_merge(h), redis_hll_count(redis_hll_merge(h)) \
             FROM (SELECT g, redis_hll(s) AS h FROM t GROUP BY g)",
        )
        .await;
        let ours = single_hll(&merged);
        let _: () = redis::cmd("DEL")
            .arg(key("merged"))
            .query(&mut con)
            .unwrap();
        let _: () = redis::cmd("PFMERGE")
            .arg(key("merged"))
            .arg(&keys)
            .query(&mut con)
            .unwrap();
        let server_merged = Hll::from_bytes(&get(&mut con, &key("merged"))).unwrap();
        assert_eq!(
            ours.registers(),
            server_merged.registers(),
            "{var}: PFMERGE"
        );
        assert_eq!(ours.registers(), server.registers());
        let count = u64_column(&merged, 1)[0].unwrap();
        assert_eq!(
            count,
            pfcount(&mut con, &[key("merged")]),
            "{var}: PFCOUNT of PFMERGE"
        );
        assert_eq!(
            count,
            pfcount(&mut con, &keys),
            "{var}: PFCOUNT of several keys"
        );
        // The merged string SET back is a HyperLogLog to the server.
        set(&mut con, &key("merged-ours"), ours.as_bytes());
        assert_eq!(count, pfcount(&mut con, &[key("merged-ours")]));
        let mut del = redis::cmd("DEL");
        del.arg(&keys)
            .arg(key("server"))
            .arg(key("ours"))
            .arg(key("merged"))
            .arg(key("merged-ours"));
        let _: i64 = del.query(&mut con).unwrap();
    }
    println!("{var}: redis_hll bytes equal PFADD's; PFCOUNT/PFMERGE agree");
}

#[tokio::test]
async fn redis() {
    against("REDIS_URL").await;
}

#[tokio::test]
async fn valkey() {
    against("VALKEY_URL").await;
}
