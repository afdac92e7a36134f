//! A skill's input object, assembled from its parameters without deriving anything on a struct
//! of user types: each parameter type is probed once (autoref specialization), so a type that is
//! not `Deserialize + JsonSchema` fails exactly one check, spanned on the parameter, and nothing
//! downstream cascades into more errors.

use std::borrow::Cow;
use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::input::{InputError, decode};

/// How one input property is described and decoded.
pub struct FieldFns<T> {
    /// The property's schema.
    pub schema: fn(&mut SchemaGenerator) -> Schema,
    /// Decodes the property's value; `None` when the input leaves it out.
    pub decode: fn(Option<&Value>) -> Result<T, InputError>,
}

/// Asks whether `T` can be an input property (see [`ViaSerde`] and [`ViaNothing`]).
pub struct Probe<T>(PhantomData<fn() -> T>);

impl<T> Probe<T> {
    /// A probe for `T`.
    #[must_use]
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

impl<T> Default for Probe<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// The probe's answer when `T` is an input property.
pub struct Valid;

/// The probe's answer when it is not.
pub struct Invalid;

/// Passed by [`Valid`] only: the one check a bad parameter type fails.
#[diagnostic::on_unimplemented(
    message = "`{T}` cannot be a skill input: it must implement `Deserialize` and `JsonSchema`",
    label = "not a skill input",
    note = "derive them with `#[derive(Deserialize, JsonSchema)]`; if the runtime should inject this parameter instead, mark it `#[inject]`"
)]
pub trait IsSkillInput<T> {}

impl<T> IsSkillInput<T> for Valid {}

/// Chosen by method resolution on `&Probe<T>` when `T: DeserializeOwned + JsonSchema`.
pub trait ViaSerde<T> {
    /// The property's functions.
    fn field_fns(&self) -> (FieldFns<T>, Valid);
}

impl<T: DeserializeOwned + JsonSchema> ViaSerde<T> for Probe<T> {
    fn field_fns(&self) -> (FieldFns<T>, Valid) {
        let fns = FieldFns {
            schema: |generator| generator.subschema_for::<T>(),
            decode: decode_property::<T>,
        };
        (fns, Valid)
    }
}

/// The fallback (one autoref further) for any other type. Its functions are never called: the
/// [`IsSkillInput`] check fails and the crate does not compile.
pub trait ViaNothing<T> {
    /// Inert functions, and the answer that fails the check.
    fn field_fns(&self) -> (FieldFns<T>, Invalid);
}

impl<T> ViaNothing<T> for &Probe<T> {
    fn field_fns(&self) -> (FieldFns<T>, Invalid) {
        let fns = FieldFns {
            schema: |_| Schema::default(),
            decode: |_| Err(InputError::new("", "not a skill input")),
        };
        (fns, Invalid)
    }
}

/// The property functions, once the probe's answer passed the check.
pub fn checked<T, C: IsSkillInput<T>>(found: (FieldFns<T>, C)) -> FieldFns<T> {
    found.0
}

/// A missing property is decoded from `null`: `Option` parameters become `None`, any other
/// type is a missing required field.
fn decode_property<T: DeserializeOwned>(value: Option<&Value>) -> Result<T, InputError> {
    match value {
        Some(value) => decode::<T>(value),
        None => {
            T::deserialize(Value::Null).map_err(|_| InputError::new("", "missing required field"))
        }
    }
}

/// One property of an input object, its type erased.
pub struct InputProperty {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    schema: fn(&mut SchemaGenerator) -> Schema,
}

impl InputProperty {
    /// Property `name` of type `T`, documented by `title` and `description` (empty: none).
    pub fn new<T>(
        name: &'static str,
        title: &'static str,
        description: &'static str,
        fns: &FieldFns<T>,
    ) -> Self {
        Self {
            name,
            title,
            description,
            schema: fns.schema,
        }
    }
}

/// A skill's input object, implemented by `#[skill]` on a unit type.
pub trait InputObject: 'static {
    /// The parameter values, in declaration order.
    type Values: Send + 'static;
    /// The properties, in declaration order.
    fn properties() -> Vec<InputProperty>;
    /// Decodes an input object.
    fn decode(input: &Value) -> Result<Self::Values, InputError>;
}

/// The properties of `input`, in the order of `names`; an input that is not an object, or has a
/// property not in `names`, is refused.
pub fn input_fields<'a, const N: usize>(
    input: &'a Value,
    names: &[&str; N],
) -> Result<[Option<&'a Value>; N], InputError> {
    let object = match input {
        Value::Object(object) => object,
        // An input with no properties may be left out altogether.
        Value::Null if N == 0 => return Ok([None; N]),
        other => {
            return Err(InputError::new(
                "",
                format!("invalid type: {}, expected an object", kind(other)),
            ));
        }
    };
    if let Some(unknown) = object.keys().find(|key| !names.contains(&key.as_str())) {
        let expected = if names.is_empty() {
            "there are no fields".to_owned()
        } else {
            let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
            format!("expected one of {}", quoted.join(", "))
        };
        return Err(InputError::new(
            unknown.as_str(),
            format!("unknown field `{unknown}`, {expected}"),
        ));
    }
    Ok(names.map(|name| object.get(name)))
}

