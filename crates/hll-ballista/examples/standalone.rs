//! Redis HyperLogLogs per page from a CSV file of page views, on Ballista's
//! standalone mode (a scheduler and an executor in this process). The same
//! query runs on a cluster with `hll_ballista::remote("df://host:port", ..)`.
//!
//! `cargo run -p hll-ballista --example standalone`

use datafusion::arrow::array::{AsArray, RecordBatch};
use datafusion::arrow::datatypes::UInt64Type;
use datafusion::arrow::util::display::array_value_to_string;
use datafusion::error::Result;
use datafusion::prelude::{CsvReadOptions, SessionConfig};

#[tokio::main]
async fn main() -> Result<()> {
    // page,user: three pages, a few users each, some views repeated.
    let dir = std::env::temp_dir().join(format!("hll-ballista-example-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let mut csv = String::from("page,user\n");
    for i in 0..3000u32 {
        let page = ["/", "/docs", "/pricing"][(i % 3) as usize];
        csv.push_str(&format!("{page},user{}\n", (i * 7) % (100 * (i % 3 + 1))));
    }
    std::fs::write(dir.join("views.csv"), csv)?;

    let ctx = hll_ballista::standalone(SessionConfig::new()).await?;
    ctx.register_csv(
        "views",
        dir.to_str().unwrap_or_default(),
        CsvReadOptions::new(),
    )
    .await?;
    let batches: Vec<RecordBatch> = ctx
        .sql(
            "SELECT page, redis_hll(user) AS h, redis_hll_count(redis_hll(user)) AS users \
             FROM views GROUP BY page ORDER BY page",
        )
        .await?
        .collect()
        .await?;
    for batch in &batches {
        let strings = batch.column(1).as_binary::<i32>();
        let users = batch.column(2).as_primitive::<UInt64Type>();
        for i in 0..batch.num_rows() {
            // `h` is the string a Redis `SET` stores and `PFCOUNT` reads.
            println!(
                "{:<9} about {} users, a {}-byte HyperLogLog",
                array_value_to_string(batch.column(0), i)?,
                users.value(i),
                strings.value(i).len()
            );
        }
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
