//! GET HyperLogLogs from a server, merge them locally, SET the result and
//! let the server count it, with the `redis` feature's impls: an `Hll` is
//! read from a reply (`Option<Hll>` where the key may be missing) and
//! passed as an argument like any other value.
//!
//! `REDIS_URL=redis://127.0.0.1:6379/ cargo run -p hll --features redis --example redis_merge`
//! (also reads `VALKEY_URL`; prints "skipped: REDIS_URL not set" and exits 0
//! when neither is set).

use hll::Hll;
use redis::Commands;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let urls: Vec<(&str, String)> = ["REDIS_URL", "VALKEY_URL"]
        .into_iter()
        .filter_map(|var| std::env::var(var).ok().map(|url| (var, url)))
        .collect();
    if urls.is_empty() {
        println!("skipped: REDIS_URL not set (nor VALKEY_URL)");
        return Ok(());
    }
    for (var, url) in urls {
        let mut con = redis::Client::open(url.as_str())?.get_connection()?;
        let key = |name: &str| format!("hll-redis-merge:{}:{name}", std::process::id());

        // Daily keys as the servers built them: PFADD of each day's visitors.
        for day in 0..3u32 {
            let visitors: Vec<String> = (0..5_000u32)
                .map(|i| format!("user:{}", day * 2_000 + i))
                .collect();
            let _: () = redis::cmd("PFADD")
                .arg(key(&format!("day{day}")))
                .arg(&visitors)
                .query(&mut con)?;
        }

        // GET them (a missing day reads as None), merge locally.
        let mut week = Hll::new();
        let mut days = Vec::new();
        for day in 0..4u32 {
            let h: Option<Hll> = con.get(key(&format!("day{day}")))?;
            days.extend(h);
        }
        assert_eq!(days.len(), 3, "day3 was never written");
        week.merge(&days.iter().collect::<Vec<_>>());

        // SET the merged value, and let the server count it.
        let _: () = con.set(key("week"), &week)?;
        let on_server: u64 = redis::cmd("PFCOUNT").arg(key("week")).query(&mut con)?;
        let local = week.count();
        assert_eq!(on_server, local);
        // PFCOUNT wrote its cache into the stored value, as count() did here.
        let back: Hll = con.get(key("week"))?;
        assert_eq!(back, week);
        println!("{var}: 3 days merged locally, PFCOUNT {on_server} = local count {local}");

        let _: () = redis::cmd("DEL")
            .arg(key("day0"))
            .arg(key("day1"))
            .arg(key("day2"))
            .arg(key("week"))
            .query(&mut con)?;
    }
    Ok(())
}
