//! `redis` crate (1.x) support (feature `redis`): an [`Hll`] goes to a
//! server as one bulk argument (its bytes) and comes back from a bulk
//! string reply, validated by [`Hll::from_vec`].

use crate::Hll;
use alloc::format;
use redis::{FromRedisValue, ParsingError, RedisWrite, ToRedisArgs, ToSingleRedisArg, Value};

/// The bytes of a `GET` (or any bulk string reply) as an [`Hll`].
///
/// A reply that is not a bulk string, or bytes that are not a valid
/// HyperLogLog string, are a [`ParsingError`] that says what is wrong (for
/// bytes, the [`crate::Error`]: what, at which byte). A missing key (nil) is
/// an error here: read it as `Option<Hll>`, which gives `None`.
///
/// ```
/// use redis::{FromRedisValue, Value};
/// let h = hll::Hll::new();
/// let got = hll::Hll::from_redis_value(Value::BulkString(h.as_bytes().to_vec())).unwrap();
/// assert_eq!(got, h);
/// let missing: Option<hll::Hll> = FromRedisValue::from_redis_value(Value::Nil).unwrap();
/// assert!(missing.is_none());
/// assert!(hll::Hll::from_redis_value(Value::Nil).is_err());
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
impl FromRedisValue for Hll {
    fn from_redis_value_ref(v: &Value) -> Result<Hll, ParsingError> {
        match v {
            Value::BulkString(bytes) => Hll::from_bytes(bytes).map_err(parse_error),
            other => Err(type_error(other)),
        }
    }

    fn from_redis_value(v: Value) -> Result<Hll, ParsingError> {
        match v {
            Value::BulkString(bytes) => Hll::from_vec(bytes).map_err(parse_error),
            other => Err(type_error(&other)),
        }
    }
}

fn parse_error(e: crate::Error) -> ParsingError {
    format!("not a valid HyperLogLog string: {e}").into()
}

fn type_error(v: &Value) -> ParsingError {
    let got = match v {
        Value::Nil => "nil (no such key; read an Option<Hll> to allow that)",
        Value::Int(_) => "an integer",
        Value::Array(_) => "an array",
        Value::SimpleString(_) => "a simple string",
        Value::Okay => "OK",
        Value::Map(_) => "a map",
        Value::Set(_) => "a set",
        Value::Double(_) => "a double",
        Value::Boolean(_) => "a boolean",
        Value::ServerError(_) => "a server error",
        _ => "a reply of another type",
    };
    format!("a HyperLogLog is read from a bulk string, got {got}").into()
}

/// One bulk argument: the string value, as `SET key <bytes>` stores it
/// (`&Hll` too, through the `redis` crate's impl for references).
///
/// ```
/// use redis::ToRedisArgs;
/// let mut h = hll::Hll::new();
/// h.add(b"x");
/// assert_eq!(h.to_redis_args(), vec![h.as_bytes().to_vec()]);
/// assert_eq!((&h).to_redis_args(), vec![h.as_bytes().to_vec()]);
/// let cmd = redis::cmd("SET").arg("key").arg(&h).clone();
/// assert_eq!(cmd.args_iter().count(), 3);
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
impl ToRedisArgs for Hll {
    fn write_redis_args<W: ?Sized + RedisWrite>(&self, out: &mut W) {
        out.write_arg(self.as_bytes());
    }
}

/// One argument, so typed commands (`con.set(key, &h)`) take an [`Hll`] as
/// the value.
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
impl ToSingleRedisArg for Hll {}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec;

    fn from(v: Value) -> Result<Hll, ParsingError> {
        Hll::from_redis_value_ref(&v)
    }

    /// Round trips (sparse and dense, borrowed and owned reply), nil only
    /// through `Option`, wrong reply types and invalid bytes as errors that
    /// say what is wrong.
    #[test]
    fn conversions() {
        let mut sparse = Hll::new();
        sparse.add_all(["a", "b", "c"]);
        let mut dense = Hll::new().with_sparse_max_bytes(0);
        dense.add(b"a");
        for h in [Hll::new(), sparse, dense] {
            let args = h.to_redis_args();
            assert_eq!(args, vec![h.as_bytes().to_vec()]);
            assert_eq!(ToRedisArgs::to_redis_args(&&h), args);
            assert_eq!(h.num_of_args(), 1);
            let reply = Value::BulkString(args[0].clone());
            assert_eq!(from(reply.clone()).unwrap(), h);
            assert_eq!(Hll::from_redis_value(reply.clone()).unwrap(), h);
            let some: Option<Hll> = FromRedisValue::from_redis_value_ref(&reply).unwrap();
            assert_eq!(some, Some(h));
        }

        let none: Option<Hll> = FromRedisValue::from_redis_value_ref(&Value::Nil).unwrap();
        assert_eq!(none, None);
        let none: Option<Hll> = FromRedisValue::from_redis_value(Value::Nil).unwrap();
        assert_eq!(none, None);

        for (v, says) in [
            (Value::Nil, "nil"),
            (Value::Int(3), "integer"),
            (Value::Okay, "OK"),
            (Value::SimpleString("HYLL".into()), "simple string"),
            (Value::Array(vec![]), "array"),
        ] {
            for e in [
                from(v.clone()).unwrap_err(),
                Hll::from_redis_value(v).unwrap_err(),
            ] {
                assert!(e.to_string().contains(says), "{e}");
            }
        }

        let mut short = Hll::new().into_bytes();
        short.pop(); // one register short of 16384
        for (bytes, says) in [
            (b"HYL".to_vec(), "shorter than the 16-byte header"),
            (b"HELLO, NOT AN HLL".to_vec(), "magic"),
            (short, "INVALIDOBJ"),
        ] {
            let v = Value::BulkString(bytes);
            for e in [
                from(v.clone()).unwrap_err(),
                Hll::from_redis_value(v).unwrap_err(),
            ] {
                assert!(e.to_string().contains("not a valid HyperLogLog"), "{e}");
                assert!(e.to_string().contains(says), "{e}");
            }
        }
    }
}
