//! A schema document compiled once into a flat list of nodes: keywords parsed, local `$ref`s
//! resolved to node indices (recursive schemas point back into the list), patterns compiled.

use std::collections::HashMap;

use serde_json::{Map, Number, Value};

use super::CompileError;

/// One schema: a boolean schema, or the keywords that constrain an instance.
#[derive(Debug)]
pub(super) enum Node {
    /// `true` accepts everything, `false` nothing.
    Bool(bool),
    /// An object schema.
    Keywords(Box<Keywords>),
}

/// The JSON types `type` lists, as bits.
pub(super) mod types {
    pub(in crate::schema_check) const NULL: u8 = 1;
    pub(in crate::schema_check) const BOOLEAN: u8 = 2;
    pub(in crate::schema_check) const OBJECT: u8 = 4;
    pub(in crate::schema_check) const ARRAY: u8 = 8;
    pub(in crate::schema_check) const NUMBER: u8 = 16;
    pub(in crate::schema_check) const STRING: u8 = 32;
    pub(in crate::schema_check) const INTEGER: u8 = 64;
    /// The names, in the order an error lists them.
    pub(in crate::schema_check) const NAMES: [(u8, &str); 7] = [
        (NULL, "null"),
        (BOOLEAN, "boolean"),
        (OBJECT, "object"),
        (ARRAY, "array"),
        (NUMBER, "number"),
        (STRING, "string"),
        (INTEGER, "integer"),
    ];
}

/// The validation keywords of one object schema (annotations are dropped). Subschemas are
/// indices into the compiled list.
#[derive(Debug, Default)]
pub(super) struct Keywords {
    pub types: Option<u8>,
    pub enumeration: Option<Vec<Value>>,
    pub constant: Option<Value>,
    pub multiple_of: Option<Number>,
    pub minimum: Option<Number>,
    pub maximum: Option<Number>,
    pub exclusive_minimum: Option<Number>,
    pub exclusive_maximum: Option<Number>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub pattern: Option<(String, regex_lite::Regex)>,
    pub prefix_items: Vec<usize>,
    pub items: Option<usize>,
    pub contains: Option<usize>,
    pub min_contains: Option<u64>,
    pub max_contains: Option<u64>,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
    pub unique_items: bool,
    pub unevaluated_items: Option<usize>,
    pub properties: Vec<(String, usize)>,
    pub pattern_properties: Vec<(regex_lite::Regex, usize)>,
    pub additional_properties: Option<usize>,
    pub property_names: Option<usize>,
    pub required: Vec<String>,
    pub dependent_required: Vec<(String, Vec<String>)>,
    pub dependent_schemas: Vec<(String, usize)>,
    pub min_properties: Option<u64>,
    pub max_properties: Option<u64>,
    pub unevaluated_properties: Option<usize>,
    pub all_of: Vec<usize>,
    pub any_of: Vec<usize>,
    pub one_of: Vec<usize>,
    pub not: Option<usize>,
    pub if_then_else: Option<(usize, Option<usize>, Option<usize>)>,
    pub reference: Option<usize>,
}

/// Keywords that change what an instance must be and are not supported: a schema using one is
/// refused rather than checked loosely.
const UNSUPPORTED: [&str; 5] = [
    "$dynamicRef",
    "$recursiveRef",
    "additionalItems",
    "dependencies",
    "$anchor",
];

/// Compiles `root` (and every subschema it reaches) into `nodes`; the root's index.
pub(super) fn compile(root: &Value, nodes: &mut Vec<Node>) -> Result<usize, CompileError> {
    let mut compiler = Compiler {
        root,
        nodes,
        by_pointer: HashMap::new(),
    };
    compiler.node(root, "")
}

struct Compiler<'a> {
    root: &'a Value,
    nodes: &'a mut Vec<Node>,
    /// Nodes already made for a JSON pointer into the document, so a `$ref` cycle ends.
    by_pointer: HashMap<String, usize>,
}

