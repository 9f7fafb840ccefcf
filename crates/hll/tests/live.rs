//! Live differential test against real servers: random PFADD (random
//! chunking), PFCOUNT (one and several keys), PFMERGE (sparse, dense, mixed,
//! into existing keys), DEL, SET (of strings we built, of valid sparse
//! strings no server writes: XZERO of any length down to one register,
//! runs split over several opcodes, equal VALs side by side, and of dense
//! strings with registers up to 63 and long equal runs) and GET, with
//! the bytes of every touched key compared after every step, under several
//! `hll-sparse-max-bytes`.
//!
//! Reads `REDIS_URL` and `VALKEY_URL` (`redis://127.0.0.1:PORT/`); prints
//! `skipped: REDIS_URL not set` (or VALKEY_URL) and passes when unset.
//! `HLL_LIVE_STEPS` sets the steps per phase (default 2500). It changes the
//! server's global `hll-sparse-max-bytes`, so two runs must not share a
//! server at the same time (each then fails the other's byte checks).
//!
//! `set_then_pfcount` goes through the `redis` feature's impls (an `Hll`
//! as a `SET` argument and as a `GET` reply), which this file needs.

use hll::{count_union, Hll};
use redis::{Commands, Connection};
use simd_core::testing::Rng;
use std::collections::HashMap;

const KEYS: usize = 6;

struct World {
    con: Connection,
    prefix: String,
    local: HashMap<usize, Hll>,
    rng: Rng,
    counter: u64,
    limit: usize,
    pfdebug: bool,
}

impl World {
    fn key(&self, k: usize) -> String {
        format!("{}{k}", self.prefix)
    }

    fn element(&mut self) -> Vec<u8> {
        match self.rng.below(4) {
            // Repeats: PFADD answers 0 often.
            0 => format!("r:{}", self.rng.below(500)).into_bytes(),
            1 => {
                let n = self.rng.below(24) as usize;
                (0..n).map(|_| self.rng.next_u64() as u8).collect()
            }
            _ => {
                self.counter += 1;
                format!("e:{}", self.counter).into_bytes()
            }
        }
    }

    /// A valid sparse string that neither a server nor `Hll` writes
    /// (PFADD must still edit it exactly as the server does): zero runs as
    /// ZERO or as XZERO of any length, the short ones often XZERO of one
    /// to three registers (each raise inside one changes the string's
    /// length by -1, 0 or +1), and VAL runs of random length with equal
    /// values side by side. Registers below a random bound take short runs,
    /// the rest long ones, so that the string is sometimes under the
    /// sparse limit and sometimes over it. The cached count is marked
    /// invalid.
    fn crafted(&mut self) -> Vec<u8> {
        let mut b = b"HYLL\x01\0\0\0\0\0\0\0\0\0\0\x80".to_vec();
        let short_below = self.rng.below(16385) as usize;
        let mut reg = 0;
        while reg < 16384 {
            let left = 16384 - reg;
            let short = reg < short_below;
            let len;
            if self.rng.below(if short { 3 } else { 8 }) == 0 {
                // VAL(v, len): mostly small values, as PFADD makes them.
                let v = if self.rng.below(4) == 0 {
                    1 + self.rng.below(32) as usize
                } else {
                    1 + self.rng.below(3) as usize
                };
                len = (1 + self.rng.below(4) as usize).min(left);
                b.push(0x80 | ((v - 1) << 2) as u8 | (len - 1) as u8);
            } else {
                len = if short {
                    1 + self.rng.below(3) as usize
                } else {
                    1 + self.rng.below(2000) as usize
                }
                .min(left);
                if len <= 64 && self.rng.below(3) == 0 {
                    b.push((len - 1) as u8);
                } else {
                    b.extend_from_slice(&(0x4000 | (len - 1) as u16).to_be_bytes());
                }
            }
            reg += len;
        }
        b
    }

