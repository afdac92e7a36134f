//! One remote MCP server as the host reaches it: its session, opened on first use and again
//! after it ended (a stdio server is started again), with backoff between failed attempts; its
//! tool list read page by page, bounded; every failure told as an error naming the remote.

use std::sync::{Arc, PoisonError};
use std::time::{Duration, Instant};

use rmcp::model::{PaginatedRequestParams, Tool};
use rmcp::service::RunningService;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{RoleClient, ServiceExt};
use tokio::sync::{Mutex, Notify};
use tokio_util::sync::DropGuard;

use super::child;
use super::relay::{Calls, Relay};
use super::settings::{McpSource, RemoteMcpSettings};
use crate::failure::{FAILED, UNAVAILABLE, remote_failure};
use a2a_runtime_core::defined_agent::Reach;
use a2a_runtime_core::skill_error::SkillError;

/// The first pause after a failed attempt to open a session; each further failure doubles it,
/// up to [`LAST_RETRY`]. Calls in between fail at once with the last attempt's reason.
const FIRST_RETRY: Duration = Duration::from_secs(1);
/// The longest pause between two attempts.
const LAST_RETRY: Duration = Duration::from_secs(60);
/// The most pages of a tool list read.
pub(crate) const MAX_PAGES: usize = 32;
/// The most tools kept from one remote.
pub(crate) const MAX_TOOLS: usize = 256;

/// An open session with the remote.
pub(crate) struct Session {
    pub(crate) service: RunningService<RoleClient, Relay>,
    pub(crate) calls: Arc<Calls>,
    /// Stops a stdio server's process when the session is dropped.
    _process: Option<DropGuard>,
}

impl Session {
    fn is_open(&self) -> bool {
        !self.service.peer().is_transport_closed()
    }
}

/// The session, and the failed attempts since the last one opened.
#[derive(Default)]
struct Slot {
    session: Option<Arc<Session>>,
    failed: Option<(Instant, String)>,
    failures: u32,
}

/// A remote MCP server and the session that reaches it.
pub(crate) struct McpLink {
    /// Its id on the host.
    pub(crate) id: String,
    pub(crate) source: McpSource,
    pub(crate) settings: RemoteMcpSettings,
    slot: Mutex<Slot>,
    reach: std::sync::Mutex<Reach>,
    /// Told when the remote's tools may have changed (it said so, or its session ended).
    pub(crate) changed: Arc<Notify>,
}

impl McpLink {
    pub(crate) fn new(id: String, source: McpSource, settings: RemoteMcpSettings) -> Self {
        Self {
            id,
            source,
            settings,
            slot: Mutex::new(Slot::default()),
            reach: std::sync::Mutex::new(Reach::NotYet),
            changed: Arc::new(Notify::new()),
        }
    }

