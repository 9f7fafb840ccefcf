//! `redis_hll(s)` against DataFusion's `approx_distinct(s)` on the same
//! table, in one process, from one group to a million: strings of 11
//! bytes (about 2M distinct), `SELECT g, f(s) FROM t GROUP BY g` (or no
//! `GROUP BY` for one group), one and two partitions. A third row per
//! query, the bound, runs the same query with an aggregate that only
//! hashes each value with MurmurHash64A (the hash Redis uses) and folds
//! the hashes with XOR per group: DataFusion's scan and grouping plus the
//! hash, with no HyperLogLog at all. Each query runs `rounds` times,
//! alternating the three, and the best time of each is kept (the machine
//! is shared and noisy). Memory per group is the peak of DataFusion's
//! memory pool during the query (what the accumulators report), divided
//! by the groups.
//!
//! `cargo bench -p hll-datafusion --bench compare` (`KVPRIMS_BENCH_QUICK=1`:
//! a tenth of the rows, 2 rounds). Prints a Markdown table.

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

const BATCH: usize = 8192;

fn table(rows: usize, groups: u64, partitions: usize) -> MemTable {
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
            g.push((r % groups) as i64);
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

/// `murmur_xor(s)`: the XOR of MurmurHash64A of every value, per group.
/// The bound row: the hash every HyperLogLog add of Redis needs, and the
/// grouping DataFusion does for any aggregate, with nothing else.
mod bound {
    use datafusion::arrow::array::{Array, ArrayRef, AsArray, BooleanArray, UInt64Array};
    use datafusion::arrow::datatypes::DataType;
    use datafusion::common::{Result, ScalarValue};
    use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
    use datafusion::logical_expr::{
        Accumulator, AggregateUDF, AggregateUDFImpl, EmitTo, GroupsAccumulator, Signature,
        Volatility,
    };
    use std::sync::Arc;

    #[derive(Debug, PartialEq, Eq, Hash)]
    struct MurmurXor(Signature);

    pub fn udaf() -> AggregateUDF {
        AggregateUDF::from(MurmurXor(Signature::exact(
            vec![DataType::Utf8],
            Volatility::Immutable,
        )))
    }

    /// MurmurHash64A of every value, with the crate's fastest batch kernel.
    fn hashes(a: &dyn Array) -> impl Iterator<Item = u64> {
        let a = a.as_string::<i32>();
        let (offsets, data) = (a.value_offsets(), a.value_data());
        let slices: Vec<&[u8]> = offsets
            .windows(2)
            .map(|w| &data[w[0] as usize..w[1] as usize])
            .collect();
        let mut out = vec![0u64; slices.len()];
        hll::hash_batch(&slices, &mut out);
        out.into_iter()
    }

    impl AggregateUDFImpl for MurmurXor {
        fn name(&self) -> &str {
            "murmur_xor"
        }
        fn signature(&self) -> &Signature {
            &self.0
        }
        fn return_type(&self, _: &[DataType]) -> Result<DataType> {
            Ok(DataType::UInt64)
        }
        fn state_fields(
            &self,
            args: StateFieldsArgs,
        ) -> Result<Vec<datafusion::arrow::datatypes::FieldRef>> {
            Ok(vec![Arc::new(datafusion::arrow::datatypes::Field::new(
                format!("{}[x]", args.name),
                DataType::UInt64,
                true,
            ))])
        }
        fn accumulator(&self, _: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
            Ok(Box::new(One(0)))
        }
        fn groups_accumulator_supported(&self, _: AccumulatorArgs) -> bool {
            true
        }
        fn create_groups_accumulator(
            &self,
            _: AccumulatorArgs,
        ) -> Result<Box<dyn GroupsAccumulator>> {
            Ok(Box::new(Many(Vec::new())))
        }
    }

    #[derive(Debug)]
    struct One(u64);

    impl Accumulator for One {
        fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
            self.0 ^= hashes(values[0].as_ref()).fold(0, |a, h| a ^ h);
            Ok(())
        }
        fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
            let s = states[0].as_primitive::<datafusion::arrow::datatypes::UInt64Type>();
            self.0 ^= s.values().iter().fold(0, |a, h| a ^ h);
            Ok(())
        }
        fn state(&mut self) -> Result<Vec<ScalarValue>> {
            Ok(vec![ScalarValue::UInt64(Some(self.0))])
        }
        fn evaluate(&mut self) -> Result<ScalarValue> {
            Ok(ScalarValue::UInt64(Some(self.0)))
        }
        fn size(&self) -> usize {
            8
        }
    }

    struct Many(Vec<u64>);

    impl GroupsAccumulator for Many {
        fn update_batch(
            &mut self,
            values: &[ArrayRef],
            group_indices: &[usize],
            _: Option<&BooleanArray>,
            total_num_groups: usize,
        ) -> Result<()> {
            self.0.resize(total_num_groups, 0);
            for (h, &g) in hashes(values[0].as_ref()).zip(group_indices) {
                self.0[g] ^= h;
            }
            Ok(())
        }
        fn merge_batch(
            &mut self,
            values: &[ArrayRef],
            group_indices: &[usize],
            total_num_groups: usize,
        ) -> Result<()> {
            self.0.resize(total_num_groups, 0);
            let s = values[0].as_primitive::<datafusion::arrow::datatypes::UInt64Type>();
            for (h, &g) in s.values().iter().zip(group_indices) {
                self.0[g] ^= h;
            }
            Ok(())
        }
        fn evaluate(&mut self, emit_to: EmitTo) -> Result<ArrayRef> {
            Ok(Arc::new(UInt64Array::from(
                emit_to.take_needed(&mut self.0),
            )))
        }
        fn state(&mut self, emit_to: EmitTo) -> Result<Vec<ArrayRef>> {
            Ok(vec![self.evaluate(emit_to)?])
        }
        fn convert_to_state(
            &self,
            values: &[ArrayRef],
            _: Option<&BooleanArray>,
        ) -> Result<Vec<ArrayRef>> {
            let h: UInt64Array = hashes(values[0].as_ref()).map(Some).collect();
            Ok(vec![Arc::new(h)])
        }
        fn size(&self) -> usize {
            self.0.capacity() * 8
        }
    }
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