    /// A dense string with registers no run of PFADD makes: mostly small
    /// geometric values as PFADD leaves them, some anywhere in 0..=63 (52
    /// to 63 need a hash with 51 zero bits or more), long runs of one value
    /// now and then, or nearly all 51, so that PFCOUNT's estimate meets
    /// histograms no added elements give. The cached count is marked
    /// invalid.
    fn crafted_dense(&mut self) -> Vec<u8> {
        let mut regs = [0u8; hll::REGISTERS];
        let wild = self.rng.below(4) == 0;
        let mut i = 0;
        if self.rng.below(4) == 0 {
            // Nearly every register 51 (the estimator's `tau` term, which
            // only registers of 51 feed, then weighs as much as the few
            // registers of 28..=50 left, and the count stays under 2^63),
            // a few 52..=63 that the servers ignore.
            regs = [51; hll::REGISTERS];
            for _ in 0..1 + self.rng.below(6) {
                let at = self.rng.below(hll::REGISTERS as u64) as usize;
                regs[at] = 28 + self.rng.below(23) as u8;
            }
            for _ in 0..self.rng.below(3) {
                let at = self.rng.below(hll::REGISTERS as u64) as usize;
                regs[at] = 52 + self.rng.below(12) as u8;
            }
            i = hll::REGISTERS;
        }
        while i < hll::REGISTERS {
            let v = match self.rng.below(if wild { 3 } else { 20 }) {
                0 => self.rng.below(64) as u8,
                _ => (self.rng.next_u64() | 1 << 20).trailing_zeros() as u8 / 2,
            };
            let run = if self.rng.below(50) == 0 {
                1 + self.rng.below(3000) as usize
            } else {
                1
            };
            for r in regs.iter_mut().skip(i).take(run) {
                *r = v;
            }
            i += run;
        }
        let mut body = [0u8; hll::DENSE_BODY];
        let scalar = hll::kernels().last().unwrap();
        scalar.pack(&regs, &mut body);
        [&b"HYLL\0\0\0\0\0\0\0\0\0\0\0\x80"[..], &body[..]].concat()
    }

    fn pick_keys(&mut self, n: usize) -> Vec<usize> {
        (0..n)
            .map(|_| self.rng.below(KEYS as u64) as usize)
            .collect()
    }

    /// GET on the server equals the local bytes (or both are missing), and
    /// sparse keys decode the same way.
    fn check(&mut self, k: usize, step: usize, what: &str) {
        let key = self.key(k);
        let got: Option<Vec<u8>> = self.con.get(&key).unwrap();
        let want = self.local.get(&k).map(|h| h.as_bytes().to_vec());
        assert_eq!(
            got.as_deref().map(hex::encode),
            want.as_deref().map(hex::encode),
            "step {step} ({what}) key {k} limit {}",
            self.limit
        );
        if self.pfdebug && step.is_multiple_of(50) {
            if let Some(h) = self.local.get(&k).filter(|h| h.is_sparse()) {
                let decoded: String = redis::cmd("PFDEBUG")
                    .arg("DECODE")
                    .arg(&key)
                    .query(&mut self.con)
                    .unwrap();
                assert_eq!(decoded, h.to_string(), "step {step} PFDEBUG DECODE");
            }
        }
    }

