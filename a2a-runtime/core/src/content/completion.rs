//! Completions an argument offers beyond its type's values: a completer fn named with
//! `#[arg(complete = path)]`, asked with what the client typed so far.

use std::any::Any;
use std::collections::HashMap;
use std::sync::Arc;

use crate::agent::Agent;
use crate::auth::Caller;
use a2a_runtime_types::util::BoxFuture;

/// How a completer fn is called (`#[arg(complete = my_fn)]` on a prompt argument or template
/// variable, where `async fn my_fn(request: Completion) -> Vec<String>`).
pub type Completer = fn(Completion) -> BoxFuture<'static, Vec<String>>;

/// One `completion/complete` request for an argument: what the client typed so far, the values
/// of the other arguments it already chose, who asks, and the agent's state.
pub struct Completion {
    pub value: String,
    pub arguments: HashMap<String, String>,
    pub caller: Caller,
    pub state: Arc<dyn Any + Send + Sync>,
}

impl std::fmt::Debug for Completion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Completion")
            .field("value", &self.value)
            .field("arguments", &self.arguments)
            .finish_non_exhaustive()
    }
}

impl Completion {
    /// What the client typed so far (may be empty).
    pub fn value(&self) -> &str {
        &self.value
    }

    /// The value the client already chose for another argument, if any.
    pub fn argument(&self, name: &str) -> Option<&str> {
        self.arguments.get(name).map(String::as_str)
    }

    /// Who asks.
    pub fn caller(&self) -> &Caller {
        &self.caller
    }

    /// The running agent's state, if it is an `A`.
    pub fn state<A: Agent>(&self) -> Option<Arc<A>> {
        Arc::clone(&self.state).downcast::<A>().ok()
    }
}