fn ms(run: &Run) -> String {
    format!("{:.0} ms", run.best_s * 1e3)
}

fn main() {
    let quick = std::env::var_os("KVPRIMS_BENCH_QUICK").is_some();
    let scale = if quick { 10 } else { 1 };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    println!(
        "| rows | groups | partitions | redis_hll | approx_distinct | bound | approx_distinct / redis_hll | bytes per group (redis_hll / approx_distinct) |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---|");
    for (rows, groups, rounds) in [
        (2_000_000usize, 1u64, 7),
        (10_000_000, 1, 7),
        (10_000_000, 1000, 5),
        (2_000_000, 100_000, 5),
        (10_000_000, 1_000_000, 3),
    ] {
        let rows = rows / scale;
        let rounds = if quick { 2 } else { rounds };
        for partitions in [1usize, 2] {
            // KVPRIMS_BENCH_ONLY=GROUPS,PARTITIONS runs one query (for a profiler).
            if let Ok(only) = std::env::var("KVPRIMS_BENCH_ONLY") {
                if only != format!("{groups},{partitions}") {
                    continue;
                }
            }
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
            ctx.register_udaf(bound::udaf());
            ctx.register_table("t", Arc::new(table(rows, groups, partitions)))
                .unwrap();
            let sql = |f: &str| {
                if groups == 1 {
                    format!("SELECT {f}(s) FROM t")
                } else {
                    format!("SELECT g, {f}(s) FROM t GROUP BY g")
                }
            };
            let queries = [sql("redis_hll"), sql("approx_distinct"), sql("murmur_xor")];
            let mut runs: Vec<Run> = (0..3)
                .map(|_| Run {
                    best_s: f64::MAX,
                    peak_bytes: 0,
                })
                .collect();
            for _ in 0..rounds {
                for (run, q) in runs.iter_mut().zip(&queries) {
                    let (s, peak) = rt.block_on(time(&ctx, &pool, q));
                    run.best_s = run.best_s.min(s);
                    run.peak_bytes = run.peak_bytes.max(peak);
                }
            }
            let g = groups as usize;
            println!(
                "| {}M | {groups} | {partitions} | {} | {} | {} | {:.2} | {} / {} |",
                rows as f64 / 1e6,
                ms(&runs[0]),
                ms(&runs[1]),
                ms(&runs[2]),
                runs[1].best_s / runs[0].best_s,
                runs[0].peak_bytes / g,
                runs[1].peak_bytes / g,
            );
        }
    }
    println!(
        "\nBest of 7 (one group), 5 or 3 (a million groups) alternating runs each (wall time)."
    );
}
