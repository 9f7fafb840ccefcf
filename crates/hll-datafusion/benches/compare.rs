//! `redis_hll(s)` against DataFusion's `approx_distinct(s)` on the same
//! table, in one process: 10M rows of short strings (11 bytes, about 2M
//! distinct), one group and 1000 groups, one and two partitions. Each
//! query runs `ROUNDS` times, alternating ours and the peer, and the best
//! time of each is kept (the machine is shared and noisy). Memory per
//! group is the peak of DataFusion's memory pool during the grouped query
//! (what the accumulators report), divided by the groups.
//!
//! `cargo bench -p hll-datafusion --bench compare` (`KVPRIMS_BENCH_QUICK=1`:
//! 1M rows, 3 rounds). Prints a Markdown table.

use datafusion::arrow::array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::datasource::MemTable;
use datafusion::execution::memory_pool::{MemoryPool, MemoryReservation, UnboundedMemoryPool};
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// An unbounded pool that remembers its peak reservation.
#[derive(Debug, Default)]
struct PeakPool {
    inner: UnboundedMemoryPool,
    peak: AtomicUsize,
}

impl PeakPool {
    fn note(&self) {
        self.peak
            .fetch_max(self.inner.reserved(), Ordering::Relaxed);
    }
}

impl fmt::Display for PeakPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PeakPool")
    }
}

impl MemoryPool for PeakPool {
    fn name(&self) -> &str {
        "peak"
    }
    fn grow(&self, r: &MemoryReservation, additional: usize) {
        self.inner.grow(r, additional);
        self.note();
    }
    fn shrink(&self, r: &MemoryReservation, shrink: usize) {
        self.inner.shrink(r, shrink);
    }
    fn try_grow(&self, r: &MemoryReservation, additional: usize) -> datafusion::error::Result<()> {
        self.inner.try_grow(r, additional)?;
        self.note();
        Ok(())
    }
    fn reserved(&self) -> usize {
        self.inner.reserved()
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

const GROUPS: u64 = 1000;
const BATCH: usize = 8192;

fn table(rows: usize, partitions: usize) -> MemTable {
    let schema = Arc::new(Schema::new(vec![
        Field::new("g", DataType::Int64, false),
        Field::new("s", DataType::Utf8, false),
    ]));
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut parts: Vec<Vec<RecordBatch>> = vec![Vec::new(); partitions];
    let mut done = 0;
    let mut k = 0;
    while done < rows {
        let n = BATCH.min(rows - done);
        let mut g = Vec::with_capacity(n);
        let mut s = Vec::with_capacity(n);
        for _ in 0..n {
            let r = rng.next();
            g.push((r % GROUPS) as i64);
            s.push(format!("user{:07}", (r >> 20) % 2_000_000));
        }
        let cols: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(g)),
            Arc::new(StringArray::from(s)),
        ];
        parts[k % partitions].push(RecordBatch::try_new(schema.clone(), cols).unwrap());
        k += 1;
        done += n;
    }
    MemTable::try_new(schema, parts).unwrap()
}

struct Run {
    best_s: f64,
    peak_bytes: usize,
}

async fn time(ctx: &SessionContext, pool: &PeakPool, sql: &str) -> (f64, usize) {
    pool.peak.store(0, Ordering::Relaxed);
    let t = Instant::now();
    let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
    let s = t.elapsed().as_secs_f64();
    assert!(!batches.is_empty());
    (s, pool.peak.load(Ordering::Relaxed))
}

fn main() {
    let quick = std::env::var_os("KVPRIMS_BENCH_QUICK").is_some();
    let (rows, rounds) = if quick {
        (1_000_000, 3)
    } else {
        (10_000_000, 7)
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    println!(
        "| query | partitions | redis_hll | approx_distinct | approx_distinct / redis_hll | memory per group (redis_hll / approx_distinct) |"
    );
    println!("|---|---:|---:|---:|---:|---|");
    for partitions in [1usize, 2] {
        let pool = Arc::new(PeakPool::default());
        let runtime = RuntimeEnvBuilder::new()
            .with_memory_pool(pool.clone())
            .build_arc()
            .unwrap();
        let ctx = SessionContext::new_with_config_rt(
            SessionConfig::new().with_target_partitions(partitions),
            runtime,
        );
        hll_datafusion::register(&ctx);
        ctx.register_table("t", Arc::new(table(rows, partitions)))
            .unwrap();
        for (what, grouped, ours, peer) in [
            (
                "one group",
                false,
                "SELECT redis_hll(s) FROM t",
                "SELECT approx_distinct(s) FROM t",
            ),
            (
                "1000 groups",
                true,
                "SELECT g, redis_hll(s) FROM t GROUP BY g",
                "SELECT g, approx_distinct(s) FROM t GROUP BY g",
            ),
        ] {
            let mut a = Run {
                best_s: f64::MAX,
                peak_bytes: 0,
            };
            let mut b = Run {
                best_s: f64::MAX,
                peak_bytes: 0,
            };
            for _ in 0..rounds {
                for (run, sql) in [(&mut a, ours), (&mut b, peer)] {
                    let (s, peak) = rt.block_on(time(&ctx, &pool, sql));
                    run.best_s = run.best_s.min(s);
                    run.peak_bytes = run.peak_bytes.max(peak);
                }
            }
            let memory = if grouped {
                format!(
                    "{} / {} bytes",
                    a.peak_bytes / GROUPS as usize,
                    b.peak_bytes / GROUPS as usize
                )
            } else {
                "-".to_string()
            };
            println!(
                "| {what}, {}M rows | {partitions} | {:.0} ms ({:.1} ns/row) | {:.0} ms ({:.1} ns/row) | {:.2} | {memory} |",
                rows / 1_000_000,
                a.best_s * 1e3,
                a.best_s * 1e9 / rows as f64 * partitions as f64,
                b.best_s * 1e3,
                b.best_s * 1e9 / rows as f64 * partitions as f64,
                b.best_s / a.best_s,
            );
        }
    }
    println!(
        "\nBest of {rounds} alternating runs each; ns/row is per row per partition (core time)."
    );
}
