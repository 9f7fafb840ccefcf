//! The live server rows: Redis' and Valkey's server-side time per call for
//! the commands the crates implement, measured in batches.

use super::Measurement;
use crate::servers::{self, Client, Reply};
use std::path::Path;

/// Where each server measurement is shown: (crate, group, param, label of
/// the command).
pub(super) struct ServerBench {
    pub(super) krate: &'static str,
    pub(super) group: &'static str,
    pub(super) param: &'static str,
    pub(super) stat: &'static str,
}

pub(super) const SERVER_BENCHES: [ServerBench; 3 + BITOP_ROWS] = [
    ServerBench {
        krate: "bitcount",
        group: "bitcount/count",
        param: "12500000",
        stat: "bitcount",
    },
    ServerBench {
        krate: "hll",
        group: "hll/count_union",
        param: "3",
        stat: "pfcount",
    },
    ServerBench {
        krate: "hll",
        group: "hll/merge",
        param: "3",
        stat: "pfmerge",
    },
    // BITOP (AND of 2, 3, 8 and 17 keys, OR and XOR of 2 and 8) at 64 B,
    // 64 KiB and 12.5 MB, grouped by size and key count (each group's keys
    // are written once).
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-and-2",
        param: "64",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-or-2",
        param: "64",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-xor-2",
        param: "64",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-and-3",
        param: "64",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-and-8",
        param: "64",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-or-8",
        param: "64",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-xor-8",
        param: "64",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-and-17",
        param: "64",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-and-2",
        param: "65536",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-or-2",
        param: "65536",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-xor-2",
        param: "65536",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-and-3",
        param: "65536",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-and-8",
        param: "65536",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-or-8",
        param: "65536",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-xor-8",
        param: "65536",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-and-17",
        param: "65536",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-and-2",
        param: "12500000",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-or-2",
        param: "12500000",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-xor-2",
        param: "12500000",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-and-3",
        param: "12500000",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-and-8",
        param: "12500000",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-or-8",
        param: "12500000",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-xor-8",
        param: "12500000",
        stat: "bitop",
    },
    ServerBench {
        krate: "bitcount",
        group: "bitcount/bitop-and-17",
        param: "12500000",
        stat: "bitop",
    },
];

/// The BITOP rows of [`SERVER_BENCHES`] (after its first three).
pub(super) const BITOP_ROWS: usize = 24;

/// Measures the server-side `usec_per_call` of BITCOUNT on a 12.5 MB key and
/// of PFCOUNT / PFMERGE over 3 dense keys, on each server, and adds them as
/// rows named after the server.
pub(super) fn server_rows(
    root: &Path,
    wanted: &[&str],
    quick: bool,
    results: &mut Vec<Measurement>,
    notes: &mut Vec<String>,
) {
    let log = root.join("target/ci/bench-servers.log");
    let _ = std::fs::create_dir_all(root.join("target/ci"));
    let (up, problems) = servers::start_both(root, &log);
    for p in &problems {
        notes.push(format!("server not available, its rows are missing: {p}"));
    }
    for s in &up {
        let label = format!("{} {} (server)", s.name, short(&s.version));
        match measure_server(s.port, wanted, quick) {
            Ok(rows) => {
                for (i, time) in rows {
                    let b = &SERVER_BENCHES[i];
                    let usec = time.best();
                    let each: Vec<String> = time.all.iter().map(|u| format!("{u:.2}")).collect();
                    notes.push(format!(
                        "{label} {} {}: usec_per_call of each batch {} (the row: the fastest)",
                        b.group,
                        b.param,
                        each.join(" / ")
                    ));
                    let throughput = results
                        .iter()
                        .find(|m| m.group == b.group && m.param == b.param)
                        .and_then(|m| m.throughput);
                    results.push(Measurement {
                        group: b.group.into(),
                        function: label.clone(),
                        param: b.param.into(),
                        median_ns: usec * 1000.0,
                        std_dev_ns: f64::NAN,
                        throughput,
                    });
                }
            }
            Err(e) => notes.push(format!("{label}: measurement failed: {e}")),
        }
    }
    if !up.is_empty() {
        notes.push(format!("server rows: INFO commandstats usec_per_call (server-side time, no network), the fastest of {BATCHES} batches, each after CONFIG RESETSTAT"));
    }
}

pub(super) fn short(version: &str) -> String {
    version
        .split_whitespace()
        .find_map(|w| w.strip_prefix("v="))
        .unwrap_or("?")
        .to_string()
}

