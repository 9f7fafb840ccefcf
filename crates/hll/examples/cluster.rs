//! `PFCOUNT` and `PFMERGE` across the slots of a Redis/Valkey Cluster: the
//! server refuses keys of several slots (`CROSSSLOT`), `hll::redis` reads
//! them and answers what one server would.
//!
//! `VALKEY_CLUSTER_URL=redis://127.0.0.1:7000/ cargo run -p hll --features __cluster --example cluster`
//! (prints "skipped: VALKEY_CLUSTER_URL not set" and exits 0 without it).
//! (`__cluster` turns on the `redis` crate's `cluster` feature, which gives
//! the cluster connection; an application enables that feature of `redis`.)

use redis::Commands;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Ok(url) = std::env::var("VALKEY_CLUSTER_URL") else {
        println!("skipped: VALKEY_CLUSTER_URL not set");
        return Ok(());
    };
    let client = redis::cluster::ClusterClient::new(vec![url])?;
    let mut con = client.get_connection()?;
    let run = std::process::id();

    // A week of daily visitor keys, spread over the cluster's slots.
    let days: Vec<String> = (0..7).map(|d| format!("visits:{run}:day{d}")).collect();
    for (d, key) in days.iter().enumerate() {
        let visitors: Vec<String> = (0..3_000)
            .map(|i| format!("user:{}", d * 1_000 + i))
            .collect();
        let _: bool = con.pfadd(key, visitors)?;
    }

    // The server's own PFCOUNT refuses keys of several slots...
    let refused: redis::RedisResult<u64> = redis::cmd("PFCOUNT").arg(&days).query(&mut con);
    println!(
        "PFCOUNT over 7 slots on the server: {:?}",
        refused.map_err(|e| e.code().map(String::from))
    );

    // ...hll::redis reads them (one pipeline per node) and counts the union.
    let week = hll::redis::pfcount(&mut con, &days)?;
    println!("hll::redis::pfcount: {week} distinct visitors in the week (9000 added)");

    // PFMERGE into a key of yet another slot, then the server counts it.
    let dest = format!("visits:{run}:week");
    hll::redis::pfmerge(&mut con, &dest, &days)?;
    let counted: u64 = con.pfcount(&dest)?;
    assert_eq!(counted, week, "the merged key counts what pfcount answered");
    println!("hll::redis::pfmerge into {dest}: PFCOUNT {dest} = {counted}");

    let _: i64 = redis::cmd("DEL").arg(&dest).query(&mut con)?;
    for key in &days {
        let _: i64 = con.del(key)?;
    }
    Ok(())
}
