//! The three functions through SQL over generated in-memory tables, with
//! one, two and four partitions and rows in several orders, against the
//! canonical string (`Hll::to_canonical`) of `hll::Hll` fed the same
//! values (the `hll` crate's own tests prove its bytes equal to the
//! servers').

mod common;

use common::*;
use datafusion::arrow::array::{
    ArrayRef, BinaryArray, BinaryViewArray, BooleanArray, FixedSizeBinaryArray, Float64Array,
    Int16Array, Int32Array, Int64Array, Int8Array, LargeBinaryArray, LargeStringArray, RecordBatch,
    StringArray, StringViewArray, UInt16Array, UInt32Array, UInt64Array, UInt8Array,
};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::datasource::MemTable;
use datafusion::prelude::SessionConfig;
use hll::Hll;
use std::sync::Arc;

/// Row counts that keep the result sparse, cross the sparse limit, and
/// end dense; batches of 1000 rows.
const SIZES: [usize; 6] = [0, 1, 7, 300, 2500, 30_000];

#[tokio::test]
async fn one_group_is_the_canonical_string() {
    for (k, &rows) in SIZES.iter().enumerate() {
        let ev = Events::new(k as u64, rows, 1, rows as u64 * 2 + 1, 10);
        let ctx = ev.session(1, 1, 1000);
        let got = single_hll(&query(&ctx, "SELECT redis_hll(s) FROM t").await);
        let want = ev.reference(|_| true).to_canonical();
        assert_eq!(got.as_bytes(), want.as_bytes(), "{rows} rows");
    }
}

#[tokio::test]
async fn any_partitioning_gives_the_same_bytes() {
    for (k, &rows) in SIZES.iter().enumerate() {
        let ev = Events::new(100 + k as u64, rows, 1, rows as u64 + 1, 7);
        let want = ev.reference(|_| true);
        for (parts, target) in [(4, 4), (4, 1), (1, 4), (3, 2), (2, 2)] {
            let ctx = ev.session(target, parts, 333);
            let (got, batches) = whole_table(&ctx).await;
            assert_eq!(
                got.as_bytes(),
                want.to_canonical().as_bytes(),
                "{rows} rows, {parts}/{target}"
            );
            assert_eq!(u64_column(&batches, 1), vec![Some(want.clone().count())]);
        }
    }
}

/// `GROUP BY` with every group's canonical string of its PFADD reference;
/// groups whose values are all null give the empty HLL.
async fn check_group_by(ctx_parts: usize, table_parts: usize, config: Option<SessionConfig>) {
    check_group_by_seed(7, ctx_parts, table_parts, config).await;
}

async fn check_group_by_seed(
    seed: u64,
    ctx_parts: usize,
    table_parts: usize,
    config: Option<SessionConfig>,
) {
    let groups = 40;
    // Values from a narrow range: sparse strings of neighbouring registers.
    let ev = Events::new(seed, 60_000, groups, 20_000, 5);
    // Group 39 has only nulls.
    let mut ev = ev;
    for i in 0..ev.g.len() {
        if ev.g[i] == 39 {
            ev.s[i] = None;
        }
    }
    let ctx = match config {
        Some(c) => session_with(c.with_target_partitions(ctx_parts)),
        None => session(ctx_parts),
    };
    ctx.register_table("t", Arc::new(ev.table(table_parts, 1000)))
        .unwrap();
    let batches = query(
        &ctx,
        "SELECT g, redis_hll(s), redis_hll_count(redis_hll(s)) FROM t GROUP BY g ORDER BY g",
    )
    .await;
    let keys = i64_column(&batches, 0);
    let hlls = binary_column(&batches, 1);
    let counts = u64_column(&batches, 2);
    assert_eq!(keys, (0..groups as i64).collect::<Vec<_>>());
    for (g, (bytes, count)) in keys.iter().zip(hlls.iter().zip(counts)) {
        let want = ev.reference(|i| ev.g[i] == *g);
        let got = Hll::from_bytes(bytes.as_ref().unwrap()).unwrap();
        assert_eq!(
            got.as_bytes(),
            want.to_canonical().as_bytes(),
            "group {g}: bytes"
        );
        assert_eq!(count, Some(want.clone().count()));
        if *g == 39 {
            assert_eq!(got.as_bytes(), Hll::new().as_bytes());
        }
    }
}

