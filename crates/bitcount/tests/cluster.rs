//! `bitcount::redis` against real servers: on a Valkey cluster of three
//! masters (`VALKEY_CLUSTER_URL`), `bitop` and `bitop_count` (sync and
//! async) over keys spread across every shard answer and store exactly what
//! the server's `BITOP` (and `BITCOUNT` of its result) gives for the same
//! values under one hash tag; on single servers (`REDIS_URL`, `VALKEY_URL`)
//! they equal the server's commands over the same keys. The operations of
//! Redis 8.2 (DIFF, DIFF1, ANDOR, ONE), which these servers refuse, are
//! compared with [`bitcount::bitop`] over the values read back. Each test
//! prints `skipped:` and passes when its variable is unset.

use bitcount::BitOp;
use redis::aio::ConnectionLike as AsyncConnectionLike;
use redis::{ConnectionLike, RedisResult};
use simd_core::testing::redis::{cluster, get, put, server, shards, text, Connections, Val};
use simd_core::testing::{random_bytes, Rng};

/// How the `redis` crate shows a server's error reply `text`.
fn as_server_error(text: &str) -> String {
    let v = redis::parse_redis_value(format!("-{text}\r\n").as_bytes()).unwrap();
    v.extract_error().unwrap_err().to_string()
}

/// The server's `BITOP` into `dest` and its `BITCOUNT`, or, for an
/// operation the server refuses with `ERR syntax error`, `bitcount::bitop`
/// over the values (the argument checks are the same).
fn server_bitop<C: ConnectionLike>(
    con: &mut C,
    op: BitOp,
    dest: &str,
    keys: &[String],
    values: &[Val],
) -> (Result<usize, String>, Option<u64>) {
    let r = text(
        redis::cmd("BITOP")
            .arg(op.name())
            .arg(dest)
            .arg(keys)
            .query::<usize>(con),
    );
    if r.as_ref().is_err_and(|e| e.contains("syntax error")) {
        // A missing key is an empty string; a list is WRONGTYPE, first in order.
        if let Err(e) = op.check(keys.len()) {
            return (Err(as_server_error(&e.to_string())), None);
        }
        let mut srcs: Vec<&[u8]> = Vec::new();
        for v in values {
            match v {
                Val::Missing => srcs.push(&[]),
                Val::Str(b) => srcs.push(b),
                Val::List => {
                    let e = "WRONGTYPE Operation against a key holding the wrong kind of value";
                    return (Err(as_server_error(e)), None);
                }
            }
        }
        let mut out = Vec::new();
        let n = bitcount::bitop(op, &mut out, &srcs).unwrap();
        put(
            con,
            dest,
            &if n == 0 { Val::Missing } else { Val::Str(out) },
        );
        return (Ok(n), Some(bitcount::bitop_count(op, &srcs).unwrap()));
    }
    let count = r
        .is_ok()
        .then(|| redis::cmd("BITCOUNT").arg(dest).query::<u64>(con).unwrap());
    (r, count)
}

/// One comparison over `values` under `ours` and under `theirs`, for
/// every operation: replies, errors, stored bytes (or none), counts.
fn check<C: ConnectionLike, A: AsyncConnectionLike + Clone + Send>(
    s: &mut Connections<C, A>,
    ours: &[String],
    theirs: &[String],
    values: &[Val],
    dests: (&str, &str),
    what: &str,
) -> usize {
    let Connections { con, acon, rt } = s;
    for (k, v) in ours.iter().zip(values).chain(theirs.iter().zip(values)) {
        put(con, k, v);
    }
    let (our_dest, their_dest) = dests;
    let init = Val::Str(b"old value".to_vec());
    let mut compared = 0;
    for op in BitOp::ALL {
        let n = if op == BitOp::Not { 1 } else { ours.len() };
        let what = format!("{what}: {op} of {n}");
        put(con, their_dest, &init);
        let (want, want_count) = server_bitop(con, op, their_dest, &theirs[..n], &values[..n]);
        let stored = get(con, their_dest);
        for aio in [false, true] {
            put(con, our_dest, &init);
            let got = if aio {
                rt.block_on(bitcount::redis::aio::bitop(acon, op, our_dest, &ours[..n]))
            } else {
                bitcount::redis::bitop(con, op, our_dest, &ours[..n])
            };
            assert_eq!(text(got), want, "{what} (aio: {aio})");
            assert!(
                get(con, our_dest) == stored,
                "{what} (aio: {aio}): stored bytes differ"
            );
            let count = if aio {
                rt.block_on(bitcount::redis::aio::bitop_count(acon, op, &ours[..n]))
            } else {
                bitcount::redis::bitop_count(con, op, &ours[..n])
            };
            match (want_count, text(count)) {
                (Some(c), got) => assert_eq!(got, Ok(c), "{what} count (aio: {aio})"),
                (None, got) => assert_eq!(got.err(), want.clone().err(), "{what} count error"),
            }
            compared += 1;
        }
    }
    compared
}

