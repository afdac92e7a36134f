//! Who is calling, for per-caller limits and ownership. One function decides: an authenticated
//! caller is its principal (whatever address it calls from); an anonymous one is its peer's IP
//! address (every connection from one address is one caller), and anonymous callers of a router
//! served without peer addresses share one identity.

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;

use http::request::Parts;
use http::{Extensions, HeaderMap, HeaderName};

use crate::auth::Caller;
use crate::observe::{OperationDetail, RequestSpan};
use a2a_runtime_types::TraceContext;

static TRACEPARENT: HeaderName = HeaderName::from_static("traceparent");
static TRACESTATE: HeaderName = HeaderName::from_static("tracestate");
static IDEMPOTENCY_KEY: HeaderName = HeaderName::from_static("idempotency-key");

/// The W3C Trace Context of a request with these headers.
pub(crate) fn trace_of(headers: &HeaderMap) -> Option<TraceContext> {
    let traceparent = headers.get(&TRACEPARENT)?.to_str().ok()?;
    let tracestate = headers.get(&TRACESTATE).and_then(|v| v.to_str().ok());
    TraceContext::parse(traceparent, tracestate)
}

/// The identity per-caller limits are kept under, with the authenticated [`Caller`] that owns
/// the tasks it creates.
#[derive(Debug, Clone)]
pub struct CallerId {
    key: Arc<str>,
    caller: Caller,
    /// The W3C Trace Context the request carried, handed to the calls it makes.
    trace: Option<TraceContext>,
    /// What the request's span will say of it, noted as it is served: only for a sampled span
    /// this server reports.
    notes: Option<Arc<std::sync::Mutex<OperationDetail>>>,
    /// The request's `Idempotency-Key` header, as sent (checked by the operation that uses it).
    idempotency_key: Option<http::HeaderValue>,
    /// Whether the request sent `Idempotency-Key` more than once: which one it meant is
    /// unknowable, so an operation that reads keys refuses it.
    idempotency_keys_repeated: bool,
}

/// The tenant a request named, set by the endpoint that chose the agent by it (a host's root),
/// for the request's span.
#[derive(Debug, Clone)]
pub struct RequestTenant(pub Arc<str>);

/// Notes for a span, when `trace` is a sampled span of this process.
fn notes_for(trace: Option<&TraceContext>) -> Option<Arc<std::sync::Mutex<OperationDetail>>> {
    trace
        .filter(|trace| trace.is_local() && trace.is_sampled())
        .map(|_| Arc::default())
}

impl CallerId {
    /// The caller of a request (see the module docs), whose peer address, when the request
    /// carries no [`PeerKey`], is `peer` (an application serving the router itself tells it
    /// through axum's `ConnectInfo`, which the front-end reads).
    pub fn of(parts: &Parts, peer: Option<SocketAddr>) -> Self {
        // The request's own span, when this server traces requests; else the caller's context.
        let trace = match parts.extensions.get::<RequestSpan>() {
            Some(span) => Some(span.0.clone()),
            None => trace_of(&parts.headers),
        };
        let notes = notes_for(trace.as_ref());
        if let (Some(notes), Some(RequestTenant(tenant))) = (&notes, parts.extensions.get()) {
            lock(notes).tenant = Some(tenant.to_string());
        }
        Self {
            trace,
            notes,
            idempotency_key: parts.headers.get(&IDEMPOTENCY_KEY).cloned(),
            idempotency_keys_repeated: parts
                .headers
                .get_all(&IDEMPOTENCY_KEY)
                .iter()
                .nth(1)
                .is_some(),
            ..Self::identify(&parts.extensions, peer)
        }
    }

    fn identify(extensions: &Extensions, peer: Option<SocketAddr>) -> Self {
        let caller = Caller::of(extensions);
        if !caller.is_anonymous() {
            return Self {
                key: Arc::from(format!("principal:{}", caller.owner())),
                caller,
                trace: None,
                notes: None,
                idempotency_key: None,
                idempotency_keys_repeated: false,
            };
        }
        if let Some(PeerKey(key)) = extensions.get::<PeerKey>() {
            return Self {
                key: Arc::clone(key),
                caller,
                trace: None,
                notes: None,
                idempotency_key: None,
                idempotency_keys_repeated: false,
            };
        }
        match peer {
            Some(peer) => Self {
                key: PeerKey::of(peer).0,
                caller,
                trace: None,
                notes: None,
                idempotency_key: None,
                idempotency_keys_repeated: false,
            },
            None => Self::local(),
        }
    }

    /// The identity limits are kept under: the principal of an authenticated caller, the peer
    /// address of an anonymous one.
    pub fn key(&self) -> &Arc<str> {
        &self.key
    }

    /// The trace the request belongs to, if it carried a valid `traceparent`.
    pub fn trace(&self) -> Option<&TraceContext> {
        self.trace.as_ref()
    }

    /// The authenticated caller (anonymous without authentication).
    pub fn caller(&self) -> &Caller {
        &self.caller
    }

    /// The key the caller's tasks are owned under.
    pub fn owner(&self) -> &str {
        self.caller.owner()
    }

    /// The one caller of a process-local transport (MCP over stdio) or of a router served
    /// without peer addresses.
    pub fn local() -> Self {
        Self::named("local")
    }

    /// A caller with this identity.
    pub fn named(identity: &str) -> Self {
        Self {
            key: Arc::from(identity),
            caller: Caller::anonymous(),
            trace: None,
            notes: None,
            idempotency_key: None,
            idempotency_keys_repeated: false,
        }
    }

    /// The same caller in `trace` instead (an MCP request's own context, from its `_meta`).
    #[must_use]
    pub fn traced(mut self, trace: TraceContext) -> Self {
        if self.notes.is_none() {
            self.notes = notes_for(Some(&trace));
        }
        self.trace = Some(trace);
        self
    }

    /// The request's `Idempotency-Key` header, as sent: the A2A methods that create or change
    /// tasks read it (see [`idempotency`](crate::task::idempotency)).
    pub fn idempotency_header(&self) -> Option<&http::HeaderValue> {
        self.idempotency_key.as_ref()
    }

    /// Whether the request sent `Idempotency-Key` more than once (refused where keys are read:
    /// using the first would silently drop what the client meant by the others).
    pub fn idempotency_keys_repeated(&self) -> bool {
        self.idempotency_keys_repeated
    }

    /// Notes something about the request for its span; nothing when it has none.
    pub fn note(&self, write: impl FnOnce(&mut OperationDetail)) {
        if let Some(notes) = &self.notes {
            write(&mut lock(notes));
        }
    }

    /// Whether the request has a span to note things for.
    pub fn takes_notes(&self) -> bool {
        self.notes.is_some()
    }

    /// What was noted about the request, for its span.
    pub fn detail(&self) -> Option<OperationDetail> {
        self.notes.as_ref().map(|notes| lock(notes).clone())
    }
}

/// The notes, whatever a panic while writing them left.
fn lock(notes: &std::sync::Mutex<OperationDetail>) -> std::sync::MutexGuard<'_, OperationDetail> {
    notes
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The key of an anonymous caller at a peer address, made once per connection by the server's
/// listener and carried by each of its requests (the address alone, in axum's `ConnectInfo`,
/// when an application serves the router itself).
#[derive(Debug, Clone)]
pub struct PeerKey(Arc<str>);

impl PeerKey {
    /// The key of callers at `peer`'s address (its port is not part of it).
    pub fn of(peer: SocketAddr) -> Self {
        Self(Arc::from(format!("ip:{}", peer.ip())))
    }

    /// The key (`ip:` and the address).
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for CallerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key)
    }
}