/// The same bytes for the same values: 1, 2 and 4 partitions, rows in
/// their order, reversed and shuffled, batches of several sizes.
#[tokio::test]
async fn same_bytes_for_any_row_order_and_partitioning() {
    let ev = Events::new(21, 30_000, 50, 3_000, 8);
    let mut orders = vec![ev
        .g
        .iter()
        .copied()
        .zip(ev.s.iter().cloned())
        .collect::<Vec<_>>()];
    let mut rev = orders[0].clone();
    rev.reverse();
    orders.push(rev);
    let mut shuffled = orders[0].clone();
    let mut rng = Rng::new(4);
    for i in (1..shuffled.len()).rev() {
        shuffled.swap(i, rng.below(i as u64 + 1) as usize);
    }
    orders.push(shuffled);
    let mut first: Option<Vec<Option<Vec<u8>>>> = None;
    for rows in &orders {
        let ev = Events {
            g: rows.iter().map(|r| r.0).collect(),
            s: rows.iter().map(|r| r.1.clone()).collect(),
        };
        for (parts, batch) in [(1, 1000), (2, 97), (4, 8192)] {
            let ctx = ev.session(parts, parts, batch);
            let batches = query(&ctx, "SELECT g, redis_hll(s) FROM t GROUP BY g ORDER BY g").await;
            let got = binary_column(&batches, 1);
            match &first {
                None => first = Some(got),
                Some(f) => assert_eq!(&got, f, "{parts} partitions, batches of {batch}"),
            }
        }
    }
}

#[tokio::test]
async fn group_by_one_partition() {
    check_group_by(1, 1, None).await;
}

#[tokio::test]
async fn group_by_four_partitions() {
    check_group_by(4, 4, None).await;
    check_group_by(4, 1, None).await;
}

/// The partial phase passing rows through as one-row states
/// (`convert_to_state`) once it sees too few repeats of its groups.
#[tokio::test]
async fn group_by_with_partial_aggregation_skipped() {
    let mut config = SessionConfig::new();
    let opts = config.options_mut();
    opts.execution.skip_partial_aggregation_probe_rows_threshold = 1;
    opts.execution
        .skip_partial_aggregation_probe_ratio_threshold = 0.0;
    check_group_by(4, 4, Some(config.clone())).await;
    check_group_by(1, 1, Some(config)).await;
}

#[tokio::test]
async fn filter_clause() {
    let ev = Events::new(9, 20_000, 10, 5_000, 9);
    for parts in [1, 4] {
        let ctx = ev.session(parts, parts, 1000);
        let batches = query(
            &ctx,
            "SELECT g, redis_hll(s) FILTER (WHERE g % 2 = 0 AND s > 'user-2') FROM t GROUP BY g ORDER BY g",
        )
        .await;
        for (g, bytes) in i64_column(&batches, 0)
            .iter()
            .zip(binary_column(&batches, 1))
        {
            let want = ev.reference(|i| {
                ev.g[i] == *g && g % 2 == 0 && ev.s[i].as_deref().is_some_and(|s| s > "user-2")
            });
            let got = Hll::from_bytes(&bytes.unwrap()).unwrap();
            assert_eq!(got, want.to_canonical(), "group {g}");
        }
    }
}

#[tokio::test]
async fn empty_input_gives_the_empty_hll() {
    let ev = Events::new(1, 100, 1, 10, 0);
    let ctx = ev.session(4, 4, 10);
    for sql in [
        "SELECT redis_hll(s) FROM t WHERE g > 5",
        "SELECT redis_hll(CASE WHEN g > 5 THEN s END) FROM t",
        "SELECT redis_hll_merge(h) FROM (SELECT redis_hll(s) AS h FROM t) WHERE h IS NULL",
    ] {
        let got = single_hll(&query(&ctx, sql).await);
        assert_eq!(got.as_bytes(), Hll::new().as_bytes(), "{sql}");
    }
}

/// Each row's element bytes (None: null).
type Elements = Vec<Option<Vec<u8>>>;