impl Compiler<'_> {
    /// The node for the subschema at `pointer` (compiled once).
    fn node(&mut self, schema: &Value, pointer: &str) -> Result<usize, CompileError> {
        if let Some(&index) = self.by_pointer.get(pointer) {
            return Ok(index);
        }
        let index = self.nodes.len();
        self.nodes.push(Node::Bool(true));
        self.by_pointer.insert(pointer.to_owned(), index);
        self.nodes[index] = match schema {
            Value::Bool(accepts) => Node::Bool(*accepts),
            Value::Object(map) => Node::Keywords(Box::new(self.keywords(map, pointer)?)),
            _ => {
                return Err(CompileError::at(
                    pointer,
                    "a schema must be an object or a boolean",
                ));
            }
        };
        Ok(index)
    }

    fn sub(
        &mut self,
        map: &Map<String, Value>,
        at: &str,
        key: &str,
    ) -> Result<Option<usize>, CompileError> {
        map.get(key)
            .map(|schema| self.node(schema, &format!("{at}/{}", escape(key))))
            .transpose()
    }

    fn list(
        &mut self,
        map: &Map<String, Value>,
        at: &str,
        key: &str,
    ) -> Result<Vec<usize>, CompileError> {
        let Some(value) = map.get(key) else {
            return Ok(Vec::new());
        };
        let Value::Array(schemas) = value else {
            return Err(CompileError::at(
                &format!("{at}/{key}"),
                "must be an array of schemas",
            ));
        };
        schemas
            .iter()
            .enumerate()
            .map(|(i, schema)| self.node(schema, &format!("{at}/{key}/{i}")))
            .collect()
    }

    /// Subschemas keyed by property name (`properties`, `dependentSchemas`).
    fn named(
        &mut self,
        map: &Map<String, Value>,
        at: &str,
        key: &str,
    ) -> Result<Vec<(String, usize)>, CompileError> {
        let Some(value) = map.get(key) else {
            return Ok(Vec::new());
        };
        let Value::Object(named) = value else {
            return Err(CompileError::at(
                &format!("{at}/{key}"),
                "must be an object",
            ));
        };
        named
            .iter()
            .map(|(name, schema)| {
                let pointer = format!("{at}/{key}/{}", escape(name));
                Ok((name.clone(), self.node(schema, &pointer)?))
            })
            .collect()
    }

    fn keywords(&mut self, map: &Map<String, Value>, at: &str) -> Result<Keywords, CompileError> {
        if let Some(keyword) = UNSUPPORTED.iter().find(|k| map.contains_key(**k)) {
            return Err(CompileError::at(
                at,
                &format!("`{keyword}` is not supported"),
            ));
        }
        let mut k = Keywords {
            types: map.get("type").map(|t| type_set(t, at)).transpose()?,
            enumeration: match map.get("enum") {
                Some(Value::Array(values)) => Some(values.clone()),
                Some(_) => return Err(CompileError::at(&format!("{at}/enum"), "must be an array")),
                None => None,
            },
            constant: map.get("const").cloned(),
            multiple_of: number(map, at, "multipleOf")?,
            minimum: number(map, at, "minimum")?,
            maximum: number(map, at, "maximum")?,
            exclusive_minimum: number(map, at, "exclusiveMinimum")?,
            exclusive_maximum: number(map, at, "exclusiveMaximum")?,
            min_length: count(map, at, "minLength")?,
            max_length: count(map, at, "maxLength")?,
            pattern: match map.get("pattern") {
                Some(pattern) => Some(regex(pattern, &format!("{at}/pattern"))?),
                None => None,
            },
            min_contains: count(map, at, "minContains")?,
            max_contains: count(map, at, "maxContains")?,
            min_items: count(map, at, "minItems")?,
            max_items: count(map, at, "maxItems")?,
            unique_items: map.get("uniqueItems") == Some(&Value::Bool(true)),
            required: names(map, at, "required")?,
            min_properties: count(map, at, "minProperties")?,
            max_properties: count(map, at, "maxProperties")?,
            ..Keywords::default()
        };
        if k.multiple_of
            .as_ref()
            .is_some_and(|m| super::json::as_f64(m) <= 0.0)
        {
            return Err(CompileError::at(
                &format!("{at}/multipleOf"),
                "must be greater than 0",
            ));
        }
        self.applicators(map, at, &mut k)?;
        Ok(k)
    }

    /// The keywords that hold subschemas.
    fn applicators(
        &mut self,
        map: &Map<String, Value>,
        at: &str,
        k: &mut Keywords,
    ) -> Result<(), CompileError> {
        k.prefix_items = self.list(map, at, "prefixItems")?;
        if matches!(map.get("items"), Some(Value::Array(_))) {
            return Err(CompileError::at(
                &format!("{at}/items"),
                "an array of schemas is the 2019-09 form; 2020-12 names it `prefixItems`",
            ));
        }
        k.items = self.sub(map, at, "items")?;
        k.contains = self.sub(map, at, "contains")?;
        k.unevaluated_items = self.sub(map, at, "unevaluatedItems")?;
        k.properties = self.named(map, at, "properties")?;
        if let Some(patterns) = map.get("patternProperties") {
            let Value::Object(patterns) = patterns else {
                return Err(CompileError::at(
                    &format!("{at}/patternProperties"),
                    "must be an object",
                ));
            };
            for (pattern, schema) in patterns {
                let pointer = format!("{at}/patternProperties/{}", escape(pattern));
                let regex = regex(&Value::String(pattern.clone()), &pointer)?.1;
                k.pattern_properties
                    .push((regex, self.node(schema, &pointer)?));
            }
        }
        k.additional_properties = self.sub(map, at, "additionalProperties")?;
        k.property_names = self.sub(map, at, "propertyNames")?;
        k.dependent_required = dependent_required(map, at)?;
        k.dependent_schemas = self.named(map, at, "dependentSchemas")?;
        k.unevaluated_properties = self.sub(map, at, "unevaluatedProperties")?;
        k.all_of = self.list(map, at, "allOf")?;
        k.any_of = self.list(map, at, "anyOf")?;
        k.one_of = self.list(map, at, "oneOf")?;
        k.not = self.sub(map, at, "not")?;
        if let Some(condition) = self.sub(map, at, "if")? {
            let then = self.sub(map, at, "then")?;
            let otherwise = self.sub(map, at, "else")?;
            k.if_then_else = Some((condition, then, otherwise));
        }
        k.reference = match map.get("$ref") {
            Some(Value::String(reference)) => Some(self.reference(reference, at)?),
            Some(_) => return Err(CompileError::at(&format!("{at}/$ref"), "must be a string")),
            None => None,
        };
        if at.is_empty() || !map.contains_key("$id") {
            Ok(())
        } else {
            // A nested `$id` would change what its `$ref`s are relative to.
            Err(CompileError::at(
                at,
                "`$id` below the root is not supported",
            ))
        }
    }

    /// The node a `$ref` within this document points to (`#` or `#/json/pointer`).
    fn reference(&mut self, reference: &str, at: &str) -> Result<usize, CompileError> {
        let unsupported = || {
            CompileError::at(
                at,
                &format!("`$ref` \"{reference}\" is not a pointer into this schema"),
            )
        };
        let fragment = reference.strip_prefix('#').ok_or_else(unsupported)?;
        let pointer = a2a_runtime_types::util::percent_decode(fragment).ok_or_else(unsupported)?;
        if !(pointer.is_empty() || pointer.starts_with('/')) {
            return Err(unsupported());
        }
        let target = self.root.pointer(&pointer).ok_or_else(|| {
            CompileError::at(at, &format!("`$ref` \"{reference}\" points to nothing"))
        })?;
        self.node(target, &pointer)
    }
}

