//! [`SkillEntry`]: one skill as the server serves it, with its schemas computed, whether
//! `#[skill]` compiled it or it was defined at run time ([`DefinedSkill`]).

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::Value;

use super::defined::{DefinedBody, DefinedSkill};
use super::traits::Traits;
use crate::about::Text;
use crate::call::{DecodedInput, InputError, Invocation, SkillResult};
use crate::descriptor::{Resume, SkillDescriptor, TaskSupport, ToolHints};
use crate::schema;
use crate::schema_check::SchemaCheck;
use a2a_runtime_types::util::BoxFuture;

/// A registered skill with its schemas computed.
#[derive(Debug)]
pub struct SkillEntry {
    /// What names and runs it.
    named: Named,
    /// The input schema (root: object).
    pub input_schema: Arc<Value>,
    /// The output schema, for structured outputs.
    pub output_schema: Option<Arc<Value>>,
    /// The output schema compiled, so every structured result is checked against what the card
    /// and tool list promise.
    pub output_validator: Option<Arc<OutputValidator>>,
    /// The required string property a plain text message fills, if there is exactly one.
    pub text_param: Option<String>,
    /// Required input properties; when empty, any message can start the skill.
    pub required: Vec<String>,
    /// The media types of message parts the skill reads: as declared with `input_modes`, else
    /// derived from its input (see `derived_input_modes`).
    pub input_modes: Vec<String>,
    /// The media types the skill produces: as declared with `output_modes`, else
    /// `application/json` for structured output; empty means the agent's defaults.
    pub output_modes: Vec<String>,
}

/// What runs a skill: its compiled descriptor, or the body it was defined with.
#[derive(Clone)]
pub enum Body {
    /// `#[skill]`: decoding and calling through the generated functions.
    Compiled(&'static SkillDescriptor),
    /// Defined at run time: its input checked against its schema, its body called with it.
    Defined(Arc<DefinedBody>),
}

impl std::fmt::Debug for Body {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Compiled(descriptor) => write!(f, "Compiled({})", descriptor.location()),
            Self::Defined(body) => write!(f, "Defined({})", body.location),
        }
    }
}

impl Body {
    /// Runs the skill on `invocation`.
    pub fn call(&self, invocation: Invocation) -> BoxFuture<'static, SkillResult> {
        match self {
            Self::Compiled(descriptor) => descriptor.call(invocation),
            Self::Defined(body) => body.skill.run(invocation),
        }
    }
}

/// A compiled output schema.
#[derive(Debug)]
pub struct OutputValidator(SchemaCheck);

impl OutputValidator {
    /// Why `value` is not what the schema promises, naming the field, if it is not.
    pub fn check(&self, value: &Value) -> Result<(), String> {
        let Err(error) = self.0.validate(value) else {
            return Ok(());
        };
        let path = error.path();
        let field = if path.is_empty() {
            "the result".to_owned()
        } else {
            format!("`{path}`")
        };
        let hint = if error.found_null() {
            " (a number that is not finite, such as NaN or infinity, serializes as null)"
        } else {
            ""
        };
        Err(format!(
            "the skill's output does not match its output schema at {field}: {}{hint}",
            error.message()
        ))
    }
}

