//! Checking a skill's structured output against its published JSON Schema (draft 2020-12), so a
//! result that serializes to something else (a `NaN` becomes `null`) fails the call naming the
//! field instead of reaching a caller who trusted the schema.
//!
//! The schemas checked are the ones `schemars` writes for Rust types, and whatever a type's own
//! `JsonSchema` implementation writes: every 2020-12 validation keyword is checked (`type`,
//! `enum`, `const`, the numeric, string, array and object limits, `properties`,
//! `patternProperties`, `additionalProperties`, `propertyNames`, `dependentRequired`,
//! `dependentSchemas`, `prefixItems`, `items`, `contains`, `allOf`, `anyOf`, `oneOf`, `not`,
//! `if`/`then`/`else`, `unevaluatedProperties`, `unevaluatedItems`, and `$ref` within the
//! document). `format` is an annotation, as 2020-12 specifies by default. A schema this module
//! cannot check faithfully (a `$ref` to another document, `$dynamicRef`, a pattern with
//! look-around) is refused when compiled, with the reason, rather than checked loosely.
//!
//! Written here rather than taken from a general validator: those bring a regex engine with
//! look-around, big-number arithmetic and remote references, a third of a new agent's crates
//! for the few keywords `schemars` emits.

mod compile;
mod json;
mod validate;

use std::fmt;

use serde_json::Value;

/// A schema compiled for checking instances.
#[derive(Debug)]
pub struct SchemaCheck {
    nodes: Vec<compile::Node>,
    root: usize,
}

impl SchemaCheck {
    /// Compiles `schema`; refuses one it cannot check faithfully, saying where and why.
    pub fn new(schema: &Value) -> Result<Self, CompileError> {
        let mut nodes = Vec::new();
        let root = compile::compile(schema, &mut nodes)?;
        Ok(Self { nodes, root })
    }

    /// The first way in which `instance` breaks the schema, if it does.
    pub fn validate(&self, instance: &Value) -> Result<(), Violation> {
        validate::check(&self.nodes, self.root, instance, false).map(|_| ())
    }

    /// Whether `instance` matches the schema.
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.validate(instance).is_ok()
    }
}

/// Why a schema cannot be checked: the JSON pointer of the offending subschema and the reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the schema at `{}` cannot be checked: {reason}", if pointer.is_empty() { "#" } else { pointer })]
pub struct CompileError {
    /// Where in the schema, as a JSON pointer (empty for the root).
    pub pointer: String,
    /// What is wrong or unsupported there.
    pub reason: String,
}

impl CompileError {
    fn at(pointer: &str, reason: &str) -> Self {
        Self {
            pointer: pointer.to_owned(),
            reason: reason.to_owned(),
        }
    }
}

/// How an instance breaks a schema: where (a JSON pointer into the instance) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The path's segments, innermost first (pushed as the failure returns outward).
    segments: Vec<String>,
    message: String,
    null: bool,
}

impl Violation {
    fn new(instance: &Value, message: String) -> Self {
        Self {
            segments: Vec::new(),
            message,
            null: instance.is_null(),
        }
    }

    fn plain(message: String) -> Self {
        Self {
            segments: Vec::new(),
            message,
            null: false,
        }
    }

    /// The same violation, one level deeper in the instance.
    fn within(mut self, segment: String) -> Self {
        self.segments.push(segment);
        self
    }

    /// A violation of `propertyNames` by `key`: reported at the object.
    fn named_property(self, key: &str) -> Self {
        Self::plain(format!(
            "the property name \"{key}\" is not allowed: {}",
            self.message
        ))
    }

    /// None of `keyword`'s options matched; the first option's failure says most.
    fn alternatives(instance: &Value, keyword: &str, first: Option<Self>) -> Self {
        let mut message = format!(
            "{} matches none of the options of {keyword}",
            json::shown(instance)
        );
        if let Some(first) = first {
            let at = first.path();
            let at = if at.is_empty() {
                String::new()
            } else {
                format!(" at `{at}`")
            };
            message = format!("{message} (the first: {}{at})", first.message);
        }
        Self::new(instance, message)
    }

    /// Where in the instance, as a JSON pointer (`/money/amount`; empty for the instance itself).
    pub fn path(&self) -> String {
        self.segments
            .iter()
            .rev()
            .map(|segment| format!("/{}", compile::escape(segment)))
            .collect()
    }

    /// What is wrong there.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Whether the offending value is `null`.
    pub fn found_null(&self) -> bool {
        self.null
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.path().as_str() {
            "" => f.write_str(&self.message),
            path => write!(f, "{} (at `{path}`)", self.message),
        }
    }
}

impl std::error::Error for Violation {}

#[cfg(test)]
mod tests;
