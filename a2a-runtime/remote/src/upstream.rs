//! One remote A2A agent as the host reaches it: its client, made on first use and again after
//! the remote was unreachable, every call bounded in time, and every failure told to the caller
//! as an error naming the remote.

use std::collections::BTreeMap;
use std::sync::{Arc, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::Mutex;

use crate::failure::{FAILED, INVALID_ANSWER, UNAVAILABLE, remote_failure};
use a2a_runtime_client::{A2aClient, ClientBuilder, ClientError, ClientIdentity, CredentialSource};
use a2a_runtime_core::defined_agent::Reach;
use a2a_runtime_core::skill_error::SkillError;

/// How soon after a failed attempt to reach a remote a call tries again; calls in between fail
/// at once with that attempt's reason.
const RETRY_AFTER: Duration = Duration::from_secs(1);

/// The client of a remote, and the last failed attempt to make one.
#[derive(Default)]
struct Slot {
    client: Option<Arc<A2aClient>>,
    failed: Option<(Instant, String)>,
}

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
    /// Where the bearer token sent with every request comes from, when it changes (OAuth
    /// client credentials at the remote's authorization server), never the caller's.
    pub credential_source: Option<Arc<dyn CredentialSource>>,
    /// The client certificate shown to a remote whose TLS asks for one.
    pub identity: Option<ClientIdentity>,
    /// OAuth scopes a caller needs, by the remote's skill id.
    pub scopes: BTreeMap<String, Vec<String>>,
}

impl Default for RemoteA2aSettings {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(5),
            max_response_bytes: 4 << 20,
            headers: Vec::new(),
            credential_source: None,
            identity: None,
            scopes: BTreeMap::new(),
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
    /// The client, once the remote was reached; held while it is being reached, so callers
    /// arriving meanwhile wait for that one attempt instead of making their own.
    client: Mutex<Slot>,
    /// How the remote was last found.
    reach: std::sync::Mutex<Reach>,
}

impl Upstream {
    pub(crate) fn new(id: String, url: String, settings: RemoteA2aSettings) -> Self {
        Self {
            id,
            url,
            settings,
            client: Mutex::new(Slot::default()),
            reach: std::sync::Mutex::new(Reach::NotYet),
        }
    }

    /// The scopes a caller needs, by the remote's skill id.
    pub(crate) fn scopes(&self) -> &BTreeMap<String, Vec<String>> {
        &self.settings.scopes
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
        if let Some(source) = &self.settings.credential_source {
            builder = builder.credential_source(Arc::clone(source));
        }
        if let Some(identity) = &self.settings.identity {
            builder = builder.identity(identity.clone());
        }
        builder
    }

    /// Reads the remote's card and makes a client of it (replacing the one kept).
    pub(crate) async fn connect(&self) -> Result<Arc<A2aClient>, ClientError> {
        let mut slot = self.client.lock().await;
        self.connect_in(&mut slot).await
    }

    async fn connect_in(&self, slot: &mut Slot) -> Result<Arc<A2aClient>, ClientError> {
        match self.builder().connect().await {
            Ok(client) => {
                let client = Arc::new(client);
                slot.client = Some(Arc::clone(&client));
                slot.failed = None;
                self.found(Reach::Reached);
                Ok(client)
            }
            Err(error) => {
                slot.failed = Some((Instant::now(), error.to_string()));
                self.found(Reach::Unreachable(error.to_string()));
                Err(error)
            }
        }
    }

    /// The client kept, or a new one; within [`RETRY_AFTER`] of a failed attempt, that
    /// attempt's failure, at once (a dead remote is not asked again by every caller).
    pub(crate) async fn client(&self) -> Result<Arc<A2aClient>, SkillError> {
        let mut slot = self.client.lock().await;
        if let Some(client) = &slot.client {
            return Ok(Arc::clone(client));
        }
        if let Some((at, why)) = &slot.failed
            && at.elapsed() < RETRY_AFTER
        {
            return Err(self.unreachable_because(why));
        }
        self.connect_in(&mut slot)
            .await
            .map_err(|e| self.unreachable(&e))
    }

    /// The client kept, if the remote was reached.
    pub(crate) async fn kept(&self) -> Option<Arc<A2aClient>> {
        self.client.lock().await.client.clone()
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
        remote_failure(&self.id, self.named(&reason), FAILED)
    }

    /// A call to the remote that failed: unreachable (no answer, or none in time), a protocol
    /// error it answered, or an answer the host cannot read (too large, not what the protocol
    /// says), each told apart in the error's `reason`.
    pub(crate) fn failed(&self, error: &ClientError) -> SkillError {
        let (what, reason) = match error {
            ClientError::Remote(_) => ("answered an error", FAILED),
            ClientError::InvalidResponse { .. } | ClientError::TooLarge { .. } => {
                ("answered what the host cannot read", INVALID_ANSWER)
            }
            ClientError::Http { status, .. } if *status < 500 && *status != 429 => {
                ("refused the call", FAILED)
            }
            _ => return self.unreachable(error),
        };
        remote_failure(&self.id, self.named(&format!("{what}: {error}")), reason)
    }

    /// The remote could not be reached or read.
    pub(crate) fn unreachable(&self, error: &ClientError) -> SkillError {
        self.found(Reach::Unreachable(error.to_string()));
        self.unreachable_because(&error.to_string())
    }

    fn unreachable_because(&self, why: &str) -> SkillError {
        remote_failure(
            &self.id,
            self.named(&format!("unreachable: {why}")),
            UNAVAILABLE,
        )
    }
}
