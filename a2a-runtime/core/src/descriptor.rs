//! Static descriptions of agents and skills, produced by the macros at compile time.
//!
//! Descriptors are `'static` data plus function pointers: schemas cannot be computed in a
//! constant, so they are generated lazily through the pointers when the registry is built.

use std::any::TypeId;

use schemars::{Schema, SchemaGenerator};

use crate::auth::NamedScheme;
use crate::call::{DecodedInput, InputError, Invocation, SkillResult};
use crate::content::{PromptDescriptor, ResourceDescriptor};
use a2a_runtime_types::util::BoxFuture;

/// Everything the runtime knows about one skill.
#[derive(Debug)]
pub struct SkillDescriptor {
    parts: SkillParts,
}

/// The fields of a [`SkillDescriptor`], spelled out by generated code.
#[doc(hidden)]
pub struct SkillParts {
    pub agent: fn() -> TypeId,
    pub agent_name: fn() -> &'static str,
    pub id: &'static str,
    pub name: &'static str,
    pub description: &'static str,
    pub tags: &'static [&'static str],
    pub examples: &'static [&'static str],
    pub input_modes: &'static [&'static str],
    pub output_modes: &'static [&'static str],
    pub produces: fn() -> &'static [&'static str],
    pub replies: fn() -> bool,
    pub scopes: &'static [&'static str],
    pub extended_only: bool,
    pub public: bool,
    pub resume: Resume,
    pub task_support: TaskSupport,
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
    pub is_default: bool,
    pub input_schema: fn(&mut SchemaGenerator) -> Schema,
    pub output_schema: fn(&mut SchemaGenerator) -> Option<Schema>,
    pub decode_input: fn(&serde_json::Value) -> Result<DecodedInput, InputError>,
    pub call: fn(Invocation) -> BoxFuture<'static, SkillResult>,
    pub rust_path: &'static str,
    pub file: &'static str,
    pub line: u32,
}

impl std::fmt::Debug for SkillParts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkillParts")
            .field("id", &self.id)
            .field("rust_path", &self.rust_path)
            .finish_non_exhaustive()
    }
}

/// What a restart does with a skill's unfinished tasks (`#[skill(resume = "...")]`). A durable
/// store keeps every task across a restart; the skill that was running it is gone with the old
/// process, so each unfinished task is resumed or failed as its skill declares.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Resume {
    /// The default. A task waiting for an answer (input or authorization) keeps waiting; the
    /// next answer runs the skill again from the start with the answers given so far replayed
    /// into `ctx.ask`, so a multi-turn skill carries on where it was. A task that was working
    /// fails with the reason "interrupted by a restart".
    #[default]
    Answers,
    /// As [`Answers`](Self::Answers), and a task that was working is run again from the start
    /// (its answers replayed). For skills that are safe to run twice.
    Rerun,
    /// Every unfinished task of the skill fails with the reason "interrupted by a restart".
    Never,
}

/// Whether an MCP call of a skill becomes a task (`#[skill(task_support = "...")]`), for clients
/// of the MCP tasks extension (`io.modelcontextprotocol/tasks`). A2A calls are always tasks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TaskSupport {
    /// The default. A call from a client of the extension becomes a task, unless it ends
    /// within the server's `mcp_task_after` (then its result is returned at once); other
    /// clients wait for the result.
    #[default]
    Optional,
    /// Every call is a task: a client of the extension always gets a task to poll, and a call
    /// from any other client is refused (MissingRequiredClientCapability, -32021).
    Required,
    /// Calls are never tasks; every client waits for the result.
    Forbidden,
}

/// MCP tool annotations of a skill (hints, not guarantees).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ToolHints {
    /// The skill does not modify its environment.
    pub read_only: Option<bool>,
    /// The skill may perform destructive updates.
    pub destructive: Option<bool>,
    /// Calling the skill twice with the same input has no extra effect.
    pub idempotent: Option<bool>,
    /// The skill interacts with an open world of external entities.
    pub open_world: Option<bool>,
}

