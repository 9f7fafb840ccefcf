//! `redis_hll` on Ballista's standalone mode (an in-process scheduler and
//! executor) over four CSV files: every group's HyperLogLog has the same
//! registers as single-node DataFusion's, and `redis_hll_count` the same
//! count.

mod common;

use common::{run, single_node, write_csv, QUERY};
use datafusion::prelude::{CsvReadOptions, SessionConfig};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn standalone_equals_single_node() {
    let dir = write_csv("standalone", 50, 2000);
    let path = dir.to_str().unwrap();

    let single = single_node(path).await;

    let ballista = hll_ballista::standalone(SessionConfig::new().with_target_partitions(4))
        .await
        .unwrap();
    ballista
        .register_csv("t", path, CsvReadOptions::new())
        .await
        .unwrap();

    let want = run(&single, QUERY).await;
    assert_eq!(want.len(), 50);
    assert_eq!(run(&ballista, QUERY).await, want);
}
