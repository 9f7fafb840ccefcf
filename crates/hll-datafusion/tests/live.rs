//! The functions' output against real servers: `redis_hll` at one and
//! four partitions equals `GET` of the server's `PFMERGE` into a new key
//! of its own `PFADD` keys of the same values (the canonical string);
//! `hll::Hll::from_registers` equals `PFMERGE` of sparse sources holding
//! the same registers; `PFCOUNT` and `PFMERGE` on what was SET equal
//! `redis_hll_count` and `redis_hll_merge`.
//!
//! Reads `REDIS_URL` and `VALKEY_URL` (`redis://127.0.0.1:PORT/`); prints
//! `skipped: REDIS_URL not set` (or VALKEY_URL) and passes when unset.
//! `cargo xtask ci --only hll-datafusion` starts both servers for it.

mod common;

use common::*;
use hll::Hll;
use redis::Connection;

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

/// `PFMERGE dest sources..` into a new key, and `GET dest`.
fn pfmerge(con: &mut Connection, dest: &str, sources: &[String]) -> Vec<u8> {
    let _: () = redis::cmd("DEL").arg(dest).query(con).unwrap();
    let _: () = redis::cmd("PFMERGE")
        .arg(dest)
        .arg(sources)
        .query(con)
        .unwrap();
    get(con, dest)
}

/// `Hll::from_registers` against the server's `PFMERGE` into a new key of
/// sparse sources that hold the registers between them: runs of equal
/// values (VAL fusion), gaps of every opcode size, sizes around the sparse
/// limit.
fn canonical_strings_are_pfmerge(con: &mut Connection, key: &dyn Fn(&str) -> String, var: &str) {
    let mut rng = Rng::new(11);
    let (mut checked, mut sparse, mut dense) = (0, 0, 0);
    for case in 0..300usize {
        let mut regs: Vec<(usize, u8)> = Vec::new();
        let mut i = rng.below(200) as usize;
        let n = [3u64, 40, 400, 1200, 3000][case % 5];
        let top = [1u64, 2, 3, 12][case % 4];
        for _ in 0..rng.below(n) + 1 {
            if i >= hll::REGISTERS {
                break;
            }
            regs.push((i, rng.below(top) as u8 + 1));
            i += match if case % 2 == 0 { 0 } else { rng.below(4) } {
                0 => 1 + rng.below(3) as usize,
                1 => 1 + rng.below(64) as usize,
                2 => 64 + rng.below(4) as usize,
                _ => 1 + rng.below(400) as usize,
            };
        }
        let want = Hll::from_registers(regs.iter().copied()).unwrap();
        // Three sources that split the registers among them; only sparse
        // sources say what a set of registers gives (PFMERGE keeps a dense
        // input dense), so a case with a dense source is skipped.
        let mut sources = Vec::new();
        for s in 0..3 {
            let part = regs.iter().copied().filter(|(i, _)| i % 3 == s);
            let h = Hll::from_registers(part).unwrap();
            if !h.is_sparse() {
                continue;
            }
            let k = key(&format!("src{s}"));
            set(con, &k, h.as_bytes());
            sources.push((k, h));
        }
        if sources.len() < 3 {
            continue;
        }
        let keys: Vec<String> = sources.iter().map(|s| s.0.clone()).collect();
        let got = pfmerge(con, &key("canonical"), &keys);
        assert_eq!(
            got,
            want.as_bytes(),
            "{var}: case {case}, {} registers",
            regs.len()
        );
        checked += 1;
        if want.is_sparse() {
            sparse += 1;
        } else {
            dense += 1;
        }
    }
    assert!(
        checked >= 150 && sparse >= 50 && dense >= 5,
        "{checked} {sparse} {dense}"
    );
    let _: i64 = redis::cmd("DEL")
        .arg(key("src0"))
        .arg(key("src1"))
        .arg(key("src2"))
        .arg(key("canonical"))
        .query(con)
        .unwrap();
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
    canonical_strings_are_pfmerge(&mut con, &key, var);
    // Sparse, promoted part-way, dense.
    for (k, rows) in [50usize, 2000, 40_000].into_iter().enumerate() {
        let groups = 8;
        let ev = Events::new(k as u64, rows, groups, rows as u64, 9);

        // The server's PFADD per group, then PFMERGE of those keys into a
        // new key: the canonical string of the values, for redis_hll at
        // one and four partitions.
        let mut group_keys = Vec::new();
        for g in 0..groups as i64 {
            let k = key(&format!("pfadd{g}"));
            let vs: Vec<&[u8]> =
                ev.g.iter()
                    .zip(&ev.s)
                    .filter(|(gg, v)| **gg == g && v.is_some())
                    .map(|(_, v)| v.as_deref().unwrap().as_bytes())
                    .collect();
            pfadd(&mut con, &k, &vs);
            group_keys.push(k);
        }
        let server = pfmerge(&mut con, &key("server"), &group_keys);
        for parts in [1, 4] {
            let ctx = ev.session(parts, parts, 1000);
            let (ours, _) = whole_table(&ctx).await;
            assert_eq!(
                ours.as_bytes(),
                &server[..],
                "{var}: {rows} rows, {parts} partitions: PFMERGE of the PFADD keys"
            );
            let per_group =
                query(&ctx, "SELECT g, redis_hll(s) FROM t GROUP BY g ORDER BY g").await;
            for (g, bytes) in i64_column(&per_group, 0)
                .iter()
                .zip(binary_column(&per_group, 1))
            {
                let one = pfmerge(&mut con, &key("one"), &[group_keys[*g as usize].clone()]);
                let src = Hll::from_bytes(&get(&mut con, &group_keys[*g as usize])).unwrap();
                // PFMERGE keeps a dense source dense: compare where it is sparse.
                if src.is_sparse() {
                    assert_eq!(bytes.as_deref(), Some(&one[..]), "{var}: group {g}");
                } else {
                    assert_eq!(
                        Hll::from_bytes(&bytes.unwrap()).unwrap(),
                        src.to_canonical()
                    );
                }
            }
        }
        let _: i64 = redis::cmd("DEL").arg(&group_keys).query(&mut con).unwrap();
        let ours = Hll::from_bytes(&server).unwrap();
        let values: Vec<&[u8]> = ev.s.iter().flatten().map(|s| s.as_bytes()).collect();
        pfadd(&mut con, &key("server"), &values);
        set(&mut con, &key("ours"), ours.as_bytes());
        let count = pfcount(&mut con, &[key("ours")]);
        assert_eq!(count, pfcount(&mut con, &[key("server")]), "{var}: PFCOUNT");
        let server = get(&mut con, &key("server"));

        // Four partitions: the registers of the server's PFADD; per group
        // strings SET, then PFMERGE and PFCOUNT of several keys on the
        // server against redis_hll_merge and redis_hll_count.
        let ctx = ev.session(4, 4, 500);
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
    println!(
        "{var}: redis_hll and Hll::from_registers bytes equal PFMERGE's; PFCOUNT/PFMERGE agree"
    );
}

#[tokio::test]
async fn redis() {
    against("REDIS_URL").await;
}

#[tokio::test]
async fn valkey() {
    against("VALKEY_URL").await;
}
