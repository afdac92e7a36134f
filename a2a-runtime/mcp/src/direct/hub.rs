//! The peer every stateless call answered directly shares, and how what a call sends through it
//! finds the call's response.
//!
//! rmcp gives each stateless request a peer and a serve loop of its own, spawned for it. A call
//! answered directly borrows this one peer instead, whose serve loop runs as long as the
//! endpoint: it carries only the progress calls send their clients meanwhile, each notification
//! marked with its call's [`CallMark`], which the hub's transport sends to that call. Log
//! messages skip the serve loop: a call's sink writes them into its [`CallOutbox`] at once.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    ClientCapabilities, GetExtensions, Implementation, InitializeRequestParams, ProtocolVersion,
    ServerJsonRpcMessage,
};
use rmcp::service::{Peer, RunningService, RxJsonRpcMessage, serve_directly};
use rmcp::transport::Transport;
use rmcp::{ErrorData as McpError, RoleServer};
use tokio::sync::mpsc;

use crate::McpHandler;
use crate::call_stream::{CallMark, CallOutbox};

/// How many messages a call's response holds before progress waits and log messages are dropped
/// (as many as a session's log queue; the channel allocates as it fills, not up front).
const CALL_ROOM: usize = 256;

/// The shared peer and the calls it sends for.
pub(super) struct Hub {
    peer: Peer<RoleServer>,
    calls: Arc<Calls>,
    /// Its serve loop, which ends when the hub is dropped.
    _running: RunningService<RoleServer, McpHandler>,
}

#[derive(Default)]
struct Calls {
    next: AtomicU64,
    open: Mutex<HashMap<CallMark, mpsc::Sender<ServerJsonRpcMessage>>>,
}

impl Calls {
    fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<CallMark, mpsc::Sender<ServerJsonRpcMessage>>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Hub {
    /// A hub serving `handler`'s stateless calls (its serve loop starts on this runtime).
    pub(super) fn start(handler: McpHandler) -> Self {
        let calls = Arc::new(Calls::default());
        let transport = HubTransport {
            calls: Arc::clone(&calls),
        };
        // What rmcp gives a stateless 2026-07-28 request's own peer: the version, nothing else
        // (the client's capabilities and identity come in each request's `_meta`).
        let info =
            InitializeRequestParams::new(ClientCapabilities::default(), Implementation::default())
                .with_protocol_version(ProtocolVersion::V_2026_07_28);
        let running = serve_directly(handler, transport, Some(info));
        Self {
            peer: running.peer().clone(),
            calls,
            _running: running,
        }
    }

    pub(super) fn peer(&self) -> &Peer<RoleServer> {
        &self.peer
    }

    /// A new call's mark and what it sends, until the [`Open`] is dropped.
    pub(super) fn open(&self) -> (Open, CallOutbox, mpsc::Receiver<ServerJsonRpcMessage>) {
        let mark = CallMark(self.calls.next.fetch_add(1, Ordering::Relaxed));
        let (sender, receiver) = mpsc::channel(CALL_ROOM);
        self.calls.lock().insert(mark, sender.clone());
        let open = Open {
            mark,
            calls: Arc::clone(&self.calls),
        };
        (open, CallOutbox(sender), receiver)
    }
}

/// A call's place at the hub: forgotten when dropped.
pub(super) struct Open {
    pub(super) mark: CallMark,
    calls: Arc<Calls>,
}

impl Drop for Open {
    fn drop(&mut self) {
        self.calls.lock().remove(&self.mark);
    }
}

/// The hub's transport: receives nothing, sends each marked message to its call.
struct HubTransport {
    calls: Arc<Calls>,
}

impl Transport<RoleServer> for HubTransport {
    type Error = McpError;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let mark = match &item {
            ServerJsonRpcMessage::Notification(sent) => {
                sent.notification.extensions().get::<CallMark>().copied()
            }
            ServerJsonRpcMessage::Request(sent) => {
                sent.request.extensions().get::<CallMark>().copied()
            }
            _ => None,
        };
        let to = mark.and_then(|mark| self.calls.lock().get(&mark).cloned());
        async move {
            // A call that has answered, or whose client left, drops what it still sends.
            if let Some(to) = to {
                let _ = to.send(item).await;
            }
            Ok(())
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleServer>>> + Send {
        // Every request reaches the hub's handler directly, never through its transport.
        std::future::pending()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        std::future::ready(Ok(()))
    }
}
