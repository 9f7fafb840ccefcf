//! Memory: what `GroupsAccumulator::size` reports against the bytes the
//! accumulator really holds (a counting global allocator), and a query of a
//! million groups under a memory pool far smaller than it needs, which
//! completes or fails with DataFusion's `ResourcesExhausted`, never aborts.
//!
//! One test function: the counter is global to the process.

mod common;

use common::*;
use datafusion::arrow::array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::datasource::MemTable;
use datafusion::execution::memory_pool::FairSpillPool;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::logical_expr::function::AccumulatorArgs;
use datafusion::logical_expr::GroupsAccumulator;
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::prelude::{SessionConfig, SessionContext};
use hll::Hll;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::Arc;

/// Bytes allocated and not yet freed, as requested (no allocator slack).
static LIVE: AtomicIsize = AtomicIsize::new(0);

struct Counting;

// SAFETY: every call is forwarded to the system allocator with the same
// arguments; the counter is only arithmetic beside it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's layout contract is passed on unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: as in `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: `ptr` came from this allocator with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        // SAFETY: `ptr` came from this allocator with `layout`; the new
        // size is the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn live() -> isize {
    LIVE.load(Ordering::Relaxed)
}

/// `redis_hll`'s groups accumulator over a `Utf8` column.
fn groups_accumulator() -> Box<dyn GroupsAccumulator> {
    let schema = Schema::new(vec![Field::new("s", DataType::Utf8, true)]);
    let expr: Arc<dyn PhysicalExpr> = Arc::new(Column::new("s", 0));
    let field = Arc::new(Field::new("s", DataType::Utf8, true));
    let udaf = hll_datafusion::redis_hll();
    udaf.create_groups_accumulator(AccumulatorArgs {
        return_field: Arc::new(Field::new("h", DataType::Binary, false)),
        schema: &schema,
        ignore_nulls: false,
        order_bys: &[],
        is_reversed: false,
        name: "redis_hll(s)",
        is_distinct: false,
        exprs: &[expr],
        expr_fields: &[field],
    })
    .unwrap()
}

/// After each stage (many tiny groups, groups growing to a few hundred
/// registers, some turning dense), `size()` is within 10% of the bytes the
/// accumulator holds.
fn size_is_the_heap_in_use() {
    let mut rng = Rng::new(3);
    let groups = 200_000usize;
    // Batches built before counting starts.
    let batches: Vec<(Vec<usize>, ArrayRef)> = (0..40)
        .map(|b| {
            let rows = 8192;
            let mut index = Vec::with_capacity(rows);
            let mut values = Vec::with_capacity(rows);
            for _ in 0..rows {
                // A tenth of the rows go to 50 groups that turn dense.
                let g = if rng.below(10) == 0 {
                    rng.below(50) as usize
                } else {
                    rng.below(groups as u64 / 40 * (b + 1)) as usize
                };
                index.push(g);
                values.push(Some(format!("v{}", rng.below(1 << 40))));
            }
            let array: ArrayRef = Arc::new(StringArray::from(values));
            (index, array)
        })
        .collect();
    let before = live();
    let mut acc = groups_accumulator();
    for (k, (index, array)) in batches.iter().enumerate() {
        acc.update_batch(std::slice::from_ref(array), index, None, groups)
            .unwrap();
        if k % 8 == 7 || k == 0 {
            let held = (live() - before) as f64;
            let reported = acc.size() as f64;
            assert!(
                (reported - held).abs() <= held * 0.10,
                "after batch {k}: size() {reported} against {held} bytes held"
            );
        }
    }
    drop(acc);
    assert!(live() - before < 64 << 10, "freed on drop");
}

/// A million groups under an 8 MiB pool (the accumulators alone need tens
/// of megabytes): the query completes, spilling, or fails with
/// `ResourcesExhausted`.
async fn a_million_groups_in_a_small_pool() {
    let rows = 1_000_000usize;
    let mut rng = Rng::new(9);
    let schema = Arc::new(Schema::new(vec![
        Field::new("g", DataType::Int64, false),
        Field::new("s", DataType::Utf8, false),
    ]));
    let mut parts = vec![Vec::new(), Vec::new()];
    for (k, start) in (0..rows).step_by(8192).enumerate() {
        let n = 8192.min(rows - start);
        let g: Vec<i64> = (start..start + n).map(|i| i as i64).collect();
        let s: Vec<String> = (0..n).map(|_| format!("u{}", rng.below(1 << 30))).collect();
        let cols: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(g)),
            Arc::new(StringArray::from(s.clone())),
        ];
        parts[k % 2].push(RecordBatch::try_new(schema.clone(), cols).unwrap());
    }
    let runtime = RuntimeEnvBuilder::new()
        .with_memory_pool(Arc::new(FairSpillPool::new(8 << 20)))
        .build_arc()
        .unwrap();
    let ctx =
        SessionContext::new_with_config_rt(SessionConfig::new().with_target_partitions(2), runtime);
    hll_datafusion::register(&ctx);
    ctx.register_table("t", Arc::new(MemTable::try_new(schema, parts).unwrap()))
        .unwrap();
    let result = async {
        ctx.sql("SELECT g, redis_hll(s) FROM t GROUP BY g ORDER BY g LIMIT 3")
            .await?
            .collect()
            .await
    }
    .await;
    match result {
        Ok(batches) => {
            // Completed (spilled): each group is the one-element string.
            let hlls = binary_column(&batches, 1);
            assert_eq!(hlls.len(), 3);
            for h in hlls {
                let h = Hll::from_bytes(&h.unwrap()).unwrap();
                assert_eq!(h.nonzero_registers().count(), 1);
            }
            println!("a million groups in 8 MiB: completed");
        }
        Err(e) => {
            let text = e.to_string();
            assert!(
                text.contains("Resources exhausted"),
                "not ResourcesExhausted: {text}"
            );
            println!("a million groups in 8 MiB: {text}");
        }
    }
}

#[tokio::test]
async fn memory() {
    size_is_the_heap_in_use();
    a_million_groups_in_a_small_pool().await;
}
