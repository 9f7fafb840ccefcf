//! Live differential test: thousands of random strings and ranges sent to a
//! real Redis (`REDIS_URL`) and Valkey (`VALKEY_URL`) server, whose BITCOUNT
//! and BITPOS answers must equal the library's. `cargo xtask golden` starts
//! both servers and sets the variables; without them the test prints
//! `skipped: REDIS_URL not set` (or VALKEY_URL) and passes.
//!
//! BITOP AND/OR/XOR/NOT (the operations both servers have) on random
//! sources, missing keys included: the server's reply, the stored result
//! (`GET`) and its `BITCOUNT` must equal `bitop`'s result and `bitop_count`,
//! and the server's argument errors must read as `BitopError`'s.

use bitcount::{BitposRange, Unit};
use simd_core::testing::Rng;

/// One command's arguments after the key, and the library's answer.
struct Query {
    args: Vec<String>,
    want: i64,
}

/// A random string: plain random bytes, or runs of 0x00 / 0xff (where
/// BITPOS must scan far) with a few other bytes planted.
fn random_string(rng: &mut Rng) -> Vec<u8> {
    let len = match rng.below(10) {
        0 => 0,
        1..=6 => rng.below(80) as usize,
        7 | 8 => rng.below(1200) as usize,
        _ => rng.below(20_000) as usize,
    };
    if rng.below(2) == 0 {
        return (0..len).map(|_| rng.next_u64() as u8).collect();
    }
    let fill = if rng.below(2) == 0 { 0x00 } else { 0xff };
    let mut data = vec![fill; len];
    for _ in 0..rng.below(3) {
        if len > 0 {
            data[rng.below(len as u64) as usize] = rng.next_u64() as u8;
        }
    }
    data
}

/// An index around a string of `total` units: inside, at the edges, beyond
/// both ends, or extreme.
fn index(rng: &mut Rng, total: i64) -> i64 {
    match rng.below(12) {
        0 => 0,
        1 => -1,
        2 => i64::from(rng.below(2) == 0) * 2 - 1 + total,
        3 => -(rng.below(3) as i64) - total,
        4 => i64::MAX - rng.below(2) as i64,
        5 => i64::MIN + rng.below(2) as i64,
        _ => rng.below(2 * total as u64 + 21) as i64 - total - 10,
    }
}

fn unit_name(unit: Unit) -> &'static str {
    match unit {
        Unit::Byte => "BYTE",
        Unit::Bit => "BIT",
    }
}

/// The queries to run on one string, with the library's answers.
fn queries(rng: &mut Rng, data: &[u8]) -> Vec<(&'static str, Query)> {
    let mut out = Vec::new();
    let bytes = data.len() as i64;
    out.push((
        "BITCOUNT",
        Query {
            args: vec![],
            want: bitcount::count(data) as i64,
        },
    ));
    for unit in [None, Some(Unit::Byte), Some(Unit::Bit)] {
        let total = if unit == Some(Unit::Bit) {
            bytes * 8
        } else {
            bytes
        };
        let (s, e) = (index(rng, total), index(rng, total));
        let mut args = vec![s.to_string(), e.to_string()];
        args.extend(unit.map(|u| unit_name(u).to_string()));
        let want = bitcount::count_range(data, s, e, unit.unwrap_or(Unit::Byte)) as i64;
        out.push(("BITCOUNT", Query { args, want }));
    }
    for bit in [false, true] {
        let b = if bit { "1" } else { "0" };
        let s = index(rng, bytes);
        let mut ranges = vec![
            (vec![], BitposRange::All),
            (vec![s.to_string()], BitposRange::From(s)),
        ];
        for unit in [None, Some(Unit::Byte), Some(Unit::Bit)] {
            let total = if unit == Some(Unit::Bit) {
                bytes * 8
            } else {
                bytes
            };
            let (s, e) = (index(rng, total), index(rng, total));
            let mut args = vec![s.to_string(), e.to_string()];
            args.extend(unit.map(|u| unit_name(u).to_string()));
            let unit = unit.unwrap_or(Unit::Byte);
            ranges.push((
                args,
                BitposRange::Between {
                    start: s,
                    end: e,
                    unit,
                },
            ));
        }
        for (range_args, range) in ranges {
            let mut args = vec![b.to_string()];
            args.extend(range_args);
            let want = bitcount::bitpos(data, bit, range);
            out.push(("BITPOS", Query { args, want }));
        }
    }
    out
}

