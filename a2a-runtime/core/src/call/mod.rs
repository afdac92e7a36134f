//! The call ABI between generated code and the runtime: one call of a skill ([`Invocation`]),
//! its injected parameters ([`FromInvocation`]), its input decoded from JSON ([`DecodedInput`])
//! and its output converted into artifacts ([`SkillOutput`], [`IntoChunk`]).
//!
//! A leaf: it knows the model and the task context, not who runs skills or why.

pub mod extract;
pub mod input;
pub mod object;
pub mod output;
pub mod stream;

pub use a2a_runtime_types::TraceContext;
pub use extract::{FromInvocation, IncomingMessage, Invocation, State};
pub use input::normalize_numbers;
pub use input::{DecodedInput, InputError};
pub use object::{
    FieldFns, InputObject, InputProperty, InputSchema, Invalid, IsSkillInput, Probe, Valid,
    ViaNothing, ViaSerde, checked, input_fields, input_value,
};
pub use output::{IntoSkillOutput, Json, SkillOutput};
pub use output::{
    StructuredOutput, direct_output, direct_schema, structured_output, structured_schema,
};
pub use stream::IntoChunk;
pub use stream::drive as drive_stream;

use crate::skill_error::SkillError;

/// What running a skill produces.
pub type SkillResult = Result<SkillOutput, SkillError>;
