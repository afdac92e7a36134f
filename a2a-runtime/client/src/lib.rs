//! The client layer of [a2a-runtime](https://docs.rs/a2a-runtime): [`A2aClient`] calls A2A
//! agents in every dialect they serve (resolving the card, picking the interface, following
//! streams, retrying what is safe to retry), and [`SkillClient`] calls an agent's skills by id
//! over A2A or MCP. It builds no server.
//!
//! Applications depend on `a2a-runtime` and use this crate as `a2a_runtime::client`.

mod body;
mod card;
mod credentials;
mod dialect;
mod endpoint;
mod error;
mod fetch;
mod follow;
#[cfg(feature = "grpc")]
mod grpc;
mod jsonrpc;
mod list;
#[cfg(feature = "login")]
pub mod login;
#[cfg(feature = "manifests")]
mod manifests;
mod mcp;
mod mcp_http;
mod push;
mod rest;
mod retry;
mod skills;
mod sse;
mod usage;
mod validate;
mod wire;

use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::Stream;

use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};

pub use card::{AgentCard, Binding, Capabilities, Interface, Skill};
pub use credentials::{ClientCredentials, ClientIdentity, CredentialSource};
pub use error::{ClientError, ErrorInfo, RemoteError};
pub use list::{ListTasks, TaskPage};
#[cfg(feature = "manifests")]
pub use manifests::{Manifest, fetch_manifests};
pub use mcp::{McpCredential, streamable_http};
pub use mcp_http::McpHttp;
pub use push::PushNotificationConfig;
pub use retry::RetryPolicy;
pub use skills::{Answerer, Question, SkillClient, TypedClient, decode_output};
pub use usage::{UsageLine, UsageReport, UsageRequest, fetch_usage};
pub use validate::{Finding, Severity, validate_card};
pub use wire::{card_json, event_json, message_json, task_json};

use self::body::ReadLimits;
use self::dialect::{Dialect, Op};
use self::endpoint::{Carrier, Endpoint, Wire};
use self::fetch::{Fetched, fetch_card};
use a2a_runtime_types::model::{Message, Task, TaskArtifactUpdate, TaskStatusUpdate};
use a2a_runtime_types::protocol::a2a::Received;

/// How long a call may take unless the builder says otherwise.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// What a send answered: the task it started or continued, or a direct reply.
#[derive(Debug, Clone)]
pub enum SendResult {
    /// The task the message started or continued.
    Task(Box<Task>),
    /// The agent's direct reply; no task was created.
    Message(Message),
}

/// One item of a stream: the task (first, unless the agent replies with a message), then its
/// updates until it settles.
#[derive(Debug, Clone)]
pub enum StreamEvent {
    /// The task as it stands.
    Task(Box<Task>),
    /// A direct reply (the only item of its stream).
    Message(Message),
    /// The task entered a status.
    Status(TaskStatusUpdate),
    /// An artifact, or a chunk of one.
    Artifact(TaskArtifactUpdate),
}

impl From<Received> for StreamEvent {
    fn from(received: Received) -> Self {
        use a2a_runtime_types::model::TaskEvent;
        match received {
            Received::Task(task) => Self::Task(task),
            Received::Message(message) => Self::Message(message),
            Received::Event(TaskEvent::Status(update)) => Self::Status(update),
            Received::Event(TaskEvent::Artifact(update)) => Self::Artifact(update),
        }
    }
}

/// The items of a streaming send or subscription, ending when the task settles or the
/// connection ends.
pub type EventStream = Pin<Box<dyn Stream<Item = Result<StreamEvent, ClientError>> + Send>>;

/// How a message is sent.
#[derive(Debug, Clone, Copy, Default)]
pub struct SendOptions {
    /// Answer as soon as the task exists rather than when it settles.
    pub return_immediately: bool,
    /// At most this many history messages in the answer.
    pub history_length: Option<usize>,
}

