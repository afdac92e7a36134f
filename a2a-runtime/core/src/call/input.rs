//! Decoding a skill's input object, with errors that name the offending field.

use std::any::Any;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::skill_error::SkillError;

/// The input does not match the skill's parameters.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.render())]
pub struct InputError {
    /// The path of the offending field (`amount`, `to.code`), empty for the whole input.
    pub field: String,
    /// What is wrong with it.
    pub reason: String,
}

impl InputError {
    pub fn new(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            reason: reason.into(),
        }
    }

    fn render(&self) -> String {
        if self.field.is_empty() {
            self.reason.clone()
        } else {
            format!("{}: {}", self.field, self.reason)
        }
    }
}

/// Clients that go through protobuf `Struct` (the Python a2a-sdk among them) send every number
/// as a float, so `3` arrives as `3.0`. Integral floats become integers so integer parameters
/// accept them; fractional values stay floats and still fail with a clear error.
pub fn normalize_numbers(value: &mut Value) {
    match value {
        Value::Number(number) if number.is_f64() => {
            if let Some(f) = number.as_f64()
                && f.fract() == 0.0
                && f.abs() < 9_007_199_254_740_992.0
            {
                // Within ±2^53 the conversion is exact.
                #[allow(clippy::cast_possible_truncation)]
                let int = f as i64;
                *value = Value::from(int);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(normalize_numbers),
        Value::Object(map) => map.values_mut().for_each(normalize_numbers),
        _ => {}
    }
}

/// Decodes `input` into `T`, naming the failing field.
pub(super) fn decode<T: DeserializeOwned>(input: &Value) -> Result<T, InputError> {
    serde_path_to_error::deserialize::<_, T>(input).map_err(|error| {
        let path = error.path().to_string();
        let field = if path == "." { String::new() } else { path };
        let reason = error.into_inner().to_string();
        // serde reports a missing field at the parent; lift its name into `field`.
        match reason
            .strip_prefix("missing field `")
            .and_then(|r| r.split_once('`'))
        {
            Some((name, _)) if field.is_empty() => InputError::new(name, "missing required field"),
            _ => InputError::new(field, reason),
        }
    })
}

/// A skill's input, decoded from JSON into the tuple of its input parameters when the request is
/// validated. The call takes it over as is, so the input is decoded once per call.
pub struct DecodedInput(Box<dyn Any + Send>);

impl std::fmt::Debug for DecodedInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DecodedInput")
    }
}

impl DecodedInput {
    /// Holds a decoded input.
    pub fn new<T: Send + 'static>(values: T) -> Self {
        Self(Box::new(values))
    }

    /// Takes the decoded value out of `invocation` (used by generated shims, once per call).
    pub fn take<T: 'static>(invocation: &mut super::Invocation) -> Result<T, SkillError> {
        let taken = std::mem::replace(&mut invocation.input, Self(Box::new(())));
        taken.0.downcast::<T>().map(|value| *value).map_err(|_| {
            // Only reachable if the runtime paired a skill with another skill's input.
            SkillError::internal(format!(
                "skill `{}` received an input decoded for another skill",
                invocation.context.skill_id()
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Input {
        count: u32,
        name: Option<String>,
    }

    #[test]
    fn integral_floats_become_integers() {
        let mut value = json!({"count": 3.0, "ratio": 0.5, "list": [1.0, 2.5]});
        normalize_numbers(&mut value);
        assert_eq!(value, json!({"count": 3, "ratio": 0.5, "list": [1, 2.5]}));
    }

    #[test]
    fn errors_name_the_field() {
        let err = decode::<Input>(&json!({"count": "x"})).unwrap_err();
        assert_eq!(err.field, "count");
        let err = decode::<Input>(&json!({})).unwrap_err();
        assert_eq!(err, InputError::new("count", "missing required field"));
        let err = decode::<Input>(&json!({"count": 1, "extra": 2})).unwrap_err();
        assert!(err.reason.contains("unknown field `extra`"), "{err}");
    }
}
