//! A skill's `tracing` events as MCP `notifications/message`: at or above the session's level
//! (`logging/setLevel`, info until set) in 2025-era sessions, and at or above the request's
//! `_meta["io.modelcontextprotocol/logLevel"]` in the 2026-07-28 era, where a request without
//! one gets no log messages.
//!
//! rmcp marks these types deprecated (SEP-2577 moves logging into request `_meta` for the
//! 2026-07-28 era); the 2025-era clients served here still use them.
#![allow(deprecated)]

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};

use rmcp::RoleServer;
use rmcp::model::{
    LoggingLevel, LoggingMessageNotification, LoggingMessageNotificationParam,
    ServerJsonRpcMessage, ServerNotification,
};
use rmcp::service::Peer;
use serde_json::Value;
use tokio::sync::mpsc;

use crate::call_stream::CallOutbox;
use a2a_runtime_core::logging::{LogLevel, LogRecord, LogSink};

/// Messages a slow client may fall behind by before later ones are dropped (a chatty skill
/// must not hold memory for a client that does not read).
const BACKLOG: usize = 256;

/// The level a session set with `logging/setLevel`.
#[derive(Debug, Default)]
pub struct SessionLevel(AtomicU8);

impl SessionLevel {
    /// Info until the client sets one.
    fn get(&self) -> LogLevel {
        match self.0.load(Ordering::Relaxed) {
            0 => LogLevel::Info,
            n => LEVELS
                .get(usize::from(n - 1))
                .copied()
                .unwrap_or(LogLevel::Info),
        }
    }

    pub fn set(&self, level: LoggingLevel) {
        let level = from_mcp(level);
        let index = LEVELS.iter().position(|l| *l == level).unwrap_or(1);
        self.0
            .store(u8::try_from(index + 1).unwrap_or(2), Ordering::Relaxed);
    }
}

const LEVELS: [LogLevel; 8] = [
    LogLevel::Debug,
    LogLevel::Info,
    LogLevel::Notice,
    LogLevel::Warning,
    LogLevel::Error,
    LogLevel::Critical,
    LogLevel::Alert,
    LogLevel::Emergency,
];

fn from_mcp(level: LoggingLevel) -> LogLevel {
    match level {
        LoggingLevel::Debug => LogLevel::Debug,
        LoggingLevel::Info => LogLevel::Info,
        LoggingLevel::Notice => LogLevel::Notice,
        LoggingLevel::Warning => LogLevel::Warning,
        LoggingLevel::Error => LogLevel::Error,
        LoggingLevel::Critical => LogLevel::Critical,
        LoggingLevel::Alert => LogLevel::Alert,
        LoggingLevel::Emergency => LogLevel::Emergency,
    }
}

fn to_mcp(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Notice => LoggingLevel::Notice,
        LogLevel::Warning => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
        LogLevel::Critical => LoggingLevel::Critical,
        LogLevel::Alert => LoggingLevel::Alert,
        LogLevel::Emergency => LoggingLevel::Emergency,
    }
}

/// The least severe level one call's client wants.
enum Threshold {
    /// The session's, which may change during the call.
    Session(Arc<SessionLevel>),
    /// The request's own.
    Fixed(LogLevel),
}

/// Sends one call's log messages to its client, in order, from a task of its own started with
/// the first message (most calls log nothing, and pay nothing).
pub struct McpLogSink {
    threshold: Threshold,
    peer: Peer<RoleServer>,
    /// The call's response, when it is answered directly: its messages go there at once.
    outbox: Option<CallOutbox>,
    messages: OnceLock<mpsc::Sender<LoggingMessageNotificationParam>>,
}

impl McpLogSink {
    /// A sink following the session's level, writing straight into `outbox` when the call is
    /// answered where it arrived.
    pub fn session(
        level: Arc<SessionLevel>,
        peer: Peer<RoleServer>,
        outbox: Option<CallOutbox>,
    ) -> Arc<Self> {
        Self::new(Threshold::Session(level), peer, outbox)
    }

    /// A sink at the request's level, writing straight into `outbox` when the call is answered
    /// directly.
    pub fn request(
        level: LoggingLevel,
        peer: Peer<RoleServer>,
        outbox: Option<CallOutbox>,
    ) -> Arc<Self> {
        Self::new(Threshold::Fixed(from_mcp(level)), peer, outbox)
    }

    fn new(threshold: Threshold, peer: Peer<RoleServer>, outbox: Option<CallOutbox>) -> Arc<Self> {
        Arc::new(Self {
            threshold,
            peer,
            outbox,
            messages: OnceLock::new(),
        })
    }

    /// The queue to the client, started on first use.
    fn queue(&self) -> &mpsc::Sender<LoggingMessageNotificationParam> {
        self.messages.get_or_init(|| {
            let (messages, mut queued) = mpsc::channel(BACKLOG);
            let peer = self.peer.clone();
            // Ends when the call (and with it the sink) is gone and the queue is drained.
            tokio::spawn(async move {
                while let Some(message) = queued.recv().await {
                    if peer.notify_logging_message(message).await.is_err() {
                        return;
                    }
                }
            });
            messages
        })
    }
}

impl LogSink for McpLogSink {
    fn wants(&self, level: LogLevel) -> bool {
        let min = match &self.threshold {
            Threshold::Session(session) => session.get(),
            Threshold::Fixed(level) => *level,
        };
        level >= min
    }

    fn log(&self, record: LogRecord) {
        let message =
            LoggingMessageNotificationParam::new(to_mcp(record.level), Value::Object(record.data))
                .with_logger(record.logger);
        // Full: this message is dropped rather than the skill slowed down.
        match &self.outbox {
            // Straight into the response, so it cannot arrive after the answer.
            Some(outbox) => {
                let logged = LoggingMessageNotification::new(message);
                let notification = ServerNotification::LoggingMessageNotification(logged);
                let _ = outbox
                    .0
                    .try_send(ServerJsonRpcMessage::notification(notification));
            }
            None => {
                let _ = self.queue().try_send(message);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_is_at_info_until_set() {
        let level = SessionLevel::default();
        assert_eq!(level.get(), LogLevel::Info);
        level.set(LoggingLevel::Debug);
        assert_eq!(level.get(), LogLevel::Debug);
        level.set(LoggingLevel::Emergency);
        assert_eq!(level.get(), LogLevel::Emergency);
    }
}
