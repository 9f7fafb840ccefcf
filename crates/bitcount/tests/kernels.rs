//! Every kernel the CPU supports against the scalar oracle: all lengths
//! 0..=1100 at all start offsets 0..64, random buffers up to 64 KB
//! (proptest), a few buffers over 16 MB with known counts, and the public
//! (dispatched) functions against the same oracle, also on inputs flush
//! against guard pages.

use bitcount::{BitposRange, Kernel, Unit};
use proptest::prelude::*;
use simd_core::testing::{for_each_len_fenced, for_each_len_offset, random_bytes, scaled, Rng};

fn naive_count(bytes: &[u8]) -> u64 {
    bytes.iter().map(|b| u64::from(b.count_ones())).sum()
}

fn naive_find_not(bytes: &[u8], skip: u8) -> usize {
    bytes.iter().position(|&b| b != skip).unwrap_or(bytes.len())
}

fn scalar() -> Kernel {
    bitcount::kernels()
        .find(|k| k.name() == "scalar")
        .expect("scalar is always listed")
}

#[test]
fn kernel_list_ends_with_scalar() {
    let names: Vec<_> = bitcount::kernels().map(|k| k.name()).collect();
    assert_eq!(names.last(), Some(&"scalar"));
    eprintln!("kernels on this CPU: {names:?}");
}

/// `selected_kernel()` is the first of `kernels()` (every kernel the CPU
/// runs, whatever the ceiling) whose level the ceiling allows, and the
/// dispatched functions run it: here the BITOP, which above 64 bytes has
/// no short path of its own.
#[test]
fn selected_kernel_is_the_first_the_ceiling_allows() {
    let picked = bitcount::selected_kernel();
    let first = bitcount::kernels()
        .find(|k| cpu_detect::allows(k.level()))
        .expect("scalar is always allowed");
    assert_eq!(picked.name(), first.name());
    assert_eq!(picked.level(), first.level());
    assert!(cpu_detect::max_level().includes(picked.level()));
    assert_eq!(
        format!("{picked:?}"),
        format!(
            "Kernel {{ name: {:?}, level: {:?} }}",
            picked.name(),
            picked.level()
        )
    );
    eprintln!(
        "selected under {:?}: {}",
        cpu_detect::max_level(),
        picked.name()
    );
    let (a, b) = (random_bytes(3, 1000), random_bytes(4, 1000));
    for op in [bitcount::BitOp::And, bitcount::BitOp::Xor] {
        assert_eq!(
            bitcount::bitop_count(op, &[&a, &b]),
            picked.bitop_count(op, &[&a, &b])
        );
    }
}

#[test]
fn scalar_and_dispatched_match_naive() {
    let s = scalar();
    for_each_len_offset(scaled(1100, 80), 1, |b, _| {
        let want = naive_count(b);
        assert_eq!(s.count(b), want);
        // The public function: inline small path, then the dispatcher.
        assert_eq!(bitcount::count(b), want, "len {}", b.len());
    });
}

#[test]
fn every_kernel_counts_every_length_and_offset() {
    let s = scalar();
    for k in bitcount::kernels() {
        for_each_len_offset(scaled(1100, 80), 2, |b, off| {
            assert_eq!(
                k.count(b),
                s.count(b),
                "{} len {} offset {off}",
                k.name(),
                b.len()
            );
        });
    }
}

#[test]
fn every_kernel_counts_all_ones_and_zeros() {
    let ones = vec![0xffu8; 1100 + 64];
    let zeros = vec![0u8; 1100 + 64];
    for k in bitcount::kernels() {
        for off in 0..scaled(64, 3) {
            for len in 0..=scaled(1100, 80) {
                assert_eq!(
                    k.count(&ones[off..off + len]),
                    8 * len as u64,
                    "{}",
                    k.name()
                );
                assert_eq!(k.count(&zeros[off..off + len]), 0, "{}", k.name());
            }
        }
    }
}

