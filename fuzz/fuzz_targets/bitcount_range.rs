//! bitcount's count_range and bitpos (public API and every kernel) against a
//! naive bit-by-bit model of Redis's BITCOUNT / BITPOS.
//!
//! Input layout: 8 bytes start, 8 bytes end (i64 LE), one flags byte
//! (unit, bit, range form), then the string.
#![no_main]

use bitcount::{BitposRange, Unit};
use libfuzzer_sys::fuzz_target;

fn bit(data: &[u8], i: usize) -> bool {
    data[i / 8] & (0x80 >> (i % 8)) != 0
}

/// Redis's range normalisation: `None` for an empty range. (BITCOUNT alone
/// also answers 0 early when both ends are negative and start > end.)
fn normalise(start: i64, end: i64, total: i64) -> Option<(i64, i64)> {
    let mut s = if start < 0 { start.saturating_add(total) } else { start };
    let mut e = if end < 0 { end.saturating_add(total) } else { end };
    s = s.max(0);
    e = e.max(0);
    e = e.min(total - 1);
    if s > e || total == 0 {
        None
    } else {
        Some((s, e))
    }
}

fn model_count(data: &[u8], start: i64, end: i64, unit: Unit) -> u64 {
    if start < 0 && end < 0 && start > end {
        return 0;
    }
    let total = data.len() as i64 * if unit == Unit::Bit { 8 } else { 1 };
    let Some((s, e)) = normalise(start, end, total) else {
        return 0;
    };
    let (bs, be) = if unit == Unit::Bit { (s, e) } else { (s * 8, e * 8 + 7) };
    (bs..=be).filter(|&i| bit(data, i as usize)).count() as u64
}

fn model_bitpos(data: &[u8], want: bool, range: BitposRange) -> i64 {
    let (start, end, unit, end_given) = match range {
        BitposRange::All => (0, -1, Unit::Byte, false),
        BitposRange::From(s) => (s, -1, Unit::Byte, false),
        BitposRange::Between { start, end, unit } => (start, end, unit, true),
    };
    let total = data.len() as i64 * if unit == Unit::Bit { 8 } else { 1 };
    let Some((s, e)) = normalise(start, end, total) else {
        return -1;
    };
    let (bs, be) = if unit == Unit::Bit { (s, e) } else { (s * 8, e * 8 + 7) };
    for i in bs..=be {
        if bit(data, i as usize) == want {
            return i;
        }
    }
    // Zero padding on the right: looking for 0 without an end finds the bit
    // just past the range.
    if !want && !end_given {
        be + 1
    } else {
        -1
    }
}

fuzz_target!(|input: &[u8]| {
    if input.len() < 17 {
        return;
    }
    let start = i64::from_le_bytes(input[0..8].try_into().unwrap());
    let end = i64::from_le_bytes(input[8..16].try_into().unwrap());
    let flags = input[16];
    let data = &input[17..];
    // Small indices are where the edges are; keep some huge ones too.
    let (start, end) = if flags & 0x80 == 0 {
        (start % 300, end % 300)
    } else {
        (start, end)
    };
    let unit = if flags & 1 == 0 { Unit::Byte } else { Unit::Bit };
    let want = flags & 2 != 0;
    let range = match (flags >> 2) & 3 {
        0 => BitposRange::All,
        1 => BitposRange::From(start),
        _ => BitposRange::Between { start, end, unit },
    };
    let count = model_count(data, start, end, unit);
    let pos = model_bitpos(data, want, range);
    assert_eq!(bitcount::count_range(data, start, end, unit), count);
    assert_eq!(bitcount::bitpos(data, want, range), pos);
    let all = data.iter().map(|b| u64::from(b.count_ones())).sum::<u64>();
    assert_eq!(bitcount::count(data), all);
    for k in bitcount::kernels() {
        assert_eq!(k.count(data), all, "kernel {}", k.name());
        assert_eq!(k.count_range(data, start, end, unit), count, "kernel {}", k.name());
        assert_eq!(k.bitpos(data, want, range), pos, "kernel {}", k.name());
    }
});
