//! A Ballista scheduler whose sessions know `redis_hll`, `redis_hll_merge`
//! and `redis_hll_count` (flags: `--help`).

use std::process::ExitCode;
use std::sync::Arc;

use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::scheduler_process::start_server;
use hll_ballista::args::SchedulerArgs;

fn main() -> ExitCode {
    let args = match SchedulerArgs::parse(std::env::args().skip(1)) {
        Ok(args) if args.help => {
            println!("{}", SchedulerArgs::USAGE);
            return ExitCode::SUCCESS;
        }
        Ok(args) => args,
        Err(e) => {
            eprintln!("hll-ballista-scheduler: {e}\n\n{}", SchedulerArgs::USAGE);
            return ExitCode::from(2);
        }
    };
    // Ballista's own scheduler runs on 32 MiB thread stacks: planning deep
    // plans recurses.
    hll_ballista::args::init_logging();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(32 * 1024 * 1024)
        .build()
        .expect("a tokio runtime");
    match runtime.block_on(run(&args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hll-ballista-scheduler: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: &SchedulerArgs) -> ballista_core::error::Result<()> {
    let addr = format!("{}:{}", args.bind_host, args.bind_port)
        .parse()
        .map_err(|e: std::net::AddrParseError| {
            ballista_core::error::BallistaError::Configuration(e.to_string())
        })?;
    let config = args.config();
    let cluster = BallistaCluster::new_from_config(&config).await?;
    eprintln!("hll-ballista-scheduler: listening on {addr}");
    start_server(cluster, addr, Arc::new(config)).await
}
