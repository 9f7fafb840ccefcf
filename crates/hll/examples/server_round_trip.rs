//! Round trip with a real server: build sketches locally (as many workers
//! would), SET them, let the server PFCOUNT/PFMERGE them, GET the result back
//! and check it byte for byte against the local merge.
//!
//! `REDIS_URL=redis://127.0.0.1:6379/ cargo run -p hll --example server_round_trip`
//! (prints "skipped: REDIS_URL not set" and exits 0 without it).

use hll::Hll;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Ok(url) = std::env::var("REDIS_URL") else {
        println!("skipped: REDIS_URL not set");
        return Ok(());
    };
    let mut con = redis::Client::open(url.as_str())?.get_connection()?;

    // Three workers each see part of the traffic.
    let workers: Vec<Hll> = (0..3u32)
        .map(|w| {
            let mut h = Hll::new();
            h.add_all((0..20_000u32).map(|i| format!("user:{}", i * 3 + w)));
            h
        })
        .collect();

    // Ship the bytes: a plain SET, no module, no conversion.
    for (w, h) in workers.iter().enumerate() {
        redis::cmd("SET")
            .arg(format!("hll-example:w{w}"))
            .arg(h.as_bytes())
            .exec(&mut con)?;
    }
    let server_count: u64 = redis::cmd("PFCOUNT")
        .arg("hll-example:w0")
        .query(&mut con)?;
    let mut w0 = workers[0].clone();
    assert_eq!(server_count, w0.count());
    // The server wrote the cache into its copy; so did we.
    let got: Vec<u8> = redis::cmd("GET").arg("hll-example:w0").query(&mut con)?;
    assert_eq!(got, w0.as_bytes());

    // Merge on the server ...
    redis::cmd("DEL").arg("hll-example:all").exec(&mut con)?;
    redis::cmd("PFMERGE")
        .arg("hll-example:all")
        .arg("hll-example:w0")
        .arg("hll-example:w1")
        .arg("hll-example:w2")
        .exec(&mut con)?;
    let union_on_server: u64 = redis::cmd("PFCOUNT")
        .arg("hll-example:all")
        .query(&mut con)?;
    let merged_on_server: Vec<u8> = redis::cmd("GET").arg("hll-example:all").query(&mut con)?;

    // ... or locally: same bytes, same count.
    let mut local = Hll::new();
    local.merge(&[&workers[0], &workers[1], &workers[2]]);
    let union_local = local.count();
    assert_eq!(union_local, union_on_server);
    assert_eq!(local.as_bytes(), &merged_on_server[..]);

    // And what the server made is a valid local HLL.
    let mut back = Hll::from_bytes(&merged_on_server)?;
    println!(
        "60000 distinct users: server PFCOUNT {union_on_server}, local {union_local}, GET round trip {} ({} bytes, {})",
        back.count(),
        merged_on_server.len(),
        if back.is_sparse() { "sparse" } else { "dense" }
    );
    redis::cmd("DEL")
        .arg("hll-example:w0")
        .arg("hll-example:w1")
        .arg("hll-example:w2")
        .arg("hll-example:all")
        .exec(&mut con)?;
    Ok(())
}
