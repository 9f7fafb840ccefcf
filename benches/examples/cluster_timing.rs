//! Min-of-N and median timing of the cluster rows (`benches/cluster.rs`) on
//! machines too busy for criterion's medians: every round calls each row
//! once, in turn, so a busy spell slows all alike.
//!
//! `VALKEY_CLUSTER_URL=redis://127.0.0.1:7000/ cargo run --release -p benches
//! --features cluster --example cluster_timing` (`cargo xtask golden --serve`
//! starts a cluster) prints, for `pfcount` of 100 dense HLLs and
//! `bitop_count` AND of 8 bitmaps of 1 MiB, sync and async, each row's
//! fastest and median time per call and its ratio to ours.

use std::cell::RefCell;
use std::hint::black_box;
use std::time::Instant;

use bitcount::BitOp;
use redis::cluster::{cluster_pipe, ClusterConnection};
use redis::{AsyncCommands, Commands, Value};

type Async = redis::cluster_async::ClusterConnection;

/// (fastest, median) ns per call of each row, the rows taking turns.
fn time(rounds: usize, rows: &[&dyn Fn() -> u64]) -> Vec<(f64, f64)> {
    let mut all = vec![Vec::with_capacity(rounds); rows.len()];
    for _ in 0..rounds {
        for (f, v) in rows.iter().zip(&mut all) {
            let t = Instant::now();
            black_box(f());
            v.push(t.elapsed().as_nanos() as f64);
        }
    }
    all.into_iter()
        .map(|mut v| {
            v.sort_by(f64::total_cmp);
            (v[0], v[v.len() / 2])
        })
        .collect()
}

fn print(what: &str, names: &[&str], t: &[(f64, f64)]) {
    for (n, (min, med)) in names.iter().zip(t) {
        println!(
            "{what:<28} {n:<16} min {:>9.1} us  median {:>9.1} us  ({:.2}x / {:.2}x ours)",
            min / 1e3,
            med / 1e3,
            min / t[0].0,
            med / t[0].1
        );
    }
}

fn fetch(con: &mut ClusterConnection, keys: &[String]) -> u64 {
    let mut p = cluster_pipe();
    for k in keys {
        p.get(k);
    }
    let v: Vec<Value> = p.query(con).expect("cluster pipeline");
    v.len() as u64
}

async fn fetch_async(con: &Async, keys: &[String]) -> u64 {
    let gets = keys.iter().map(|k| {
        let mut c = con.clone();
        async move { c.get::<_, Value>(k).await.expect("GET") }
    });
    futures_util::future::join_all(gets).await.len() as u64
}