impl SkillDescriptor {
    #[doc(hidden)]
    pub const fn __new(parts: SkillParts) -> Self {
        Self { parts }
    }

    /// The skill id: the A2A skill id and the MCP tool name.
    pub fn id(&self) -> &'static str {
        self.parts.id
    }
    /// Human-readable name.
    pub fn name(&self) -> &'static str {
        self.parts.name
    }
    /// Description (from the doc comment).
    pub fn description(&self) -> &'static str {
        self.parts.description
    }
    /// Keywords.
    pub fn tags(&self) -> &'static [&'static str] {
        self.parts.tags
    }
    /// Example prompts.
    pub fn examples(&self) -> &'static [&'static str] {
        self.parts.examples
    }
    /// Accepted input media types (empty: the agent's defaults).
    pub fn input_modes(&self) -> &'static [&'static str] {
        self.parts.input_modes
    }
    /// Produced output media types: as declared with `output_modes`, else what the return type
    /// produces (`text/plain` for text, `application/json` for structured values); empty when
    /// that varies (parts, artifacts), meaning the agent's defaults.
    pub fn output_modes(&self) -> &'static [&'static str] {
        match self.parts.output_modes {
            [] => (self.parts.produces)(),
            declared => declared,
        }
    }
    /// Whether the skill may answer with a message alone, creating no task (its return type
    /// is `Message` or `SkillOutput`).
    pub fn replies(&self) -> bool {
        (self.parts.replies)()
    }
    /// OAuth scopes the skill needs.
    pub fn scopes(&self) -> &'static [&'static str] {
        self.parts.scopes
    }
    /// Whether the skill is listed only on the extended agent card (authenticated callers);
    /// it is callable as any other.
    pub fn is_extended_only(&self) -> bool {
        self.parts.extended_only
    }
    /// Whether MCP clients may list and call the skill without credentials on an agent that
    /// otherwise requires them (`#[skill(public)]`).
    pub fn is_public(&self) -> bool {
        self.parts.public
    }
    /// What a restart does with the skill's unfinished tasks.
    pub fn resume(&self) -> Resume {
        self.parts.resume
    }
    /// Whether its MCP calls become tasks.
    pub fn task_support(&self) -> TaskSupport {
        self.parts.task_support
    }
    /// MCP tool annotations.
    pub fn hints(&self) -> ToolHints {
        ToolHints {
            read_only: self.parts.read_only,
            destructive: self.parts.destructive,
            idempotent: self.parts.idempotent,
            open_world: self.parts.open_world,
        }
    }
    /// Whether the skill is the agent's default.
    pub fn is_default(&self) -> bool {
        self.parts.is_default
    }
    /// Where the skill is defined: `crate::module::fn_name (src/file.rs:12)`.
    pub fn location(&self) -> String {
        format!(
            "{} ({}:{})",
            self.parts.rust_path, self.parts.file, self.parts.line
        )
    }

    pub fn agent_type(&self) -> TypeId {
        (self.parts.agent)()
    }
    pub fn agent_name(&self) -> &'static str {
        (self.parts.agent_name)()
    }
    pub fn input_schema(&self, generator: &mut SchemaGenerator) -> Schema {
        (self.parts.input_schema)(generator)
    }
    pub fn output_schema(&self, generator: &mut SchemaGenerator) -> Option<Schema> {
        (self.parts.output_schema)(generator)
    }
    /// Decodes a JSON input object into the skill's input type; the call takes the result.
    pub fn decode_input(&self, input: &serde_json::Value) -> Result<DecodedInput, InputError> {
        (self.parts.decode_input)(input)
    }
    pub fn call(&self, invocation: Invocation) -> BoxFuture<'static, SkillResult> {
        (self.parts.call)(invocation)
    }

    /// Stands in for a skill whose `#[skill]` expansion failed, so one compile error does not
    /// cascade into others. Never registered and never called.
    #[doc(hidden)]
    pub const INVALID: SkillDescriptor = SkillDescriptor::__new(SkillParts {
        agent: TypeId::of::<()>,
        agent_name: || "<invalid>",
        id: "<invalid>",
        name: "",
        description: "",
        tags: &[],
        examples: &[],
        input_modes: &[],
        output_modes: &[],
        produces: || &[],
        replies: || false,
        scopes: &[],
        extended_only: false,
        public: false,
        resume: Resume::Answers,
        task_support: TaskSupport::Optional,
        read_only: None,
        destructive: None,
        idempotent: None,
        open_world: None,
        is_default: false,
        input_schema: |generator| generator.root_schema_for::<()>(),
        output_schema: |_| None,
        decode_input: |_| Err(InputError::new("", "invalid skill")),
        call: |_| {
            Box::pin(std::future::ready(Err(
                crate::skill_error::SkillError::new("invalid skill"),
            )))
        },
        rust_path: "<invalid>",
        file: "",
        line: 0,
    });
}