/// One column per accepted type; every value's element bytes as a Redis
/// client sends them.
fn typed_table() -> (RecordBatch, Vec<(&'static str, Elements)>) {
    let n = 3000usize;
    let mut rng = Rng::new(42);
    let draws: Vec<Option<u64>> = (0..n)
        .map(|_| (rng.below(8) != 0).then(|| rng.next()))
        .collect();
    let text = |v: u64| format!("v{}", v % 5000);
    let bin = |v: u64| (v % 4000).to_le_bytes()[..(v % 7) as usize].to_vec();
    let strings: Vec<Option<String>> = draws.iter().map(|d| d.map(text)).collect();
    let binaries: Vec<Option<Vec<u8>>> = draws.iter().map(|d| d.map(bin)).collect();
    let fixed: Vec<Option<[u8; 4]>> = draws
        .iter()
        .map(|d| d.map(|v| ((v % 3000) as u32).to_be_bytes()))
        .collect();
    let mut cols: Vec<(&'static str, ArrayRef, Elements)> = Vec::new();
    let as_bytes = |v: &[Option<String>]| -> Elements {
        v.iter()
            .map(|s| s.as_ref().map(|s| s.as_bytes().to_vec()))
            .collect()
    };
    cols.push((
        "utf8",
        Arc::new(StringArray::from(strings.clone())),
        as_bytes(&strings),
    ));
    cols.push((
        "large_utf8",
        Arc::new(LargeStringArray::from(strings.clone())),
        as_bytes(&strings),
    ));
    cols.push((
        "utf8_view",
        Arc::new(StringViewArray::from(strings.clone())),
        as_bytes(&strings),
    ));
    let bref: Vec<Option<&[u8]>> = binaries.iter().map(|b| b.as_deref()).collect();
    cols.push((
        "binary",
        Arc::new(BinaryArray::from(bref.clone())),
        binaries.clone(),
    ));
    cols.push((
        "large_binary",
        Arc::new(LargeBinaryArray::from(bref.clone())),
        binaries.clone(),
    ));
    cols.push((
        "binary_view",
        Arc::new(BinaryViewArray::from(bref)),
        binaries.clone(),
    ));
    let fixed_array =
        FixedSizeBinaryArray::try_from_sparse_iter_with_size(fixed.iter().copied(), 4).unwrap();
    cols.push((
        "fixed",
        Arc::new(fixed_array),
        fixed.iter().map(|f| f.map(|f| f.to_vec())).collect(),
    ));
    macro_rules! int_col {
        ($name:expr, $arr:ty, $t:ty) => {{
            let vals: Vec<Option<$t>> = draws
                .iter()
                .map(|d| d.map(|v| (v % 100_000) as $t ^ (v as $t)))
                .collect();
            let bytes = vals
                .iter()
                .map(|v| v.map(|v| v.to_string().into_bytes()))
                .collect();
            cols.push(($name, Arc::new(<$arr>::from(vals)), bytes));
        }};
    }
    int_col!("i8", Int8Array, i8);
    int_col!("i16", Int16Array, i16);
    int_col!("i32", Int32Array, i32);
    int_col!("i64", Int64Array, i64);
    int_col!("u8", UInt8Array, u8);
    int_col!("u16", UInt16Array, u16);
    int_col!("u32", UInt32Array, u32);
    int_col!("u64", UInt64Array, u64);
    let extremes: Vec<Option<i64>> = (0..n as i64)
        .map(|i| match i % 4 {
            0 => Some(i64::MIN),
            1 => Some(i64::MAX),
            2 => Some(-i),
            _ => None,
        })
        .collect();
    cols.push((
        "extremes",
        Arc::new(Int64Array::from(extremes.clone())),
        extremes
            .iter()
            .map(|v| v.map(|v| v.to_string().into_bytes()))
            .collect(),
    ));
    let g: Vec<i64> = (0..n as i64).map(|i| i % 5).collect();
    let mut fields = vec![Field::new("g", DataType::Int64, false)];
    let mut arrays: Vec<ArrayRef> = vec![Arc::new(Int64Array::from(g))];
    let mut expected = Vec::new();
    for (name, a, bytes) in cols {
        fields.push(Field::new(name, a.data_type().clone(), true));
        arrays.push(a);
        expected.push((name, bytes));
    }
    let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).unwrap();
    (batch, expected)
}

fn pfadd<'a>(values: impl IntoIterator<Item = &'a Option<Vec<u8>>>) -> Hll {
    let mut h = Hll::new();
    for v in values.into_iter().flatten() {
        h.add(v);
    }
    h
}

#[tokio::test]
async fn every_accepted_type() {
    let (batch, expected) = typed_table();
    let n = batch.num_rows();
    for parts in [1usize, 4] {
        let ctx = session(parts);
        let chunks: Vec<Vec<RecordBatch>> = (0..parts)
            .map(|p| vec![batch.slice(p * n / parts, (p + 1) * n / parts - p * n / parts)])
            .collect();
        let table = MemTable::try_new(batch.schema(), chunks).unwrap();
        ctx.register_table("t", Arc::new(table)).unwrap();
        for (name, bytes) in &expected {
            let got = single_hll(&query(&ctx, &format!("SELECT redis_hll({name}) FROM t")).await);
            let want = pfadd(bytes).to_canonical();
            assert_eq!(got, want, "{name}, {parts} partitions");
            let batches = query(
                &ctx,
                &format!("SELECT g, redis_hll({name}) FROM t GROUP BY g ORDER BY g"),
            )
            .await;
            for (g, got) in i64_column(&batches, 0)
                .iter()
                .zip(binary_column(&batches, 1))
            {
                let want = pfadd(
                    bytes
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| *i as i64 % 5 == *g)
                        .map(|(_, b)| b),
                );
                let got = Hll::from_bytes(&got.unwrap()).unwrap();
                assert_eq!(got, want.to_canonical(), "{name} group {g}");
            }
        }
    }
}

