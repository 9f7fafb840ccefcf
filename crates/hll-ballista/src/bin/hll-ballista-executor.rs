//! A Ballista executor whose function registry holds `redis_hll`,
//! `redis_hll_merge` and `redis_hll_count` (flags: `--help`).

use std::process::ExitCode;
use std::sync::Arc;

use ballista_executor::executor_process::start_executor_process;
use hll_ballista::args::ExecutorArgs;

fn main() -> ExitCode {
    let args = match ExecutorArgs::parse(std::env::args().skip(1)) {
        Ok(args) if args.help => {
            println!("{}", ExecutorArgs::USAGE);
            return ExitCode::SUCCESS;
        }
        Ok(args) => args,
        Err(e) => {
            eprintln!("hll-ballista-executor: {e}\n\n{}", ExecutorArgs::USAGE);
            return ExitCode::from(2);
        }
    };
    hll_ballista::args::init_logging();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let config = args.config();
    eprintln!(
        "hll-ballista-executor: flight on {}:{}, scheduler at {}:{}",
        config.bind_host, config.port, config.scheduler_host, config.scheduler_port
    );
    match runtime.block_on(start_executor_process(Arc::new(config))) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hll-ballista-executor: {e}");
            ExitCode::FAILURE
        }
    }
}
