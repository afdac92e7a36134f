//! The parameters of `#[resource]` and `#[prompt]` fns: values read from text (template
//! variables, prompt arguments), the agent state and caller injected, and the completions an
//! argument offers.

use std::str::FromStr;

use schemars::JsonSchema;

use super::ReadRequest;
use crate::agent::Agent;
use crate::auth::Caller;
use crate::call::State;
use crate::skill_error::SkillError;

/// A template variable or prompt argument: its name, description and completions.
#[derive(Debug, Clone, Copy)]
pub struct Argument {
    /// Its name, as clients send it.
    pub name: &'static str,
    /// Its description (the parameter's doc comment).
    pub description: &'static str,
    /// Whether a value must be given (prompt arguments that are not `Option`).
    pub required: bool,
    /// The values it accepts, when its type's schema lists them (an `enum`); offered by
    /// `completion/complete`.
    pub choices: fn() -> Vec<String>,
    /// The fn that completes it (`#[arg(complete = path)]`), asked instead of `choices`.
    pub complete: Option<super::Completer>,
}

/// A parameter type read from text: anything `FromStr` whose error can be shown.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be read from a URI template variable or prompt argument",
    label = "not readable from text",
    note = "template variables and prompt arguments are text: use `String`, a number, or a type implementing `FromStr` (with a `Display` error); inject the agent's state with `State<YourAgent>`"
)]
pub trait FromArgument: Sized {
    /// Reads the value, or says what is wrong with it.
    fn from_argument(text: &str) -> Result<Self, String>;
}

impl<T: FromStr> FromArgument for T
where
    T::Err: std::fmt::Display,
{
    fn from_argument(text: &str) -> Result<Self, String> {
        text.parse().map_err(|e: T::Err| e.to_string())
    }
}

/// A parameter of a resource or prompt of agent `A` that the runtime fills in: `State<A>` and
/// `Caller`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be injected into a resource or prompt of agent `{A}`",
    label = "not injectable here",
    note = "resources and prompts can take `State<{A}>` and `Caller`; every other parameter is a template variable or argument"
)]
pub trait FromRead<A>: Sized {
    /// Extracts the value for one read.
    fn from_read(request: &ReadRequest) -> Result<Self, SkillError>;
}

impl<A: Agent> FromRead<A> for State<A> {
    fn from_read(request: &ReadRequest) -> Result<Self, SkillError> {
        request.state::<A>().map(State).ok_or_else(|| {
            SkillError::internal(format!(
                "State<{}> requested, but this server runs a different agent",
                std::any::type_name::<A>()
            ))
        })
    }
}

impl<A> FromRead<A> for Caller {
    fn from_read(request: &ReadRequest) -> Result<Self, SkillError> {
        Ok(request.caller.clone())
    }
}

/// Asks whether a parameter type has a JSON Schema listing its values.
pub struct ChoicesProbe<T>(std::marker::PhantomData<fn() -> T>);

impl<T> ChoicesProbe<T> {
    /// A probe for `T`.
    #[must_use]
    pub const fn new() -> Self {
        Self(std::marker::PhantomData)
    }
}

impl<T> Default for ChoicesProbe<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// First choice (probed on `&&ChoicesProbe<T>`): the type has a schema; its `enum` strings.
pub trait ViaChoices {
    /// The function listing the values.
    fn choices(&self) -> fn() -> Vec<String>;
}

impl<T: JsonSchema> ViaChoices for &ChoicesProbe<T> {
    fn choices(&self) -> fn() -> Vec<String> {
        enum_strings::<T>
    }
}

/// Otherwise: no values to offer.
pub trait ViaNoChoices {
    /// A function listing nothing.
    fn choices(&self) -> fn() -> Vec<String>;
}

impl<T> ViaNoChoices for ChoicesProbe<T> {
    fn choices(&self) -> fn() -> Vec<String> {
        Vec::new
    }
}

/// The string values of `T`'s schema `enum` (or of an `oneOf` of `const`s, as schemars writes
/// documented enums).
fn enum_strings<T: JsonSchema>() -> Vec<String> {
    let schema = schemars::SchemaGenerator::default().into_root_schema_for::<T>();
    let value = schema.as_value();
    let strings = |values: &serde_json::Value| -> Vec<String> {
        values
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect()
    };
    if let Some(values) = value.get("enum") {
        return strings(values);
    }
    value
        .get("oneOf")
        .and_then(serde_json::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|variant| {
            variant
                .get("const")
                .or_else(|| variant.get("enum").and_then(|e| e.get(0)))
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned)
        })
        .collect()
}

/// Reads parameter `name` of `request` as a `T`; a missing or unreadable value is an invalid
/// argument naming it.
pub fn required<T: FromArgument>(request: &ReadRequest, name: &str) -> Result<T, SkillError> {
    match request.value(name) {
        Some(text) => parse(name, text),
        None => Err(SkillError::invalid_input(format!(
            "argument `{name}` is required"
        ))),
    }
}

/// Reads optional parameter `name` of `request`.
pub fn optional<T: FromArgument>(
    request: &ReadRequest,
    name: &str,
) -> Result<Option<T>, SkillError> {
    request
        .value(name)
        .map(|text| parse(name, text))
        .transpose()
}

fn parse<T: FromArgument>(name: &str, text: &str) -> Result<T, SkillError> {
    T::from_argument(text).map_err(|reason| {
        SkillError::invalid_input(format!("argument `{name}` ({text:?}): {reason}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    enum Size {
        Small,
        Large,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    enum Documented {
        /// The first.
        First,
        /// The second.
        Second,
    }

    #[test]
    fn enum_schemas_offer_their_values_and_other_types_none() {
        assert_eq!(enum_strings::<Size>(), ["Small", "Large"]);
        assert_eq!(enum_strings::<Documented>(), ["First", "Second"]);
        assert!(enum_strings::<String>().is_empty());
        assert!(enum_strings::<u32>().is_empty());
    }
}
