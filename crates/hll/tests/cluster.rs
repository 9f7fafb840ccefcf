//! `hll::redis` against real servers: on a Valkey cluster of three masters
//! (`VALKEY_CLUSTER_URL`), `pfcount` and `pfmerge` (sync and async) over
//! keys spread across every shard answer and store exactly what the
//! server's `PFCOUNT` and `PFMERGE` answer and store for the same values
//! under one hash tag; on single servers (`REDIS_URL`, `VALKEY_URL`) they
//! equal the server's commands over the same keys. Each test prints
//! `skipped:` and passes when its variable is unset.

use redis::aio::ConnectionLike as AsyncConnectionLike;
use redis::{ConnectionLike, RedisResult};
use simd_core::testing::redis::{cluster, get, put, server, shards, text, Connections, Val};
use simd_core::testing::Rng;

fn random_hll(rng: &mut Rng) -> Vec<u8> {
    let mut h = hll::Hll::new();
    let n = match rng.below(4) {
        0 => 1 + rng.below(20),
        1 => 50 + rng.below(400),
        2 => 1000 + rng.below(2000),
        _ => 5000 + rng.below(50_000),
    };
    h.add_all((0..n).map(|_| rng.next_u64().to_le_bytes()));
    h.into_bytes()
}

/// One comparison: `values` under `ours` (read by our functions) and under
/// `theirs` (read by the server's commands), the destinations starting as
/// `dest`; answers, errors and stored bytes must be equal.
fn check<C: ConnectionLike, A: AsyncConnectionLike + Clone + Send>(
    s: &mut Connections<C, A>,
    ours: &[String],
    theirs: &[String],
    values: &[Val],
    dest: (&str, &str, &Val),
    what: &str,
) {
    let Connections { con, acon, rt } = s;
    for (k, v) in ours.iter().zip(values).chain(theirs.iter().zip(values)) {
        put(con, k, v);
    }
    let kinds: Vec<String> = core::iter::once(dest.2)
        .chain(values)
        .map(|v| match v {
            Val::Missing => "missing".into(),
            Val::List => "list".into(),
            Val::Str(b) => format!("{} bytes {:?}", b.len(), &b[..b.len().min(5)]),
        })
        .collect();
    let what = &format!("{what} (dest, keys: {kinds:?})");
    let want = text(redis::cmd("PFCOUNT").arg(theirs).query::<u64>(con));
    assert_eq!(text(hll::redis::pfcount(con, ours)), want, "pfcount {what}");
    let got = rt.block_on(hll::redis::aio::pfcount(acon, ours));
    assert_eq!(text(got), want, "aio pfcount {what}");

    let (our_dest, their_dest, init) = dest;
    put(con, their_dest, init);
    let want = text(
        redis::cmd("PFMERGE")
            .arg(their_dest)
            .arg(theirs)
            .query::<()>(con),
    );
    let stored = get(con, their_dest);
    put(con, our_dest, init);
    let before = get(con, our_dest);
    let got = text(hll::redis::pfmerge(con, our_dest, ours));
    assert_eq!(got, want, "pfmerge {what}");
    let after = get(con, our_dest);
    if want.is_ok() {
        assert!(after == stored, "pfmerge {what}: stored bytes differ");
    } else {
        assert!(after == before, "pfmerge {what}: failed but wrote");
    }
    put(con, our_dest, init);
    let got = text(rt.block_on(hll::redis::aio::pfmerge(acon, our_dest, ours)));
    assert_eq!(got, want, "aio pfmerge {what}");
    let after = get(con, our_dest);
    assert!(
        after == if want.is_ok() { stored } else { before },
        "aio pfmerge {what}: stored bytes differ"
    );
}

/// Bad values: a list, strings that are not HyperLogLogs, a corrupted
/// sparse one with its cache valid and invalid.
fn bad_values(rng: &mut Rng) -> Vec<Val> {
    let mut corrupt = hll::Hll::new().into_bytes();
    let n = corrupt.len();
    corrupt[n - 1] = 0xfe; // XZERO of 16383 registers
    let mut corrupt_nocache = corrupt.clone();
    corrupt_nocache[15] |= 0x80;
    let mut short_dense = random_hll(rng);
    short_dense[4] = 0;
    vec![
        Val::List,
        Val::Str(b"not a HyperLogLog".to_vec()),
        Val::Str(b"123".to_vec()),
        Val::Str(corrupt),
        Val::Str(corrupt_nocache),
        Val::Str(short_dense),
    ]
}

