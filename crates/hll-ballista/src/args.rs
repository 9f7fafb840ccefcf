//! The binaries' command-line flags, named as Ballista's own scheduler and
//! executor name them (`--bind-host`, `--bind-port`, `--scheduler-host`, ...).
//!
//! Parsed by hand: Ballista's binaries use clap through its `build-binary`
//! feature, which would also pull in S3 object stores and a tracing stack.

use ballista_executor::executor_process::ExecutorProcessConfig;
use ballista_scheduler::config::SchedulerConfig;

/// A flag the binary does not know, a flag without its value, or a value
/// that does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgsError(pub String);

impl std::fmt::Display for ArgsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ArgsError {}

/// Splits `--name value` and `--name=value` pairs of the flags in `known`;
/// `--help` and `-h` come back as `("help", "")`.
fn pairs(
    args: impl IntoIterator<Item = String>,
    known: &[&str],
) -> Result<Vec<(String, String)>, ArgsError> {
    let mut out = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if arg == "--help" || arg == "-h" {
            out.push(("help".to_owned(), String::new()));
            continue;
        }
        let Some(flag) = arg.strip_prefix("--") else {
            return Err(ArgsError(format!("unexpected argument '{arg}'")));
        };
        let name = flag.split_once('=').map_or(flag, |(name, _)| name);
        if !known.contains(&name) {
            return Err(ArgsError(format!("unknown flag --{name}")));
        }
        match flag.split_once('=') {
            Some((name, value)) => out.push((name.to_owned(), value.to_owned())),
            None => {
                let value = args
                    .next()
                    .ok_or_else(|| ArgsError(format!("--{flag} needs a value")))?;
                out.push((flag.to_owned(), value));
            }
        }
    }
    Ok(out)
}

fn number<T: std::str::FromStr>(name: &str, value: &str) -> Result<T, ArgsError> {
    value
        .parse()
        .map_err(|_| ArgsError(format!("--{name}: '{value}' is not a valid number")))
}

/// The scheduler's flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchedulerArgs {
    /// `--bind-host` (default `0.0.0.0`).
    pub bind_host: String,
    /// `--bind-port` (default 50050).
    pub bind_port: u16,
    /// `--external-host`, the host name executors and clients reach the
    /// scheduler at (default `localhost`).
    pub external_host: String,
    /// `--help` was given.
    pub help: bool,
}

impl SchedulerArgs {
    /// The usage text.
    pub const USAGE: &'static str = "\
hll-ballista-scheduler: a Ballista scheduler that knows redis_hll, redis_hll_merge and redis_hll_count

  --bind-host HOST       address to listen on (default 0.0.0.0)
  --bind-port PORT       gRPC port (default 50050)
  --external-host HOST   host name executors and clients use (default localhost)
";

    /// Parses the arguments after the program name.
    ///
    /// # Errors
    /// An unknown flag, a missing value or a port that does not parse.
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Self, ArgsError> {
        let mut out = Self {
            bind_host: "0.0.0.0".to_owned(),
            bind_port: 50050,
            external_host: "localhost".to_owned(),
            help: false,
        };
        let known = ["bind-host", "bind-port", "external-host"];
        for (name, value) in pairs(args, &known)? {
            match name.as_str() {
                "help" => out.help = true,
                "bind-host" => out.bind_host = value,
                "bind-port" => out.bind_port = number(&name, &value)?,
                "external-host" => out.external_host = value,
                _ => return Err(ArgsError(format!("unknown flag --{name}"))),
            }
        }
        Ok(out)
    }

    /// Ballista's scheduler configuration for these flags, with the
    /// functions registered ([`crate::scheduler_config`]).
    #[must_use]
    pub fn config(&self) -> SchedulerConfig {
        crate::scheduler_config(SchedulerConfig {
            bind_host: self.bind_host.clone(),
            bind_port: self.bind_port,
            external_host: self.external_host.clone(),
            ..SchedulerConfig::default()
        })
    }
}

/// The executor's flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecutorArgs {
    /// `--bind-host` (default `0.0.0.0`).
    pub bind_host: String,
    /// `--bind-port`, the Arrow Flight port other executors fetch shuffle
    /// data from (default 50051).
    pub bind_port: u16,
    /// `--bind-grpc-port`, the port the scheduler sends tasks to (default
    /// 50052).
    pub bind_grpc_port: u16,
    /// `--external-host`, the host name the scheduler and other executors
    /// reach this one at (default: the address the scheduler sees).
    pub external_host: Option<String>,
    /// `--scheduler-host` (default `localhost`).
    pub scheduler_host: String,
    /// `--scheduler-port` (default 50050).
    pub scheduler_port: u16,
    /// `--concurrent-tasks`, the task slots (default: the CPU count).
    pub concurrent_tasks: Option<usize>,
    /// `--work-dir`, where shuffle files go (default: a temporary directory).
    pub work_dir: Option<String>,
    /// `--help` was given.
    pub help: bool,
}

impl ExecutorArgs {
    /// The usage text.
    pub const USAGE: &'static str = "\
hll-ballista-executor: a Ballista executor that knows redis_hll, redis_hll_merge and redis_hll_count

