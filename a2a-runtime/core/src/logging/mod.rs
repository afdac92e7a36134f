//! Logging for `serve()`: to stderr (stdout carries MCP in stdio mode), filtered by `RUST_LOG`;
//! and a skill's events forwarded to the client that called it (`forward.rs`).

pub mod forward;

pub use forward::{LogLevel, LogRecord, LogSink, forwarding};

/// What is logged when `RUST_LOG` is not set.
const DEFAULT_FILTER: &str = "info,rmcp=warn";

/// Installs a subscriber unless the application already has one.
pub fn init(stdio: bool) {
    // rmcp reports every MCP request's service starting and ending at info: at load that was
    // most of the server's CPU (and a log line per request), so its default is warnings.
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(DEFAULT_FILTER));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(!stdio)
        .try_init();
}
