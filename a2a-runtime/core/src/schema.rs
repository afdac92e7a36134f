//! The one JSON Schema configuration shared by the agent card and the MCP tool list, so both
//! protocols publish identical schemas.

use schemars::generate::SchemaSettings;
use schemars::{Schema, SchemaGenerator};
use serde_json::Value;

/// A fresh generator with the shared settings: JSON Schema 2020-12, definitions under `$defs`.
pub fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12().into_generator()
}

/// The schema of an answer to a question: self-contained (subschemas inlined where they are
/// not recursive), because it travels alone in a message or an elicitation form.
pub fn answer<T: schemars::JsonSchema>() -> Value {
    let mut settings = SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// The input schema of a skill: an object, with the generated struct's title removed (it is an
/// internal name, not something the caller should see).
pub fn input(schema: Schema) -> Value {
    let mut value = schema.to_value();
    if let Value::Object(map) = &mut value {
        map.remove("title");
        map.remove("description");
    }
    value
}

/// The output schema of a skill, as generated.
pub fn output(schema: Schema) -> Value {
    schema.to_value()
}

/// Whether `schema` describes JSON objects at its root.
pub fn is_object(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// The name of the input's only required property when that property is a string: a plain text
/// message then fills it.
pub fn single_required_string(input: &Value) -> Option<String> {
    let required = input.get("required")?.as_array()?;
    let [name] = required.as_slice() else {
        return None;
    };
    let name = name.as_str()?;
    let property = input.get("properties")?.get(name)?;
    (property.get("type").and_then(Value::as_str) == Some("string")).then(|| name.to_owned())
}

/// The names of the input's required properties, for error messages.
pub fn required_names(input: &Value) -> Vec<String> {
    input
        .get("required")
        .and_then(Value::as_array)
        .map(|names| {
            names
                .iter()
                .filter_map(|n| n.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// Whether the input object has any property at all.
pub fn has_properties(input: &Value) -> bool {
    input
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty())
}
