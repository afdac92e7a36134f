#![doc = include_str!("../docs/skills.md")]

/// The [`Agent`] trait: what `#[agent]` implements for its struct.
pub use a2a_runtime_core::agent::Agent;
#[doc(hidden)]
pub use a2a_runtime_core::call::InputError;
pub use a2a_runtime_core::call::{
    FromInvocation, IncomingMessage, IntoChunk, IntoSkillOutput, Invocation, Json, SkillOutput,
    SkillResult, State, TraceContext,
};
pub use a2a_runtime_core::context::{ArtifactWriter, TaskContext};
pub use a2a_runtime_core::descriptor::{
    AgentDescriptor, ExtensionDescriptor, Resume, SkillDef, SkillDescriptor, TaskSupport, ToolHints,
};
pub use a2a_runtime_core::skill_error::{SkillError, SkillErrorKind};