pub(super) fn measure_server(
    port: u16,
    wanted: &[&str],
    quick: bool,
) -> Result<Vec<(usize, ServerTime)>, String> {
    let mut c = Client::connect(port).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    let reps = if quick { 20 } else { 100 };
    if wanted.contains(&"bitcount") {
        let data = pseudo_random(12_500_000);
        c.cmd(&[b"SET", b"bc:100m", &data])?;
        let r = batches(&mut c, "bitcount", reps / BATCHES, |c| {
            c.cmd(&[b"BITCOUNT", b"bc:100m"]).map(drop)
        })?;
        out.push((0, r));
    }
    if wanted.contains(&"hll") {
        for k in 0..3 {
            let key = format!("hll:{k}");
            for chunk in 0..20 {
                let mut args: Vec<Vec<u8>> = vec![b"PFADD".to_vec(), key.clone().into_bytes()];
                for i in 0..1000 {
                    args.push(format!("e:{k}:{}", chunk * 1000 + i).into_bytes());
                }
                let refs: Vec<&[u8]> = args.iter().map(|a| a.as_slice()).collect();
                c.cmd(&refs)?;
            }
            // Dense after 20000 distinct elements; make sure.
            match c.cmd(&[b"GET", key.as_bytes()])? {
                Reply::Bulk(Some(b)) if b.len() == 12304 => {}
                other => return Err(format!("{key} did not become dense: {other:?}")),
            }
        }
        let r = batches(&mut c, "pfcount", reps * 10 / BATCHES, |c| {
            c.cmd(&[b"PFCOUNT", b"hll:0", b"hll:1", b"hll:2"]).map(drop)
        })?;
        out.push((1, r));
        let r = batches(&mut c, "pfmerge", reps * 10 / BATCHES, |c| {
            c.cmd(&[b"DEL", b"hll:dest"])?;
            c.cmd(&[b"PFMERGE", b"hll:dest", b"hll:0", b"hll:1", b"hll:2"])
                .map(drop)
        })?;
        out.push((2, r));
    }
    if wanted.contains(&"bitcount") {
        bitop_server_rows(&mut c, reps, &mut out)?;
    }
    Ok(out)
}

/// The BITOP rows: `BITOP <op> bo:dest bo:0 .. bo:<k-1>` with `k` distinct
/// pseudo-random keys of the row's size (each a different window of one
/// buffer), the destination rewritten by every call.
pub(super) fn bitop_server_rows(
    c: &mut Client,
    reps: usize,
    out: &mut Vec<(usize, ServerTime)>,
) -> Result<(), String> {
    let mut current: Option<(usize, usize)> = None;
    for (i, b) in SERVER_BENCHES
        .iter()
        .enumerate()
        .filter(|(_, b)| b.stat == "bitop")
    {
        let mut parts = b.group.trim_start_matches("bitcount/bitop-").split('-');
        let op = parts.next().unwrap_or("and").to_uppercase();
        let k: usize = parts.next().and_then(|k| k.parse().ok()).unwrap_or(2);
        let size: usize = b.param.parse().map_err(|_| format!("size {}", b.param))?;
        let keys: Vec<Vec<u8>> = (0..k).map(|j| format!("bo:{j}").into_bytes()).collect();
        if current != Some((k, size)) {
            let buf = pseudo_random(size + k);
            for (j, key) in keys.iter().enumerate() {
                c.cmd(&[b"SET", key, &buf[j..j + size]])?;
            }
            current = Some((k, size));
        }
        let mut args: Vec<&[u8]> = vec![b"BITOP", op.as_bytes(), b"bo:dest"];
        args.extend(keys.iter().map(|k| k.as_slice()));
        // Fewer calls where one takes milliseconds.
        let per_batch = if size >= 1 << 20 {
            reps / BATCHES
        } else {
            reps * 10 / BATCHES
        };
        let r = batches(c, "bitop", per_batch, |c| c.cmd(&args).map(drop))?;
        out.push((i, r));
    }
    let mut del: Vec<Vec<u8>> = vec![b"DEL".to_vec(), b"bo:dest".to_vec()];
    del.extend((0..17).map(|j| format!("bo:{j}").into_bytes()));
    let refs: Vec<&[u8]> = del.iter().map(|a| a.as_slice()).collect();
    c.cmd(&refs)?;
    Ok(())
}

/// Batches of server calls per command; each batch's `usec_per_call` is
/// read after its own `CONFIG RESETSTAT`.
pub(super) const BATCHES: usize = 5;

/// The server's `usec_per_call` of `stat` over [`BATCHES`] batches of
/// `per_batch` calls of `call`: the fastest batch's (the server at its
/// best, the strictest yardstick for ours: a busy machine slows some
/// batches by 2x and more), with every batch's figure kept for the
/// report's notes.
pub(super) fn batches(
    c: &mut Client,
    stat: &str,
    per_batch: usize,
    mut call: impl FnMut(&mut Client) -> Result<(), String>,
) -> Result<ServerTime, String> {
    let mut all = Vec::new();
    for _ in 0..BATCHES {
        c.cmd(&[b"CONFIG", b"RESETSTAT"])?;
        for _ in 0..per_batch.max(1) {
            call(c)?;
        }
        all.push(c.usec_per_call(stat)?);
    }
    Ok(ServerTime { all })
}

/// Per-batch `usec_per_call` figures of one server command.
pub(super) struct ServerTime {
    all: Vec<f64>,
}

impl ServerTime {
    fn best(&self) -> f64 {
        self.all.iter().copied().fold(f64::INFINITY, f64::min)
    }
}

pub(super) fn pseudo_random(len: usize) -> Vec<u8> {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}