/// Sets up an [`A2aClient`]: authentication, headers and timeouts, then
/// [`connect`](Self::connect).
#[derive(Debug)]
pub struct ClientBuilder {
    base_url: String,
    headers: HeaderMap,
    timeout: Duration,
    connect_timeout: Option<Duration>,
    retry: RetryPolicy,
    limits: ReadLimits,
    preferred: Option<(Binding, String)>,
    /// The only binding the client may call through.
    only: Option<Binding>,
    /// Where each call's bearer token comes from, when it changes over time.
    credential: Option<Arc<dyn CredentialSource>>,
    /// The client's certificate chain and key, for servers that ask for one (mutual TLS).
    identity: Option<ClientIdentity>,
    invalid: Option<ClientError>,
}

impl ClientBuilder {
    /// Calls the agent through its interface of `binding` in `version` (`"1.0"`, `"0.3"`: the
    /// card's version must start with it) when the card offers one this client speaks, rather
    /// than the one [`AgentCard::preferred_interface`] picks.
    #[must_use]
    pub fn prefer(mut self, binding: Binding, version: &str) -> Self {
        self.preferred = Some((binding, version.to_owned()));
        self
    }

    /// Calls the agent through `binding` or not at all: [`connect`](Self::connect) fails with
    /// [`ClientError::BindingNotOffered`] when the card offers no interface of it this client
    /// speaks. Among several, [`prefer`](Self::prefer)'s version, else the card's first.
    #[must_use]
    pub fn only(mut self, binding: Binding) -> Self {
        self.only = Some(binding);
        self
    }

    /// Sends `Authorization: Bearer <token>` with every request.
    #[must_use]
    pub fn bearer_token(self, token: &str) -> Self {
        self.header_value(AUTHORIZATION.as_str(), &format!("Bearer {token}"))
    }

    /// Sends header `name` with value `key` with every request (an API key scheme).
    #[must_use]
    pub fn api_key(self, name: &str, key: &str) -> Self {
        self.header_value(name, key)
    }

    /// Sends a header with every request.
    #[must_use]
    pub fn header(self, name: &str, value: &str) -> Self {
        self.header_value(name, value)
    }

    /// Sends `Authorization: Bearer <token>` with every call, the token from `source` (for
    /// example [`ClientCredentials`], a service's OAuth sign-in), asked for each call and told
    /// when the agent refuses it.
    #[must_use]
    pub fn credential_source(mut self, source: Arc<dyn CredentialSource>) -> Self {
        self.credential = Some(source);
        self
    }

    /// Shows `identity` (a certificate chain and its key) to agents whose TLS asks for a client
    /// certificate (mutual TLS).
    #[must_use]
    pub fn identity(mut self, identity: ClientIdentity) -> Self {
        self.identity = Some(identity);
        self
    }

    fn header_value(mut self, name: &str, value: &str) -> Self {
        let parsed = HeaderName::try_from(name)
            .map_err(|e| e.to_string())
            .and_then(|name| {
                let mut value = HeaderValue::try_from(value).map_err(|e| e.to_string())?;
                value.set_sensitive(name == AUTHORIZATION || name.as_str().contains("key"));
                Ok((name, value))
            });
        match parsed {
            Ok((name, value)) => {
                self.headers.insert(name, value);
            }
            Err(reason) => {
                self.invalid.get_or_insert(ClientError::InvalidResponse {
                    field: format!("header `{name}`"),
                    reason: format!("cannot be sent: {reason}"),
                });
            }
        }
        self
    }

    /// The longest a call may take, from sending to the whole answer (60 s unless set). Streams
    /// are not bound by it: a subscription to a long task stays open while the agent sends
    /// events or keep-alives.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How failed calls are retried (see [`RetryPolicy`]; [`RetryPolicy::none`] turns
    /// retries off).
    #[must_use]
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// The largest card, answer or stream event this client reads, in bytes (16 MiB unless
    /// set). A larger one is [`ClientError::TooLarge`] (a card: [`ClientError::Card`]), refused
    /// from its `Content-Length` before it is read, else as soon as it grows past the bound.
    #[must_use]
    pub fn max_response_bytes(mut self, bytes: usize) -> Self {
        self.limits.max_bytes = bytes;
        self
    }