/// Key sets of 1 to 1000 keys (sparse and dense values, some missing),
/// and sets holding a bad value, against the cluster; the spread keys of
/// every set of 30 or more span all three masters.
#[test]
fn cluster_matches_one_slot() {
    let Some(mut s) = cluster() else { return };
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let run = std::process::id();
    let bad = bad_values(&mut rng);
    let mut cases = 0;
    for (case, n) in [1usize, 2, 3, 5, 10, 30, 100, 1000, 1, 2, 3, 4, 7]
        .into_iter()
        .enumerate()
    {
        let with_bad = case >= 8;
        let mut values: Vec<Val> = (0..n)
            .map(|_| match rng.below(10) {
                0 => Val::Missing,
                _ => Val::Str(random_hll(&mut rng)),
            })
            .collect();
        if with_bad {
            let at = rng.below(n as u64) as usize;
            values[at] = bad[case % bad.len()].clone();
            if n > 2 {
                let at = rng.below(n as u64) as usize;
                values[at] = bad[(case + 1) % bad.len()].clone();
            }
        }
        let ours: Vec<String> = (0..n).map(|i| format!("hllc:{run}:{case}:{i}")).collect();
        let theirs: Vec<String> = (0..n)
            .map(|i| format!("{{hllc:{run}:{case}}}:{i}"))
            .collect();
        if n >= 30 {
            assert_eq!(shards(&ours), [true; 3], "{n} keys on every master");
        }
        let dests = [
            Val::Missing,
            Val::Str(hll::Hll::new().into_bytes()),
            Val::Str(random_hll(&mut rng)),
        ];
        for (d, init) in dests.iter().enumerate() {
            let our_dest = format!("hllc:{run}:{case}:dest{d}");
            let their_dest = format!("{{hllc:{run}:{case}}}:dest{d}");
            let what = format!("case {case}: {n} keys, dest {d}");
            check(
                &mut s,
                &ours,
                &theirs,
                &values,
                (&our_dest, &their_dest, init),
                &what,
            );
            cases += 1;
        }
        // A bad destination: the server's error, nothing written.
        if with_bad {
            let our_dest = format!("hllc:{run}:{case}:bad");
            let their_dest = format!("{{hllc:{run}:{case}}}:bad");
            let what = format!("case {case}: bad dest");
            let good: Vec<Val> = values
                .iter()
                .map(|_| Val::Str(random_hll(&mut rng)))
                .collect();
            check(
                &mut s,
                &ours,
                &theirs,
                &good,
                (&our_dest, &their_dest, &bad[case % bad.len()]),
                &what,
            );
            cases += 1;
        }
        let mut del = redis::cmd("DEL");
        for k in &ours {
            let _: RedisResult<i64> = redis::cmd("DEL").arg(k).query(&mut s.con);
        }
        del.arg(&theirs);
        let _: RedisResult<i64> = del.query(&mut s.con);
    }
    // No key: the server's arity error.
    let none: [&str; 0] = [];
    let want = text(
        redis::cmd("PFCOUNT")
            .arg(&none[..])
            .query::<u64>(&mut s.con),
    );
    assert!(want.is_err());
    assert_eq!(text(hll::redis::pfcount(&mut s.con, &none)), want);
    println!("cluster: {cases} pfcount/pfmerge comparisons (sync and async) equal the server's");
}

/// The same functions on one server equal its own commands over the same
/// keys (Redis 7.0.15, Valkey 9.1.2).
fn single_node(var: &str) {
    let Some(mut s) = server(var) else { return };
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    let run = std::process::id();
    let bad = bad_values(&mut rng);
    let mut cases = 0;
    for (case, n) in [1usize, 2, 3, 50, 300, 1, 3, 8].into_iter().enumerate() {
        let mut values: Vec<Val> = (0..n)
            .map(|_| match rng.below(8) {
                0 => Val::Missing,
                _ => Val::Str(random_hll(&mut rng)),
            })
            .collect();
        if case >= 5 {
            let at = rng.below(n as u64) as usize;
            values[at] = bad[case % bad.len()].clone();
        }
        let keys: Vec<String> = (0..n).map(|i| format!("hlls:{run}:{case}:{i}")).collect();
        for (d, init) in [Val::Missing, Val::Str(random_hll(&mut rng))]
            .iter()
            .enumerate()
        {
            let what = format!("{var} case {case}: {n} keys, dest {d}");
            let (a, b) = (
                format!("hlls:{run}:{case}:ours{d}"),
                format!("hlls:{run}:{case}:theirs{d}"),
            );
            check(&mut s, &keys, &keys, &values, (&a, &b, init), &what);
            cases += 1;
            let _: RedisResult<i64> = redis::cmd("DEL").arg(&a).arg(&b).query(&mut s.con);
        }
        let _: RedisResult<i64> = redis::cmd("DEL").arg(&keys).query(&mut s.con);
    }
    println!("{var}: {cases} pfcount/pfmerge comparisons (sync and async) equal the server's");
}

#[test]
fn single_node_redis() {
    single_node("REDIS_URL");
}

#[test]
fn single_node_valkey() {
    single_node("VALKEY_URL");
}
