//! Redis's range rules for `BITCOUNT` and `BITPOS`, written once on top of a
//! count function and a byte-scan function (the dispatched ones, or one
//! kernel's for tests).
//!
//! Both commands normalise `start`/`end` the same way (negative indices get
//! the length added, then clamp to the string) and in BIT mode treat the
//! bits of the edge bytes outside the range as absent. Here every range
//! becomes an inclusive absolute bit range `first..=last`; BYTE mode is the
//! special case `first % 8 == 0`, `last % 8 == 7`, so one code path serves
//! both units.

/// The unit of a range: `BYTE` (the default) or `BIT`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Unit {
    /// Indices count bytes (`BYTE`, the server's default).
    #[default]
    Byte,
    /// Indices count bits, bit 0 being the top bit of byte 0 (`BIT`).
    Bit,
}

/// The range arguments of `BITPOS key bit [start [end [BYTE|BIT]]]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum BitposRange {
    /// No range: the whole string (`BITPOS key bit`).
    #[default]
    All,
    /// From a start byte to the end of the string (`BITPOS key bit start`).
    From(i64),
    /// An explicit range (`BITPOS key bit start end [BYTE|BIT]`). With an
    /// explicit end the string is not zero-padded: no clear bit in the range
    /// answers -1.
    Between {
        /// First index (inclusive), negative counts from the end.
        start: i64,
        /// Last index (inclusive), negative counts from the end.
        end: i64,
        /// Whether the indices count bytes or bits.
        unit: Unit,
    },
}

/// The inclusive absolute bit range `(first, last)` that `start..=end` in
/// `unit` selects in a string of `len` bytes, after Redis's normalisation;
/// `None` when it is empty.
///
/// The arithmetic is in `i128` so that no `i64` argument and no slice length
/// (times 8) can overflow.
#[inline]
fn normalise(len: usize, start: i64, end: i64, unit: Unit) -> Option<(usize, usize)> {
    let bytes = len as i128;
    let total = match unit {
        Unit::Byte => bytes,
        Unit::Bit => bytes * 8,
    };
    let (mut s, mut e) = (i128::from(start), i128::from(end));
    if s < 0 {
        s += total;
    }
    if e < 0 {
        e += total;
    }
    s = s.max(0);
    e = e.max(0).min(total - 1);
    if s > e {
        return None;
    }
    // Both are now in 0..total, and total <= 8 * isize::MAX fits in u128;
    // bit indices of a real slice fit in usize on 64-bit targets, and on
    // smaller ones a slice is at most isize::MAX bytes.
    let (s, e) = (s as usize, e as usize);
    match unit {
        Unit::Byte => Some((s * 8, e * 8 + 7)),
        Unit::Bit => Some((s, e)),
    }
}

/// `BITCOUNT key start end unit`, with `count` counting whole bytes.
#[inline]
pub(crate) fn count_range(
    bytes: &[u8],
    start: i64,
    end: i64,
    unit: Unit,
    count: impl Fn(&[u8]) -> u64,
) -> u64 {
    // Checked by the server before normalising: without it, two indices
    // before the string's start would clamp to byte 0 and count it.
    if start < 0 && end < 0 && start > end {
        return 0;
    }
    let Some((first, last)) = normalise(bytes.len(), start, end, unit) else {
        return 0;
    };
    let (fb, lb) = (first / 8, last / 8);
    let whole = count(&bytes[fb..=lb]);
    // The bits of the first byte before `first` (its top `first % 8` bits)
    // and of the last byte after `last` (its low `7 - last % 8` bits); the
    // two masks are disjoint when fb == lb because first <= last.
    let head = bytes[fb] & !(0xff >> (first % 8));
    let tail = bytes[lb] & (0x7f >> (last % 8));
    whole - u64::from(head.count_ones()) - u64::from(tail.count_ones())
}

/// `BITPOS key bit range`, with `find_not(b, skip)` answering the index of
/// the first byte of `b` that is not `skip` (or `b.len()`).
#[inline]
pub(crate) fn bitpos(
    bytes: &[u8],
    bit: bool,
    range: BitposRange,
    find_not: impl Fn(&[u8], u8) -> usize,
) -> i64 {
    // "No end" is the end -1 in BYTE mode, which normalises to the last byte.
    let (start, end, unit, end_given) = match range {
        BitposRange::All => (0, -1, Unit::Byte, false),
        BitposRange::From(start) => (start, -1, Unit::Byte, false),
        BitposRange::Between { start, end, unit } => (start, end, unit, true),
    };
    let Some((first, last)) = normalise(bytes.len(), start, end, unit) else {
        return -1;
    };
    match find_bit(bytes, bit, first, last, find_not) {
        Some(pos) => pos as i64,
        // Zero padding: without an end, the range ends at the string's end,
        // and the first clear bit is the one just after it.
        None if !bit && !end_given => (last + 1) as i64,
        None => -1,
    }
}

/// The first bit equal to `bit` in `first..=last` (absolute bit indices).
#[inline]
fn find_bit(
    bytes: &[u8],
    bit: bool,
    first: usize,
    last: usize,
    find_not: impl Fn(&[u8], u8) -> usize,
) -> Option<usize> {
    let (fb, lb) = (first / 8, last / 8);
    // Bits of the edge bytes inside the range: from `first % 8` down in the
    // first byte, up to `last % 8` in the last (bit 0 = most significant).
    let head_keep = 0xffu8 >> (first % 8);
    let tail_keep = !(0x7fu8 >> (last % 8));
    if fb == lb {
        return in_byte(bytes[fb], bit, head_keep & tail_keep).map(|i| fb * 8 + i);
    }
    if let Some(i) = in_byte(bytes[fb], bit, head_keep) {
        return Some(fb * 8 + i);
    }
    let middle = &bytes[fb + 1..lb];
    // A byte with a matching bit is exactly one that is not all non-matching.
    let skip = if bit { 0x00 } else { 0xff };
    let j = find_not(middle, skip);
    if let Some(&b) = middle.get(j) {
        let i = in_byte(b, bit, 0xff).unwrap_or(0);
        return Some((fb + 1 + j) * 8 + i);
    }
    in_byte(bytes[lb], bit, tail_keep).map(|i| lb * 8 + i)
}

/// The index (0 = most significant) of the first bit of `b` equal to `bit`
/// among the bits set in `keep`.
#[inline(always)]
fn in_byte(b: u8, bit: bool, keep: u8) -> Option<usize> {
    let matching = if bit { b } else { !b } & keep;
    if matching == 0 {
        None
    } else {
        Some(matching.leading_zeros() as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalise_like_redis() {
        assert_eq!(normalise(0, 0, -1, Unit::Byte), None);
        assert_eq!(normalise(3, 0, -1, Unit::Byte), Some((0, 23)));
        assert_eq!(normalise(3, -100, 100, Unit::Byte), Some((0, 23)));
        assert_eq!(normalise(3, 2, 1, Unit::Byte), None);
        assert_eq!(normalise(3, 5, 30, Unit::Bit), Some((5, 23)));
        assert_eq!(normalise(3, -3, -1, Unit::Bit), Some((21, 23)));
        assert_eq!(normalise(3, i64::MIN, i64::MAX, Unit::Bit), Some((0, 23)));
        assert_eq!(normalise(3, i64::MAX, i64::MIN, Unit::Byte), None);
    }
}
