//! A sample value of a JSON Schema, for the example calls a `SKILL.md` shows: what the schema
//! itself offers (`examples`, `default`, `const`, the first `enum` value), else a placeholder of
//! the right type naming the field (`"<from>"`), with only the required properties of objects.

use serde_json::{Map, Value, json};

/// How deep a sample goes into nested (or recursive) schemas.
const MAX_DEPTH: usize = 6;

/// A sample instance of `schema`, whose local `$ref`s resolve against `root`.
pub(crate) fn sample(schema: &Value, root: &Value) -> Value {
    instance(schema, root, "value", 0)
}

fn instance(schema: &Value, root: &Value, field: &str, depth: usize) -> Value {
    let Some(map) = schema.as_object() else {
        return Value::Null;
    };
    if depth > MAX_DEPTH {
        return Value::Null;
    }
    if let Some(given) = offered(map) {
        return given;
    }
    if let Some(target) = map.get("$ref").and_then(Value::as_str) {
        return match resolve(root, target) {
            Some(target) => instance(target, root, field, depth + 1),
            None => Value::Null,
        };
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(choices) = map.get(key).and_then(Value::as_array) {
            let chosen = choices.iter().find(|choice| !is_null_type(choice));
            if let Some(choice) = chosen {
                return instance(choice, root, field, depth + 1);
            }
        }
    }
    match primary_type(map) {
        Some("object") => object(map, root, depth),
        Some("array") => match map.get("items") {
            Some(items) => json!([instance(items, root, field, depth + 1)]),
            None => json!([]),
        },
        Some("string") => Value::String(string(map, field)),
        Some("integer") => bound(map).map_or(json!(0), |n| json!(n.ceil() as i64)),
        Some("number") => bound(map).map_or(json!(0), |n| json!(n)),
        Some("boolean") => json!(false),
        Some("null") => Value::Null,
        _ if map.contains_key("properties") => object(map, root, depth),
        _ => Value::String(format!("<{field}>")),
    }
}

/// A value the schema gives itself.
fn offered(map: &Map<String, Value>) -> Option<Value> {
    if let Some(first) = map
        .get("examples")
        .and_then(Value::as_array)
        .and_then(|examples| examples.first())
    {
        return Some(first.clone());
    }
    if let Some(value) = map.get("default").or_else(|| map.get("const")) {
        return Some(value.clone());
    }
    map.get("enum")
        .and_then(Value::as_array)
        .and_then(|values| values.first())
        .cloned()
}

/// The object's required properties, each sampled.
fn object(map: &Map<String, Value>, root: &Value, depth: usize) -> Value {
    let properties = map.get("properties").and_then(Value::as_object);
    let required = map.get("required").and_then(Value::as_array);
    let mut object = Map::new();
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        let schema = properties.and_then(|p| p.get(name)).unwrap_or(&Value::Null);
        object.insert(name.to_owned(), instance(schema, root, name, depth + 1));
    }
    Value::Object(object)
}

/// A string of the schema's `format`, else a placeholder naming the field.
fn string(map: &Map<String, Value>, field: &str) -> String {
    let text = match map.get("format").and_then(Value::as_str) {
        Some("date") => "2026-01-31",
        Some("date-time") => "2026-01-31T12:00:00Z",
        Some("time") => "12:00:00Z",
        Some("uri" | "url") => "https://example.com/",
        Some("email") => "someone@example.com",
        Some("uuid") => "00000000-0000-4000-8000-000000000000",
        _ => return format!("<{field}>"),
    };
    text.to_owned()
}

/// The schema's lower bound, if it has one.
fn bound(map: &Map<String, Value>) -> Option<f64> {
    map.get("minimum")
        .or_else(|| map.get("exclusiveMinimum"))
        .and_then(Value::as_f64)
}

/// The first non-null type the schema names.
fn primary_type(map: &Map<String, Value>) -> Option<&str> {
    match map.get("type")? {
        Value::String(name) => Some(name),
        Value::Array(names) => names
            .iter()
            .filter_map(Value::as_str)
            .find(|name| *name != "null"),
        _ => None,
    }
}

fn is_null_type(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
}

/// The schema a local `$ref` (`#/$defs/…`, `#/definitions/…`) names.
fn resolve<'a>(root: &'a Value, target: &str) -> Option<&'a Value> {
    root.pointer(target.strip_prefix('#')?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_fill_required_fields_with_what_the_schema_offers() {
        let schema = json!({
            "type": "object",
            "properties": {
                "amount": {"type": "number", "minimum": 0.5},
                "from": {"type": "string"},
                "to": {"type": "string", "enum": ["EUR", "USD"]},
                "when": {"$ref": "#/$defs/Day"},
                "note": {"type": "string"}
            },
            "required": ["amount", "from", "to", "when"],
            "$defs": {"Day": {"type": "string", "format": "date"}}
        });
        assert_eq!(
            sample(&schema, &schema),
            json!({"amount": 0.5, "from": "<from>", "to": "EUR", "when": "2026-01-31"})
        );
    }

    #[test]
    fn recursive_schemas_end() {
        let schema = json!({
            "$ref": "#/$defs/Node",
            "$defs": {"Node": {
                "type": "object",
                "properties": {"next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]}},
                "required": ["next"]
            }}
        });
        let value = sample(&schema, &schema);
        assert!(value.to_string().len() < 200, "{value}");
    }
}