    /// The longest a stream may send nothing, not even a keep-alive comment (60 s unless set).
    /// A stream silent that long is broken: it is renewed like a dropped connection, and
    /// [`ClientError::StreamIdle`] when renewing does not help.
    #[must_use]
    pub fn stream_idle_timeout(mut self, idle: Duration) -> Self {
        self.limits.stream_idle = idle;
        self
    }

    /// The longest connecting may take.
    #[must_use]
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = Some(timeout);
        self
    }

    /// Resolves the agent's card and picks the interface to call.
    pub async fn connect(self) -> Result<A2aClient, ClientError> {
        if let Some(invalid) = self.invalid {
            return Err(invalid);
        }
        // No client-wide timeout: it would also cut streams. Each call sets its own.
        let connect_timeout = self.connect_timeout.unwrap_or(self.timeout);
        let http = match &self.identity {
            Some(identity) => identity.client_builder()?,
            None => a2a_runtime_types::https::client_builder()?,
        };
        let http = http
            .default_headers(self.headers.clone())
            .connect_timeout(connect_timeout);
        let http = http.build().map_err(|source| ClientError::Transport {
            url: self.base_url.clone(),
            source,
        })?;
        let base = reqwest::Url::parse(&self.base_url).map_err(|e| ClientError::InvalidUrl {
            url: self.base_url.clone(),
            reason: e.to_string(),
        })?;
        let fetched = fetch_card(&http, &base, None, self.timeout, self.limits.max_bytes).await?;
        let Fetched::Card {
            card,
            url,
            etag,
            fresh_for,
        } = fetched
        else {
            return Err(ClientError::Card {
                url: base.to_string(),
                reason: "the server answered 304 Not Modified to a first request".into(),
            });
        };
        let interface = chosen_interface(&card, self.preferred.as_ref(), self.only.as_ref())?;
        let settings = EndpointSettings {
            retry: self.retry,
            timeout: self.timeout,
            connect_timeout,
            limits: self.limits,
            headers: self.headers,
            card_url: &url,
            credential: self.credential,
            identity: self.identity,
        };
        let rpc = endpoint_for(&interface, settings)?;
        Ok(A2aClient {
            interface,
            http,
            timeout: self.timeout,
            max_card_bytes: self.limits.max_bytes,
            state: Mutex::new(CardState {
                card,
                url,
                etag,
                fresh_for,
            }),
            rpc: Arc::new(rpc),
        })
    }
}

/// The card a client holds and where it came from.
#[derive(Debug)]
struct CardState {
    card: Arc<AgentCard>,
    url: reqwest::Url,
    etag: Option<HeaderValue>,
    /// How long the card stays fresh, as its server last said.
    fresh_for: Option<Duration>,
}

/// A client of one remote agent. Cheap to share behind an `Arc`; calls may run concurrently.
#[derive(Debug)]
pub struct A2aClient {
    /// The interface calls go to.
    interface: Interface,
    http: reqwest::Client,
    /// The longest a call (not a stream) may take.
    timeout: Duration,
    /// The largest card read.
    max_card_bytes: usize,
    state: Mutex<CardState>,
    rpc: Arc<Endpoint>,
}

impl A2aClient {
    /// A builder for a client of the agent at `base_url`: the agent's base URL (its card is
    /// read from `/.well-known/agent-card.json`, else `/.well-known/agent.json`) or the URL of
    /// the card itself (ending in `.json`).
    pub fn builder(base_url: impl Into<String>) -> ClientBuilder {
        ClientBuilder {
            base_url: base_url.into(),
            headers: HeaderMap::new(),
            timeout: DEFAULT_TIMEOUT,
            connect_timeout: None,
            retry: RetryPolicy::default(),
            limits: ReadLimits::default(),
            preferred: None,
            only: None,
            credential: None,
            identity: None,
            invalid: None,
        }
    }

    /// A client of the agent at `base_url` with the default settings (see
    /// [`builder`](Self::builder)).
    pub async fn connect(base_url: impl Into<String>) -> Result<Self, ClientError> {
        Self::builder(base_url).connect().await
    }