    fn step(&mut self, step: usize) {
        match self.rng.below(100) {
            0..=44 => {
                let k = self.pick_keys(1)[0];
                let n = match self.rng.below(4) {
                    0 => self.rng.below(3) as usize,
                    1 => 1 + self.rng.below(40) as usize,
                    2 => 1 + self.rng.below(300) as usize,
                    _ => 1 + self.rng.below(900) as usize,
                };
                let elems: Vec<Vec<u8>> = (0..n).map(|_| self.element()).collect();
                let key = self.key(k);
                let mut cmd = redis::cmd("PFADD");
                cmd.arg(&key);
                for e in &elems {
                    cmd.arg(&e[..]);
                }
                let got: i64 = cmd.query(&mut self.con).unwrap();
                let limit = self.limit;
                let created = !self.local.contains_key(&k);
                let h = self
                    .local
                    .entry(k)
                    .or_insert_with(|| Hll::new().with_sparse_max_bytes(limit));
                let changed = h.add_all(&elems) || created;
                assert_eq!(got, i64::from(changed), "step {step} PFADD {n}");
                self.check(k, step, "PFADD");
            }
            45..=59 => {
                let k = self.pick_keys(1)[0];
                let got: i64 = redis::cmd("PFCOUNT")
                    .arg(self.key(k))
                    .query(&mut self.con)
                    .unwrap();
                let want = self.local.get_mut(&k).map_or(0, |h| h.count());
                assert_eq!(got as u64, want, "step {step} PFCOUNT");
                self.check(k, step, "PFCOUNT");
            }
            60..=74 => {
                let n = 2 + self.rng.below(3) as usize;
                let ks = self.pick_keys(n);
                let mut cmd = redis::cmd("PFCOUNT");
                for &k in &ks {
                    cmd.arg(self.key(k));
                }
                let got: i64 = cmd.query(&mut self.con).unwrap();
                let hs: Vec<&Hll> = ks.iter().filter_map(|k| self.local.get(k)).collect();
                assert_eq!(got as u64, count_union(&hs), "step {step} PFCOUNT {ks:?}");
                for k in ks {
                    self.check(k, step, "PFCOUNT many");
                }
            }
            75..=91 => {
                let n = 1 + self.rng.below(3) as usize;
                let ks = self.pick_keys(n + 1);
                let (dest, srcs) = (ks[0], &ks[1..]);
                let mut cmd = redis::cmd("PFMERGE");
                cmd.arg(self.key(dest));
                for &k in srcs {
                    cmd.arg(self.key(k));
                }
                let _: () = cmd.query(&mut self.con).unwrap();
                let sources: Vec<Hll> = srcs
                    .iter()
                    .filter_map(|k| self.local.get(k).cloned())
                    .collect();
                let refs: Vec<&Hll> = sources.iter().collect();
                let limit = self.limit;
                self.local
                    .entry(dest)
                    .or_insert_with(|| Hll::new().with_sparse_max_bytes(limit))
                    .merge(&refs);
                self.check(dest, step, "PFMERGE");
            }
            92..=95 => {
                let k = self.pick_keys(1)[0];
                let _: i64 = self.con.del(self.key(k)).unwrap();
                self.local.remove(&k);
                self.check(k, step, "DEL");
            }
            96..=97 => {
                // SET a crafted string (sparse or dense) on both sides,
                // then PFADD to it at once (the later steps count, merge
                // and edit it further).
                let k = self.pick_keys(1)[0];
                let b = if self.rng.below(3) == 0 {
                    self.crafted_dense()
                } else {
                    self.crafted()
                };
                let _: () = self.con.set(self.key(k), &b).unwrap();
                let mut h = Hll::from_bytes(&b).unwrap();
                h.set_sparse_max_bytes(self.limit);
                assert_eq!(h.as_bytes(), &b[..]);
                self.local.insert(k, h);
                self.check(k, step, "SET crafted");
                if self.rng.below(2) == 0 {
                    // PFCOUNT writes the count into the string's cache.
                    let got: i64 = redis::cmd("PFCOUNT")
                        .arg(self.key(k))
                        .query(&mut self.con)
                        .unwrap();
                    let want = self.local.get_mut(&k).unwrap().count();
                    assert_eq!(got as u64, want, "step {step} PFCOUNT crafted");
                    self.check(k, step, "PFCOUNT crafted");
                }
                let n = 1 + self.rng.below(200) as usize;
                let elems: Vec<Vec<u8>> = (0..n).map(|_| self.element()).collect();
                let mut cmd = redis::cmd("PFADD");
                cmd.arg(self.key(k));
                for e in &elems {
                    cmd.arg(&e[..]);
                }
                let got: i64 = cmd.query(&mut self.con).unwrap();
                let changed = self.local.get_mut(&k).unwrap().add_all(&elems);
                assert_eq!(got, i64::from(changed), "step {step} PFADD {n} crafted");
                self.check(k, step, "PFADD crafted");
            }
            _ => {
                // SET a locally built HLL: the server must accept our bytes.
                let k = self.pick_keys(1)[0];
                let mut h = Hll::new().with_sparse_max_bytes(self.limit);
                let n = self.rng.below(2000) as usize;
                for _ in 0..n {
                    let e = self.element();
                    h.add(&e);
                }
                let _: () = self.con.set(self.key(k), h.as_bytes()).unwrap();
                let got: i64 = redis::cmd("PFCOUNT")
                    .arg(self.key(k))
                    .query(&mut self.con)
                    .unwrap();
                assert_eq!(got as u64, h.count(), "step {step} SET+PFCOUNT");
                self.local.insert(k, h);
                self.check(k, step, "SET");
            }
        }
    }
}