/// Key counts and value sizes: (keys, largest value).
const CASES: [(usize, usize); 9] = [
    (1, 100),
    (2, 1 << 20),
    (3, 5000),
    (8, 1 << 20),
    (30, 64),
    (100, 4096),
    (1000, 256),
    (4, 300),
    (5, 70),
];

fn values_for(rng: &mut Rng, n: usize, max: usize, bad: bool) -> Vec<Val> {
    let mut values: Vec<Val> = (0..n)
        .map(|_| match rng.below(12) {
            0 => Val::Missing,
            1 => Val::Str(Vec::new()),
            2 => Val::Str(random_bytes(rng.next_u64(), max)),
            _ => {
                let len = rng.below(max as u64 + 1) as usize;
                Val::Str(random_bytes(rng.next_u64(), len))
            }
        })
        .collect();
    if bad {
        let at = rng.below(n as u64) as usize;
        values[at] = Val::List;
    }
    values
}

#[test]
fn cluster_matches_one_slot() {
    let Some(mut s) = cluster() else { return };
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let run = std::process::id();
    let mut compared = 0;
    for (case, (n, max)) in CASES.into_iter().enumerate() {
        let bad = case >= 7;
        let values = values_for(&mut rng, n, max, bad);
        let ours: Vec<String> = (0..n).map(|i| format!("bitc:{run}:{case}:{i}")).collect();
        let theirs: Vec<String> = (0..n)
            .map(|i| format!("{{bitc:{run}:{case}}}:{i}"))
            .collect();
        if n >= 30 {
            assert_eq!(shards(&ours), [true; 3], "{n} keys on every master");
        }
        let dests = (
            format!("bitc:{run}:{case}:dest"),
            format!("{{bitc:{run}:{case}}}:dest"),
        );
        let what = format!("case {case}: {n} keys up to {max} bytes");
        compared += check(&mut s, &ours, &theirs, &values, (&dests.0, &dests.1), &what);
        for k in ours.iter().chain([&dests.0]) {
            let _: RedisResult<i64> = redis::cmd("DEL").arg(k).query(&mut s.con);
        }
        let _: RedisResult<i64> = redis::cmd("DEL")
            .arg(&theirs)
            .arg(&dests.1)
            .query(&mut s.con);
    }
    // No key: the server's arity error.
    let none: [&str; 0] = [];
    let want = text(
        redis::cmd("BITOP")
            .arg("AND")
            .arg("{x}d")
            .arg(&none[..])
            .query::<u64>(&mut s.con),
    );
    assert!(want.is_err());
    assert_eq!(
        text(bitcount::redis::bitop_count(&mut s.con, BitOp::And, &none)),
        want
    );
    println!("cluster: {compared} bitop/bitop_count comparisons equal the server's");
}

fn single_node(var: &str) {
    let Some(mut s) = server(var) else { return };
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    let run = std::process::id();
    let mut compared = 0;
    for (case, (n, max)) in CASES.into_iter().enumerate() {
        let values = values_for(&mut rng, n, max, case >= 7);
        let keys: Vec<String> = (0..n).map(|i| format!("bits:{run}:{case}:{i}")).collect();
        let (a, b) = (
            format!("bits:{run}:{case}:ours"),
            format!("bits:{run}:{case}:theirs"),
        );
        let what = format!("{var} case {case}: {n} keys up to {max} bytes");
        compared += check(&mut s, &keys, &keys, &values, (&a, &b), &what);
        let _: RedisResult<i64> = redis::cmd("DEL")
            .arg(&keys)
            .arg(&a)
            .arg(&b)
            .query(&mut s.con);
    }
    println!("{var}: {compared} bitop/bitop_count comparisons equal the server's");
}

#[test]
fn single_node_redis() {
    single_node("REDIS_URL");
}

#[test]
fn single_node_valkey() {
    single_node("VALKEY_URL");
}
