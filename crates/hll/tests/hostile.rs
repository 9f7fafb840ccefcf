//! Hostile input: random and mutated strings never panic, never read out of
//! bounds, and never allocate more than a small multiple of their size. A
//! counting allocator (per thread) measures the peak.

use hll::{count_union, Hll};
use proptest::prelude::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: defers to the system allocator; the bookkeeping touches only
// const-initialized thread-locals (no allocation inside the allocator).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let _ = LIVE.try_with(|c| {
            let n = c.get() + l.size();
            c.set(n);
            let _ = PEAK.try_with(|p| p.set(p.get().max(n)));
        });
        // SAFETY: same contract as ours.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        let _ = LIVE.try_with(|c| c.set(c.get().saturating_sub(l.size())));
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static A: Counting = Counting;

/// A `fmt::Write` that only counts, so Display is exercised without
/// allocating.
struct Sink(usize);
impl std::fmt::Write for Sink {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0 += s.len();
        Ok(())
    }
}

/// Runs every operation on `bytes`; returns the peak bytes allocated.
fn exercise(bytes: &[u8]) -> usize {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    if let Ok(mut h) = Hll::from_bytes(bytes) {
        use std::fmt::Write;
        let _ = write!(Sink(0), "{h}");
        let regs = h.registers();
        assert!(regs.iter().all(|&r| r <= 63));
        let _ = h.estimate();
        let _ = count_union(&[&h, &h]);
        let _ = h.count();
        let _ = h.count();
        let mut m = Hll::new();
        m.merge(&[&h]);
        let copy = h.clone();
        h.merge(&[&copy, &m]);
        h.add_all(["x", "y", "z"]);
        let _ = h.count();
        assert!(h.as_bytes().len() <= bytes.len().max(hll::DENSE_BYTES) + 8);
        assert!(Hll::from_bytes(h.as_bytes()).is_ok());
    }
    PEAK.with(Cell::get) - base
}

/// The allocation bound: a few copies of the input or of a dense string.
fn bound(len: usize) -> usize {
    4 * len.max(hll::DENSE_BYTES) + 4096
}

/// The strings the mutations start from, built once (thousands of adds).
fn seeds() -> &'static [Vec<u8>] {
    static SEEDS: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    SEEDS.get_or_init(build_seeds)
}

fn build_seeds() -> Vec<Vec<u8>> {
    let mut sparse = Hll::new();
    sparse.add_all((0..200u32).map(|i| i.to_le_bytes()));
    let mut full = Hll::new();
    full.add_all((0..1100u32).map(|i| i.to_le_bytes()));
    let mut dense = Hll::new();
    dense.add_all((0..5000u32).map(|i| i.to_le_bytes()));
    vec![
        Hll::new().into_bytes(),
        sparse.into_bytes(),
        full.into_bytes(),
        dense.into_bytes(),
    ]
}

fn config() -> ProptestConfig {
    let cases = if cfg!(any(target_arch = "aarch64", target_arch = "riscv64")) {
        96
    } else {
        400
    };
    ProptestConfig {
        cases: simd_core::testing::scaled(cases, 8) as u32,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn random_strings(prefix in prop_oneof![Just(&b""[..]), Just(&b"HYLL\x01"[..]), Just(&b"HYLL\x00"[..])],
                      rest in proptest::collection::vec(any::<u8>(), 0..300)) {
        let mut b = prefix.to_vec();
        b.extend_from_slice(&rest);
        let peak = exercise(&b);
        prop_assert!(peak <= bound(b.len()), "peak {} for {} bytes", peak, b.len());
    }

    #[test]
    fn mutated_strings(seed in 0usize..4,
                       edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8),
                       cut in proptest::option::of(any::<usize>()),
                       tail in proptest::collection::vec(any::<u8>(), 0..6)) {
        let mut b = seeds()[seed].clone();
        for (at, v) in edits {
            let n = b.len();
            b[at % n] = v;
        }
        if let Some(c) = cut {
            let n = b.len();
            b.truncate(c % (n + 1));
        }
        b.extend_from_slice(&tail);
        let peak = exercise(&b);
        prop_assert!(peak <= bound(b.len()), "peak {} for {} bytes", peak, b.len());
    }

    /// Sparse bodies of valid opcodes with random runs: the accepted ones
    /// cover exactly 16384 registers.
    #[test]
    fn random_opcode_streams(ops in proptest::collection::vec(any::<u8>(), 0..64)) {
        let mut b = b"HYLL\x01\0\0\0\0\0\0\0\0\0\0\x80".to_vec();
        b.extend_from_slice(&ops);
        match Hll::from_bytes(&b) {
            Ok(h) => prop_assert!(h.registers().len() == 16384),
            Err(e) => prop_assert!(e.offset() <= b.len()),
        }
        exercise(&b);
    }
}

/// CVE-2025-32023 at full size, CVE-2019-10192/10193 shapes: rejected fast,
/// with nothing allocated beyond the copy of the input.
#[test]
fn cve_shapes_bounded() {
    let header = b"HYLL\x01\0\0\0\0\0\0\0\0\0\0\x80";
    let mut cve2025 = header.to_vec();
    for _ in 0..132_072 {
        cve2025.extend_from_slice(&[0x7f, 0xff]);
    }
    cve2025.push(0xff);
    // 10192: VAL runs after a full XZERO (write past register 16383).
    let mut runs = header.to_vec();
    runs.extend_from_slice(&[0x7f, 0xff]);
    runs.extend(std::iter::repeat_n(0xff, 1000));
    // 10193-like: XZERO up to 16380 then a VAL of 4 crossing the end.
    let mut crossing = header.to_vec();
    crossing.extend_from_slice(&[0x7f, 0xfb, 0x83, 0x83]);
    // Dense with every register 63 (histogram index past 52 in old servers).
    let mut all63 = b"HYLL\0\0\0\0\0\0\0\0\0\0\0\x80".to_vec();
    all63.resize(hll::DENSE_BYTES, 0xff);
    for (b, ok) in [
        (&cve2025, false),
        (&runs, false),
        (&crossing, false),
        (&all63, true),
    ] {
        let t = std::time::Instant::now();
        assert_eq!(Hll::from_bytes(b).is_ok(), ok);
        let peak = exercise(b);
        assert!(peak <= bound(b.len()), "peak {peak}");
        assert!(t.elapsed().as_secs() < 2);
    }
}