    fn state(&self) -> std::sync::MutexGuard<'_, CardState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The interface of the card this client calls: its binding, version and URL.
    pub fn interface(&self) -> &Interface {
        &self.interface
    }

    /// The agent's card as last read.
    pub fn card(&self) -> Arc<AgentCard> {
        Arc::clone(&self.state().card)
    }

    /// How long the card stays fresh, as its server's `Cache-Control` said when it was last
    /// read or revalidated (`s-maxage`, else `max-age`; zero for `no-cache` or `no-store`);
    /// `None` when it did not say.
    pub fn card_fresh_for(&self) -> Option<Duration> {
        self.state().fresh_for
    }

    /// Reads the card again, sending the last `ETag` so an unchanged card costs a `304`.
    /// Whether it changed. The interface calls go to stays the one chosen at connect.
    pub async fn refresh_card(&self) -> Result<bool, ClientError> {
        let (url, etag) = {
            let state = self.state();
            (state.url.clone(), state.etag.clone())
        };
        match fetch_card(&self.http, &url, etag, self.timeout, self.max_card_bytes).await? {
            Fetched::NotModified { fresh_for } => {
                self.state().fresh_for = fresh_for;
                Ok(false)
            }
            Fetched::Card {
                card,
                url,
                etag,
                fresh_for,
            } => {
                *self.state() = CardState {
                    card,
                    url,
                    etag,
                    fresh_for,
                };
                Ok(true)
            }
        }
    }

    /// Sends a message and waits until its task settles (completes, fails, asks for input …).
    pub async fn send(&self, message: Message) -> Result<SendResult, ClientError> {
        self.send_with(message, SendOptions::default()).await
    }

    /// Sends a message with `options`.
    pub async fn send_with(
        &self,
        message: Message,
        options: SendOptions,
    ) -> Result<SendResult, ClientError> {
        let params = self.rpc.dialect().send_params(&message, options);
        let result = self.rpc.call(&self.http, Op::Send, params).await?;
        match self.rpc.dialect().received(result)? {
            Received::Task(task) => Ok(SendResult::Task(task)),
            Received::Message(message) => Ok(SendResult::Message(message)),
            Received::Event(_) => Err(ClientError::InvalidResponse {
                field: String::new(),
                reason: "is an event, not a task or a message".into(),
            }),
        }
    }

    /// Sends a message and streams its task's events as they happen. If the connection drops
    /// before the task settles, the client subscribes again and yields what it missed, once.
    pub async fn send_streaming(&self, message: Message) -> Result<EventStream, ClientError> {
        let params = self
            .rpc
            .dialect()
            .send_params(&message, SendOptions::default());
        let stream = follow::open(&self.http, &self.rpc, Op::Stream, params).await?;
        Ok(follow::resilient(
            self.http.clone(),
            Arc::clone(&self.rpc),
            stream,
        ))
    }

    /// Streams the events of a task that is still running: its current state first, then
    /// every update until it settles, across dropped connections as
    /// [`send_streaming`](Self::send_streaming) does.
    pub async fn subscribe(&self, id: &str) -> Result<EventStream, ClientError> {
        let params = json!({ "id": id });
        let stream = follow::open(&self.http, &self.rpc, Op::Subscribe, params).await?;
        Ok(follow::resilient(
            self.http.clone(),
            Arc::clone(&self.rpc),
            stream,
        ))
    }

    /// The task with this id, with at most `history_length` history messages.
    pub async fn get_task(
        &self,
        id: &str,
        history_length: Option<usize>,
    ) -> Result<Task, ClientError> {
        let mut params = json!({ "id": id });
        if let Some(length) = history_length {
            params["historyLength"] = json!(length);
        }
        let result = self.rpc.call(&self.http, Op::Get, params).await?;
        self.rpc.dialect().task(result)
    }

