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

use benches::cluster::{
    dense_hlls, fetch, fetch_async, keys, per_key_get, per_key_get_async, AndEach, Connections,
    MergeEach,
};
use bitcount::BitOp;

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

fn main() {
    let Some(Connections { con, acon, rt }) = benches::cluster::connect() else {
        return;
    };
    let rounds: usize = std::env::args()
        .find_map(|a| a.strip_prefix("--rounds=").and_then(|n| n.parse().ok()))
        .unwrap_or(200);
    let (con, acon) = (RefCell::new(con), RefCell::new(acon));
    let names = ["ours", "bound:fetch", "one-slot", "per-key-get"];

    // pfcount of 100 dense HLLs.
    let (spread, tagged) = keys(&mut con.borrow_mut(), "hll", &dense_hlls(100));
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
            &|| per_key_get::<MergeEach>(&mut con.borrow_mut(), &spread),
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
                rt.block_on(per_key_get_async::<MergeEach>(
                    &mut acon.borrow_mut(),
                    &spread,
                ))
            },
        ],
    );
    print("pfcount 100 dense (async)", &names, &t);

    // bitop_count AND of 8 bitmaps of 1 MiB.
    let values: Vec<Vec<u8>> = (0..8).map(|i| benches::bytes(0xb17 + i, 1 << 20)).collect();
    let (spread, tagged) = keys(&mut con.borrow_mut(), "bit", &values);
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
            &|| per_key_get::<AndEach>(&mut con.borrow_mut(), &spread),
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
                rt.block_on(per_key_get_async::<AndEach>(
                    &mut acon.borrow_mut(),
                    &spread,
                ))
            },
        ],
    );
    print("bitop_count AND 8 x 1 MiB (async)", &names, &t);
}