#[tokio::test]
async fn literals_and_integers_hash_as_decimal_text() {
    let ctx = session(1);
    let got = single_hll(
        &query(
            &ctx,
            "SELECT redis_hll(x) FROM (VALUES (42), (-7), (NULL)) AS t(x)",
        )
        .await,
    );
    let mut want = Hll::new();
    want.add_all(["42", "-7"]);
    assert_eq!(got.as_bytes(), want.to_canonical().as_bytes());
}

#[tokio::test]
async fn other_types_are_planning_errors_that_say_to_cast() {
    let ctx = session(2);
    let batch = RecordBatch::try_new(
        Arc::new(Schema::new(vec![
            Field::new("f", DataType::Float64, true),
            Field::new("b", DataType::Boolean, true),
            Field::new("s", DataType::Utf8, true),
        ])),
        vec![
            Arc::new(Float64Array::from(vec![1.5])),
            Arc::new(BooleanArray::from(vec![true])),
            Arc::new(StringArray::from(vec!["x"])),
        ],
    )
    .unwrap();
    ctx.register_batch("t", batch).unwrap();
    for sql in [
        "SELECT redis_hll(f) FROM t",
        "SELECT redis_hll(b) FROM t",
        "SELECT redis_hll(CAST('2024-01-01' AS DATE)) FROM t",
        "SELECT redis_hll_merge(s) FROM t",
        "SELECT redis_hll_merge(f) FROM t",
        "SELECT redis_hll_count(s) FROM t",
    ] {
        let e = query_error(&ctx, sql).await;
        assert!(e.contains("Error during planning"), "{sql}: {e}");
        assert!(e.contains("cast"), "{sql}: {e}");
    }
    // The cast the message suggests works.
    let got = single_hll(&query(&ctx, "SELECT redis_hll(CAST(f AS VARCHAR)) FROM t").await);
    let mut want = Hll::new();
    want.add(b"1.5");
    assert_eq!(got, want);
}

/// A table `h` of HyperLogLog strings (and nulls) under group keys.
fn hll_table(rows: &[(i64, Option<Vec<u8>>)], parts: usize) -> MemTable {
    let schema = Arc::new(Schema::new(vec![
        Field::new("g", DataType::Int64, false),
        Field::new("h", DataType::Binary, true),
    ]));
    let per = rows.len().div_ceil(parts).max(1);
    let chunks: Vec<Vec<RecordBatch>> = rows
        .chunks(per)
        .map(|c| {
            let g: Vec<i64> = c.iter().map(|r| r.0).collect();
            let h: Vec<Option<&[u8]>> = c.iter().map(|r| r.1.as_deref()).collect();
            vec![RecordBatch::try_new(
                schema.clone(),
                vec![
                    Arc::new(Int64Array::from(g)),
                    Arc::new(BinaryArray::from(h)),
                ],
            )
            .unwrap()]
        })
        .collect();
    MemTable::try_new(schema, chunks).unwrap()
}