/// Scans: a padded buffer of `skip` bytes with one other byte planted at
/// every position, at every offset (the other kernels' answers against the
/// naive scan).
#[test]
fn every_kernel_scans_every_length_and_offset() {
    let max = scaled(600, 40);
    for k in bitcount::kernels() {
        for skip in [0x00u8, 0xff] {
            let mut buf = vec![skip; max + 64 + 8];
            for off in 0..scaled(64, 3) {
                for len in 0..=max {
                    let s = &buf[off..off + len];
                    assert_eq!(k.find_not(s, skip), len, "{} len {len}", k.name());
                }
                // The planted byte, at every place of the longest slice; the
                // slices' ends cut it off or not.
                for at in 0..max {
                    buf[off + at] = skip ^ 0x10;
                    for len in [at, at + 1, at + 7, max] {
                        let s = &buf[off..off + len];
                        assert_eq!(
                            k.find_not(s, skip),
                            naive_find_not(s, skip),
                            "{} at {at} len {len}",
                            k.name()
                        );
                    }
                    buf[off + at] = skip;
                }
            }
            // A stray other byte just past the slice's end must not be seen.
            buf[max] = !skip;
            assert_eq!(k.find_not(&buf[..max], skip), max, "{}", k.name());
        }
    }
}

/// The same odd byte at the same place of several vectors (every 32, 64 or
/// 128 bytes from its first place on): a scan that folds a block's vectors
/// into one test before its branch (the `avx512` loop combines pairs with
/// `vpternlogd`) must still see it. A fold that only XORs the vectors with
/// each other passes the single planted byte above and fails here.
#[test]
fn every_kernel_scans_repeated_odd_bytes() {
    let len = scaled(1400, 300);
    for k in bitcount::kernels() {
        for skip in [0x00u8, 0xff] {
            for period in [32, 64, 128] {
                for off in [0, 1, 17, 63] {
                    for first in (0..len).step_by(scaled(1, 37)) {
                        let mut buf = vec![skip; off + len];
                        for at in (first..len).step_by(period) {
                            buf[off + at] = skip ^ 0x5a;
                        }
                        assert_eq!(
                            k.find_not(&buf[off..], skip),
                            first,
                            "{} period {period} offset {off} first {first}",
                            k.name()
                        );
                    }
                }
            }
        }
    }
}

/// A run of `skip` bytes of every length, then only other bytes: the
/// vectors compared against `skip` then hold every count of leading equal
/// lanes, down to the one where only lane 0 is equal (a mask of exactly 1).
/// The tests above plant one or a few odd bytes in a sea of `skip`, so
/// their masks always have most lanes set: a loop that tested its mask
/// against 1 instead of all ones (`!= 1` for `!= -1`) passed them and
/// fails here (shown with cargo-mutants on the `avx2` scan's block and
/// tail tests).
#[test]
fn every_kernel_scans_a_run_then_other_bytes() {
    let max = scaled(600, 40);
    for k in bitcount::kernels() {
        for skip in [0x00u8, 0xff] {
            for off in 0..scaled(64, 3) {
                for len in [max, max / 2] {
                    for run in 0..=len {
                        let mut buf = vec![!skip; off + len];
                        buf[off..off + run].fill(skip);
                        assert_eq!(
                            k.find_not(&buf[off..], skip),
                            run,
                            "{} offset {off} len {len} run {run}",
                            k.name()
                        );
                    }
                }
            }
        }
    }
}

/// Dispatched and per-kernel BITCOUNT/BITPOS ranges against the scalar
/// kernel's answers, over random data with long runs of 0x00 / 0xff.
#[test]
fn ranges_agree_across_kernels() {
    let mut rng = Rng::new(7);
    let s = scalar();
    let ks: Vec<_> = bitcount::kernels().collect();
    for round in 0..scaled(3000, 100) {
        let len = rng.below(400) as usize;
        let fill = [0x00, 0xff][round % 2];
        let mut data = vec![fill; len];
        // A few random bytes, sometimes none.
        for _ in 0..rng.below(3) {
            if len > 0 {
                data[rng.below(len as u64) as usize] = rng.next_u64() as u8;
            }
        }
        let bits = 8 * len as i64 + 20;
        let (start, end) = (
            rng.below(2 * bits as u64) as i64 - bits,
            rng.below(2 * bits as u64) as i64 - bits,
        );
        let unit = if rng.below(2) == 0 {
            Unit::Byte
        } else {
            Unit::Bit
        };
        let ranges = [
            BitposRange::All,
            BitposRange::From(start),
            BitposRange::Between { start, end, unit },
        ];
        let want_count = s.count_range(&data, start, end, unit);
        assert_eq!(bitcount::count_range(&data, start, end, unit), want_count);
        for bit in [false, true] {
            for r in ranges {
                let want = s.bitpos(&data, bit, r);
                assert_eq!(
                    bitcount::bitpos(&data, bit, r),
                    want,
                    "{data:02x?} {bit} {r:?}"
                );
                for k in &ks {
                    assert_eq!(k.bitpos(&data, bit, r), want, "{} {bit} {r:?}", k.name());
                }
            }
        }
        for k in &ks {
            assert_eq!(
                k.count_range(&data, start, end, unit),
                want_count,
                "{}",
                k.name()
            );
        }
    }
}

