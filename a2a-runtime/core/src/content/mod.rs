//! MCP resources and prompts declared with `#[resource]` and `#[prompt]`: their descriptors, the
//! values their fns return, how their parameters are filled (template variables, prompt
//! arguments, injected state), and the catalog of one agent's (`catalog.rs`). The MCP front-end
//! renders them; nothing here is protocol-specific.

pub mod argument;
pub mod catalog;
pub mod completion;
pub mod context;
pub mod defined;
/// The link-time registrations, for generated code.
pub mod catalog_registrations {
    pub use super::catalog::{PromptRegistration, ResourceRegistration};
}
pub mod prompt;
pub mod resource;
pub mod template;
pub mod updates;

use std::any::Any;
use std::collections::HashMap;
use std::sync::Arc;

pub use argument::{Argument, ChoicesProbe, FromArgument, FromRead, ViaChoices, ViaNoChoices};
pub use argument::{optional, required};
pub use catalog::Catalog;
pub use completion::{Completer, Completion};
pub use context::PromptContext;
pub use defined::{ContentSource, DefinedContent, DefinedPrompt, DefinedResource};
pub use prompt::{
    IntoPromptMessages, PromptContent, PromptDef, PromptDescriptor, PromptMessage, PromptParts,
    PromptRole,
};
pub use resource::{
    IntoResourceContents, ResourceBody, ResourceContent, ResourceDef, ResourceDescriptor,
    ResourceParts,
};
pub use template::UriTemplate;
pub use updates::ARTIFACT_TEMPLATE;
pub use updates::ResourceUpdates;

use crate::agent::Agent;
use crate::auth::Caller;
use crate::skill_error::SkillError;

/// How a `#[resource]` or `#[prompt]` fn is called: one read or get, to its result.
pub type Reader<T> =
    fn(ReadRequest) -> a2a_runtime_types::BoxFuture<'static, Result<T, SkillError>>;

/// One read of a resource or get of a prompt: the values of its parameters by name (template
/// variables, prompt arguments), who asks, and the agent's state.
pub struct ReadRequest {
    pub uri: String,
    pub values: HashMap<String, String>,
    pub caller: Caller,
    pub state: Arc<dyn Any + Send + Sync>,
    /// Where a prompt's questions go; `None` where nothing may be asked (resources).
    pub asker: Option<Arc<dyn crate::ask::Asker>>,
    /// Fires when the request is abandoned.
    pub cancel: tokio_util::sync::CancellationToken,
}

impl std::fmt::Debug for ReadRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadRequest")
            .field("uri", &self.uri)
            .field("values", &self.values)
            .finish_non_exhaustive()
    }
}

impl ReadRequest {
    /// The URI read (empty for a prompt).
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// Who asks.
    pub fn caller(&self) -> &Caller {
        &self.caller
    }

    /// The value given for parameter `name`, if any.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// The running agent's state, if it is an `A`.
    pub fn state<A: Agent>(&self) -> Option<Arc<A>> {
        Arc::clone(&self.state).downcast::<A>().ok()
    }
}
