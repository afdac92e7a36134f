//! [`RemoteA2aAgent`]: a remote A2A agent (any language, any binding the client speaks) as a
//! [`DefinedAgent`]: its card read at mount and followed while it is served (read again as
//! often as its `Cache-Control` says), each of its skills forwarded to it.

use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::definition;
use super::follow::{Followed, REFRESH, SAID_REFRESH, follow};
use super::forward::Forward;
use super::upstream::{RemoteA2aSettings, Upstream};
use a2a_runtime_client::AgentCard;
use a2a_runtime_core::about::AgentAbout;
use a2a_runtime_core::defined_agent::{DefinedAgent, Reach};
use a2a_runtime_core::dispatch::Dispatcher;
use a2a_runtime_core::registry::{DefinedSkill, RunSkill};
use a2a_runtime_types::util::BoxFuture;

/// A remote A2A agent fronted by the host.
pub struct RemoteA2aAgent {
    upstream: Arc<Upstream>,
    /// The card last read, if any.
    card: Mutex<Option<Arc<AgentCard>>>,
    /// How long the remote said its card stays fresh, when last read or revalidated.
    fresh_for: Mutex<Option<Duration>>,
}

impl std::fmt::Debug for RemoteA2aAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteA2aAgent")
            .field("id", &self.upstream.id)
            .field("url", &self.upstream.url)
            .finish_non_exhaustive()
    }
}

impl RemoteA2aAgent {
    /// The agent at `url` (its base URL or its card's), mounted as `id`; its card is read by
    /// [`connect`](Self::connect) or, failing that, while it is served.
    pub fn new(id: impl Into<String>, url: impl Into<String>, settings: RemoteA2aSettings) -> Self {
        Self {
            upstream: Arc::new(Upstream::new(id.into(), url.into(), settings)),
            card: Mutex::new(None),
            fresh_for: Mutex::new(None),
        }
    }

    /// Reads the remote's card now; an unreachable remote is an error (it is still served, and
    /// tried again while it is).
    pub async fn connect(&self) -> Result<(), a2a_runtime_client::ClientError> {
        let client = self.upstream.connect().await?;
        self.keep(client.card());
        self.said_fresh(&client);
        Ok(())
    }

    /// Its id on the host.
    pub fn id(&self) -> &str {
        &self.upstream.id
    }

    fn said_fresh(&self, client: &a2a_runtime_client::A2aClient) {
        let said = client.card_fresh_for();
        *self
            .fresh_for
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = said;
    }

    fn keep(&self, card: Arc<AgentCard>) {
        *self.card.lock().unwrap_or_else(PoisonError::into_inner) = Some(card);
    }

    fn card(&self) -> Option<Arc<AgentCard>> {
        self.card
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Reads the card again (connecting first if the remote was never reached); whether the
    /// definition changed.
    async fn refresh(&self) -> Result<bool, a2a_runtime_client::ClientError> {
        let Some(client) = self.upstream.kept().await else {
            self.connect().await?;
            return Ok(true);
        };
        let changed = match client.refresh_card().await {
            Ok(changed) => changed,
            Err(error) => {
                self.upstream.found(Reach::Unreachable(error.to_string()));
                return Err(error);
            }
        };
        self.upstream.found(Reach::Reached);
        self.said_fresh(&client);
        if changed {
            self.keep(client.card());
        }
        Ok(changed)
    }
}

impl DefinedAgent for RemoteA2aAgent {
    fn reach(&self) -> Reach {
        self.upstream.reach()
    }

    fn declared_scopes(&self) -> Vec<String> {
        self.upstream.scopes().values().flatten().cloned().collect()
    }

    fn prepare(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if let Err(error) = self.connect().await {
                tracing::warn!(remote = %self.upstream.id, %error, "remote agent unreachable at start; served without skills until it answers");
            }
        })
    }

    fn definition(&self) -> (AgentAbout, Vec<DefinedSkill>) {
        let upstream = &self.upstream;
        let Some(card) = self.card() else {
            let about = AgentAbout::named(
                format!("remote:{}", upstream.id),
                upstream.id.clone(),
                format!("The remote agent at {}, not reached yet.", upstream.url),
            );
            return (about, Vec::new());
        };
        let body = |remote_id: &str, structured: bool| -> Arc<dyn RunSkill> {
            Arc::new(Forward {
                upstream: Arc::clone(upstream),
                skill: remote_id.to_owned(),
                structured,
            })
        };
        let skills =
            definition::skills(&upstream.id, &upstream.url, &card, upstream.scopes(), body);
        let about = definition::about(&upstream.id, &card);
        (about, skills)
    }

    fn follow(
        self: Arc<Self>,
        dispatcher: Weak<Dispatcher>,
        stop: CancellationToken,
    ) -> BoxFuture<'static, ()> {
        Box::pin(async move { follow(&*self, dispatcher, stop).await })
    }
}

impl Followed for RemoteA2aAgent {
    fn id(&self) -> &str {
        &self.upstream.id
    }

    fn read_once(&self) -> bool {
        self.card().is_some()
    }

    async fn reread(&self) -> Result<bool, String> {
        self.refresh().await.map_err(|error| error.to_string())
    }

    /// As long as the card's `Cache-Control` says it stays fresh, within [`SAID_REFRESH`].
    fn next_read(&self) -> Duration {
        let said = *self
            .fresh_for
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        said.map_or(REFRESH, |fresh| fresh.clamp(SAID_REFRESH.0, SAID_REFRESH.1))
    }
}
