//! Testing an agent in-process (the `testing` feature): [`TestAgent`] serves it on an ephemeral
//! loopback port, with the whole server (authentication, limits, both protocols) and tasks in
//! memory, and hands out clients of it: the agent's typed `{Agent}Client` over A2A or MCP, the
//! untyped [`A2aClient`] for tasks, streams and cancellation, and raw JSON for asserting on
//! the wire. Callers with chosen scopes stand in for signed-in users. The server stops when
//! the `TestAgent` is dropped.
//!
//! ```
//! use a2a_runtime::prelude::*;
//! use a2a_runtime::testing::TestAgent;
//!
//! /// Greets people.
//! #[agent]
//! struct Hello;
//!
//! /// Say hello.
//! #[skill(agent = Hello)]
//! async fn greet(
//!     /// Who to greet.
//!     name: String,
//! ) -> String {
//!     format!("Hello, {name}!")
//! }
//!
//! # #[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let agent = TestAgent::start(Hello.server()).await?;
//! // The typed client over A2A, then over MCP: the same call, the same answer.
//! let hello: HelloClient = agent.client().await?;
//! assert_eq!(hello.greet("Ada".to_owned()).await?, "Hello, Ada!");
//! let hello: HelloClient = agent.mcp_client().await?;
//! assert_eq!(hello.greet("Ada".to_owned()).await?, "Hello, Ada!");
//! // The card as a peer reads it.
//! let card = agent.get_json("/.well-known/agent-card.json").await?;
//! assert_eq!(card.body["name"], "Hello");
//! # Ok(())
//! # }
//! ```
//!
//! The store suite for task stores of your own is [`store::testing`](crate::store::testing).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::auth::{AuthError, Authenticator, Caller, NamedScheme, SecurityScheme};
use crate::client::{A2aClient, ClientError, McpCredential, SkillClient, TypedClient};
use crate::server::AgentServer;
use a2a_runtime_types::util::BoxFuture;

/// The security scheme test callers authenticate with (a bearer token each), as the card
/// lists it when a test declares callers.
pub const TEST_SCHEME: &str = "testCaller";