/// BIT-mode BITPOS and BITCOUNT against a bit-by-bit model of the server.
#[test]
fn bit_mode_matches_bit_model() {
    fn bit(data: &[u8], i: usize) -> bool {
        data[i / 8] & (0x80 >> (i % 8)) != 0
    }
    let mut rng = Rng::new(11);
    for _ in 0..scaled(4000, 200) {
        let len = rng.below(24) as usize;
        let data: Vec<u8> = (0..len)
            .map(|_| [0x00, 0xff, rng.next_u64() as u8][rng.below(3) as usize])
            .collect();
        let total = 8 * len as i64;
        let start = rng.below(2 * total as u64 + 10) as i64 - total - 5;
        let end = rng.below(2 * total as u64 + 10) as i64 - total - 5;
        // The model: normalise, then walk the bits.
        let norm = |v: i64| if v < 0 { (v + total).max(0) } else { v };
        let (s, e) = (norm(start), norm(end).min(total - 1));
        // An empty range when s > e (as usize, s..=e with s = 1, e = 0).
        let range = if s <= e {
            (s as usize, e as usize)
        } else {
            (1, 0)
        };
        let range = range.0..=range.1;
        let want_count = if start < 0 && end < 0 && start > end {
            0
        } else {
            range.clone().filter(|&i| bit(&data, i)).count() as u64
        };
        assert_eq!(
            bitcount::count_range(&data, start, end, Unit::Bit),
            want_count,
            "{data:02x?} {start} {end}"
        );
        for b in [false, true] {
            let want = range
                .clone()
                .find(|&i| bit(&data, i) == b)
                .map_or(-1, |i| i as i64);
            let r = BitposRange::Between {
                start,
                end,
                unit: Unit::Bit,
            };
            assert_eq!(
                bitcount::bitpos(&data, b, r),
                want,
                "{data:02x?} {b} {start} {end}"
            );
        }
    }
}

/// Past the all-lengths range: 1101..=2300 bytes at a few start offsets,
/// where the `avx2` kernel ends its Harley-Seal blocks of 704 bytes (with
/// their POPCNT side stream) with one 512-byte block without it
/// (1216..=1407 and 1920..=2111 bytes here) or leaves the rest to its
/// medium loop.
#[test]
fn every_kernel_counts_lengths_past_the_block_sizes() {
    if cfg!(miri) {
        return;
    }
    let data = random_bytes(7, 2300 + 64);
    for k in bitcount::kernels() {
        for off in [0, 1, 31, 63] {
            for len in 1101..=2300 {
                let b = &data[off..off + len];
                assert_eq!(
                    k.count(b),
                    naive_count(b),
                    "{} len {len} off {off}",
                    k.name()
                );
            }
        }
    }
}

/// The `avx2` kernel leaves out its scalar side stream from 64 MiB up, the
/// `avx512` one prefetches from 32 MiB up (and, on AMD Zen 4, from 4 MiB):
/// counts just below, at and above those sizes.
#[test]
#[cfg(target_arch = "x86_64")]
fn long_kernels_around_their_thresholds() {
    if cfg!(miri) {
        return;
    }
    let len = (64 << 20) + 4099;
    // Every byte value the same number of times per 256, as above.
    let data: Vec<u8> = (0..len).map(|i| i as u8).collect();
    for (name, at) in [
        ("avx2", 64usize << 20),
        ("avx512", 32 << 20),
        ("avx512", 4 << 20),
    ] {
        for k in bitcount::kernels().filter(|k| k.name() == name) {
            for n in [at - 1, at, at + 4099] {
                let want = (n / 256) as u64 * 1024 + naive_count(&data[n - n % 256..n]);
                assert_eq!(k.count(&data[..n]), want, "{name} {n}");
                assert_eq!(
                    k.count(&data[5..n]),
                    want - naive_count(&data[..5]),
                    "{name} {n}"
                );
            }
        }
    }
}