/// Everything the runtime knows about one agent type.
#[derive(Debug)]
pub struct AgentDescriptor {
    parts: AgentParts,
}

/// The fields of an [`AgentDescriptor`], spelled out by generated code.
#[doc(hidden)]
#[derive(Debug)]
pub struct AgentParts {
    pub type_name: &'static str,
    pub name: &'static str,
    pub description: &'static str,
    pub version: &'static str,
    pub provider: Option<(&'static str, &'static str)>,
    pub documentation_url: Option<&'static str>,
    pub instructions: Option<&'static str>,
    pub icon_url: Option<&'static str>,
    pub default_input_modes: Option<&'static [&'static str]>,
    pub default_output_modes: Option<&'static [&'static str]>,
    pub skills: &'static [&'static SkillDescriptor],
    pub resources: &'static [&'static ResourceDescriptor],
    pub prompts: &'static [&'static PromptDescriptor],
    pub security: fn() -> Vec<NamedScheme>,
    pub extensions: &'static [ExtensionDescriptor],
    pub package: Package,
}

/// What Cargo says of the crate that declares an agent (its `[package]`), read where
/// `#[agent]` expands: the discovery documents name the crate a registry installs and the
/// repository its source is in. Cargo leaves a field it was not given empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Package {
    /// The crate's name (`CARGO_PKG_NAME`).
    pub name: &'static str,
    /// The crate's version (`CARGO_PKG_VERSION`), which the agent's own may differ from.
    pub version: &'static str,
    /// The crate's repository URL (`CARGO_PKG_REPOSITORY`), or empty.
    pub repository: &'static str,
    /// The crate's homepage (`CARGO_PKG_HOMEPAGE`), or empty.
    pub homepage: &'static str,
    /// Whether `cargo install` finds the crate on crates.io: its manifest's `publish` (or the
    /// workspace's, inherited) is absent, `true` or names `crates-io`. A registry entry lists
    /// the crate as a package only then.
    pub on_crates_io: bool,
}

/// An A2A extension the agent supports, declared with `#[agent(extensions(extension(..)))]`:
/// an entry of the card's `capabilities.extensions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtensionDescriptor {
    /// The extension's URI, as clients name it in `A2A-Extensions`.
    pub uri: &'static str,
    /// What the extension does (may be empty).
    pub description: &'static str,
    /// Whether clients must activate it: a request without it in `A2A-Extensions` is refused
    /// with -32008 (`EXTENSION_SUPPORT_REQUIRED`).
    pub required: bool,
    /// Its `params`, a JSON object as text (checked by the macro).
    pub params: Option<&'static str>,
}

/// Media types an agent accepts and produces unless it says otherwise.
pub const DEFAULT_MODES: &[&str] = &["text/plain", "application/json"];

