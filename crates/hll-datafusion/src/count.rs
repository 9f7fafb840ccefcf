//! The scalar `redis_hll_count(h)`: `PFCOUNT` of one HyperLogLog string.

use crate::values::{self, Sink};
use datafusion::arrow::array::{Array, UInt64Array};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{DataFusionError, Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use hll::Hll;
use std::sync::Arc;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct RedisHllCount {
    signature: Signature,
}

impl RedisHllCount {
    pub(crate) fn new() -> RedisHllCount {
        RedisHllCount {
            signature: Signature::any(1, Volatility::Immutable),
        }
    }
}

/// PFCOUNT of each selected row, or the first error.
struct Counts {
    out: Vec<Option<u64>>,
    error: Option<DataFusionError>,
}

impl Sink for Counts {
    fn take<T: AsRef<[u8]>>(&mut self, rows: impl Iterator<Item = (usize, T)>) {
        for (i, v) in rows {
            match Hll::from_bytes(v.as_ref()) {
                Ok(mut h) => self.out[i] = Some(h.count()),
                Err(e) => {
                    self.error = Some(DataFusionError::Execution(format!("redis_hll_count: {e}")));
                    return;
                }
            }
        }
    }
}

fn counts(array: &dyn Array) -> Result<UInt64Array> {
    let mut sink = Counts {
        out: vec![None; array.len()],
        error: None,
    };
    values::feed(array, values::mask(array, None).as_ref(), &mut sink)?;
    match sink.error {
        Some(e) => Err(e),
        None => Ok(UInt64Array::from(sink.out)),
    }
}

impl ScalarUDFImpl for RedisHllCount {
    fn name(&self) -> &str {
        "redis_hll_count"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        values::check_hll_type(self.name(), arg_types)?;
        Ok(DataType::UInt64)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let [arg] = args.args.as_slice() else {
            return Err(DataFusionError::Execution(format!(
                "redis_hll_count takes exactly one argument, got {}",
                args.args.len()
            )));
        };
        match arg {
            ColumnarValue::Array(a) => Ok(ColumnarValue::Array(Arc::new(counts(a.as_ref())?))),
            ColumnarValue::Scalar(s) => {
                let c = counts(s.to_array()?.as_ref())?;
                let v = if c.is_null(0) { None } else { Some(c.value(0)) };
                Ok(ColumnarValue::Scalar(ScalarValue::UInt64(v)))
            }
        }
    }
}
