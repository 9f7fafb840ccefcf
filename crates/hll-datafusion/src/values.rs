//! The bytes a Redis client sends for each value of an Arrow array, and
//! which Arrow types are accepted where.

use datafusion::arrow::array::{Array, AsArray, BooleanArray, OffsetSizeTrait};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::datatypes::{
    DataType, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type,
    UInt8Type,
};
use datafusion::common::{exec_err, plan_err, Result};

/// Whether `redis_hll` takes values of this type.
pub(crate) fn is_element_type(t: &DataType) -> bool {
    use DataType::*;
    matches!(
        t,
        Utf8 | LargeUtf8
            | Utf8View
            | Binary
            | LargeBinary
            | BinaryView
            | FixedSizeBinary(_)
            | Int8
            | Int16
            | Int32
            | Int64
            | UInt8
            | UInt16
            | UInt32
            | UInt64
    )
}

/// Whether a column of this type can hold HyperLogLog strings.
pub(crate) fn is_hll_type(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView
    )
}

/// The planning error for an argument type `function` does not take.
pub(crate) fn check_element_type(function: &str, args: &[DataType]) -> Result<()> {
    match args {
        [t] if is_element_type(t) => Ok(()),
        [t] => plan_err!(
            "{function} does not accept {t}: it takes strings, binary values and integers \
             (sent as their decimal text); cast other types first, e.g. \
             {function}(CAST(x AS VARCHAR))"
        ),
        _ => plan_err!("{function} takes exactly one argument, got {}", args.len()),
    }
}

/// The planning error for a HyperLogLog argument that is not binary.
pub(crate) fn check_hll_type(function: &str, args: &[DataType]) -> Result<()> {
    match args {
        [t] if is_hll_type(t) => Ok(()),
        [t] => plan_err!(
            "{function} does not accept {t}: it takes HyperLogLog strings as Binary, \
             LargeBinary or BinaryView (e.g. the output of redis_hll); cast other types first"
        ),
        _ => plan_err!("{function} takes exactly one argument, got {}", args.len()),
    }
}

/// The rows to read: those valid in both the array and the filter (a
/// `FILTER (WHERE ..)` clause; a null filter value drops the row).
pub(crate) fn mask(array: &dyn Array, filter: Option<&BooleanArray>) -> Option<NullBuffer> {
    let filter = filter.map(|f| {
        let keep = match f.nulls() {
            Some(n) => f.values() & n.inner(),
            None => f.values().clone(),
        };
        NullBuffer::new(keep)
    });
    NullBuffer::union(array.logical_nulls().as_ref(), filter.as_ref())
}

/// Receives the selected rows of an array with their bytes, in row order.
pub(crate) trait Sink {
    /// Called once per array (or not at all when no row is selected).
    fn take<T: AsRef<[u8]>>(&mut self, rows: impl Iterator<Item = (usize, T)>);
}

/// Feeds `sink` the bytes of every row of `array` that `mask` leaves valid
/// (`None`: every row): strings as UTF-8, binary as is, integers as their
/// decimal text.
pub(crate) fn feed(
    array: &dyn Array,
    mask: Option<&NullBuffer>,
    sink: &mut impl Sink,
) -> Result<()> {
    let len = array.len();
    match array.data_type() {
        DataType::Utf8 => {
            let a = array.as_string::<i32>();
            offset_rows(a.value_offsets(), a.value_data(), mask, sink);
        }
        DataType::LargeUtf8 => {
            let a = array.as_string::<i64>();
            offset_rows(a.value_offsets(), a.value_data(), mask, sink);
        }
        DataType::Utf8View => {
            let a = array.as_string_view();
            rows(len, mask, sink, |i| a.value(i).as_bytes());
        }
        DataType::Binary => {
            let a = array.as_binary::<i32>();
            offset_rows(a.value_offsets(), a.value_data(), mask, sink);
        }
        DataType::LargeBinary => {
            let a = array.as_binary::<i64>();
            offset_rows(a.value_offsets(), a.value_data(), mask, sink);
        }
        DataType::BinaryView => {
            let a = array.as_binary_view();
            rows(len, mask, sink, |i| a.value(i));
        }
        DataType::FixedSizeBinary(_) => {
            let a = array.as_fixed_size_binary();
            rows(len, mask, sink, |i| a.value(i));
        }
        DataType::Int8 => {
            let a = array.as_primitive::<Int8Type>().values();
            rows(len, mask, sink, |i| Decimal::signed(a[i].into()));
        }
        DataType::Int16 => {
            let a = array.as_primitive::<Int16Type>().values();
            rows(len, mask, sink, |i| Decimal::signed(a[i].into()));
        }
        DataType::Int32 => {
            let a = array.as_primitive::<Int32Type>().values();
            rows(len, mask, sink, |i| Decimal::signed(a[i].into()));
        }
        DataType::Int64 => {
            let a = array.as_primitive::<Int64Type>().values();
            rows(len, mask, sink, |i| Decimal::signed(a[i]));
        }
        DataType::UInt8 => {
            let a = array.as_primitive::<UInt8Type>().values();
            rows(len, mask, sink, |i| Decimal::unsigned(a[i].into()));
        }
        DataType::UInt16 => {
            let a = array.as_primitive::<UInt16Type>().values();
            rows(len, mask, sink, |i| Decimal::unsigned(a[i].into()));
        }
        DataType::UInt32 => {
            let a = array.as_primitive::<UInt32Type>().values();
            rows(len, mask, sink, |i| Decimal::unsigned(a[i].into()));
        }
        DataType::UInt64 => {
            let a = array.as_primitive::<UInt64Type>().values();
            rows(len, mask, sink, |i| Decimal::unsigned(a[i]));
        }
        other => return exec_err!("no HyperLogLog element bytes for {other}; cast it first"),
    }
    Ok(())
}

