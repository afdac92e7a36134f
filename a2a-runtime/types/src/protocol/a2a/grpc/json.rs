//! JSON ⇄ `google.protobuf.Value` and `Struct`, the proto's free-form `data` and `metadata`.
//!
//! A protobuf number is a double. Skills read their input with serde, which refuses `3.0` for an
//! integer field, so a whole number that fits an integer comes back as one.

use prost_types::value::Kind;
use prost_types::{ListValue, Struct, Value};
use serde_json::{Map, Number};

/// The deepest nesting read: past it a value is refused, so a hostile message cannot exhaust
/// the stack (prost bounds its own decoding at 100 levels; this is the same bound).
pub const MAX_DEPTH: usize = 100;

/// `value` as a protobuf `Value`.
pub fn to_value(value: &serde_json::Value) -> Value {
    let kind = match value {
        serde_json::Value::Null => Kind::NullValue(0),
        serde_json::Value::Bool(b) => Kind::BoolValue(*b),
        serde_json::Value::Number(n) => Kind::NumberValue(n.as_f64().unwrap_or(f64::NAN)),
        serde_json::Value::String(s) => Kind::StringValue(s.clone()),
        serde_json::Value::Array(items) => Kind::ListValue(ListValue {
            values: items.iter().map(to_value).collect(),
        }),
        serde_json::Value::Object(map) => Kind::StructValue(to_struct(map)),
    };
    Value { kind: Some(kind) }
}

/// `map` as a protobuf `Struct`.
pub fn to_struct(map: &Map<String, serde_json::Value>) -> Struct {
    Struct {
        fields: map.iter().map(|(k, v)| (k.clone(), to_value(v))).collect(),
    }
}

/// A protobuf `Value` as JSON. `Err` names what cannot be JSON: a number that is not finite.
pub fn from_value(value: Value) -> Result<serde_json::Value, String> {
    from_value_at(value, 0)
}

/// A protobuf `Struct` as a JSON object.
pub fn from_struct(value: Struct) -> Result<Map<String, serde_json::Value>, String> {
    from_struct_at(value, 0)
}

fn from_struct_at(value: Struct, depth: usize) -> Result<Map<String, serde_json::Value>, String> {
    value
        .fields
        .into_iter()
        .map(|(k, v)| Ok((k, from_value_at(v, depth + 1)?)))
        .collect()
}

fn from_value_at(value: Value, depth: usize) -> Result<serde_json::Value, String> {
    if depth > MAX_DEPTH {
        return Err(format!("nests deeper than {MAX_DEPTH} levels"));
    }
    Ok(match value.kind {
        None | Some(Kind::NullValue(_)) => serde_json::Value::Null,
        Some(Kind::BoolValue(b)) => serde_json::Value::Bool(b),
        Some(Kind::NumberValue(n)) => serde_json::Value::Number(number(n)?),
        Some(Kind::StringValue(s)) => serde_json::Value::String(s),
        Some(Kind::ListValue(list)) => serde_json::Value::Array(
            list.values
                .into_iter()
                .map(|v| from_value_at(v, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Some(Kind::StructValue(map)) => serde_json::Value::Object(from_struct_at(map, depth)?),
    })
}

/// A double as a JSON number: an integer when it is a whole number an `i64` holds exactly.
fn number(n: f64) -> Result<Number, String> {
    // 2^53: past it not every integer is a double, so a whole double may not be what was meant.
    const EXACT: f64 = 9_007_199_254_740_992.0;
    if n.fract() == 0.0 && n.abs() <= EXACT {
        #[allow(clippy::cast_possible_truncation)] // Whole and within ±2^53: exact.
        return Ok(Number::from(n as i64));
    }
    Number::from_f64(n).ok_or_else(|| format!("{n} is not a JSON number"))
}