#[tokio::test]
async fn merge_is_pfmerge() {
    // Sparse, dense and empty inputs, and nulls.
    let mut rows = Vec::new();
    let mut rng = Rng::new(5);
    for i in 0..60i64 {
        let mut h = Hll::new();
        let n = match i % 4 {
            0 => 0,
            1 => rng.below(50),
            2 => rng.below(1500),
            _ => 4000 + rng.below(4000),
        };
        for _ in 0..n {
            h.add(format!("m{}", rng.below(100_000)).as_bytes());
        }
        rows.push((i % 6, (i % 11 != 3).then(|| h.into_bytes())));
    }
    let inputs = |keep: &dyn Fn(i64) -> bool| -> Vec<Hll> {
        rows.iter()
            .filter(|r| keep(r.0))
            .filter_map(|r| r.1.as_ref())
            .map(|b| Hll::from_bytes(b).unwrap())
            .collect()
    };
    let pfmerge = |hs: &[Hll]| {
        let mut m = Hll::new();
        m.merge(&hs.iter().collect::<Vec<_>>());
        m
    };
    for parts in [1, 4] {
        let ctx = session(parts);
        ctx.register_table("t", Arc::new(hll_table(&rows, parts)))
            .unwrap();
        let batches = query(
            &ctx,
            "SELECT redis_hll_merge(h), redis_hll_count(redis_hll_merge(h)) FROM t",
        )
        .await;
        let got = single_hll(&batches);
        let want = pfmerge(&inputs(&|_| true));
        assert_eq!(got, want.to_canonical());
        assert_eq!(u64_column(&batches, 1), vec![Some(want.clone().count())]);
        let batches = query(
            &ctx,
            "SELECT g, redis_hll_merge(h) FROM t GROUP BY g ORDER BY g",
        )
        .await;
        for (g, got) in i64_column(&batches, 0)
            .iter()
            .zip(binary_column(&batches, 1))
        {
            let want = pfmerge(&inputs(&|k| k == *g));
            let got = Hll::from_bytes(&got.unwrap()).unwrap();
            assert_eq!(got, want.to_canonical(), "group {g}");
        }
    }
    // Merging the per-group results of redis_hll is redis_hll of all.
    let ev = Events::new(3, 40_000, 30, 10_000, 6);
    for parts in [1, 4] {
        let ctx = ev.session(parts, parts, 1000);
        let got = single_hll(
            &query(
                &ctx,
                "SELECT redis_hll_merge(h) FROM (SELECT g, redis_hll(s) AS h FROM t GROUP BY g)",
            )
            .await,
        );
        assert_eq!(got, ev.reference(|_| true).to_canonical());
    }
}

#[tokio::test]
async fn merge_of_one_sparse_string_in_one_batch_is_its_pfmerge_bytes() {
    let mut h = Hll::new();
    h.add_all((0..200u32).map(|i| i.to_be_bytes()));
    let ctx = session(1);
    ctx.register_table(
        "t",
        Arc::new(hll_table(&[(0, Some(h.as_bytes().to_vec()))], 1)),
    )
    .unwrap();
    let got = single_hll(&query(&ctx, "SELECT redis_hll_merge(h) FROM t").await);
    let mut want = Hll::new();
    want.merge(&[&h]);
    assert_eq!(got.as_bytes(), want.as_bytes());
}

#[tokio::test]
async fn invalid_strings_are_execution_errors_naming_the_problem() {
    let mut corrupted = Hll::new().into_bytes();
    corrupted[17] = 0xfe; // 16383 registers: INVALIDOBJ
    let bad: [&[u8]; 4] = [
        b"not an hll at all",
        b"HYLL",
        &corrupted,
        b"HYLL\x02\0\0\0\0\0\0\0\0\0\0\0",
    ];
    for b in bad {
        let reason = Hll::from_bytes(b).unwrap_err().to_string();
        let mut ok = Hll::new();
        ok.add(b"x");
        let rows = vec![(0, Some(ok.into_bytes())), (1, None), (1, Some(b.to_vec()))];
        for parts in [1, 2] {
            let ctx = session(parts);
            ctx.register_table("t", Arc::new(hll_table(&rows, parts)))
                .unwrap();
            for sql in [
                "SELECT redis_hll_merge(h) FROM t",
                "SELECT g, redis_hll_merge(h) FROM t GROUP BY g",
                "SELECT redis_hll_count(h) FROM t",
            ] {
                let e = query_error(&ctx, sql).await;
                assert!(e.contains("Execution error"), "{sql}: {e}");
                assert!(e.contains(&reason), "{sql}: {e} lacks {reason}");
            }
        }
    }
}

#[tokio::test]
async fn count_is_pfcount() {
    let mut rows = Vec::new();
    let mut want = Vec::new();
    for i in 0..50u32 {
        if i % 7 == 0 {
            rows.push((0, None));
            want.push(None);
            continue;
        }
        let mut h = Hll::new();
        h.add_all((0..i * i * 3).map(|k| (k * 31 + i).to_le_bytes()));
        if i % 3 == 0 {
            // A valid cache is answered as is, as PFCOUNT does.
            h.count();
        }
        let mut copy = h.clone();
        want.push(Some(copy.count()));
        rows.push((0, Some(h.into_bytes())));
    }
    let ctx = session(1);
    ctx.register_table("t", Arc::new(hll_table(&rows, 1)))
        .unwrap();
    let got = u64_column(&query(&ctx, "SELECT redis_hll_count(h) FROM t").await, 0);
    assert_eq!(got, want);
    let one = u64_column(
        &query(&ctx, "SELECT redis_hll_count(CAST(NULL AS BYTEA))").await,
        0,
    );
    assert_eq!(one, vec![None]);
}
