//! What a `#[prompt]` or `#[resource]` fn may take besides its arguments: who asks, and a way
//! to ask them for more.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use tokio_util::sync::CancellationToken;

use super::ReadRequest;
use super::argument::FromRead;
use crate::ask::{AskError, Asker, Asking, QuestionSet, Root, Sampled, Sampling};
use crate::auth::Caller;
use crate::skill_error::SkillError;

/// Injected into `#[prompt]` and `#[resource]` fns that take a `PromptContext` parameter: the
/// caller, and the same questions a skill's [`TaskContext`](crate::context::TaskContext) can put.
///
/// Getting a prompt may ask: an MCP client on protocol 2026-07-28 gets an input-required
/// result and retries with the answers, and the prompt fn is then run again from the start,
/// the answers given so far handed back in order, so it must not do anything it cannot do
/// twice; a 2025-era session is asked with `elicitation/create` while the request waits.
/// Reading a resource never asks: there every question fails as unsupported.
#[derive(Clone)]
pub struct PromptContext {
    caller: Caller,
    asker: Option<Arc<dyn Asker>>,
    cancel: CancellationToken,
}

impl std::fmt::Debug for PromptContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PromptContext")
            .field("caller", &self.caller)
            .field("can_ask", &self.asker.is_some())
            .finish()
    }
}

impl PromptContext {
    /// Who asks.
    pub fn caller(&self) -> &Caller {
        &self.caller
    }

    /// Asks the caller for a `T`, as [`TaskContext::ask`](crate::context::TaskContext::ask) does.
    ///
    /// # Errors
    ///
    /// As for [`TaskContext::ask`](crate::context::TaskContext::ask).
    pub async fn ask<T>(&self, prompt: impl Into<String>) -> Result<T, AskError>
    where
        T: DeserializeOwned + JsonSchema,
    {
        self.asking().input(None, prompt.into()).await
    }

    /// Asks under a name, as [`TaskContext::ask_named`](crate::context::TaskContext::ask_named) does.
    ///
    /// # Errors
    ///
    /// As for [`TaskContext::ask`](crate::context::TaskContext::ask).
    pub async fn ask_named<T>(
        &self,
        name: impl Into<String>,
        prompt: impl Into<String>,
    ) -> Result<T, AskError>
    where
        T: DeserializeOwned + JsonSchema,
    {
        self.asking().input(Some(name.into()), prompt.into()).await
    }

    /// Asks several things at once, as [`TaskContext::ask_all`](crate::context::TaskContext::ask_all)
    /// does.
    ///
    /// # Errors
    ///
    /// As for [`TaskContext::ask_all`](crate::context::TaskContext::ask_all).
    pub async fn ask_all<S: QuestionSet>(&self, set: S) -> Result<S::Output, AskError> {
        self.asking().ask_all(set).await
    }

    /// Asks the caller's model, as [`TaskContext::sample`](crate::context::TaskContext::sample) does.
    ///
    /// # Errors
    ///
    /// As for [`TaskContext::sample`](crate::context::TaskContext::sample).
    pub async fn sample(&self, request: Sampling) -> Result<Sampled, AskError> {
        self.asking().sample(request).await
    }

    /// The caller's roots, as [`TaskContext::roots`](crate::context::TaskContext::roots) lists them.
    ///
    /// # Errors
    ///
    /// As for [`TaskContext::roots`](crate::context::TaskContext::roots).
    pub async fn roots(&self) -> Result<Vec<Root>, AskError> {
        self.asking().roots().await
    }

    fn asking(&self) -> Asking<'_> {
        Asking::new(self.asker.as_ref(), &self.cancel)
    }
}

impl<A> FromRead<A> for PromptContext {
    fn from_read(request: &ReadRequest) -> Result<Self, SkillError> {
        Ok(Self {
            caller: request.caller.clone(),
            asker: request.asker.clone(),
            cancel: request.cancel.clone(),
        })
    }
}
