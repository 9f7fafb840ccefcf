//! `redis_hll` on a Ballista cluster of the crate's own binaries, each a
//! separate OS process (a scheduler and two executors of one task slot),
//! with shuffle reads forced over Arrow Flight: every group's HyperLogLog
//! has the same registers as single-node DataFusion's.

mod common;

use ballista::prelude::SessionConfigExt;
use common::{run, write_csv, Cluster};
use datafusion::prelude::{CsvReadOptions, SessionConfig, SessionContext};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_equals_single_node() {
    let dir = write_csv("cluster-input", 300, 5000);
    let path = dir.to_str().unwrap();
    let work = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cluster-work");
    let cluster = Cluster::start(2, &work);

    let single = SessionContext::new();
    hll_datafusion::register(&single);
    single.register_csv("t", path, CsvReadOptions::new()).await.unwrap();

    let config = SessionConfig::new_with_ballista()
        .with_target_partitions(4)
        .with_ballista_shuffle_reader_force_remote_read(true);
    let ctx = hll_ballista::remote(&cluster.url(), config).await.unwrap();
    ctx.register_csv("t", path, CsvReadOptions::new()).await.unwrap();

    let want = run(&single).await;
    assert_eq!(want.len(), 300);
    assert_eq!(run(&ctx).await, want);
    drop(cluster);
}
