//! MCP sessions (protocol 2025-11-25 and earlier) over streamable HTTP: rmcp's session manager,
//! with a session's plain requests answered on the HTTP request's own task.
//!
//! rmcp runs every session as a worker task beside the session's serve loop: a request's POST
//! hands its message to the worker, the worker to the serve loop, the serve loop spawns the
//! handler, and the answer travels back the same way — four tasks and their wake-ups for one
//! `tools/call`, where a stateless call takes one. Here, once a session has answered
//! `initialize`, its plain requests (the methods `inline::answered_inline` names) are answered
//! where they arrive, by the session's own handler and peer. Whatever that handler sends the
//! client meanwhile (progress, a question) still leaves through the serve loop, whose transport
//! ([`SessionTransport`]) routes it to the call's stream. Everything else — `initialize`,
//! notifications, the client's answers to the server's questions, the standalone stream,
//! resumption, restore from another replica — stays rmcp's.
//!
//! rmcp's worker ends a session it has not heard from for the idle time, and it hears nothing of
//! a request answered inline; so a session whose worker has not heard from it for a quarter of
//! that time has its next request go through the worker.

mod inline;

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures::{Stream, StreamExt};
use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, JsonRpcNotification, ServerJsonRpcMessage,
};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{
    EventStore, RestoreOutcome, ServerSseMessage, SessionId, SessionManager,
};

use inline::Session;
pub(crate) use inline::SessionSlot;
pub use inline::SessionTransport;
pub use inline::asked_for;

/// The MCP sessions of one endpoint.
pub struct McpSessions {
    rmcp: LocalSessionManager,
    open: Arc<Registry>,
    /// How long a session's worker may go without hearing from it before its next request
    /// goes through the worker (a quarter of the idle time after which the worker ends it).
    touch_every: Duration,
}

/// The sessions this process serves, by id: what answers their requests inline.
struct Registry {
    sessions: RwLock<HashMap<SessionId, Arc<Session>>>,
    /// When this registry began: sessions note when their worker last heard from them as the
    /// milliseconds since.
    epoch: Instant,
}

impl Registry {
    fn get(&self, id: &SessionId) -> Option<Arc<Session>> {
        let sessions = self.sessions.read().unwrap_or_else(|e| e.into_inner());
        sessions.get(id).cloned()
    }

    fn insert(&self, id: SessionId) -> Arc<Session> {
        let session = Arc::new(Session::new(self.now()));
        let mut sessions = self.sessions.write().unwrap_or_else(|e| e.into_inner());
        sessions.insert(id, Arc::clone(&session));
        session
    }

    /// Forgets session `id`, if it is still `session` (a restored session of the same id may
    /// have taken its place).
    fn remove(&self, id: &SessionId, session: &Arc<Session>) {
        let mut sessions = self.sessions.write().unwrap_or_else(|e| e.into_inner());
        if sessions
            .get(id)
            .is_some_and(|kept| Arc::ptr_eq(kept, session))
        {
            sessions.remove(id);
        }
    }

    fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}

impl McpSessions {
    /// Sessions that end after `idle` without a message from their client.
    pub fn new(idle: Duration) -> Self {
        let mut rmcp = LocalSessionManager::default();
        rmcp.session_config.keep_alive = Some(idle);
        Self {
            rmcp,
            open: Arc::new(Registry {
                sessions: RwLock::default(),
                epoch: Instant::now(),
            }),
            touch_every: idle / 4,
        }
    }

    /// How many sessions are open.
    pub async fn count(&self) -> usize {
        self.rmcp.sessions.read().await.len()
    }

    /// How many sessions are open, if that can be read without waiting.
    pub fn try_count(&self) -> Option<usize> {
        self.rmcp
            .sessions
            .try_read()
            .ok()
            .map(|sessions| sessions.len())
    }

    fn wrap(&self, id: SessionId, rmcp: inline::RmcpTransport) -> SessionTransport {
        let session = self.open.insert(id.clone());
        let registry = Arc::clone(&self.open);
        SessionTransport::new(rmcp, session, move |session| registry.remove(&id, session))
    }

