//! Skills defined while the server runs, not by `#[skill]`: a remote agent's skills, a remote
//! MCP server's tools. Each is served exactly as a compiled skill is (card, tool list, routing,
//! scopes, tasks, meters); its input is checked against its schema, then its [`RunSkill`] runs
//! with the input as JSON (the call's decoded input, [`DefinedSkill::input`]).

use std::sync::Arc;

use serde_json::Value;

use super::traits::Traits;
use crate::call::{DecodedInput, InputError, Invocation, SkillResult};
use crate::schema_check::SchemaCheck;
use crate::skill_error::SkillError;
use a2a_runtime_types::util::BoxFuture;

/// What runs a skill defined at run time.
pub trait RunSkill: Send + Sync + 'static {
    /// Runs one call; its input ([`DefinedSkill::input`]) is already checked against the
    /// skill's input schema.
    fn run(&self, invocation: Invocation) -> BoxFuture<'static, SkillResult>;
}

/// A skill defined at run time: what a compiled skill's descriptor says, as values.
pub struct DefinedSkill {
    /// The id: the A2A skill id and the MCP tool name (1 to 128 ASCII letters, digits, `_`,
    /// `.` or `-`).
    pub id: String,
    /// Human-readable name.
    pub name: String,
    /// Description.
    pub description: String,
    /// Keywords.
    pub tags: Vec<String>,
    /// Example prompts.
    pub examples: Vec<String>,
    /// The input schema; its root describes an object.
    pub input_schema: Value,
    /// The output schema of a structured result, if it has one.
    pub output_schema: Option<Value>,
    /// Media types of the parts it reads (empty: derived from the input schema).
    pub input_modes: Vec<String>,
    /// Media types it produces (empty: the agent's defaults).
    pub output_modes: Vec<String>,
    /// OAuth scopes a caller needs.
    pub scopes: Vec<String>,
    /// How it is listed, called and resumed.
    pub traits: Traits,
    /// What defined it, for messages: `remote agent py (http://127.0.0.1:9000/)`.
    pub location: String,
    /// What runs it.
    pub run: Arc<dyn RunSkill>,
}

/// The input of a defined skill's call, as JSON.
struct DefinedInput(Value);

impl DefinedSkill {
    /// The input of the call `invocation` runs (once: a second take is an internal error).
    pub fn input(invocation: &mut Invocation) -> Result<Value, SkillError> {
        DecodedInput::take::<DefinedInput>(invocation).map(|input| input.0)
    }
}

impl std::fmt::Debug for DefinedSkill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DefinedSkill")
            .field("id", &self.id)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

/// How a defined skill's calls are checked and run.
pub struct DefinedBody {
    pub(super) skill: Arc<dyn RunSkill>,
    pub(super) location: String,
    /// The input schema compiled; `None` when it cannot be checked faithfully (the skill's own
    /// server then is the only judge of its input).
    input_check: Option<SchemaCheck>,
}

impl DefinedBody {
    /// The body of `skill`, its input schema compiled when it can be.
    pub(super) fn new(skill: &DefinedSkill) -> Self {
        let input_check = SchemaCheck::new(&skill.input_schema)
            .inspect_err(|error| {
                tracing::warn!(skill = %skill.id, %error, "inputs are not checked here");
            })
            .ok();
        Self {
            skill: Arc::clone(&skill.run),
            location: skill.location.clone(),
            input_check,
        }
    }

    /// Checks `input` against the skill's schema; the call takes a copy of it.
    pub(super) fn decode(&self, input: &Value) -> Result<DecodedInput, InputError> {
        if let Some(check) = &self.input_check
            && let Err(violation) = check.validate(input)
        {
            // The pointer `/money/amount` as the field path callers know, `money.amount`.
            let field = violation.path().trim_start_matches('/').replace('/', ".");
            return Err(InputError::new(field, violation.message()));
        }
        Ok(DecodedInput::new(DefinedInput(input.clone())))
    }
}