    /// The agent's extended card, for the authenticated caller (it may list more skills). The
    /// public card stays what [`card`](Self::card) returns.
    pub async fn extended_card(&self) -> Result<AgentCard, ClientError> {
        let result = self
            .rpc
            .call(&self.http, Op::ExtendedCard, json!({}))
            .await?;
        AgentCard::from_json(result).map_err(|reason| ClientError::InvalidResponse {
            field: "result".into(),
            reason,
        })
    }

    /// Asks the agent to cancel the task; the task as it stands after the request.
    pub async fn cancel_task(&self, id: &str) -> Result<Task, ClientError> {
        let result = self
            .rpc
            .call(&self.http, Op::Cancel, json!({ "id": id }))
            .await?;
        self.rpc.dialect().task(result)
    }
}

fn parse<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, ClientError> {
    serde_path_to_error::deserialize(value).map_err(|e| ClientError::InvalidResponse {
        field: e.path().to_string(),
        reason: e.inner().to_string(),
    })
}

/// The interface the client calls: the one `preferred` names if the card offers it, else the
/// card's best for this client; of binding `only`, if given.
fn chosen_interface(
    card: &AgentCard,
    preferred: Option<&(Binding, String)>,
    only: Option<&Binding>,
) -> Result<Interface, ClientError> {
    let preferred = preferred.and_then(|(binding, version)| card.interface(binding, version));
    let chosen = match only {
        Some(only) => preferred
            .filter(|i| i.binding == *only)
            .or_else(|| card.interface(only, "")),
        None => preferred.or_else(|| card.preferred_interface()),
    };
    let offered = || card.interfaces.iter().map(ToString::to_string).collect();
    chosen.cloned().ok_or_else(|| match only {
        Some(binding) => ClientError::BindingNotOffered {
            binding: binding.to_string(),
            offered: offered(),
        },
        None => ClientError::NoInterface { offered: offered() },
    })
}

/// What every endpoint of a client shares.
struct EndpointSettings<'a> {
    retry: RetryPolicy,
    timeout: Duration,
    #[cfg_attr(not(feature = "grpc"), allow(dead_code))]
    connect_timeout: Duration,
    limits: ReadLimits,
    /// Sent with every call (gRPC: as metadata; HTTP: the client's own).
    #[cfg_attr(not(feature = "grpc"), allow(dead_code))]
    headers: HeaderMap,
    /// Where the card was read: a gRPC interface is TLS when it was `https`.
    #[cfg_attr(not(feature = "grpc"), allow(dead_code))]
    card_url: &'a reqwest::Url,
    credential: Option<Arc<dyn CredentialSource>>,
    /// The client's certificate and key (HTTP: the client's own).
    #[cfg_attr(not(feature = "grpc"), allow(dead_code))]
    identity: Option<ClientIdentity>,
}

/// The endpoint calling `interface`.
fn endpoint_for(
    interface: &Interface,
    settings: EndpointSettings<'_>,
) -> Result<Endpoint, ClientError> {
    let dialect = Dialect::of(interface).ok_or_else(|| ClientError::NoInterface {
        offered: vec![interface.to_string()],
    })?;
    let carrier = match interface.binding {
        #[cfg(feature = "grpc")]
        Binding::Grpc => Carrier::Grpc(Box::new(grpc::GrpcChannel::new(grpc::Settings {
            address: interface.url.clone(),
            tls: settings.card_url.scheme() == "https",
            headers: settings.headers,
            connect_timeout: settings.connect_timeout,
            tenant: interface.tenant.clone(),
            timeout: settings.timeout,
            limits: settings.limits,
            credential: settings.credential.clone(),
            identity: settings.identity,
        })?)),
        _ => {
            let url = reqwest::Url::parse(&interface.url).map_err(|e| ClientError::InvalidUrl {
                url: interface.url.clone(),
                reason: e.to_string(),
            })?;
            let wire = match interface.binding {
                Binding::HttpJson => Wire::Rest,
                _ => Wire::JsonRpc,
            };
            Carrier::Http { url, wire }
        }
    };
    Ok(Endpoint::new(
        carrier,
        dialect,
        interface.tenant.clone(),
        settings.retry,
        settings.timeout,
        settings.limits,
        settings.credential,
    ))
}
