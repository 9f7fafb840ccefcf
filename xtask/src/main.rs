//! The project's automation, run as `cargo xtask <command>` (the cargo-xtask
//! pattern: one binary, subcommands, few dependencies).

#![deny(clippy::undocumented_unsafe_blocks)]

mod bench;
mod bench_datafusion;
mod bench_types;
mod bundle;
mod ci;
mod coverage;
mod fuzz;
mod plot;
mod servers;
mod util;

use std::process::ExitCode;

const HELP: &str = "\
cargo xtask <command> [options]

Commands:
  ci        Run the whole test matrix (the project's one test command)
  golden    Start Redis and Valkey on free ports, run the live differential
            tests and examples against both, stop both
  bundle    Build the test executables statically into a folder with run.sh,
            to run the suite on another x86-64 machine (AVX-512 hardware)
  bench     Run the criterion benchmarks / print the comparison report
  fuzz      Run the cargo-fuzz targets for N seconds each
  coverage  Line coverage of the crates' tests (native, each ceiling, live
            tests included): a summary and the lines no test ran

Run `cargo xtask <command> --help` for a command's options.
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (cmd, rest) = match args.split_first() {
        Some((c, r)) => (c.as_str(), r),
        None => {
            eprint!("{HELP}");
            return ExitCode::from(2);
        }
    };
    let result = match cmd {
        "ci" => ci::main(rest),
        "golden" => servers::golden_main(rest),
        "bundle" => bundle::main(rest),
        "fuzz" => fuzz::main(rest),
        "coverage" => coverage::main(rest),
        "bench" => bench::main(rest),
        "-h" | "--help" | "help" => {
            print!("{HELP}");
            Ok(())
        }
        other => Err(format!("unknown command {other:?}\n\n{HELP}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}
