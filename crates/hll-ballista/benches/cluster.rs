//! `redis_hll` against DataFusion's `approx_distinct` on a local Ballista
//! cluster of the crate's own binaries (a scheduler and two executors of one
//! task slot, each its own process, shuffle reads forced over Arrow Flight),
//! with Ballista's default shuffle codec (LZ4) and with none, and the same
//! queries on single-node DataFusion with two partitions.
//!
//! Input: 10M rows in four Parquet files, `g` (1000 groups) and `s` (strings
//! of 11 bytes, about 2M distinct, so every group's HyperLogLog is dense).
//! Query: `SELECT g, f(s) FROM t GROUP BY g`. `redis_hll` returns 1000
//! strings of 12,304 bytes where `approx_distinct` returns 1000 integers;
//! `redis_hll_count(redis_hll(s))` is the same aggregate with a result of
//! `approx_distinct`'s size. The floor row, `count(s)`, is the same scan,
//! grouping and shuffle with an 8-byte state: what any aggregate pays
//! before its own work. Each query runs `rounds` times, alternating, and
//! the best wall time of each is kept (the machine is shared and noisy).
//! Before timing, the cluster's `redis_hll` strings are checked byte for
//! byte against single-node DataFusion's, and their counts against
//! `approx_distinct`'s.
//!
//! `cargo bench -p hll-ballista --bench cluster` (`KVPRIMS_BENCH_QUICK=1`: a
//! tenth of the rows, 2 rounds). Prints a Markdown table.

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use ballista::prelude::SessionConfigExt;
use common::{by_group, run_bytes, tmp, Cluster};
use datafusion::arrow::array::{ArrayRef, AsArray, Int64Array, RecordBatch, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema, UInt64Type};
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};

const FILES: usize = 4;
const BATCH: usize = 8192;
const PARTITIONS: usize = 2;

/// xorshift64*, the generator of hll-datafusion's benchmark.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// `FILES` Parquet files of `rows` rows in all under `dir`.
fn write_input(dir: &Path, rows: usize, groups: u64) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let schema = Arc::new(Schema::new(vec![
        Field::new("g", DataType::Int64, false),
        Field::new("s", DataType::Utf8, false),
    ]));
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for f in 0..FILES {
        let file = std::fs::File::create(dir.join(format!("part-{f}.parquet"))).unwrap();
        let mut writer = ArrowWriter::try_new(file, schema.clone(), None).unwrap();
        let mut left = rows / FILES;
        while left > 0 {
            let n = BATCH.min(left);
            let mut g = Vec::with_capacity(n);
            let mut s = Vec::with_capacity(n);
            for _ in 0..n {
                let r = rng.next();
                g.push((r % groups) as i64);
                s.push(format!("user{:07}", (r >> 20) % 2_000_000));
            }
            let cols: Vec<ArrayRef> = vec![
                Arc::new(Int64Array::from(g)),
                Arc::new(StringArray::from(s)),
            ];
            writer
                .write(&RecordBatch::try_new(schema.clone(), cols).unwrap())
                .unwrap();
            left -= n;
        }
        writer.close().unwrap();
    }
}

fn query(aggregate: &str) -> String {
    format!("SELECT g, {aggregate} FROM t GROUP BY g")
}

/// The cluster's strings equal single-node DataFusion's, and each group's
/// count is within 5% of `approx_distinct`'s (both sketches err by about
/// 0.8% at 16384 registers).
async fn check(cluster: &SessionContext, single: &SessionContext, groups: u64) {
    let ours = run_bytes(cluster, &query("redis_hll(s)")).await;
    assert_eq!(ours.len(), groups as usize);
    assert!(ours == run_bytes(single, &query("redis_hll(s)")).await);
    let count =
        |batch: &RecordBatch, i| batch.column(1).as_primitive::<UInt64Type>().value(i) as f64;
    let counts = by_group(cluster, &query("redis_hll_count(redis_hll(s))"), count).await;
    let theirs = by_group(cluster, &query("approx_distinct(s)"), count).await;
    for ((g, ours), theirs) in counts.iter().zip(theirs.values()) {
        assert!(
            (ours / theirs - 1.0).abs() < 0.05,
            "group {g}: {ours} vs {theirs}"
        );
    }
}

/// Runs `sql`, keeps the best time in `best`; the size of its result.
async fn best(ctx: &SessionContext, sql: &str, best: &mut f64) -> usize {
    let t = Instant::now();
    let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
    *best = best.min(t.elapsed().as_secs_f64());
    assert!(!batches.is_empty());
    size(&batches)
}

