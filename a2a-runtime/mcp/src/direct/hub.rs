//! The peer every stateless call answered directly shares.
//!
//! rmcp gives each stateless request a peer and a serve loop of its own, spawned for it. A call
//! answered directly borrows this one peer instead, whose serve loop runs as long as the
//! endpoint and carries nothing: what a call sends its client meanwhile (progress, log
//! messages) goes straight into its own response, its [`CallOutbox`].

use std::future::Future;

use rmcp::model::{
    ClientCapabilities, Implementation, InitializeRequestParams, ProtocolVersion,
    ServerJsonRpcMessage,
};
use rmcp::service::{Peer, RunningService, RxJsonRpcMessage, serve_directly};
use rmcp::transport::Transport;
use rmcp::{ErrorData as McpError, RoleServer};
use tokio::sync::mpsc;

use crate::McpHandler;
use crate::call_stream::CallOutbox;

/// How many messages a call's response holds before progress waits and log messages are dropped
/// (as many as a session's log queue; the channel allocates as it fills, not up front).
const CALL_ROOM: usize = 256;

/// The shared peer.
pub(super) struct Hub {
    peer: Peer<RoleServer>,
    /// Its serve loop, which ends when the hub is dropped.
    _running: RunningService<RoleServer, McpHandler>,
}

impl Hub {
    /// A hub serving `handler`'s stateless calls (its serve loop starts on this runtime).
    pub(super) fn start(handler: McpHandler) -> Self {
        // What rmcp gives a stateless 2026-07-28 request's own peer: the version, nothing else
        // (the client's capabilities and identity come in each request's `_meta`).
        let info =
            InitializeRequestParams::new(ClientCapabilities::default(), Implementation::default())
                .with_protocol_version(ProtocolVersion::V_2026_07_28);
        let running = serve_directly(handler, Silent, Some(info));
        Self {
            peer: running.peer().clone(),
            _running: running,
        }
    }

    pub(super) fn peer(&self) -> &Peer<RoleServer> {
        &self.peer
    }
}

/// A new call's response: where what it sends goes, and where the response reads it.
pub(super) fn outbox() -> (CallOutbox, mpsc::Receiver<ServerJsonRpcMessage>) {
    let (sender, receiver) = mpsc::channel(CALL_ROOM);
    (CallOutbox(sender), receiver)
}

/// The hub's transport: receives nothing, and drops what is sent through the shared peer rather
/// than a call's outbox (a stateless call has no stream but its own response).
struct Silent;

impl Transport<RoleServer> for Silent {
    type Error = McpError;

    fn send(
        &mut self,
        _item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        std::future::ready(Ok(()))
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleServer>>> + Send {
        // Every request reaches the hub's handler directly, never through its transport.
        std::future::pending()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        std::future::ready(Ok(()))
    }
}