fn run(var: &str, seed: u64) {
    let Ok(url) = std::env::var(var) else {
        println!("skipped: {var} not set");
        return;
    };
    let steps: usize = std::env::var("HLL_LIVE_STEPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2500);
    let client = redis::Client::open(url.as_str()).unwrap();
    let mut con = client.get_connection().unwrap();
    let old: Vec<String> = redis::cmd("CONFIG")
        .arg("GET")
        .arg("hll-sparse-max-bytes")
        .query(&mut con)
        .unwrap();
    let pfdebug = redis::cmd("PFDEBUG")
        .arg("DECODE")
        .arg("hll-live-no-such-key")
        .query::<String>(&mut con)
        .is_err_and(|e| {
            // A missing key answers "The specified key does not exist": the
            // command exists.
            e.to_string().contains("does not exist")
        });
    let prefix = format!("hll-live:{}:{var}:", std::process::id());
    let mut w = World {
        con,
        prefix,
        local: HashMap::new(),
        rng: Rng::new(seed),
        counter: 0,
        limit: 3000,
        pfdebug,
    };
    for limit in [3000usize, 350, 8000] {
        let _: () = redis::cmd("CONFIG")
            .arg("SET")
            .arg("hll-sparse-max-bytes")
            .arg(limit)
            .query(&mut w.con)
            .unwrap();
        w.limit = limit;
        for h in w.local.values_mut() {
            h.set_sparse_max_bytes(limit);
        }
        for step in 0..steps {
            w.step(step);
        }
    }
    let _: () = redis::cmd("CONFIG")
        .arg("SET")
        .arg("hll-sparse-max-bytes")
        .arg(&old[1])
        .query(&mut w.con)
        .unwrap();
    for k in 0..KEYS {
        let _: i64 = w.con.del(w.key(k)).unwrap();
    }
    println!(
        "{var}: {} steps per phase, 3 phases, pfdebug={}",
        steps, w.pfdebug
    );
}

#[test]
fn live_redis() {
    run("REDIS_URL", 1);
}

#[test]
fn live_valkey() {
    run("VALKEY_URL", 2);
}

/// HLLs built here (empty, sparse, sparse near the limit, dense, all
/// 63s) SET through `ToRedisArgs`: the server's `PFCOUNT` equals the local
/// count, and the value read back through `FromRedisValue` equals the local
/// one (both wrote the same cache). A missing key reads as `None`, a
/// string that is not an HLL as a parse error.
fn set_then_pfcount(var: &str) {
    let Ok(url) = std::env::var(var) else {
        println!("skipped: {var} not set");
        return;
    };
    let mut con = redis::Client::open(url.as_str())
        .unwrap()
        .get_connection()
        .unwrap();
    let key = format!("hll-live-set:{}:{var}", std::process::id());
    let mut rng = Rng::new(54);
    let mut cases = vec![Hll::new()];
    for n in [1usize, 100, 1000, 1400, 50_000] {
        let mut h = Hll::new();
        h.add_all((0..n).map(|_| rng.next_u64().to_le_bytes()));
        cases.push(h);
    }
    let mut all63 = b"HYLL\0\0\0\0\0\0\0\0\0\0\0\x80".to_vec();
    all63.resize(hll::DENSE_BYTES, 0xff);
    cases.push(Hll::from_vec(all63).unwrap());
    for mut h in cases {
        let _: () = con.set(&key, &h).unwrap();
        // An i64 on the wire: the all-63 string's count is i64::MIN.
        let on_server: i64 = redis::cmd("PFCOUNT").arg(&key).query(&mut con).unwrap();
        assert_eq!(on_server as u64, h.count(), "{var}: {h:?}");
        let back: Hll = con.get(&key).unwrap();
        assert_eq!(back, h, "{var}");
    }
    let _: i64 = con.del(&key).unwrap();
    let missing: Option<Hll> = con.get(&key).unwrap();
    assert!(missing.is_none());
    let _: () = con.set(&key, "this is not a HyperLogLog").unwrap();
    let e = con.get::<_, Hll>(&key).unwrap_err();
    assert_eq!(e.kind(), redis::ErrorKind::Parse, "{e}");
    assert!(e.to_string().contains("magic"), "{e}");
    let _: i64 = con.del(&key).unwrap();
    println!("{var}: SET + PFCOUNT of 7 HLLs match the local counts");
}

#[test]
fn set_then_pfcount_redis() {
    set_then_pfcount("REDIS_URL");
}

#[test]
fn set_then_pfcount_valkey() {
    set_then_pfcount("VALKEY_URL");
}
