#![doc = include_str!("../../docs/configuration.md")]

mod agent;
mod agent_routes;
mod agent_server;
mod banner;
mod catalog;
mod cli;
mod config;
mod console;
mod direct;
mod discovery;
pub mod host;
mod http;
mod lifecycle;
mod mcp;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod mcp_sessions;
mod mount;
mod mounts;
mod oauth;
mod observe;
mod paths;
mod remote_mounts;
mod remotes;
mod resource_metadata;
mod routes;
mod settings;
mod shared;
mod startup;
mod stopping;
mod storage;
mod tasks;
mod tenants;
mod transport;

pub use a2a_runtime_core::error::Error;
pub use a2a_runtime_core::limits::Limits;
pub use agent_server::AgentServer;
pub use config::{AuthSettings, DEFAULT_MAX_BODY_BYTES, PushOptions, ServeConfig, StoreLocation};
pub use host::{AgentCatalog, CatalogEntry, Host};
pub use oauth::OAuthOptions;
pub use observe::ObserveOptions;
pub use remotes::{RemoteDecl, RemoteTarget, UpstreamOAuth};
pub use settings::Serving;
pub use tasks::{Tasks, TasksError};
/// Re-exported: [`AgentServer::shutdown_signal`] takes one.
pub use tokio_util::sync::CancellationToken;
pub use transport::{TlsSettings, TrustedProxies};