  --bind-host HOST          address to listen on (default 0.0.0.0)
  --bind-port PORT          Arrow Flight (shuffle) port (default 50051)
  --bind-grpc-port PORT     gRPC port for the scheduler (default 50052)
  --external-host HOST      host name others use to reach this executor
  --scheduler-host HOST     scheduler host (default localhost)
  --scheduler-port PORT     scheduler port (default 50050)
  --concurrent-tasks N      task slots (default: the CPU count)
  --work-dir DIR            directory for shuffle files (default: a temporary one)
";

    /// Parses the arguments after the program name.
    ///
    /// # Errors
    /// An unknown flag, a missing value or a number that does not parse.
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Self, ArgsError> {
        let mut out = Self {
            bind_host: "0.0.0.0".to_owned(),
            bind_port: 50051,
            bind_grpc_port: 50052,
            external_host: None,
            scheduler_host: "localhost".to_owned(),
            scheduler_port: 50050,
            concurrent_tasks: None,
            work_dir: None,
            help: false,
        };
        let known = [
            "bind-host",
            "bind-port",
            "bind-grpc-port",
            "external-host",
            "scheduler-host",
            "scheduler-port",
            "concurrent-tasks",
            "work-dir",
        ];
        for (name, value) in pairs(args, &known)? {
            match name.as_str() {
                "help" => out.help = true,
                "bind-host" => out.bind_host = value,
                "bind-port" => out.bind_port = number(&name, &value)?,
                "bind-grpc-port" => out.bind_grpc_port = number(&name, &value)?,
                "external-host" => out.external_host = Some(value),
                "scheduler-host" => out.scheduler_host = value,
                "scheduler-port" => out.scheduler_port = number(&name, &value)?,
                "concurrent-tasks" => out.concurrent_tasks = Some(number(&name, &value)?),
                "work-dir" => out.work_dir = Some(value),
                _ => return Err(ArgsError(format!("unknown flag --{name}"))),
            }
        }
        Ok(out)
    }

    /// Ballista's executor configuration for these flags, with the functions
    /// registered ([`crate::executor_config`]).
    #[must_use]
    pub fn config(&self) -> ExecutorProcessConfig {
        let defaults = ExecutorProcessConfig::default();
        crate::executor_config(ExecutorProcessConfig {
            bind_host: self.bind_host.clone(),
            port: self.bind_port,
            grpc_port: self.bind_grpc_port,
            external_host: self.external_host.clone(),
            scheduler_host: self.scheduler_host.clone(),
            scheduler_port: self.scheduler_port,
            vcores: self.concurrent_tasks.unwrap_or(defaults.vcores),
            work_dir: self.work_dir.clone(),
            ..defaults
        })
    }
}

/// The binaries' logger: Ballista's `log` records at or above the level
/// `RUST_LOG` names (`error`, `warn`, `info`, `debug`, `trace`; default
/// `info`, as Ballista's own binaries) go to stderr, one line each.
pub fn init_logging() {
    let level = std::env::var("RUST_LOG")
        .ok()
        .and_then(|v| v.parse::<log::LevelFilter>().ok())
        .unwrap_or(log::LevelFilter::Info);
    if log::set_logger(&StderrLogger).is_ok() {
        log::set_max_level(level);
    }
}

struct StderrLogger;

impl log::Log for StderrLogger {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::max_level()
    }

    fn log(&self, record: &log::Record<'_>) {
        if self.enabled(record.metadata()) {
            let secs = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64());
            eprintln!(
                "{secs:.3} {} {}: {}",
                record.level(),
                record.target(),
                record.args()
            );
        }
    }

    fn flush(&self) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn executor_flags() {
        let a = ExecutorArgs::parse(args(
            "--bind-host 127.0.0.1 --bind-port=7001 --bind-grpc-port 7002 \
             --scheduler-host h --scheduler-port 7000 --concurrent-tasks 1 --work-dir /tmp/w",
        ))
        .unwrap();
        let c = a.config();
        assert_eq!(
            (c.bind_host.as_str(), c.port, c.grpc_port),
            ("127.0.0.1", 7001, 7002)
        );
        assert_eq!((c.scheduler_host.as_str(), c.scheduler_port), ("h", 7000));
        assert_eq!((c.vcores, c.work_dir.as_deref()), (1, Some("/tmp/w")));
        assert!(c.override_function_registry.is_some());
    }

    #[test]
    fn scheduler_flags_and_errors() {
        let a = SchedulerArgs::parse(args("--bind-port 7000")).unwrap();
        assert_eq!((a.bind_host.as_str(), a.bind_port), ("0.0.0.0", 7000));
        assert!(a.config().override_session_builder.is_some());
        assert!(SchedulerArgs::parse(args("--bind-port")).is_err());
        assert!(SchedulerArgs::parse(args("--bind-port x")).is_err());
        let err = |s| SchedulerArgs::parse(args(s)).unwrap_err().0;
        assert_eq!(err("--nope 1"), "unknown flag --nope");
        assert_eq!(err("--nope"), "unknown flag --nope");
        assert_eq!(err("--nope=1"), "unknown flag --nope");
        assert_eq!(err("--bind-port"), "--bind-port needs a value");
        assert_eq!(
            ExecutorArgs::parse(args("--concurrent-tasks=x"))
                .unwrap_err()
                .0,
            "--concurrent-tasks: 'x' is not a valid number"
        );
        assert!(SchedulerArgs::parse(args("stray")).is_err());
    }
}