#[test]
fn large_buffers_with_known_counts() {
    if cfg!(miri) {
        return;
    }
    let len = (16 << 20) + 4099;
    // Every byte value the same number of times, plus a known remainder.
    let data: Vec<u8> = (0..len).map(|i| i as u8).collect();
    let want = (len / 256) as u64 * 1024 + naive_count(&data[len - len % 256..]);
    for k in bitcount::kernels() {
        assert_eq!(k.count(&data), want, "{}", k.name());
        assert_eq!(
            k.count(&data[3..]),
            want - naive_count(&data[..3]),
            "{}",
            k.name()
        );
    }
    assert_eq!(bitcount::count(&data), want);
    let ones = vec![0xffu8; 17 << 20];
    let mut zeros = vec![0u8; 17 << 20];
    for k in bitcount::kernels() {
        assert_eq!(k.count(&ones), 8 * ones.len() as u64, "{}", k.name());
        assert_eq!(k.find_not(&ones, 0xff), ones.len(), "{}", k.name());
    }
    // BITPOS far into a large buffer, and the zero-padding rule.
    zeros[(17 << 20) - 5] = 0x01;
    assert_eq!(
        bitcount::bitpos(&zeros, true, BitposRange::All),
        8 * ((17 << 20) - 5) as i64 + 7
    );
    assert_eq!(
        bitcount::bitpos(&ones, false, BitposRange::All),
        8 * ones.len() as i64
    );
    assert_eq!(
        bitcount::count_range(&ones, 1, -2, Unit::Bit),
        8 * ones.len() as u64 - 2
    );
}

fn check_all(data: &[u8]) {
    let want = naive_count(data);
    assert_eq!(bitcount::count(data), want);
    for k in bitcount::kernels() {
        assert_eq!(k.count(data), want, "{}", k.name());
        for skip in [0x00, 0xff] {
            assert_eq!(
                k.find_not(data, skip),
                naive_find_not(data, skip),
                "{}",
                k.name()
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 64 }))]

    #[test]
    fn random_buffers(data in proptest::collection::vec(any::<u8>(), 0..65536), cut in 0usize..64) {
        let cut = cut.min(data.len());
        check_all(&data[cut..]);
    }

    #[test]
    fn random_runs(len in 0usize..65536, seed in any::<u64>(), fill in prop_oneof![Just(0u8), Just(0xffu8)], planted in 0usize..65536) {
        // Mostly one byte value (the BITPOS fast path), maybe one other byte.
        let mut data = vec![fill; len];
        if planted < len {
            data[planted] = random_bytes(seed, 1)[0];
        }
        check_all(&data);
    }
}

/// The longest input of the guard-page tests.
const FENCED_MAX: usize = 1100;

/// Every kernel and the public functions on inputs placed flush against
/// inaccessible guard pages (see `simd_core::testing::Guarded`): the
/// overlapping tail loads, the AVX-512 masked head/tail loads (and the
/// inline-assembly short path) and the vector BITPOS scans must never touch
/// a byte outside the slice, or the test process faults.
#[test]
fn counts_stay_inside_the_slice() {
    let kernels: Vec<_> = bitcount::kernels().collect();
    for_each_len_fenced(scaled(FENCED_MAX, 70), 5, |b| {
        let want = naive_count(b);
        assert_eq!(bitcount::count(b), want, "count, len {}", b.len());
        for k in &kernels {
            assert_eq!(k.count(b), want, "{} count, len {}", k.name(), b.len());
        }
        let n = b.len() as i64;
        assert_eq!(
            bitcount::count_range(b, 1, n - 2, Unit::Byte),
            naive_count(b.get(1..b.len().saturating_sub(1)).unwrap_or(&[])),
            "count_range, len {}",
            b.len()
        );
    });
}

#[test]
fn scans_stay_inside_the_slice() {
    let kernels: Vec<_> = bitcount::kernels().collect();
    // All-zero and all-one slices are scanned to their very last byte.
    let mut g = simd_core::testing::Guarded::new(FENCED_MAX);
    for len in 0..=scaled(FENCED_MAX, 70) {
        for fill in [0x00u8, 0xff] {
            for back in [true, false] {
                let b = if back { g.back(len) } else { g.front(len) };
                b.fill(fill);
                let b = &*b;
                for k in &kernels {
                    assert_eq!(k.find_not(b, fill), len, "{} len {len}", k.name());
                    assert_eq!(k.find_not(b, !fill), naive_find_not(b, !fill));
                }
                let bit = fill == 0;
                let want = if len == 0 || bit { -1 } else { 8 * len as i64 };
                // BITPOS for the bit the slice lacks: -1 when looking for a
                // 1 in zeros; for a 0 in ones the first bit past the end.
                assert_eq!(
                    bitcount::bitpos(b, bit, BitposRange::All),
                    want,
                    "len {len}"
                );
            }
        }
    }
}