/// How long [`TestAgent::start`] waits for the server to answer before giving up.
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a [`TestAgent`] could not start or a raw request failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TestError {
    /// No ephemeral port on 127.0.0.1 could be bound.
    #[error("cannot bind an ephemeral port on 127.0.0.1: {0}")]
    Bind(#[source] std::io::Error),
    /// The server refused its configuration (an invalid agent, a flag's value).
    #[error("the agent did not start: {0}")]
    Serve(#[source] crate::Error),
    /// The server did not answer its card within the start timeout.
    #[error("the agent did not answer within {0:?}")]
    NotReady(Duration),
    /// A caller the test did not declare with [`TestAgentBuilder::caller`].
    #[error("no test caller `{0}`: declare it with TestAgent::builder(..).caller(..)")]
    UnknownCaller(String),
    /// A client of the agent could not connect (its card, its MCP session).
    #[error(transparent)]
    Client(#[from] ClientError),
    /// A raw request failed (connection, timeout, or a body that is not JSON).
    #[error("{method} {path}: {reason}")]
    Request {
        /// `GET` or `POST`.
        method: &'static str,
        /// The path asked for.
        path: String,
        /// What went wrong.
        reason: String,
    },
}

/// A JSON answer of a raw request: its HTTP status and body.
#[derive(Debug, Clone)]
pub struct RawResponse {
    /// The HTTP status code.
    pub status: u16,
    /// The body, read as JSON (`null` for an empty body).
    pub body: Value,
}

/// How a [`TestAgent`] is set up before it starts: callers with their scopes.
#[derive(Debug)]
pub struct TestAgentBuilder {
    server: AgentServer,
    callers: HashMap<String, Caller>,
}

impl TestAgentBuilder {
    /// Declares a caller, `principal`, granted `scopes`: the server then requires
    /// authentication (as a deployed agent with a security scheme does) and the clients of
    /// [`TestAgent::client_as`] and its siblings call as this caller. Its tasks are its own:
    /// another caller neither sees nor cancels them.
    #[must_use]
    pub fn caller<S: Into<String>>(
        mut self,
        principal: &str,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        let caller = Caller::authenticated(TEST_SCHEME, principal).with_scopes(scopes);
        self.callers.insert(principal.to_owned(), caller);
        self
    }

    /// Serves the agent; see [`TestAgent::start`].
    ///
    /// # Errors
    ///
    /// No port could be bound, or the server refused its configuration.
    pub async fn start(self) -> Result<TestAgent, TestError> {
        let tokens: HashMap<String, String> = self
            .callers
            .keys()
            .map(|principal| (principal.clone(), a2a_runtime_types::model::new_id()))
            .collect();
        let mut server = self.server;
        if !self.callers.is_empty() {
            let by_token = tokens
                .iter()
                .map(|(principal, token)| (token.clone(), self.callers[principal].clone()))
                .collect();
            let scheme = NamedScheme::new(TEST_SCHEME, SecurityScheme::Bearer);
            server = server.authenticator(scheme, TestCallers { by_token });
        }
        TestAgent::serve(server, tokens).await
    }
}

/// An agent served in this process on `127.0.0.1` for one test: the real server (both
/// protocols, authentication, limits), tasks in memory, no flags read. Stops when dropped.
#[derive(Debug)]
pub struct TestAgent {
    url: String,
    tokens: HashMap<String, String>,
    shutdown: CancellationToken,
    http: reqwest::Client,
}

impl TestAgent {
    /// Serves `server` (`MyAgent.server()`, configured as the test needs) on an ephemeral
    /// loopback port and waits until it answers. Tasks are kept in memory unless `server`
    /// was given a store.
    ///
    /// # Errors
    ///
    /// No port could be bound, or the server refused its configuration.
    pub async fn start(server: AgentServer) -> Result<TestAgent, TestError> {
        Self::builder(server).start().await
    }

    /// A test agent with callers to declare before it starts.
    pub fn builder(server: AgentServer) -> TestAgentBuilder {
        TestAgentBuilder {
            server,
            callers: HashMap::new(),
        }
    }

    async fn serve(
        server: AgentServer,
        tokens: HashMap<String, String>,
    ) -> Result<TestAgent, TestError> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(TestError::Bind)?;
        let addr = listener.local_addr().map_err(TestError::Bind)?;
        let url = format!("http://{addr}/");
        let shutdown = CancellationToken::new();
        let server = server
            .public_url(url.clone())
            .shutdown_signal(shutdown.clone());
        let mut served = tokio::spawn(server.serve_on(listener));
        let http = a2a_runtime_types::https::client_builder()
            .map_err(|e| e.to_string())
            .and_then(|builder| {
                builder
                    .timeout(START_TIMEOUT)
                    .build()
                    .map_err(|e| e.to_string())
            })
            .map_err(|reason| TestError::Request {
                method: "GET",
                path: "/".into(),
                reason,
            })?;
        let agent = TestAgent {
            url,
            tokens,
            shutdown,
            http,
        };
        tokio::select! {
            ended = &mut served => Err(match ended {
                Ok(Err(error)) => TestError::Serve(error),
                // Served to the end before answering once: nothing to test against.
                _ => TestError::NotReady(START_TIMEOUT),
            }),
            answered = agent.get_json("/.well-known/agent-card.json") => match answered {
                Ok(_) => Ok(agent),
                Err(_) => Err(TestError::NotReady(START_TIMEOUT)),
            },
        }
    }

    /// The server's base URL, `http://127.0.0.1:PORT/`: the A2A JSON-RPC endpoint, and where
    /// the card is.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The MCP endpoint, `http://127.0.0.1:PORT/mcp`.
    pub fn mcp_url(&self) -> String {
        format!("{}mcp", self.url)
    }

    /// The bearer token of a declared caller, for raw requests of its own.
    ///
    /// # Errors
    ///
    /// [`TestError::UnknownCaller`] for a caller the builder did not declare.
    pub fn token(&self, principal: &str) -> Result<&str, TestError> {
        self.tokens
            .get(principal)
            .map(String::as_str)
            .ok_or_else(|| TestError::UnknownCaller(principal.to_owned()))
    }

    /// An A2A client of the agent (it read the card), for what typed clients do not show:
    /// tasks as they stand, streams of progress and artifacts, cancellation, push configs.
    ///
    /// # Errors
    ///
    /// The card could not be read or validated.
    pub async fn a2a(&self) -> Result<A2aClient, TestError> {
        Ok(A2aClient::connect(self.url.clone()).await?)
    }

    /// Like [`a2a`](Self::a2a), calling as the declared caller `principal`.
    ///
    /// # Errors
    ///
    /// An undeclared caller, or the card could not be read.
    pub async fn a2a_as(&self, principal: &str) -> Result<A2aClient, TestError> {
        let token = self.token(principal)?;
        Ok(A2aClient::builder(self.url.clone())
            .bearer_token(token)
            .connect()
            .await?)
    }

    /// The agent's typed client over A2A: `let hello: HelloClient = agent.client().await?`.
    ///
    /// # Errors
    ///
    /// The card could not be read or validated.
    pub async fn client<C: TypedClient>(&self) -> Result<C, TestError> {
        Ok(C::from_skills(SkillClient::a2a(Arc::new(
            self.a2a().await?,
        ))))
    }

    /// The typed client over A2A, calling as the declared caller `principal`.
    ///
    /// # Errors
    ///
    /// An undeclared caller, or the card could not be read.
    pub async fn client_as<C: TypedClient>(&self, principal: &str) -> Result<C, TestError> {
        let a2a = self.a2a_as(principal).await?;
        Ok(C::from_skills(SkillClient::a2a(Arc::new(a2a))))
    }

    /// The typed client over MCP (streamable HTTP, a session of its own).
    ///
    /// # Errors
    ///
    /// The MCP session could not be opened.
    pub async fn mcp_client<C: TypedClient>(&self) -> Result<C, TestError> {
        Ok(C::from_skills(
            SkillClient::connect_mcp(self.mcp_url()).await?,
        ))
    }

    /// The typed client over MCP, calling as the declared caller `principal`.
    ///
    /// # Errors
    ///
    /// An undeclared caller, or the MCP session could not be opened.
    pub async fn mcp_client_as<C: TypedClient>(&self, principal: &str) -> Result<C, TestError> {
        let credential = McpCredential::Bearer(self.token(principal)?.to_owned());
        let skills = SkillClient::connect_mcp_as(self.mcp_url(), credential).await?;
        Ok(C::from_skills(skills))
    }

    /// GETs `path` (such as `/.well-known/agent-card.json`) and reads the answer as JSON.
    ///
    /// # Errors
    ///
    /// The request failed or its body is not JSON.
    pub async fn get_json(&self, path: &str) -> Result<RawResponse, TestError> {
        self.raw("GET", path, None, &[]).await
    }

    /// POSTs `body` as JSON to `path` (`/` for A2A JSON-RPC, `/mcp`, `/message:send`) with
    /// extra `headers`, and reads the answer as JSON: the wire as a peer sees it.
    ///
    /// # Errors
    ///
    /// The request failed or its body is not JSON.
    pub async fn post_json(
        &self,
        path: &str,
        body: &Value,
        headers: &[(&str, &str)],
    ) -> Result<RawResponse, TestError> {
        self.raw("POST", path, Some(body), headers).await
    }

    async fn raw(
        &self,
        method: &'static str,
        path: &str,
        body: Option<&Value>,
        headers: &[(&str, &str)],
    ) -> Result<RawResponse, TestError> {
        let failed = |reason: String| TestError::Request {
            method,
            path: path.to_owned(),
            reason,
        };
        let url = format!("{}{}", self.url, path.trim_start_matches('/'));
        let mut request = match body {
            Some(body) => self.http.post(url).json(body),
            None => self.http.get(url),
        };
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.send().await.map_err(|e| failed(e.to_string()))?;
        let status = response.status().as_u16();
        let bytes = response.bytes().await.map_err(|e| failed(e.to_string()))?;
        let body = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes).map_err(|e| failed(format!("not JSON: {e}")))?
        };
        Ok(RawResponse { status, body })
    }
}

impl Drop for TestAgent {
    /// Starts the server's graceful shutdown: open streams and sessions end, and the port is
    /// released once they have.
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

/// The declared callers' tokens, each standing for its caller.
struct TestCallers {
    by_token: HashMap<String, Caller>,
}

impl Authenticator for TestCallers {
    fn authenticate<'a>(
        &'a self,
        request: &'a http::request::Parts,
    ) -> BoxFuture<'a, Result<Option<Caller>, AuthError>> {
        let verdict = match crate::auth::bearer_token(&request.headers) {
            None => Ok(None),
            Some(token) => match self.by_token.get(token) {
                Some(caller) => Ok(Some(caller.clone())),
                None => Err(AuthError::invalid(
                    "not the token of a declared test caller",
                )),
            },
        };
        Box::pin(std::future::ready(verdict))
    }

    fn challenge(&self, error: Option<&AuthError>) -> String {
        match error {
            Some(_) => "Bearer realm=\"agent\", error=\"invalid_token\"".to_owned(),
            None => "Bearer realm=\"agent\"".to_owned(),
        }
    }
}