fn main() {
    let Ok(url) = std::env::var("VALKEY_CLUSTER_URL") else {
        println!("skipped: VALKEY_CLUSTER_URL not set");
        return;
    };
    let rounds: usize = std::env::args()
        .find_map(|a| a.strip_prefix("--rounds=").and_then(|n| n.parse().ok()))
        .unwrap_or(200);
    let client = redis::cluster::ClusterClient::new(vec![url]).expect("cluster URL");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let acon = RefCell::new(rt.block_on(client.get_async_connection()).expect("async"));
    let con = RefCell::new(client.get_connection().expect("cluster connection"));
    let names = ["ours", "bound:fetch", "one-slot", "per-key-get"];

    // pfcount of 100 dense HLLs.
    let values: Vec<Vec<u8>> = (0..100)
        .map(|i| {
            let mut h = hll::Hll::new();
            h.add_all((0..20_000u32).map(|j| format!("{i}:{j}")));
            h.into_bytes()
        })
        .collect();
    let spread: Vec<String> = (0..100).map(|i| format!("bench:hll:{i}")).collect();
    let tagged: Vec<String> = (0..100).map(|i| format!("{{bench:hll}}:{i}")).collect();
    for (k, v) in spread.iter().chain(&tagged).zip(values.iter().cycle()) {
        let _: () = con.borrow_mut().set(k, v).expect("SET");
    }
    let merge_each = |vals: Vec<Vec<u8>>| {
        let mut r = hll::Registers::new();
        for v in vals {
            r.merge(&hll::Hll::from_vec(v).unwrap());
        }
        r.estimate()
    };
    let t = time(
        rounds,
        &[
            &|| hll::redis::pfcount(&mut *con.borrow_mut(), &spread).unwrap(),
            &|| fetch(&mut con.borrow_mut(), &spread),
            &|| {
                redis::cmd("PFCOUNT")
                    .arg(&tagged)
                    .query(&mut *con.borrow_mut())
                    .unwrap()
            },
            &|| {
                let mut c = con.borrow_mut();
                merge_each(spread.iter().map(|k| c.get(k).unwrap()).collect())
            },
        ],
    );
    print("pfcount 100 dense", &names, &t);
    let t = time(
        rounds,
        &[
            &|| {
                rt.block_on(hll::redis::aio::pfcount(&mut *acon.borrow_mut(), &spread))
                    .unwrap()
            },
            &|| rt.block_on(fetch_async(&acon.borrow(), &spread)),
            &|| {
                let mut c = acon.borrow_mut();
                rt.block_on(redis::cmd("PFCOUNT").arg(&tagged).query_async(&mut *c))
                    .unwrap()
            },
            &|| {
                let mut c = acon.borrow_mut();
                rt.block_on(async {
                    let mut vals = Vec::new();
                    for k in &spread {
                        vals.push(c.get(k).await.unwrap());
                    }
                    merge_each(vals)
                })
            },
        ],
    );
    print("pfcount 100 dense (async)", &names, &t);

    // bitop_count AND of 8 bitmaps of 1 MiB.
    let values: Vec<Vec<u8>> = (0..8).map(|i| benches::bytes(0xb17 + i, 1 << 20)).collect();
    let spread: Vec<String> = (0..8).map(|i| format!("bench:bit:{i}")).collect();
    let tagged: Vec<String> = (0..8).map(|i| format!("{{bench:bit}}:{i}")).collect();
    for (k, v) in spread.iter().chain(&tagged).zip(values.iter().cycle()) {
        let _: () = con.borrow_mut().set(k, v).expect("SET");
    }
    let and_each = |vals: Vec<Vec<u8>>| {
        let mut acc: Option<Vec<u8>> = None;
        let mut out = Vec::new();
        for v in vals {
            acc = Some(match acc {
                None => v,
                Some(a) => {
                    bitcount::bitop(BitOp::And, &mut out, &[&a, &v]).unwrap();
                    std::mem::replace(&mut out, a)
                }
            });
        }
        bitcount::count(&acc.unwrap_or_default())
    };
    let bitop_cmd = || {
        let mut c = redis::cmd("BITOP");
        c.arg("AND").arg("{bench:bit}:dest").arg(&tagged);
        c
    };
    let t = time(
        rounds / 4,
        &[
            &|| bitcount::redis::bitop_count(&mut *con.borrow_mut(), BitOp::And, &spread).unwrap(),
            &|| fetch(&mut con.borrow_mut(), &spread),
            &|| {
                let mut c = con.borrow_mut();
                let _: u64 = bitop_cmd().query(&mut *c).unwrap();
                redis::cmd("BITCOUNT")
                    .arg("{bench:bit}:dest")
                    .query(&mut *c)
                    .unwrap()
            },
            &|| {
                let mut c = con.borrow_mut();
                and_each(spread.iter().map(|k| c.get(k).unwrap()).collect())
            },
        ],
    );
    print("bitop_count AND 8 x 1 MiB", &names, &t);
    let t = time(
        rounds / 4,
        &[
            &|| {
                let mut c = acon.borrow_mut();
                rt.block_on(bitcount::redis::aio::bitop_count(
                    &mut *c,
                    BitOp::And,
                    &spread,
                ))
                .unwrap()
            },
            &|| rt.block_on(fetch_async(&acon.borrow(), &spread)),
            &|| {
                let mut c = acon.borrow_mut();
                rt.block_on(async {
                    let _: u64 = bitop_cmd().query_async(&mut *c).await.unwrap();
                    redis::cmd("BITCOUNT")
                        .arg("{bench:bit}:dest")
                        .query_async(&mut *c)
                        .await
                        .unwrap()
                })
            },
            &|| {
                let mut c = acon.borrow_mut();
                rt.block_on(async {
                    let mut vals = Vec::new();
                    for k in &spread {
                        vals.push(c.get(k).await.unwrap());
                    }
                    and_each(vals)
                })
            },
        ],
    );
    print("bitop_count AND 8 x 1 MiB (async)", &names, &t);
}
