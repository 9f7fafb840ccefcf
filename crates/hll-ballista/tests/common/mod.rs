//! Helpers shared by the tests: input files, the query's result by group,
//! and a cluster of the crate's own binaries as separate processes.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::datatypes::{Int64Type, UInt64Type};
use datafusion::prelude::{CsvReadOptions, SessionContext};

/// Each group's HyperLogLog of `x` and its count.
pub const QUERY: &str = "SELECT g, redis_hll(x) AS h, redis_hll_count(redis_hll(x)) AS c \
                     FROM t GROUP BY g";

/// Each group's merge of the HyperLogLogs in `p` (`g`, `h`) and its count.
pub const MERGE: &str = "SELECT g, redis_hll_merge(h) AS h, \
                     redis_hll_count(redis_hll_merge(h)) AS c FROM p GROUP BY g";

/// `name` under Cargo's scratch directory for tests and benches.
pub fn tmp(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

/// Four CSV files of `g` (group, 0..groups) and `x` (a string value).
pub fn write_csv(name: &str, groups: u64, rows_per_file: u64) -> PathBuf {
    write_csv_rows(name, groups, rows_per_file).0
}

/// [`write_csv`], and each group's values as written.
pub fn write_csv_rows(
    name: &str,
    groups: u64,
    rows_per_file: u64,
) -> (PathBuf, BTreeMap<i64, Vec<String>>) {
    let mut rows: BTreeMap<i64, Vec<String>> = BTreeMap::new();
    let dir = tmp(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    for f in 0..4 {
        let mut text = String::from("g,x\n");
        for _ in 0..rows_per_file {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Every fourth row in group 0: one dense HyperLogLog among sparse ones.
            let g = if (state >> 40).is_multiple_of(4) {
                0
            } else {
                state % groups
            };
            let x = format!("v{}", (state >> 20) % 5000);
            text.push_str(&format!("{g},{x}\n"));
            rows.entry(g as i64).or_default().push(x);
        }
        std::fs::write(dir.join(format!("part-{f}.csv")), text).unwrap();
    }
    (dir, rows)
}

/// Single-node DataFusion with the functions and the CSV files under `path`
/// as table `t`: what the cluster's results are compared with.
pub async fn single_node(path: &str) -> SessionContext {
    let single = SessionContext::new();
    hll_datafusion::register(&single);
    single
        .register_csv("t", path, CsvReadOptions::new())
        .await
        .unwrap();
    single
}

/// `g -> value(batch, row)` of `query`'s result, whose first column is
/// `g`; each group once.
pub async fn by_group<T>(
    ctx: &SessionContext,
    query: &str,
    value: impl Fn(&RecordBatch, usize) -> T,
) -> BTreeMap<i64, T> {
    let mut out = BTreeMap::new();
    for batch in ctx.sql(query).await.unwrap().collect().await.unwrap() {
        let g = batch.column(0).as_primitive::<Int64Type>();
        for i in 0..batch.num_rows() {
            assert!(out.insert(g.value(i), value(&batch, i)).is_none());
        }
    }
    out
}

/// `g -> h` of `query`'s result (columns `g`, `h`, ..), the strings' bytes.
pub async fn run_bytes(ctx: &SessionContext, query: &str) -> BTreeMap<i64, Vec<u8>> {
    by_group(ctx, query, |batch, i| {
        batch.column(1).as_binary::<i32>().value(i).to_vec()
    })
    .await
}

/// `g -> (registers, count)` of `query`'s result (columns `g`, `h`, `c`).
pub async fn run(ctx: &SessionContext, query: &str) -> BTreeMap<i64, (Vec<u8>, u64)> {
    by_group(ctx, query, |batch, i| {
        let h = batch.column(1).as_binary::<i32>();
        assert!(!h.is_null(i));
        let regs = hll::Hll::from_bytes(h.value(i))
            .unwrap()
            .registers()
            .to_vec();
        (regs, batch.column(2).as_primitive::<UInt64Type>().value(i))
    })
    .await
}

/// A port nothing listens on now (the OS's pick for port 0).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn wait_for_port(port: u16, child: &mut Child) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("process exited before listening on {port}: {status}");
        }
        assert!(
            Instant::now() < deadline,
            "nothing listens on {port} after 60 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `program`, which gets SIGKILL when the thread that starts it (the test's)
/// ends, also when the test process is killed and `Drop` never runs (Linux).
fn command(program: &str) -> Command {
    #[allow(unused_mut)]
    let mut command = Command::new(program);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: the closure runs in the child between fork and exec and
        // calls only prctl, which is async-signal-safe and allocates nothing.
        unsafe {
            command.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == 0 {
                    Ok(())
                } else {
                    Err(std::io::Error::last_os_error())
                }
            });
        }
    }
    command
}

/// `work/<name>.log`, for a process's stderr (Ballista's log).
fn log_file(work: &Path, name: &str) -> std::fs::File {
    std::fs::File::create(work.join(format!("{name}.log"))).unwrap()
}

/// One scheduler and `executors` executors (one task slot each), each its
/// own OS process, killed on drop (also when a test panics).
pub struct Cluster {
    children: Vec<Child>,
    /// The scheduler's port on 127.0.0.1.
    pub scheduler_port: u16,
}

impl Cluster {
    pub fn start(executors: usize, work: &Path) -> Cluster {
        let _ = std::fs::remove_dir_all(work);
        std::fs::create_dir_all(work).unwrap();
        let scheduler_port = free_port();
        let mut cluster = Cluster {
            children: Vec::new(),
            scheduler_port,
        };
        let mut scheduler = command(env!("CARGO_BIN_EXE_hll-ballista-scheduler"))
            .args(["--bind-host", "127.0.0.1", "--external-host", "127.0.0.1"])
            .args(["--bind-port", &scheduler_port.to_string()])
            .stdout(Stdio::null())
            .stderr(log_file(work, "scheduler"))
            .spawn()
            .unwrap();
        wait_for_port(scheduler_port, &mut scheduler);
        cluster.children.push(scheduler);
        for i in 0..executors {
            let (flight, grpc) = (free_port(), free_port());
            let dir = work.join(format!("executor-{i}"));
            std::fs::create_dir_all(&dir).unwrap();
            let mut executor = command(env!("CARGO_BIN_EXE_hll-ballista-executor"))
                .args(["--bind-host", "127.0.0.1", "--external-host", "127.0.0.1"])
                .args(["--bind-port", &flight.to_string()])
                .args(["--bind-grpc-port", &grpc.to_string()])
                .args(["--scheduler-host", "127.0.0.1"])
                .args(["--scheduler-port", &scheduler_port.to_string()])
                .args(["--concurrent-tasks", "1"])
                .args(["--work-dir", dir.to_str().unwrap()])
                .stdout(Stdio::null())
                .stderr(log_file(work, &format!("executor-{i}")))
                .spawn()
                .unwrap();
            // With push scheduling (Ballista's default) the executor binds
            // its Flight port only after the scheduler accepted its
            // registration: once it listens, the scheduler can use it.
            wait_for_port(flight, &mut executor);
            cluster.children.push(executor);
        }
        cluster
    }

    /// The client's URL for this cluster.
    pub fn url(&self) -> String {
        format!("df://127.0.0.1:{}", self.scheduler_port)
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
