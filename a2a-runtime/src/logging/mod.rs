//! Logging for `serve()`: to stderr (stdout carries MCP in stdio mode), filtered by `RUST_LOG`;
//! and a skill's events forwarded to the client that called it (`forward.rs`).

mod forward;

pub(crate) use forward::{LogLevel, LogRecord, LogSink, forwarding};

/// Installs a subscriber unless the application already has one.
pub(crate) fn init(stdio: bool) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(!stdio)
        .try_init();
}