    /// How the remote was last found.
    pub(crate) fn reach(&self) -> Reach {
        self.reach
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn found(&self, reach: Reach) {
        *self.reach.lock().unwrap_or_else(PoisonError::into_inner) = reach;
    }

    /// The remote's session ended (its process exited): it is opened again when next needed.
    pub(crate) fn ended(&self, why: String) {
        self.found(Reach::Unreachable(why));
        self.changed.notify_one();
    }

    /// The open session, or a new one; after a failed attempt, that attempt's failure until the
    /// backoff has passed (a dead remote is not started again by every caller).
    pub(crate) async fn session(self: &Arc<Self>) -> Result<Arc<Session>, SkillError> {
        let mut slot = self.slot.lock().await;
        if let Some(session) = &slot.session {
            if session.is_open() {
                return Ok(Arc::clone(session));
            }
            slot.session = None;
        }
        if let Some((at, why)) = &slot.failed {
            let backoff = FIRST_RETRY.saturating_mul(1 << slot.failures.min(6));
            if at.elapsed() < backoff.min(LAST_RETRY) {
                return Err(self.unreachable(why));
            }
        }
        let opened = tokio::time::timeout(self.settings.connect_timeout, self.open()).await;
        let opened = opened.unwrap_or_else(|_| {
            Err(format!(
                "no session within {}",
                a2a_runtime_types::util::duration_text(self.settings.connect_timeout)
            ))
        });
        match opened {
            Ok(session) => {
                let session = Arc::new(session);
                *slot = Slot {
                    session: Some(Arc::clone(&session)),
                    ..Slot::default()
                };
                self.found(Reach::Reached);
                Ok(session)
            }
            Err(why) => {
                slot.failures = slot.failures.saturating_add(1);
                slot.failed = Some((Instant::now(), why.clone()));
                self.found(Reach::Unreachable(why.clone()));
                Err(self.unreachable(&why))
            }
        }
    }

    /// Opens a session: over streamable HTTP, or with a newly started process's stdio.
    async fn open(self: &Arc<Self>) -> Result<Session, String> {
        let calls = Arc::new(Calls::default());
        let relay = Relay {
            remote: self.id.clone(),
            calls: Arc::clone(&calls),
            changed: Arc::clone(&self.changed),
        };
        let (service, process) = match &self.source {
            McpSource::Http(url) => {
                let (credential, identity) = (&self.settings.credential, &self.settings.identity);
                let transport = a2a_runtime_client::streamable_http(
                    url,
                    credential.as_ref(),
                    identity.as_ref(),
                )
                .map_err(|e| e.to_string())?;
                (relay.serve(transport).await, None)
            }
            McpSource::Stdio(command) => {
                let link = Arc::downgrade(self);
                let exited = move |why: String| {
                    if let Some(link) = link.upgrade() {
                        link.ended(why);
                    }
                };
                let started = child::start(command, &self.id, exited)?;
                let transport = AsyncRwTransport::new_client(started.stdout, started.stdin)
                    .with_max_line_length(self.settings.max_message_bytes);
                (relay.serve(transport).await, Some(started.stop))
            }
        };
        let service = service.map_err(|e| format!("the session could not start: {e}"))?;
        Ok(Session {
            service,
            calls,
            _process: process,
        })
    }

    /// Forgets `session` after it failed, so the next call opens another.
    pub(crate) async fn drop_session(&self, session: &Arc<Session>) {
        let mut slot = self.slot.lock().await;
        if slot
            .session
            .as_ref()
            .is_some_and(|kept| Arc::ptr_eq(kept, session))
        {
            slot.session = None;
        }
    }

    /// Ends the session (a stdio server's process is stopped).
    pub(crate) async fn close(&self) {
        self.slot.lock().await.session = None;
    }

    /// The remote's tools: every page, each read within the call timeout, at most
    /// [`MAX_TOOLS`].
    pub(crate) async fn tools(self: &Arc<Self>) -> Result<Vec<Tool>, SkillError> {
        let session = self.session().await?;
        let peer = session.service.peer();
        let mut tools = Vec::new();
        let mut cursor = None;
        for _ in 0..MAX_PAGES {
            let params = PaginatedRequestParams::default().with_cursor(cursor);
            let page = tokio::time::timeout(self.settings.timeout, peer.list_tools(Some(params)));
            let page = match page.await {
                Ok(Ok(page)) => page,
                Ok(Err(error)) => return Err(self.failed(&session, error).await),
                Err(_) => return Err(self.unreachable("tools/list was not answered in time")),
            };
            tools.extend(page.tools);
            cursor = page.next_cursor.filter(|next| !next.is_empty());
            if cursor.is_none() || tools.len() >= MAX_TOOLS {
                break;
            }
        }
        if tools.len() > MAX_TOOLS || cursor.is_some() {
            tracing::warn!(remote = %self.id, "more tools than the host serves; the first {MAX_TOOLS} kept");
            tools.truncate(MAX_TOOLS);
        }
        self.found(Reach::Reached);
        Ok(tools)
    }

    /// What the remote said of itself when the session opened: its name, title, version and
    /// instructions.
    pub(crate) async fn server_info(&self) -> Option<serde_json::Value> {
        let slot = self.slot.lock().await;
        let info = slot.session.as_ref()?.service.peer().peer_info()?;
        serde_json::to_value(&*info).ok()
    }

    /// What the remote is, for messages: its URL, or its command.
    pub(crate) fn label(&self) -> String {
        match &self.source {
            McpSource::Http(url) => url.clone(),
            McpSource::Stdio(command) => command.join(" "),
        }
    }

    /// `text` said of this remote.
    pub(crate) fn named(&self, text: &str) -> String {
        format!("remote MCP server `{}` ({}): {text}", self.id, self.label())
    }

    /// A request on `session` failed: a protocol error the remote answered, or the session
    /// lost (forgotten, so the next call opens another).
    pub(crate) async fn failed(
        &self,
        session: &Arc<Session>,
        error: rmcp::ServiceError,
    ) -> SkillError {
        if let rmcp::ServiceError::McpError(error) = &error {
            let message = self.named(&format!("answered an error: {}", error.message));
            return remote_failure(&self.id, message, FAILED);
        }
        self.drop_session(session).await;
        self.found(Reach::Unreachable(error.to_string()));
        self.unreachable(&error.to_string())
    }

    /// The remote could not be reached, or did not answer in time.
    pub(crate) fn unreachable(&self, why: &str) -> SkillError {
        remote_failure(
            &self.id,
            self.named(&format!("unreachable: {why}")),
            UNAVAILABLE,
        )
    }
}