    /// Session `id`, noted as heard by its worker now (the message is about to go there).
    fn heard(&self, id: &SessionId) {
        if let Some(session) = self.open.get(id) {
            session.heard_at(self.open.now());
        }
    }

    fn touch_every_ms(&self) -> u64 {
        u64::try_from(self.touch_every.as_millis()).unwrap_or(u64::MAX)
    }
}

impl SessionManager for McpSessions {
    type Error = LocalSessionManagerError;
    type Transport = SessionTransport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let (id, rmcp) = self.rmcp.create_session().await?;
        let transport = self.wrap(id.clone(), rmcp);
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        mut message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        if let Some(session) = self.open.get(id) {
            // The handler's `initialize` leaves itself and its peer here (`SessionSlot::fill`).
            message.insert_extension(SessionSlot::new(session));
        }
        self.rmcp.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.rmcp.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        if let Some(session) = self.open.get(id) {
            session.end();
            self.open.remove(id, &session);
        }
        self.rmcp.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        mut message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        if let Some(session) = self.open.get(id) {
            let now = self.open.now();
            if session.heard_within(now, self.touch_every_ms())
                && let ClientJsonRpcMessage::Request(request) = message
            {
                match session.answerer(&request.request) {
                    Some(open) => {
                        let call = session.answer(open, request);
                        let call = call.map(ServerSseMessage::from_message);
                        return Ok(SyncStream::new(call.left_stream()));
                    }
                    None => message = ClientJsonRpcMessage::Request(request),
                }
            }
            session.heard_at(now);
        }
        let stream = self.rmcp.create_stream(id, message).await?;
        Ok(SyncStream::new(stream.right_stream()))
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        if let Some(session) = self.open.get(id) {
            session.heard_at(self.open.now());
            if let ClientJsonRpcMessage::Notification(JsonRpcNotification {
                notification: ClientNotification::CancelledNotification(cancelled),
                ..
            }) = &message
                && let Some(request) = &cancelled.params.request_id
            {
                session.cancel(request);
            }
        }
        // rmcp's serve loop sees every notification too: it ignores the cancellation of a
        // request it never had.
        self.rmcp.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.heard(id);
        let stream = self.rmcp.create_standalone_stream(id).await?;
        Ok(SyncStream::new(stream))
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.heard(id);
        let stream = self.rmcp.resume(id, last_event_id).await?;
        Ok(SyncStream::new(stream))
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        Ok(match self.rmcp.restore_session(id.clone()).await? {
            RestoreOutcome::Restored(rmcp) => RestoreOutcome::Restored(self.wrap(id, rmcp)),
            RestoreOutcome::AlreadyPresent => RestoreOutcome::AlreadyPresent,
            _ => RestoreOutcome::NotSupported,
        })
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.rmcp.event_store()
    }
}

/// A stream that is `Sync` because it is only ever reached through `&mut` (as a stream is
/// polled), whatever it holds: rmcp asks for `Sync` streams, and a handler's future is not.
struct SyncStream<S>(Mutex<S>);

impl<S> SyncStream<S> {
    fn new(stream: S) -> Self {
        Self(Mutex::new(stream))
    }
}

impl<S: Stream + Unpin> Stream for SyncStream<S> {
    type Item = S::Item;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        // `get_mut` takes no lock: `&mut` proves no one else holds it.
        let stream = self
            .get_mut()
            .0
            .get_mut()
            .unwrap_or_else(|e| e.into_inner());
        stream.poll_next_unpin(cx)
    }
}

/// When a session's worker last heard from it, in milliseconds since its registry began.
#[derive(Default)]
struct Heard(AtomicU64);

impl Heard {
    fn new(at: u64) -> Self {
        Self(AtomicU64::new(at))
    }

    fn set(&self, at: u64) {
        self.0.store(at, Ordering::Relaxed);
    }

    fn within(&self, now: u64, span: u64) -> bool {
        now.saturating_sub(self.0.load(Ordering::Relaxed)) < span
    }
}
