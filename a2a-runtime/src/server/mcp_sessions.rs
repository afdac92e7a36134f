//! MCP sessions (protocol 2025-11-25 and earlier) other replicas can continue: what a client
//! said in its `initialize` is kept in the server's records (the Postgres database replicas
//! share, or the SQLite file beside the tasks), so a request carrying `Mcp-Session-Id` that
//! reaches a replica which never saw the session, or one restarted since, has rmcp replay the
//! handshake there and is served instead of answered 404. What a session sets later (its log
//! level, its resource subscriptions) stays on the replica it was set on.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use a2a_runtime_sql::Records;
use rmcp::transport::streamable_http_server::session::{
    SessionState, SessionStore, SessionStoreError,
};

/// The records' collection of sessions, by session id.
const SESSIONS: &str = "mcp_sessions";

/// How long after its `initialize` a session can be continued on a replica that does not hold
/// it. A replica holding it keeps it while it is used (`--mcp-session-idle` after its last
/// request); past this, a client on another replica is told to initialize again (404), as the
/// protocol provides.
const CONTINUABLE_FOR: Duration = Duration::from_secs(24 * 3600);

/// Sessions kept in the server's records.
pub(crate) struct RecordSessions(Records);

impl RecordSessions {
    /// Sessions kept in `records`, as rmcp's store.
    pub(crate) fn shared(records: Records) -> Arc<dyn SessionStore> {
        Arc::new(Self(records))
    }
}

/// The future an rmcp store method returns (its trait is written with `async_trait`).
type Answer<'a, T> = Pin<Box<dyn Future<Output = Result<T, SessionStoreError>> + Send + 'a>>;

fn failed(error: a2a_runtime_sql::RecordError) -> SessionStoreError {
    Box::new(error)
}

impl SessionStore for RecordSessions {
    fn load<'a, 'b, 'c>(&'a self, session_id: &'b str) -> Answer<'c, Option<SessionState>>
    where
        'a: 'c,
        'b: 'c,
        Self: 'c,
    {
        Box::pin(async move {
            let found = self.0.get(SESSIONS, session_id).await.map_err(failed)?;
            Ok(found)
        })
    }

    fn store<'a, 'b, 'c, 'd>(
        &'a self,
        session_id: &'b str,
        state: &'c SessionState,
    ) -> Answer<'d, ()>
    where
        'a: 'd,
        'b: 'd,
        'c: 'd,
        Self: 'd,
    {
        Box::pin(async move {
            self.0
                .put(SESSIONS, session_id, state)
                .ttl(CONTINUABLE_FOR)
                .await
                .map(drop)
                .map_err(failed)
        })
    }

    fn delete<'a, 'b, 'c>(&'a self, session_id: &'b str) -> Answer<'c, ()>
    where
        'a: 'c,
        'b: 'c,
        Self: 'c,
    {
        Box::pin(async move {
            self.0
                .delete(SESSIONS, session_id)
                .await
                .map(drop)
                .map_err(failed)
        })
    }
}
