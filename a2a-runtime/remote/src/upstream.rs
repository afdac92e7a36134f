//! One remote A2A agent as the host reaches it: its client, made on first use and again after
//! the remote was unreachable, every call bounded in time, and every failure told to the caller
//! as an error naming the remote.

use std::sync::{Arc, PoisonError};
use std::time::Duration;

use serde_json::json;
use tokio::sync::Mutex;

use a2a_runtime_client::{A2aClient, ClientBuilder, ClientError};
use a2a_runtime_core::defined_agent::Reach;
use a2a_runtime_core::skill_error::SkillError;

/// How the host reaches a remote A2A agent.
#[derive(Debug, Clone)]
pub struct RemoteA2aSettings {
    /// The longest one call to the remote may take (a stream: between two events).
    pub timeout: Duration,
    /// The longest connecting may take.
    pub connect_timeout: Duration,
    /// The largest card or answer read from the remote.
    pub max_response_bytes: usize,
    /// Headers sent with every request to the remote (its credential), never the caller's.
    pub headers: Vec<(String, String)>,
}

impl Default for RemoteA2aSettings {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(5),
            max_response_bytes: 4 << 20,
            headers: Vec::new(),
        }
    }
}

/// A remote A2A agent and the client that reaches it.
pub(crate) struct Upstream {
    /// Its id on the host.
    pub(crate) id: String,
    /// Its base URL or card URL, as configured.
    pub(crate) url: String,
    settings: RemoteA2aSettings,
    client: Mutex<Option<Arc<A2aClient>>>,
    /// How the remote was last found.
    reach: std::sync::Mutex<Reach>,
}

impl Upstream {
    pub(crate) fn new(id: String, url: String, settings: RemoteA2aSettings) -> Self {
        Self {
            id,
            url,
            settings,
            client: Mutex::new(None),
            reach: std::sync::Mutex::new(Reach::NotYet),
        }
    }

    /// How the remote was last found.
    pub(crate) fn reach(&self) -> Reach {
        self.reach
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The remote was found as `reach` says.
    pub(crate) fn found(&self, reach: Reach) {
        *self.reach.lock().unwrap_or_else(PoisonError::into_inner) = reach;
    }

    /// A builder of this remote's client, as configured.
    fn builder(&self) -> ClientBuilder {
        let mut builder = A2aClient::builder(self.url.clone())
            .timeout(self.settings.timeout)
            .connect_timeout(self.settings.connect_timeout)
            .stream_idle_timeout(self.settings.timeout)
            .max_response_bytes(self.settings.max_response_bytes);
        for (name, value) in &self.settings.headers {
            builder = builder.header(name, value);
        }
        builder
    }

    /// Reads the remote's card and makes a client of it (replacing the one kept).
    pub(crate) async fn connect(&self) -> Result<Arc<A2aClient>, ClientError> {
        let client = match self.builder().connect().await {
            Ok(client) => Arc::new(client),
            Err(error) => {
                self.found(Reach::Unreachable(error.to_string()));
                return Err(error);
            }
        };
        self.found(Reach::Reached);
        *self.client.lock().await = Some(Arc::clone(&client));
        Ok(client)
    }

    /// The client kept, or a new one.
    pub(crate) async fn client(&self) -> Result<Arc<A2aClient>, SkillError> {
        if let Some(client) = self.client.lock().await.as_ref() {
            return Ok(Arc::clone(client));
        }
        self.connect().await.map_err(|e| self.unreachable(&e))
    }

    /// The client kept, if the remote was reached.
    pub(crate) async fn kept(&self) -> Option<Arc<A2aClient>> {
        self.client.lock().await.clone()
    }

    /// Cancels the remote's task `id`, within the call timeout; a failure is logged (the
    /// host's task is canceled either way).
    pub(crate) async fn cancel(&self, client: &A2aClient, id: &str) {
        let canceled = tokio::time::timeout(self.settings.timeout, client.cancel_task(id)).await;
        match canceled {
            Ok(Ok(_)) => {}
            Ok(Err(error)) => {
                tracing::warn!(remote = %self.id, task = id, %error, "the remote task was not canceled");
            }
            Err(_) => {
                tracing::warn!(remote = %self.id, task = id, "canceling the remote task timed out");
            }
        }
    }

    /// `text` said of this remote.
    pub(crate) fn named(&self, text: &str) -> String {
        format!("remote agent `{}` ({}): {text}", self.id, self.url)
    }

    /// The remote answered, but not with what the call needs.
    pub(crate) fn refusal(&self, reason: String) -> SkillError {
        SkillError::new(self.named(&reason))
            .with_data(json!({ "remote": self.id, "reason": "REMOTE_FAILED" }))
    }

    /// The remote could not be reached or read.
    pub(crate) fn unreachable(&self, error: &ClientError) -> SkillError {
        self.found(Reach::Unreachable(error.to_string()));
        SkillError::new(self.named(&format!("unreachable: {error}")))
            .with_data(json!({ "remote": self.id, "reason": "REMOTE_UNAVAILABLE" }))
    }
}