impl AgentDescriptor {
    #[doc(hidden)]
    pub const fn __new(parts: AgentParts) -> Self {
        Self { parts }
    }

    /// Stands in for an agent whose `#[agent]` expansion failed, so its skills do not add a
    /// second wave of errors. Never served.
    #[doc(hidden)]
    pub const INVALID: AgentDescriptor = AgentDescriptor::__new(AgentParts {
        type_name: "<invalid>",
        name: "",
        description: "",
        version: "",
        provider: None,
        documentation_url: None,
        instructions: None,
        icon_url: None,
        default_input_modes: None,
        default_output_modes: None,
        skills: &[],
        resources: &[],
        prompts: &[],
        security: Vec::new,
        extensions: &[],
        package: Package {
            name: "",
            version: "",
            repository: "",
            homepage: "",
            on_crates_io: false,
        },
    });
    /// The Rust type name of the agent struct.
    pub fn type_name(&self) -> &'static str {
        self.parts.type_name
    }
    /// The agent's display name.
    pub fn name(&self) -> &'static str {
        self.parts.name
    }
    /// The agent's description.
    pub fn description(&self) -> &'static str {
        self.parts.description
    }
    /// The agent's version (its crate version unless set).
    pub fn version(&self) -> &'static str {
        self.parts.version
    }
    /// `(organization, url)` of the provider.
    pub fn provider(&self) -> Option<(&'static str, &'static str)> {
        self.parts.provider
    }
    /// Documentation URL.
    pub fn documentation_url(&self) -> Option<&'static str> {
        self.parts.documentation_url
    }
    /// What MCP's `initialize` tells a client (and its model) about using the agent
    /// (`#[agent(instructions = "…")]`): how to call its tools in order, what they expect of the
    /// caller. Its description when it says none.
    pub fn instructions(&self) -> &'static str {
        self.parts.instructions.unwrap_or(self.parts.description)
    }
    /// Icon URL.
    pub fn icon_url(&self) -> Option<&'static str> {
        self.parts.icon_url
    }
    /// Default input media types.
    pub fn default_input_modes(&self) -> &'static [&'static str] {
        self.parts.default_input_modes.unwrap_or(DEFAULT_MODES)
    }
    /// Default output media types.
    pub fn default_output_modes(&self) -> &'static [&'static str] {
        self.parts.default_output_modes.unwrap_or(DEFAULT_MODES)
    }
    /// The security schemes declared with `#[agent(security(..))]`.
    pub fn security_schemes(&self) -> Vec<NamedScheme> {
        (self.parts.security)()
    }
    /// The A2A extensions declared with `#[agent(extensions(..))]`.
    pub fn extensions(&self) -> &'static [ExtensionDescriptor] {
        self.parts.extensions
    }
    /// Resources listed explicitly with `#[agent(resources(..))]`.
    pub fn explicit_resources(&self) -> &'static [&'static ResourceDescriptor] {
        self.parts.resources
    }
    /// Prompts listed explicitly with `#[agent(prompts(..))]`.
    pub fn explicit_prompts(&self) -> &'static [&'static PromptDescriptor] {
        self.parts.prompts
    }
    /// Skills listed explicitly with `#[agent(skills(..))]`.
    pub fn explicit_skills(&self) -> &'static [&'static SkillDescriptor] {
        self.parts.skills
    }
    /// The crate that declares the agent, as Cargo describes it.
    pub fn package(&self) -> Package {
        self.parts.package
    }
}

/// Implemented by `#[skill]` for the marker type named like the skill fn, so a path to the fn
/// also names its descriptor (`#[agent(skills(path::to::convert))]`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a skill",
    label = "not a `#[skill]` function",
    note = "only functions annotated with `#[skill(...)]` can be listed in `#[agent(skills(...))]`"
)]
pub trait SkillDef {
    /// The skill's descriptor.
    const DESCRIPTOR: &'static SkillDescriptor;
}