/// The bytes of `batches`' columns.
fn size(batches: &[RecordBatch]) -> usize {
    batches
        .iter()
        .flat_map(|b| b.columns())
        .map(|c| c.to_data().get_slice_memory_size().unwrap())
        .sum()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let quick = std::env::var_os("KVPRIMS_BENCH_QUICK").is_some();
    let (rows, groups, rounds) = if quick {
        (1_000_000, 1000, 2)
    } else {
        (10_000_000, 1000, 5)
    };
    let input = tmp("bench-input");
    write_input(&input, rows, groups);
    let path = input.to_str().unwrap();

    let cluster = Cluster::start(2, &tmp("bench-cluster"));
    // Ballista's default shuffle codec (LZ4), then none: dense HyperLogLog
    // strings are bit-packed registers, which LZ4 shrinks little and slowly.
    let mut contexts = Vec::new();
    for codec in ["lz4", "none"] {
        let config = SessionConfig::new_with_ballista()
            .with_target_partitions(PARTITIONS)
            .with_ballista_shuffle_reader_force_remote_read(true)
            .set_str("ballista.shuffle.compression.codec", codec);
        contexts.push(hll_ballista::remote(&cluster.url(), config).await.unwrap());
    }
    let single =
        SessionContext::new_with_config(SessionConfig::new().with_target_partitions(PARTITIONS));
    hll_datafusion::register(&single);
    contexts.push(single);
    for ctx in &contexts {
        ctx.register_parquet("t", path, ParquetReadOptions::default())
            .await
            .unwrap();
    }
    let single = &contexts[2];
    for remote in &contexts[..2] {
        check(remote, single, groups).await;
    }

    let aggregates = [
        "redis_hll(s)",
        "redis_hll_count(redis_hll(s))",
        "approx_distinct(s)",
        "count(s)",
    ];
    let mut times = [[f64::MAX; 3]; 4];
    let mut result_bytes = [0; 4];
    // KVPRIMS_BENCH_ONLY=AGGREGATE times that one only (for a profiler).
    let only = std::env::var("KVPRIMS_BENCH_ONLY").ok();
    for _ in 0..rounds {
        for ((aggregate, t), bytes) in aggregates.iter().zip(&mut times).zip(&mut result_bytes) {
            if only.as_ref().is_some_and(|o| o != aggregate) {
                continue;
            }
            let sql = query(aggregate);
            for (ctx, t) in contexts.iter().zip(t) {
                *bytes = best(ctx, &sql, t).await;
            }
        }
    }
    println!(
        "| aggregate, {}M rows, {groups} groups | result | Ballista, LZ4 shuffle (default) | Ballista, no shuffle compression | DataFusion, one process |",
        rows as f64 / 1e6
    );
    println!("|---|---:|---:|---:|---:|");
    let ms = |s: f64| format!("{:.0} ms", s * 1e3);
    for ((aggregate, t), bytes) in aggregates.iter().zip(&times).zip(result_bytes) {
        let floor = if *aggregate == "count(s)" {
            "floor: "
        } else {
            ""
        };
        println!(
            "| {floor}`{aggregate}` | {} KB | {} | {} | {} |",
            bytes.div_ceil(1000),
            ms(t[0]),
            ms(t[1]),
            ms(t[2])
        );
    }
    for (label, of) in [("redis_hll", 0), ("redis_hll_count(redis_hll)", 1)] {
        let ratio = |i: usize| format!("{:.2}", times[2][i] / times[of][i]);
        println!(
            "| `approx_distinct` / `{label}` | | {} | {} | {} |",
            ratio(0),
            ratio(1),
            ratio(2)
        );
    }
    let (lz4, packed, raw) = lz4_ipc(single, &query("redis_hll(s)"), rounds).await;
    println!(
        "\nBest of {rounds} alternating runs each (wall time); {PARTITIONS} partitions; \
         {FILES} Parquet files; shuffle reads over Arrow Flight; result: the bytes the client receives.\n\n\
         `redis_hll`'s result as LZ4-compressed Arrow IPC (how Ballista's executor sends a result \
         to the client, whatever the shuffle codec): {} KB -> {} KB in {} on one core.",
        raw.div_ceil(1000),
        packed.div_ceil(1000),
        ms(lz4)
    );
}

/// The best time of `rounds` encodings of `sql`'s result as an Arrow IPC
/// stream with LZ4 frame compression, the encoded size and the raw size.
async fn lz4_ipc(ctx: &SessionContext, sql: &str, rounds: usize) -> (f64, usize, usize) {
    use datafusion::arrow::ipc::writer::{IpcWriteOptions, StreamWriter};
    use datafusion::arrow::ipc::CompressionType;
    let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
    let options = IpcWriteOptions::default()
        .try_with_compression(Some(CompressionType::LZ4_FRAME))
        .unwrap();
    let (mut best, mut packed) = (f64::MAX, 0);
    for _ in 0..rounds {
        let t = Instant::now();
        let mut writer =
            StreamWriter::try_new_with_options(Vec::new(), &batches[0].schema(), options.clone())
                .unwrap();
        for batch in &batches {
            writer.write(batch).unwrap();
        }
        packed = writer.into_inner().unwrap().len();
        best = best.min(t.elapsed().as_secs_f64());
    }
    (best, packed, size(&batches))
}
