//! A session's requests answered where they arrive: the session's handler and peer, the calls
//! in flight and where what they send goes, and the session's transport, which sends a call's
//! progress and questions to the call's own stream.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, OnceLock};

use futures::future::Either;
use rmcp::model::{
    ClientRequest, GetExtensions, GetMeta, JsonRpcRequest, ProgressToken, RequestId,
    ServerJsonRpcMessage, ServerNotification, ServerRequest,
};
use rmcp::service::{OriginatingRequestId, Peer, RequestContext, RxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::{RoleServer, Service as _};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::Heard;
use crate::McpHandler;
use crate::call_stream::{CallOutbox, CallStream, WhenLeft};

/// rmcp's transport of one session, which this one wraps.
pub(super) type RmcpTransport = <LocalSessionManager as SessionManager>::Transport;

/// How many messages a call's stream holds before what sends them waits (rmcp's own figure).
const CALL_STREAM_ROOM: usize = 16;

/// Whether `request` is answered where it arrives once its session is open: the methods that
/// take a request and give its result, holding no session state of their own. `initialize`,
/// subscriptions, log levels, tasks and extension methods go through rmcp's serve loop.
fn answered_inline(request: &ClientRequest) -> bool {
    matches!(
        request,
        ClientRequest::CallToolRequest(_)
            | ClientRequest::ListToolsRequest(_)
            | ClientRequest::PingRequest(_)
            | ClientRequest::ListResourcesRequest(_)
            | ClientRequest::ListResourceTemplatesRequest(_)
            | ClientRequest::ReadResourceRequest(_)
            | ClientRequest::ListPromptsRequest(_)
            | ClientRequest::GetPromptRequest(_)
            | ClientRequest::CompleteRequest(_)
    )
}

/// One session as this process serves it.
pub(super) struct Session {
    /// Its handler and peer, once its `initialize` is answered.
    open: OnceLock<Opened>,
    calls: Mutex<Calls>,
    /// Cancelled when the session ends: every call answered inline ends with it.
    ended: CancellationToken,
    pub(super) heard: Heard,
}

pub(super) struct Opened {
    handler: Arc<McpHandler>,
    peer: Peer<RoleServer>,
}

/// The calls in flight that were answered inline, by request id and by progress token.
#[derive(Default)]
struct Calls {
    next: u64,
    by_request: HashMap<RequestId, Route>,
    by_progress: HashMap<ProgressToken, RequestId>,
}

/// Where one call's messages go, and how it is cancelled.
struct Route {
    serial: u64,
    stream: mpsc::Sender<ServerJsonRpcMessage>,
    cancel: CancellationToken,
    progress: Option<ProgressToken>,
}

impl Session {
    pub(super) fn new(heard_at: u64) -> Self {
        Self {
            open: OnceLock::new(),
            calls: Mutex::default(),
            ended: CancellationToken::new(),
            heard: Heard::new(heard_at),
        }
    }

    pub(super) fn heard_at(&self, at: u64) {
        self.heard.set(at);
    }

    pub(super) fn heard_within(&self, now: u64, span: u64) -> bool {
        self.heard.within(now, span)
    }

    /// Ends the session's calls.
    pub(super) fn end(&self) {
        self.ended.cancel();
    }

    /// Cancels call `request` if it is answered here (a `notifications/cancelled`).
    pub(super) fn cancel(&self, request: &RequestId) {
        if let Some(route) = self.lock().by_request.get(request) {
            route.cancel.cancel();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Calls> {
        self.calls.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What answers `request` here, if it is answered inline and the session has finished
    /// opening; else rmcp's session answers it.
    pub(super) fn answerer(&self, request: &ClientRequest) -> Option<&Opened> {
        self.open.get().filter(|_| answered_inline(request))
    }

    /// Answers `request` here, with what [`Self::answerer`] gave.
    pub(super) fn answer(
        self: &Arc<Self>,
        open: &Opened,
        JsonRpcRequest {
            id, mut request, ..
        }: JsonRpcRequest<ClientRequest>,
    ) -> InlineCall {
        let meta = std::mem::take(request.get_meta_mut());
        let extensions = std::mem::take(request.extensions_mut());
        let (stream, routed) = mpsc::channel(CALL_STREAM_ROOM);
        let cancel = self.ended.child_token();
        let serial = self.route(
            &id,
            meta.get_progress_token(),
            stream.clone(),
            cancel.clone(),
        );
        let route_id = id.clone();
        let mut context = RequestContext::new(id.clone(), open.peer.clone());
        context.ct = cancel;
        context.meta = meta;
        context.extensions = extensions;
        // What the call sends its client (log messages, progress) goes into its own stream at
        // once, ahead of its answer, not through the session's queues and GET stream.
        context.extensions.insert(CallOutbox(stream.clone()));
        let handler = Arc::clone(&open.handler);
        let answer = Box::pin(async move {
            match handler.handle_request(request, context).await {
                Ok(result) => ServerJsonRpcMessage::response(result, id),
                Err(error) => ServerJsonRpcMessage::error(error, Some(id)),
            }
        });
        let route = RouteGuard {
            session: Arc::clone(self),
            id: route_id,
            serial,
        };
        CallStream::new(answer, routed, route, WhenLeft::Finish)
    }

    fn route(
        &self,
        id: &RequestId,
        progress: Option<ProgressToken>,
        stream: mpsc::Sender<ServerJsonRpcMessage>,
        cancel: CancellationToken,
    ) -> u64 {
        let mut calls = self.lock();
        calls.next += 1;
        let serial = calls.next;
        if let Some(token) = &progress {
            calls.by_progress.insert(token.clone(), id.clone());
        }
        let route = Route {
            serial,
            stream,
            cancel,
            progress,
        };
        calls.by_request.insert(id.clone(), route);
        serial
    }

    /// Forgets the route of call `serial` to request `id` (unless a later call reused the id).
    fn unroute(&self, id: &RequestId, serial: u64) {
        let mut calls = self.lock();
        if calls
            .by_request
            .get(id)
            .is_none_or(|route| route.serial != serial)
        {
            return;
        }
        if let Some(route) = calls.by_request.remove(id)
            && let Some(token) = route.progress
            && calls.by_progress.get(&token) == Some(id)
        {
            calls.by_progress.remove(&token);
        }
    }

    /// The stream of the inline call `message` belongs to, if any: the progress of its token,
    /// a question asked on its behalf, its cancellation.
    fn stream_of(
        &self,
        message: &ServerJsonRpcMessage,
    ) -> Option<mpsc::Sender<ServerJsonRpcMessage>> {
        let calls = self.lock();
        if calls.by_request.is_empty() {
            return None;
        }
        let request = match message {
            ServerJsonRpcMessage::Request(request) => {
                let origin = request.request.extensions().get::<OriginatingRequestId>();
                origin.map(|origin| &origin.0)
            }
            ServerJsonRpcMessage::Notification(notification) => match &notification.notification {
                ServerNotification::ProgressNotification(progress) => {
                    calls.by_progress.get(&progress.params.progress_token)
                }
                ServerNotification::CancelledNotification(cancelled) => {
                    cancelled.params.request_id.as_ref()
                }
                _ => None,
            },
            _ => None,
        }?;
        calls
            .by_request
            .get(request)
            .map(|route| route.stream.clone())
    }
}

/// What the handler's `initialize` fills: the session the request opens.
#[derive(Clone)]
pub(crate) struct SessionSlot(Arc<Session>);

impl SessionSlot {
    pub(super) fn new(session: Arc<Session>) -> Self {
        Self(session)
    }

    /// The session's requests are answered by `handler` with `peer` from now on.
    pub(crate) fn fill(&self, handler: McpHandler, peer: Peer<RoleServer>) {
        let opened = Opened {
            handler: Arc::new(handler),
            peer,
        };
        // A session opens once; a replayed `initialize` (restore) finds it open already.
        let _ = self.0.open.set(opened);
    }
}

/// Marks a server request as asked on behalf of client request `origin`, so that it rides
/// that request's stream (rmcp marks only the requests its own serve loop runs).
pub fn asked_for(request: &mut ServerRequest, origin: &RequestId) {
    request
        .extensions_mut()
        .insert(OriginatingRequestId(origin.clone()));
}

/// A session's request answered inline.
pub(super) type InlineCall = CallStream<RouteGuard>;

/// Forgets a call's route when its answer is sent, or when its stream is dropped.
pub(super) struct RouteGuard {
    session: Arc<Session>,
    id: RequestId,
    serial: u64,
}

impl Drop for RouteGuard {
    fn drop(&mut self) {
        self.session.unroute(&self.id, self.serial);
    }
}

/// A session's transport: rmcp's, except that what belongs to a call answered inline goes to
/// that call's stream.
pub struct SessionTransport {
    rmcp: RmcpTransport,
    session: Arc<Session>,
    forget: Option<Forget>,
}

/// What a session's transport does last: forget the session.
type Forget = Box<dyn FnOnce(&Arc<Session>) + Send + Sync>;

impl SessionTransport {
    pub(super) fn new(
        rmcp: RmcpTransport,
        session: Arc<Session>,
        forget: impl FnOnce(&Arc<Session>) + Send + Sync + 'static,
    ) -> Self {
        Self {
            rmcp,
            session,
            forget: Some(Box::new(forget)),
        }
    }
}

impl Drop for SessionTransport {
    fn drop(&mut self) {
        // The serve loop has ended: so has the session.
        self.session.end();
        if let Some(forget) = self.forget.take() {
            forget(&self.session);
        }
    }
}

impl Transport<RoleServer> for SessionTransport {
    type Error = <RmcpTransport as Transport<RoleServer>>::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        match self.session.stream_of(&item) {
            // A call whose client went away drops what it still sends.
            Some(stream) => Either::Left(async move {
                let _ = stream.send(item).await;
                Ok(())
            }),
            None => Either::Right(self.rmcp.send(item)),
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleServer>>> + Send {
        self.rmcp.receive()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.session.end();
        self.rmcp.close()
    }
}
