//! The registry: every skill of one agent, collected once at startup, sorted by id and validated.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use crate::descriptor::SkillDescriptor;
use crate::error::Error;
use crate::schema;
use crate::schema_check::SchemaCheck;

/// One link-time registration, submitted by `#[skill]` through `__private::register_skill!`.
#[doc(hidden)]
pub struct SkillRegistration(pub &'static SkillDescriptor);

inventory::collect!(SkillRegistration);

/// A registered skill with its schemas computed.
#[derive(Debug)]
pub struct SkillEntry {
    pub descriptor: &'static SkillDescriptor,
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

/// The validated, sorted set of skills served by one agent.
#[derive(Debug)]
pub struct Registry {
    skills: Vec<SkillEntry>,
    by_id: HashMap<&'static str, usize>,
    default: Option<usize>,
}

impl Registry {
    /// Collects the skills of agent `agent`: those listed explicitly, those added with the
    /// builder, and (with the `auto-register` feature) those registered at link time.
    pub fn build(
        agent: TypeId,
        agent_name: &str,
        explicit: &[&'static SkillDescriptor],
    ) -> Result<Self, Error> {
        let mut found: Vec<&'static SkillDescriptor> = explicit.to_vec();
        if cfg!(feature = "auto-register") {
            found.extend(
                inventory::iter::<SkillRegistration>
                    .into_iter()
                    .map(|r| r.0)
                    .filter(|d| d.agent_type() == agent),
            );
        }
        // The same descriptor may arrive both explicitly and through inventory.
        found.sort_by(|a, b| {
            a.id()
                .cmp(b.id())
                .then((*a as *const SkillDescriptor).cmp(&(*b as *const _)))
        });
        found.dedup_by(|a, b| std::ptr::eq(*a, *b));
        for pair in found.windows(2) {
            if pair[0].id() == pair[1].id() {
                return Err(Error::DuplicateSkill {
                    id: pair[0].id().to_owned(),
                    first: pair[0].location(),
                    second: pair[1].location(),
                });
            }
        }
        if let Some(foreign) = found.iter().find(|d| d.agent_type() != agent) {
            return Err(Error::Config(format!(
                "skill `{}` ({}) belongs to agent `{}`, not `{agent_name}`",
                foreign.id(),
                foreign.location(),
                foreign.agent_name()
            )));
        }
        if found.is_empty() {
            return Err(Error::NoSkills {
                agent: agent_name.to_owned(),
            });
        }
        for descriptor in &found {
            validate_tool_name(descriptor)?;
        }
        let defaults: Vec<_> = found.iter().filter(|d| d.is_default()).collect();
        if defaults.len() > 1 {
            return Err(Error::Config(format!(
                "agent `{agent_name}` has several default skills ({}); mark at most one with `default`",
                defaults
                    .iter()
                    .map(|d| d.id())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        let skills: Vec<SkillEntry> = found.into_iter().map(entry).collect();
        let by_id = skills
            .iter()
            .enumerate()
            .map(|(i, s)| (s.descriptor.id(), i))
            .collect();
        let default = skills.iter().position(|s| s.descriptor.is_default());
        Ok(Self {
            skills,
            by_id,
            default,
        })
    }

    /// All skills, sorted by id.
    pub fn skills(&self) -> &[SkillEntry] {
        &self.skills
    }

    /// Every scope some skill requires, sorted, with the ids of the skills that require it.
    pub fn scopes(&self) -> std::collections::BTreeMap<&'static str, Vec<&'static str>> {
        let mut scopes = std::collections::BTreeMap::<_, Vec<_>>::new();
        for skill in &self.skills {
            for scope in skill.descriptor.scopes() {
                scopes
                    .entry(*scope)
                    .or_default()
                    .push(skill.descriptor.id());
            }
        }
        scopes
    }

    /// The skill with this id.
    pub fn get(&self, id: &str) -> Option<&SkillEntry> {
        self.by_id.get(id).map(|&i| &self.skills[i])
    }

    /// The skill used when a message names none: the only one, or the one marked `default`.
    pub fn fallback(&self) -> Option<&SkillEntry> {
        match self.skills.as_slice() {
            [only] => Some(only),
            _ => self.default.map(|i| &self.skills[i]),
        }
    }

    /// Skill ids, comma separated, for error messages.
    pub fn id_list(&self) -> String {
        self.skills
            .iter()
            .map(|s| s.descriptor.id())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn entry(descriptor: &'static SkillDescriptor) -> SkillEntry {
    let mut generator = schema::generator();
    let input_schema = schema::input(descriptor.input_schema(&mut generator));
    let output_schema = descriptor
        .output_schema(&mut schema::generator())
        .map(schema::output)
        .map(Arc::new);
    let text_param = schema::single_required_string(&input_schema);
    let owned = |modes: &[&str]| modes.iter().map(|m| (*m).to_owned()).collect::<Vec<_>>();
    let input_modes = if descriptor.input_modes().is_empty() {
        owned(derived_input_modes(
            text_param.is_some(),
            schema::has_properties(&input_schema),
        ))
    } else {
        owned(descriptor.input_modes())
    };
    let output_modes = match (descriptor.output_modes(), &output_schema) {
        ([], Some(_)) => vec!["application/json".to_owned()],
        (declared, _) => owned(declared),
    };
    let output_validator = output_schema.as_deref().and_then(|schema| {
        SchemaCheck::new(schema)
            .inspect_err(|error| {
                tracing::warn!(skill = descriptor.id(), %error, "outputs are not checked");
            })
            .ok()
            .map(|v| Arc::new(OutputValidator(v)))
    });
    SkillEntry {
        output_validator,
        required: schema::required_names(&input_schema),
        text_param,
        input_modes,
        output_modes,
        input_schema: Arc::new(input_schema),
        output_schema,
        descriptor,
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

/// The macros reject illegal ids at compile time; this catches descriptors built by other means.
fn validate_tool_name(descriptor: &SkillDescriptor) -> Result<(), Error> {
    let id = descriptor.id();
    let legal = (1..=128).contains(&id.len())
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
    if legal {
        Ok(())
    } else {
        Err(Error::IllegalToolName {
            id: id.to_owned(),
            location: descriptor.location(),
        })
    }
}