/// The rows of an offset-indexed array (strings or binary) straight from
/// its offsets and data buffers: no per-row index check and offset lookup
/// through the array.
fn offset_rows<O: OffsetSizeTrait>(
    offsets: &[O],
    data: &[u8],
    mask: Option<&NullBuffer>,
    sink: &mut impl Sink,
) {
    let range = |w: &[O]| w[0].as_usize()..w[1].as_usize();
    match mask {
        None => sink.take(offsets.windows(2).map(|w| &data[range(w)]).enumerate()),
        Some(_) => rows(offsets.len() - 1, mask, sink, |i| {
            &data[range(&offsets[i..i + 2])]
        }),
    }
}

fn rows<T: AsRef<[u8]>>(
    len: usize,
    mask: Option<&NullBuffer>,
    sink: &mut impl Sink,
    get: impl Fn(usize) -> T,
) {
    match mask {
        None => sink.take((0..len).map(|i| (i, get(i)))),
        Some(m) if m.null_count() == len => {}
        Some(m) => sink.take(m.valid_indices().map(|i| (i, get(i)))),
    }
}

/// An integer's decimal text (what a Redis client sends for it), on the
/// stack: at most 20 bytes (`u64::MAX`, or `-` and the 19 digits of
/// `i64::MIN`).
#[derive(Clone, Copy)]
pub(crate) struct Decimal {
    buf: [u8; 20],
    start: u8,
}

impl Decimal {
    pub(crate) fn unsigned(mut v: u64) -> Decimal {
        let mut buf = [0u8; 20];
        let mut i = buf.len();
        loop {
            i -= 1;
            buf[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        Decimal {
            buf,
            start: i as u8,
        }
    }

    pub(crate) fn signed(v: i64) -> Decimal {
        let mut d = Decimal::unsigned(v.unsigned_abs());
        if v < 0 {
            // 19 digits at most for |i64::MIN|: there is room for the sign.
            d.start -= 1;
            d.buf[usize::from(d.start)] = b'-';
        }
        d
    }
}

impl AsRef<[u8]> for Decimal {
    fn as_ref(&self) -> &[u8] {
        &self.buf[usize::from(self.start)..]
    }
}

#[cfg(test)]
mod tests {
    use super::{feed, mask, Decimal, Sink};
    use datafusion::arrow::array::{
        Array, ArrayRef, BinaryArray, LargeBinaryArray, LargeStringArray, StringArray,
    };

    /// Records what `feed` hands over.
    #[derive(Default)]
    struct Collect(Vec<(usize, Vec<u8>)>);

    impl Sink for Collect {
        fn take<T: AsRef<[u8]>>(&mut self, rows: impl Iterator<Item = (usize, T)>) {
            self.0.extend(rows.map(|(i, v)| (i, v.as_ref().to_vec())));
        }
    }

    /// Offset-indexed arrays with and without nulls, whole and sliced (so
    /// the offsets start past 0): every row's bytes with its row number,
    /// in order, through the buffer walk (no nulls) and the masked path.
    #[test]
    fn offset_arrays_feed_every_row() {
        let text: Vec<String> = (0..700)
            .map(|i| "x".repeat(i % 13) + &i.to_string())
            .collect();
        let with_nulls: Vec<Option<&str>> = text
            .iter()
            .enumerate()
            .map(|(i, s)| (i % 5 != 3).then_some(s.as_str()))
            .collect();
        let plain: Vec<Option<&str>> = text.iter().map(|s| Some(s.as_str())).collect();
        for values in [&plain, &with_nulls] {
            let bytes: Vec<Option<&[u8]>> = values.iter().map(|v| v.map(str::as_bytes)).collect();
            let arrays: [ArrayRef; 4] = [
                std::sync::Arc::new(StringArray::from(values.clone())),
                std::sync::Arc::new(LargeStringArray::from(values.clone())),
                std::sync::Arc::new(BinaryArray::from(bytes.clone())),
                std::sync::Arc::new(LargeBinaryArray::from(bytes.clone())),
            ];
            for a in arrays {
                for (start, len) in [(0, 700), (13, 500), (699, 1), (5, 0)] {
                    let a = a.slice(start, len);
                    let mut got = Collect::default();
                    feed(a.as_ref(), mask(a.as_ref(), None).as_ref(), &mut got).unwrap();
                    let want: Vec<(usize, Vec<u8>)> = bytes[start..start + len]
                        .iter()
                        .enumerate()
                        .filter_map(|(i, b)| b.map(|b| (i, b.to_vec())))
                        .collect();
                    assert_eq!(got.0, want, "{} {start}+{len}", a.data_type());
                }
            }
        }
    }

    #[test]
    fn decimal_text_matches_display() {
        let signed = [
            0i64,
            1,
            -1,
            9,
            10,
            -10,
            99,
            12345,
            i64::MAX,
            i64::MIN,
            i64::MIN + 1,
        ];
        for v in signed.into_iter().chain((-1000..1000).map(|x| x * 7919)) {
            assert_eq!(Decimal::signed(v).as_ref(), v.to_string().as_bytes());
        }
        let unsigned = [0u64, 1, 9, 10, 100, u64::MAX, u64::MAX - 1, 1 << 63];
        for v in unsigned.into_iter().chain((0..2000).map(|x| x * 104_729)) {
            assert_eq!(Decimal::unsigned(v).as_ref(), v.to_string().as_bytes());
        }
        for p in 0..20 {
            let v = 10u64.pow(p);
            assert_eq!(Decimal::unsigned(v).as_ref(), v.to_string().as_bytes());
            assert_eq!(
                Decimal::unsigned(v - 1).as_ref(),
                (v - 1).to_string().as_bytes()
            );
        }
    }
}