/// Decodes property `name` with `fns`, naming it (and the path inside it) in errors.
pub fn input_value<T>(
    name: &str,
    value: Option<&Value>,
    fns: &FieldFns<T>,
) -> Result<T, InputError> {
    (fns.decode)(value).map_err(|error| {
        let field = match error.field.as_str() {
            "" => name.to_owned(),
            path if path.starts_with('[') => format!("{name}{path}"),
            path => format!("{name}.{path}"),
        };
        InputError::new(field, error.reason)
    })
}

/// Whether `schema` accepts `null` at its top level (`Option<T>`, `serde_json::Value`): such a
/// property may be left out, and is then decoded from `null`.
fn admits_null(schema: &Value) -> bool {
    match schema {
        Value::Bool(accepts) => *accepts,
        Value::Object(schema) => {
            let typed_null = match schema.get("type") {
                Some(Value::String(ty)) => ty == "null",
                Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
                _ => false,
            };
            let untyped = [
                "type", "$ref", "anyOf", "oneOf", "allOf", "const", "enum", "not",
            ]
            .iter()
            .all(|key| !schema.contains_key(*key));
            let alternative = ["anyOf", "oneOf"].iter().any(|key| {
                schema
                    .get(*key)
                    .and_then(Value::as_array)
                    .is_some_and(|options| options.iter().any(admits_null))
            });
            typed_null || untyped || alternative || schema.get("const") == Some(&Value::Null)
        }
        _ => false,
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The schema of an [`InputObject`]: an object with one property per input parameter, and no
/// others.
pub struct InputSchema<I>(PhantomData<I>);

impl<I: InputObject> JsonSchema for InputSchema<I> {
    fn schema_name() -> Cow<'static, str> {
        "Input".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for property in I::properties() {
            let mut schema = (property.schema)(generator);
            // Decided from the schema, not by decoding `null`: a user's `Deserialize` may
            // count or log its calls, and describing a skill must not run it.
            let optional = admits_null(schema.as_value());
            for (key, text) in [
                ("title", property.title),
                ("description", property.description),
            ] {
                if !text.is_empty() {
                    schema.insert(key.to_owned(), text.into());
                }
            }
            properties.insert(property.name.to_owned(), schema.to_value());
            if !optional {
                required.push(Value::from(property.name));
            }
        }
        let mut object = Map::new();
        object.insert("type".into(), "object".into());
        if !properties.is_empty() {
            object.insert("properties".into(), properties.into());
        }
        if !required.is_empty() {
            object.insert("required".into(), required.into());
        }
        object.insert("additionalProperties".into(), false.into());
        Schema::from(object)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    struct Pair;

    impl InputObject for Pair {
        type Values = (u32, Option<String>);

        fn properties() -> Vec<InputProperty> {
            vec![
                InputProperty::new("count", "", "How many.", &Probe::<u32>::new().field_fns().0),
                InputProperty::new(
                    "name",
                    "",
                    "",
                    &Probe::<Option<String>>::new().field_fns().0,
                ),
            ]
        }

        fn decode(input: &Value) -> Result<Self::Values, InputError> {
            let [count, name] = input_fields(input, &["count", "name"])?;
            Ok((
                input_value("count", count, &Probe::<u32>::new().field_fns().0)?,
                input_value("name", name, &Probe::<Option<String>>::new().field_fns().0)?,
            ))
        }
    }

    #[test]
    fn errors_name_the_property() {
        let err = Pair::decode(&json!({"count": "x"})).unwrap_err();
        assert_eq!(err.field, "count");
        let err = Pair::decode(&json!({})).unwrap_err();
        assert_eq!(err, InputError::new("count", "missing required field"));
        let err = Pair::decode(&json!({"count": 1, "extra": 2})).unwrap_err();
        assert_eq!(err.field, "extra");
        assert!(err.reason.contains("unknown field `extra`"), "{err}");
        let err = Pair::decode(&json!([1])).unwrap_err();
        assert_eq!(err.reason, "invalid type: array, expected an object");
        assert_eq!(Pair::decode(&json!({"count": 2})).unwrap(), (2, None));
    }

    #[test]
    fn optional_properties_are_not_required() {
        let schema = crate::schema::generator()
            .root_schema_for::<InputSchema<Pair>>()
            .to_value();
        assert_eq!(schema["required"], json!(["count"]));
        assert_eq!(schema["properties"]["count"]["description"], "How many.");
        assert_eq!(schema["additionalProperties"], false);
    }

    #[test]
    fn a_property_is_optional_when_its_schema_admits_null() {
        assert!(admits_null(&json!(true)));
        assert!(admits_null(&json!({"description": "anything"})));
        assert!(admits_null(&json!({"type": ["boolean", "null"]})));
        assert!(admits_null(
            &json!({"anyOf": [{"$ref": "#/$defs/Code"}, {"type": "null"}]})
        ));
        assert!(!admits_null(&json!({"$ref": "#/$defs/Code"})));
        assert!(!admits_null(&json!({"type": "string"})));
        assert!(!admits_null(&json!(false)));
    }
}
