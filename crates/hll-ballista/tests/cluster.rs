//! The functions on a Ballista cluster of the crate's own binaries, each a
//! separate OS process (a scheduler and two executors of one task slot),
//! with shuffle reads forced over Arrow Flight, against single-node
//! DataFusion: `redis_hll` by group (and a shuffle between the partial and
//! the final aggregation), `redis_hll_merge` over a Parquet table of
//! HyperLogLog strings, and an invalid string failing one query only.

mod common;

use ballista::prelude::SessionConfigExt;
use common::{run, run_bytes, single_node, tmp, write_csv_rows, Cluster, MERGE, QUERY};
use datafusion::dataframe::DataFrameWriteOptions;
use datafusion::prelude::{CsvReadOptions, ParquetReadOptions, SessionConfig, SessionContext};

/// The `EXPLAIN` text of `sql`, all rows and columns.
async fn explain(ctx: &SessionContext, sql: &str) -> String {
    let batches = ctx
        .sql(&format!("EXPLAIN {sql}"))
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    datafusion::arrow::util::pretty::pretty_format_batches(&batches)
        .unwrap()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_equals_single_node() {
    let (dir, rows) = write_csv_rows("cluster-input", 300, 5000);
    let path = dir.to_str().unwrap();
    let cluster = Cluster::start(2, &tmp("cluster-work"));

    let single = single_node(path).await;

    let config = SessionConfig::new_with_ballista()
        .with_target_partitions(4)
        .with_ballista_shuffle_reader_force_remote_read(true);
    let ctx = hll_ballista::remote(&cluster.url(), config).await.unwrap();
    ctx.register_csv("t", path, CsvReadOptions::new())
        .await
        .unwrap();

    // Stage 1 ends in a shuffle writer after the partial aggregate; stage 2
    // reads that shuffle into the final one.
    let plan = explain(&ctx, "SELECT g, redis_hll(x) FROM t GROUP BY g").await;
    let stages = &plan[plan.find("distributed_plan").expect(&plan)..];
    let writer = stages.find("ShuffleWriterExec").expect(&plan);
    let partial = stages.find("AggregateExec: mode=Partial").expect(&plan);
    let final_ = stages
        .find("AggregateExec: mode=FinalPartitioned")
        .expect(&plan);
    let reader = stages.find("UnresolvedShuffleExec").expect(&plan);
    assert!(
        writer < partial && partial < final_ && final_ < reader,
        "{plan}"
    );

    let want = run(&single, QUERY).await;
    assert_eq!(want.len(), 300);
    assert_eq!(run(&ctx, QUERY).await, want);
    // The same strings byte for byte (both canonical), a dense one among them.
    let bytes = run_bytes(&single, QUERY).await;
    assert!(bytes
        .values()
        .any(|h| !hll::Hll::from_bytes(h).unwrap().is_sparse()));
    assert!(bytes
        .values()
        .any(|h| hll::Hll::from_bytes(h).unwrap().is_sparse()));
    assert_eq!(run_bytes(&ctx, QUERY).await, bytes);
    against_servers(&want, &bytes, &rows);

    // Partial HyperLogLogs by (g, first digit of x), written as Parquet
    // files, merged back by g: the same registers as the whole groups'.
    let parts = tmp("cluster-parts");
    let _ = std::fs::remove_dir_all(&parts);
    single
        .sql("SELECT g, substr(x, 2, 1) AS s, redis_hll(x) AS h FROM t GROUP BY g, s")
        .await
        .unwrap()
        .repartition(datafusion::logical_expr::Partitioning::RoundRobinBatch(4))
        .unwrap()
        .write_parquet(parts.to_str().unwrap(), DataFrameWriteOptions::new(), None)
        .await
        .unwrap();
    for c in [&single, &ctx] {
        c.register_parquet("p", parts.to_str().unwrap(), ParquetReadOptions::default())
            .await
            .unwrap();
    }
    let merged = run(&single, MERGE).await;
    assert_eq!(merged, want);
    assert_eq!(run(&ctx, MERGE).await, merged);

    // A value that is not a HyperLogLog: the job fails with hll's error
    // text at the client, and the cluster runs the next query.
    let err = ctx
        .sql("SELECT redis_hll_merge(CAST(x AS BYTEA)) FROM t")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a valid HyperLogLog string"), "{err}");
    assert_eq!(run(&ctx, QUERY).await, want);
    drop(cluster);
}

/// Each group's registers and count against the servers' `PFADD` and
/// `PFCOUNT` of the same values, and its string against `PFMERGE` of that
/// key into a new one (the canonical string), for each of `REDIS_URL` and
/// `VALKEY_URL` that is set (`cargo xtask ci` starts both).
fn against_servers(
    want: &std::collections::BTreeMap<i64, (Vec<u8>, u64)>,
    strings: &std::collections::BTreeMap<i64, Vec<u8>>,
    rows: &std::collections::BTreeMap<i64, Vec<String>>,
) {
    for var in ["REDIS_URL", "VALKEY_URL"] {
        let Ok(url) = std::env::var(var) else {
            println!("skipped: {var} not set");
            continue;
        };
        let mut con = redis::Client::open(url.as_str())
            .unwrap()
            .get_connection()
            .unwrap();
        let key = format!("hll-ballista-test-{}", std::process::id());
        let merged = format!("{key}-merged");
        for (g, (regs, count)) in want {
            let _: () = redis::cmd("DEL")
                .arg(&key)
                .arg(&merged)
                .query(&mut con)
                .unwrap();
            let _: i64 = redis::cmd("PFADD")
                .arg(&key)
                .arg(&rows[g])
                .query(&mut con)
                .unwrap();
            let pfcount: u64 = redis::cmd("PFCOUNT").arg(&key).query(&mut con).unwrap();
            let bytes: Vec<u8> = redis::cmd("GET").arg(&key).query(&mut con).unwrap();
            let server = hll::Hll::from_bytes(&bytes).unwrap().registers().to_vec();
            assert_eq!((&server, pfcount), (regs, *count), "{var}, group {g}");
            let _: () = redis::cmd("PFMERGE")
                .arg(&merged)
                .arg(&key)
                .query(&mut con)
                .unwrap();
            let canonical: Vec<u8> = redis::cmd("GET").arg(&merged).query(&mut con).unwrap();
            assert_eq!(
                canonical, strings[g],
                "{var}, group {g}: PFMERGE into a new key"
            );
        }
        let _: () = redis::cmd("DEL")
            .arg(&key)
            .arg(&merged)
            .query(&mut con)
            .unwrap();
    }
}