fn type_set(value: &Value, at: &str) -> Result<u8, CompileError> {
    let one = |name: &str| {
        types::NAMES
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(bit, _)| *bit)
            .ok_or_else(|| {
                CompileError::at(&format!("{at}/type"), &format!("unknown type \"{name}\""))
            })
    };
    match value {
        Value::String(name) => one(name),
        Value::Array(names) => names.iter().try_fold(0, |set, name| {
            let name = name
                .as_str()
                .ok_or_else(|| CompileError::at(&format!("{at}/type"), "must list type names"))?;
            Ok(set | one(name)?)
        }),
        _ => Err(CompileError::at(
            &format!("{at}/type"),
            "must be a type name or a list of them",
        )),
    }
}

fn number(map: &Map<String, Value>, at: &str, key: &str) -> Result<Option<Number>, CompileError> {
    match map.get(key) {
        None => Ok(None),
        Some(Value::Number(n)) => Ok(Some(n.clone())),
        Some(_) => Err(CompileError::at(&format!("{at}/{key}"), "must be a number")),
    }
}

fn count(map: &Map<String, Value>, at: &str, key: &str) -> Result<Option<u64>, CompileError> {
    match map.get(key) {
        None => Ok(None),
        Some(Value::Number(n)) => match super::json::integer(n).and_then(|i| u64::try_from(i).ok())
        {
            Some(count) => Ok(Some(count)),
            None => Err(CompileError::at(
                &format!("{at}/{key}"),
                "must be a non-negative integer",
            )),
        },
        Some(_) => Err(CompileError::at(
            &format!("{at}/{key}"),
            "must be a non-negative integer",
        )),
    }
}

fn names(map: &Map<String, Value>, at: &str, key: &str) -> Result<Vec<String>, CompileError> {
    match map.get(key) {
        None => Ok(Vec::new()),
        Some(Value::Array(names)) => names
            .iter()
            .map(|n| n.as_str().map(str::to_owned))
            .collect::<Option<_>>()
            .ok_or_else(|| CompileError::at(&format!("{at}/{key}"), "must list property names")),
        Some(_) => Err(CompileError::at(
            &format!("{at}/{key}"),
            "must list property names",
        )),
    }
}

fn dependent_required(
    map: &Map<String, Value>,
    at: &str,
) -> Result<Vec<(String, Vec<String>)>, CompileError> {
    let Some(value) = map.get("dependentRequired") else {
        return Ok(Vec::new());
    };
    let Value::Object(dependents) = value else {
        return Err(CompileError::at(
            &format!("{at}/dependentRequired"),
            "must be an object",
        ));
    };
    dependents
        .iter()
        .map(|(name, _)| {
            Ok((
                name.clone(),
                names(dependents, &format!("{at}/dependentRequired"), name)?,
            ))
        })
        .collect()
}

/// A `pattern` compiled. JSON Schema patterns are ECMA-262 regular expressions; the common
/// subset (classes, quantifiers, anchors, groups, alternation) compiles here, and a pattern
/// using more (look-around, back-references) is refused by name rather than misread.
fn regex(pattern: &Value, at: &str) -> Result<(String, regex_lite::Regex), CompileError> {
    let Value::String(pattern) = pattern else {
        return Err(CompileError::at(at, "must be a string"));
    };
    regex_lite::Regex::new(pattern)
        .map(|regex| (pattern.clone(), regex))
        .map_err(|error| {
            CompileError::at(
                at,
                &format!("pattern \"{pattern}\" is not supported: {error}"),
            )
        })
}

/// A JSON pointer token for `key` (`~` and `/` escaped).
pub(super) fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}