fn run_against(var: &str) {
    let Ok(url) = std::env::var(var) else {
        println!("skipped: {var} not set");
        return;
    };
    let client = redis::Client::open(url.as_str()).expect("valid server URL");
    let mut con = client.get_connection().expect("server reachable");
    let key = format!("bitcount-live:{}:{var}", std::process::id());
    let mut rng = Rng::new(0x5eed ^ var.len() as u64);
    let strings = 3000;
    let mut compared = 0usize;
    for n in 0..strings {
        let data = random_string(&mut rng);
        let qs = queries(&mut rng, &data);
        let mut pipe = redis::pipe();
        pipe.cmd("SET").arg(&key).arg(&data[..]).ignore();
        for (name, q) in &qs {
            pipe.cmd(name).arg(&key).arg(&q.args);
        }
        let answers: Vec<i64> = pipe.query(&mut con).expect("pipeline answered");
        assert_eq!(answers.len(), qs.len());
        for ((name, q), got) in qs.iter().zip(answers) {
            assert_eq!(
                q.want,
                got,
                "{var}: string {n} ({} bytes, hex {}): {name} key {}",
                data.len(),
                hex::encode(&data[..data.len().min(64)]),
                q.args.join(" ")
            );
            compared += 1;
        }
    }
    let _: () = redis::cmd("DEL").arg(&key).query(&mut con).expect("DEL");
    println!("{var}: {compared} answers from {strings} strings agree");
}

#[cfg(feature = "alloc")]
fn bitop_against(var: &str) {
    use bitcount::{BitOp, BitopError};
    let Ok(url) = std::env::var(var) else {
        println!("skipped: {var} not set");
        return;
    };
    let client = redis::Client::open(url.as_str()).expect("valid server URL");
    let mut con = client.get_connection().expect("server reachable");
    let base = format!("bitcount-live-bitop:{}:{var}", std::process::id());
    let dest = format!("{base}:dest");
    let mut rng = Rng::new(0xb170 ^ var.len() as u64);
    let rounds = 1500;
    let mut compared = 0usize;
    for round in 0..rounds {
        let op = [BitOp::And, BitOp::Or, BitOp::Xor, BitOp::Not][rng.below(4) as usize];
        let k = if op == BitOp::Not {
            1
        } else {
            let most = if rng.below(4) == 0 { 40 } else { 5 };
            1 + rng.below(most) as usize
        };
        let mut pipe = redis::pipe();
        let mut data = Vec::new();
        let mut keys = Vec::new();
        for j in 0..k {
            let key = format!("{base}:{j}");
            // One source in eight is a missing key (an empty string).
            let bytes = if rng.below(8) == 0 {
                pipe.cmd("DEL").arg(&key).ignore();
                Vec::new()
            } else {
                let d = random_string(&mut rng);
                pipe.cmd("SET").arg(&key).arg(&d[..]).ignore();
                d
            };
            data.push(bytes);
            keys.push(key);
        }
        let sources: Vec<&[u8]> = data.iter().map(Vec::as_slice).collect();
        pipe.cmd("BITOP").arg(op.name()).arg(&dest).arg(&keys);
        pipe.cmd("GET").arg(&dest);
        pipe.cmd("BITCOUNT").arg(&dest);
        let (len, stored, count): (usize, Option<Vec<u8>>, u64) =
            pipe.query(&mut con).expect("pipeline answered");
        let mut ours = Vec::new();
        let lens: Vec<usize> = sources.iter().map(|s| s.len()).collect();
        assert_eq!(
            bitcount::bitop(op, &mut ours, &sources),
            Ok(len),
            "{var}: round {round}: {op} of lengths {lens:?}"
        );
        assert!(
            ours == stored.unwrap_or_default(),
            "{var}: round {round}: {op} of lengths {lens:?}"
        );
        assert_eq!(
            bitcount::bitop_count(op, &sources),
            Ok(count),
            "{var}: round {round}: {op} count"
        );
        compared += 1;
    }
    // The argument errors, worded as the server words them.
    let k0 = format!("{base}:0");
    let errors: [(&[&str], BitopError); 2] = [
        (&["NOT", &dest, &k0, &k0], BitopError::NotSingleSource),
        (&["AND", &dest], BitopError::NoSources),
    ];
    for (args, want) in errors {
        let r: redis::RedisResult<i64> = redis::cmd("BITOP").arg(args).query(&mut con);
        let e = r.expect_err("the server refuses");
        let text = format!("{} {}", e.code().unwrap_or("?"), e.detail().unwrap_or("?"));
        assert_eq!(text, want.to_string(), "{var}: BITOP {}", args.join(" "));
    }
    let r: redis::RedisResult<i64> = redis::cmd("BITOP")
        .arg(&["NAND", &dest, &k0])
        .query(&mut con);
    let e = r.expect_err("the server refuses");
    assert_eq!(
        format!("{} {}", e.code().unwrap_or("?"), e.detail().unwrap_or("?")),
        BitopError::Syntax.to_string()
    );
    let mut del = redis::cmd("DEL");
    del.arg(&dest);
    for j in 0..40 {
        del.arg(format!("{base}:{j}"));
    }
    let _: () = del.query(&mut con).expect("DEL");
    println!("{var}: {compared} BITOP results agree");
}

#[cfg(feature = "alloc")]
#[test]
fn redis_bitop_agrees() {
    bitop_against("REDIS_URL");
}

#[cfg(feature = "alloc")]
#[test]
fn valkey_bitop_agrees() {
    bitop_against("VALKEY_URL");
}

#[test]
fn redis_agrees() {
    run_against("REDIS_URL");
}

#[test]
fn valkey_agrees() {
    run_against("VALKEY_URL");
}
