//! DataFusion functions that build Redis/Valkey HyperLogLog strings over any
//! table, byte for byte what the servers store.
//!
//! [`register`] adds three SQL functions to a [`SessionContext`]:
//!
//! | SQL | result | Redis |
//! |---|---|---|
//! | `redis_hll(x)` (aggregate) | `Binary` | `PFADD key v1 v2 ..` of the non-null values, then `GET key` |
//! | `redis_hll_merge(h)` (aggregate) | `Binary` | `PFMERGE dest h1 h2 ..`, then `GET dest` |
//! | `redis_hll_count(h)` (scalar) | `UInt64` | `PFCOUNT key` (null in, null out) |
//!
//! The result is the exact string a server keeps under a HyperLogLog key
//! (see the [`hll`] crate): `SET key <bytes>` it into Redis or Valkey and
//! `PFCOUNT`, `PFMERGE` and `PFADD` work on it there.
//!
//! Values are hashed as the bytes a Redis client would send: `Utf8`,
//! `LargeUtf8` and `Utf8View` as their UTF-8 bytes; `Binary`,
//! `LargeBinary`, `BinaryView` and `FixedSizeBinary` as they are; the
//! integer types (`Int8`..`Int64`, `UInt8`..`UInt64`) as their decimal
//! text, so `redis_hll(42)` counts the element `"42"`. Any other type is a
//! planning error: cast it first (`redis_hll(CAST(d AS VARCHAR))`). A group
//! with no non-null value gives the empty HyperLogLog (what `PFADD key`
//! with no element creates), never null.
//!
//! # One string for one set of values
//! `redis_hll` and `redis_hll_merge` return the canonical string of the
//! registers (see [`hll::Hll::from_registers`]): what `PFMERGE dest src..`
//! stores in a new key `dest` when the sources are sparse strings holding
//! those registers. Every nonzero register is set in index order into an
//! empty sparse string, which turns dense where a value passes 32 or the
//! string passes the servers' default `hll-sparse-max-bytes` (3000). The
//! bytes depend only on the values, never on the partitioning, the row
//! order, the batch size or the run: the same input gives the same bytes
//! (checksums, change detection and idempotent loads work). A server's
//! `PFADD` of the same values has the same registers, and so the same
//! count; only a sparse string's bytes can differ, since `PFADD`'s depend
//! on the order of the adds. For those bytes, feed the values in order to
//! [`hll::Hll::add_all`].
//!
//! The aggregates' partial state is the canonical string too (one
//! `Binary` field), so the partial and final phases of a partitioned or
//! distributed plan exchange plain Redis strings. Each group is kept in
//! the form fastest for its size, a short list of raised registers while
//! few, a byte per register past 512, and [`size`] reports the heap it
//! holds, so DataFusion's memory pool sees what a query uses.
//!
//! [`size`]: datafusion::logical_expr::GroupsAccumulator::size
//!
//! ```
//! use datafusion::prelude::SessionContext;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> datafusion::error::Result<()> {
//! let ctx = SessionContext::new();
//! hll_datafusion::register(&ctx);
//! let df = ctx
//!     .sql(
//!         "SELECT redis_hll_count(redis_hll(v)) AS n
//!          FROM (VALUES ('a'), ('b'), ('a'), (NULL)) AS t(v)",
//!     )
//!     .await?;
//! let batches = df.collect().await?;
//! let n = batches[0]
//!     .column(0)
//!     .as_any()
//!     .downcast_ref::<datafusion::arrow::array::UInt64Array>()
//!     .unwrap()
//!     .value(0);
//! assert_eq!(n, 2);
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs, unsafe_code, clippy::undocumented_unsafe_blocks)]

/// The README's examples, run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod aggregate;
mod count;
mod group;
mod values;

use datafusion::logical_expr::{AggregateUDF, ScalarUDF};
use datafusion::prelude::SessionContext;

/// Adds `redis_hll`, `redis_hll_merge` and `redis_hll_count` to `ctx`
/// (see the crate docs).
///
/// ```
/// use datafusion::logical_expr::registry::FunctionRegistry;
///
/// let ctx = datafusion::prelude::SessionContext::new();
/// hll_datafusion::register(&ctx);
/// assert!(ctx.udaf("redis_hll").is_ok());
/// assert!(ctx.udf("redis_hll_count").is_ok());
/// ```
pub fn register(ctx: &SessionContext) {
    ctx.register_udaf(redis_hll());
    ctx.register_udaf(redis_hll_merge());
    ctx.register_udf(redis_hll_count());
}

/// The `redis_hll(x)` aggregate, for the DataFrame API
/// (`redis_hll().call(vec![col("x")])`).
///
/// ```
/// assert_eq!(hll_datafusion::redis_hll().name(), "redis_hll");
/// ```
#[must_use]
pub fn redis_hll() -> AggregateUDF {
    AggregateUDF::from(aggregate::RedisHll::add())
}

/// The `redis_hll_merge(h)` aggregate (PFMERGE of HyperLogLog strings).
///
/// ```
/// assert_eq!(hll_datafusion::redis_hll_merge().name(), "redis_hll_merge");
/// ```
#[must_use]
pub fn redis_hll_merge() -> AggregateUDF {
    AggregateUDF::from(aggregate::RedisHll::merge())
}

/// The `redis_hll_count(h)` scalar function (PFCOUNT of one string).
///
/// ```
/// assert_eq!(hll_datafusion::redis_hll_count().name(), "redis_hll_count");
/// ```
#[must_use]
pub fn redis_hll_count() -> ScalarUDF {
    ScalarUDF::from(count::RedisHllCount::new())
}
