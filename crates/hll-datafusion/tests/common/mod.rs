//! Shared by the SQL and live tests: generated tables, a session with the
//! functions registered, and reading results back.
#![allow(dead_code)]

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, Int64Array, RecordBatch, StringArray, UInt64Array,
};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::datasource::MemTable;
use datafusion::prelude::{SessionConfig, SessionContext};
use hll::Hll;
use std::sync::Arc;

/// A session with `target_partitions` partitions and the functions.
pub fn session(target_partitions: usize) -> SessionContext {
    session_with(SessionConfig::new().with_target_partitions(target_partitions))
}

pub fn session_with(config: SessionConfig) -> SessionContext {
    let ctx = SessionContext::new_with_config(config);
    hll_datafusion::register(&ctx);
    ctx
}

/// xorshift64*: a fixed, seedable sequence.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// `rows` rows of (`g` Int64 group key in 0..groups, `s` Utf8 with about
/// one null in `null_every`, values drawn from `distinct` strings).
pub struct Events {
    pub g: Vec<i64>,
    pub s: Vec<Option<String>>,
}

impl Events {
    pub fn new(seed: u64, rows: usize, groups: u64, distinct: u64, null_every: u64) -> Events {
        let mut rng = Rng::new(seed);
        let mut g = Vec::with_capacity(rows);
        let mut s = Vec::with_capacity(rows);
        for _ in 0..rows {
            g.push(rng.below(groups) as i64);
            let v = rng.below(distinct);
            s.push((null_every == 0 || rng.below(null_every) != 0).then(|| format!("user-{v}")));
        }
        Events { g, s }
    }

    pub fn schema() -> SchemaRef {
        Arc::new(Schema::new(vec![
            Field::new("g", DataType::Int64, false),
            Field::new("s", DataType::Utf8, true),
        ]))
    }

    fn batch(&self, from: usize, to: usize) -> RecordBatch {
        let g: ArrayRef = Arc::new(Int64Array::from(self.g[from..to].to_vec()));
        let s: ArrayRef = Arc::new(StringArray::from(self.s[from..to].to_vec()));
        RecordBatch::try_new(Events::schema(), vec![g, s]).unwrap()
    }

    /// The rows in order, split into `partitions` contiguous partitions of
    /// batches of at most `batch_rows` rows.
    pub fn table(&self, partitions: usize, batch_rows: usize) -> MemTable {
        let n = self.g.len();
        let per = n.div_ceil(partitions.max(1)).max(1);
        let mut parts = Vec::new();
        for p in 0..partitions {
            let (lo, hi) = ((p * per).min(n), ((p + 1) * per).min(n));
            let mut batches = Vec::new();
            let mut at = lo;
            while at < hi {
                let end = (at + batch_rows).min(hi);
                batches.push(self.batch(at, end));
                at = end;
            }
            parts.push(batches);
        }
        MemTable::try_new(Events::schema(), parts).unwrap()
    }

    /// A session of `target` partitions with these rows as table `t`
    /// (see [`table`](Events::table)).
    pub fn session(&self, target: usize, partitions: usize, batch_rows: usize) -> SessionContext {
        let ctx = session(target);
        ctx.register_table("t", Arc::new(self.table(partitions, batch_rows)))
            .unwrap();
        ctx
    }

    /// PFADD of the non-null values of the rows `keep` selects, in order.
    pub fn reference(&self, keep: impl Fn(usize) -> bool) -> Hll {
        let mut h = Hll::new();
        for (i, v) in self.s.iter().enumerate() {
            if let Some(v) = v {
                if keep(i) {
                    h.add(v.as_bytes());
                }
            }
        }
        h
    }
}

/// Runs `sql` and returns its batches.
pub async fn query(ctx: &SessionContext, sql: &str) -> Vec<RecordBatch> {
    ctx.sql(sql).await.unwrap().collect().await.unwrap()
}

/// The error `sql` fails with (planning or execution).
pub async fn query_error(ctx: &SessionContext, sql: &str) -> String {
    let r = match ctx.sql(sql).await {
        Err(e) => return e.to_string(),
        Ok(df) => df.collect().await,
    };
    match r {
        Err(e) => e.to_string(),
        Ok(_) => panic!("{sql} did not fail"),
    }
}

/// Column `col` of all batches as bytes (None for null).
pub fn binary_column(batches: &[RecordBatch], col: usize) -> Vec<Option<Vec<u8>>> {
    let mut out = Vec::new();
    for b in batches {
        let a = b.column(col);
        let a = a.as_binary::<i32>();
        for i in 0..a.len() {
            out.push(a.is_valid(i).then(|| a.value(i).to_vec()));
        }
    }
    out
}

pub fn u64_column(batches: &[RecordBatch], col: usize) -> Vec<Option<u64>> {
    let mut out = Vec::new();
    for b in batches {
        let a = b
            .column(col)
            .as_any()
            .downcast_ref::<UInt64Array>()
            .unwrap();
        out.extend(a.iter());
    }
    out
}

pub fn i64_column(batches: &[RecordBatch], col: usize) -> Vec<i64> {
    let mut out = Vec::new();
    for b in batches {
        let a = b.column(col).as_any().downcast_ref::<Int64Array>().unwrap();
        out.extend(a.values().iter().copied());
    }
    out
}

/// The one value of a one-row, one-column binary result.
pub fn single_hll(batches: &[RecordBatch]) -> Hll {
    let col = binary_column(batches, 0);
    assert_eq!(col.len(), 1);
    Hll::from_bytes(col[0].as_ref().unwrap()).unwrap()
}

/// `redis_hll(s)` and `redis_hll_count(redis_hll(s))` over all of table
/// `t`: the string and the batches (the count in column 1).
pub async fn whole_table(ctx: &SessionContext) -> (Hll, Vec<RecordBatch>) {
    let batches = query(
        ctx,
        "SELECT redis_hll(s), redis_hll_count(redis_hll(s)) FROM t",
    )
    .await;
    (single_hll(&batches), batches)
}