impl SkillEntry {
    /// The skill id: the A2A skill id and the MCP tool name.
    pub fn id(&self) -> &'static str {
        self.named.id
    }
    /// Human-readable name.
    pub fn name(&self) -> &str {
        &self.named.name
    }
    /// Description.
    pub fn description(&self) -> &str {
        &self.named.description
    }
    /// Keywords.
    pub fn tags(&self) -> &[Text] {
        &self.named.tags
    }
    /// Example prompts.
    pub fn examples(&self) -> &[Text] {
        &self.named.examples
    }
    /// OAuth scopes the skill needs.
    pub fn scopes(&self) -> &Arc<[&'static str]> {
        &self.named.scopes
    }
    /// Whether the skill is listed only on the extended agent card (authenticated callers).
    pub fn is_extended_only(&self) -> bool {
        self.named.traits.extended_only
    }
    /// Whether MCP clients may list and call the skill without credentials.
    pub fn is_public(&self) -> bool {
        self.named.traits.public
    }
    /// What a restart does with the skill's unfinished tasks.
    pub fn resume(&self) -> Resume {
        self.named.traits.resume
    }
    /// Whether its MCP calls become tasks.
    pub fn task_support(&self) -> TaskSupport {
        self.named.traits.task_support
    }
    /// MCP tool annotations.
    pub fn hints(&self) -> ToolHints {
        self.named.traits.hints
    }
    /// Whether the skill is the agent's default.
    pub fn is_default(&self) -> bool {
        self.named.traits.is_default
    }
    /// Whether the skill may answer with a message alone, creating no task.
    pub fn replies(&self) -> bool {
        self.named.traits.replies
    }
    /// Where the skill is defined: `crate::module::fn_name (src/file.rs:12)`, or what defined
    /// it at run time.
    pub fn location(&self) -> String {
        match &self.named.body {
            Body::Compiled(descriptor) => descriptor.location(),
            Body::Defined(body) => body.location.clone(),
        }
    }
    /// What runs the skill.
    pub fn body(&self) -> &Body {
        &self.named.body
    }

    /// Decodes a JSON input object for the skill; the call takes the result.
    pub fn decode_input(&self, input: &Value) -> Result<DecodedInput, InputError> {
        match &self.named.body {
            Body::Compiled(descriptor) => descriptor.decode_input(input),
            Body::Defined(body) => body.decode(input),
        }
    }

    /// The entry of a compiled skill.
    pub(super) fn compiled(descriptor: &'static SkillDescriptor) -> Self {
        let mut generator = schema::generator();
        let input_schema = schema::input(descriptor.input_schema(&mut generator));
        let output_schema = descriptor
            .output_schema(&mut schema::generator())
            .map(schema::output);
        let traits = Traits {
            extended_only: descriptor.is_extended_only(),
            public: descriptor.is_public(),
            resume: descriptor.resume(),
            task_support: descriptor.task_support(),
            hints: descriptor.hints(),
            is_default: descriptor.is_default(),
            replies: descriptor.replies(),
        };
        let borrowed = |items: &'static [&'static str]| items.iter().map(|i| Cow::Borrowed(*i));
        Shape {
            input_schema,
            output_schema,
            input_modes: descriptor
                .input_modes()
                .iter()
                .map(|m| (*m).to_owned())
                .collect(),
            output_modes: descriptor
                .output_modes()
                .iter()
                .map(|m| (*m).to_owned())
                .collect(),
        }
        .entry(Named {
            id: descriptor.id(),
            name: Cow::Borrowed(descriptor.name()),
            description: Cow::Borrowed(descriptor.description()),
            tags: borrowed(descriptor.tags()).collect(),
            examples: borrowed(descriptor.examples()).collect(),
            scopes: Arc::from(descriptor.scopes()),
            traits,
            body: Body::Compiled(descriptor),
        })
    }

    /// The entry of a skill defined at run time, its id and scopes already kept.
    pub(super) fn defined(
        skill: DefinedSkill,
        id: &'static str,
        scopes: Arc<[&'static str]>,
        body: Arc<DefinedBody>,
    ) -> Self {
        Shape {
            input_schema: skill.input_schema,
            output_schema: skill.output_schema,
            input_modes: skill.input_modes,
            output_modes: skill.output_modes,
        }
        .entry(Named {
            id,
            name: Cow::Owned(skill.name),
            description: Cow::Owned(skill.description),
            tags: skill.tags.into_iter().map(Cow::Owned).collect(),
            examples: skill.examples.into_iter().map(Cow::Owned).collect(),
            scopes,
            traits: skill.traits,
            body: Body::Defined(body),
        })
    }
}

/// What names and runs a skill, whatever made it.
#[derive(Debug)]
struct Named {
    id: &'static str,
    name: Text,
    description: Text,
    tags: Vec<Text>,
    examples: Vec<Text>,
    scopes: Arc<[&'static str]>,
    traits: Traits,
    body: Body,
}

/// A skill's schemas and declared media types, from which the rest of its entry follows.
struct Shape {
    input_schema: Value,
    output_schema: Option<Value>,
    input_modes: Vec<String>,
    output_modes: Vec<String>,
}

impl Shape {
    /// The entry of the skill `named`: its schemas, their compiled check and its media types.
    fn entry(self, named: Named) -> SkillEntry {
        let input_schema = self.input_schema;
        let text_param = schema::single_required_string(&input_schema);
        let input_modes = if self.input_modes.is_empty() {
            derived_input_modes(text_param.is_some(), schema::has_properties(&input_schema))
                .iter()
                .map(|m| (*m).to_owned())
                .collect()
        } else {
            self.input_modes
        };
        let output_modes = match (self.output_modes.is_empty(), &self.output_schema) {
            (true, Some(_)) => vec!["application/json".to_owned()],
            _ => self.output_modes,
        };
        let output_validator = self.output_schema.as_ref().and_then(|schema| {
            SchemaCheck::new(schema)
                .inspect_err(|error| {
                    tracing::warn!(skill = named.id, %error, "outputs are not checked");
                })
                .ok()
                .map(|v| Arc::new(OutputValidator(v)))
        });
        SkillEntry {
            named,
            output_validator,
            output_schema: self.output_schema.map(Arc::new),
            required: schema::required_names(&input_schema),
            text_param,
            input_modes,
            output_modes,
            input_schema: Arc::new(input_schema),
        }
    }
}

/// What a skill reads when it declares no `input_modes`: a skill with one required string
/// parameter reads text (and a data part holding its input object); a skill with other
/// parameters reads a JSON object, from a data part or a text part holding JSON; a skill without
/// parameters reads any text or data.
fn derived_input_modes(text_param: bool, has_properties: bool) -> &'static [&'static str] {
    if text_param || !has_properties {
        &["text/plain", "application/json"]
    } else {
        &["application/json"]
    }
}
