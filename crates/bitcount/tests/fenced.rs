//! Every kernel and the public functions on inputs placed flush against
//! inaccessible guard pages (see `simd_core::testing::Guarded`): the
//! overlapping tail loads, the AVX-512 masked head/tail loads and the
//! vector BITPOS scans must never touch a byte outside the slice, or the
//! test process faults.

use bitcount::{BitposRange, Unit};
use simd_core::testing::{for_each_len_fenced, scaled};

fn naive_count(bytes: &[u8]) -> u64 {
    bytes.iter().map(|b| u64::from(b.count_ones())).sum()
}

fn naive_find_not(bytes: &[u8], skip: u8) -> usize {
    bytes.iter().position(|&b| b != skip).unwrap_or(bytes.len())
}

const MAX: usize = 1100;

#[test]
fn counts_stay_inside_the_slice() {
    let kernels: Vec<_> = bitcount::kernels().collect();
    for_each_len_fenced(scaled(MAX, 70), 5, |b| {
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
    let mut g = simd_core::testing::Guarded::new(MAX);
    for len in 0..=scaled(MAX, 70) {
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
