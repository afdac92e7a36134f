//! Every limit a served agent enforces, with defaults sized so one agent stays within about
//! 1 GiB of memory under any request pattern. The builder, the flags and the environment all set
//! this one type (see `cli.rs`).

use std::time::Duration;

use crate::error::Error;

const KIB: usize = 1024;
const MIB: usize = 1024 * KIB;

/// Limits on requests, tasks, callers, connections and shutdown.
///
/// Each field has a flag and an environment variable (`--max-body-bytes`,
/// `A2A_MAX_BODY_BYTES`, …; `--help` lists them) and a builder method on
/// `AgentServer`. Sizes are bytes; flags also accept `KiB`, `MiB` and `GiB`
/// suffixes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// The largest request body (default 1 MiB). A larger `Content-Length` is refused with 413
    /// before the body is read.
    pub max_body_bytes: usize,
    /// The most parts one message may hold (default 64).
    pub max_message_parts: usize,
    /// The largest part of a message, in bytes of its content (default 1 MiB).
    pub max_part_bytes: usize,
    /// Bytes of history kept per task (default 4 MiB); the oldest messages are dropped first.
    pub max_task_history_bytes: usize,
    /// Bytes of artifacts one task may produce (default 16 MiB); a skill that produces more
    /// fails with an error saying so.
    pub max_task_artifact_bytes: usize,
    /// The most tasks the default in-memory store keeps (default 10 000).
    pub max_tasks: usize,
    /// The most bytes the default in-memory store holds (default 256 MiB). Finished tasks are
    /// evicted first; when only live tasks remain, new work is refused as busy.
    pub max_store_bytes: usize,
    /// How long the default store keeps finished tasks (default 1 hour).
    pub task_ttl: Duration,
    /// The largest `ListTasks` reply (default 4 MiB): a page holds fewer tasks when they are
    /// large, and `nextPageToken` continues.
    pub max_list_bytes: usize,
    /// Tasks one caller may have working at once (default 100).
    pub max_running_per_caller: usize,
    /// Tasks one caller may have waiting for an answer at once (default 100).
    pub max_waiting_per_caller: usize,
    /// Streams (SSE responses) one caller may hold open at once (default 32).
    pub max_streams_per_caller: usize,
    /// New tasks one caller may start per second, on average (default 50).
    pub tasks_per_second_per_caller: u32,
    /// How many new tasks one caller may start in a burst above that rate (default 200).
    pub task_burst_per_caller: u32,
    /// Calls waiting for answers at once, over every caller and both protocols (default
    /// 10 000).
    pub max_waiting_tasks: usize,
    /// How long a question waits for its answer (default 15 minutes).
    pub input_timeout: Duration,
    /// How long an idempotency key holds: a repeat under it within this window returns the
    /// original outcome (default 24 hours; see [`idempotency`](crate::task::idempotency)).
    pub idempotency_ttl: Duration,
    /// How long a cancelled skill may run on before it is dropped (default 5 s).
    pub cancel_grace: Duration,
    /// Events buffered per task for stream subscribers (default 256).
    pub stream_buffer: usize,
    /// How often an idle SSE stream gets a keep-alive comment (default 15 s).
    pub sse_keep_alive: Duration,
    /// How long an MCP `tools/call` from a client that supports tasks may run before it is
    /// answered with a task handle (default 250 ms; tools that require tasks never wait).
    pub mcp_task_after: Duration,
    /// The most MCP sessions (2025 revisions) open at once (default 1 000).
    pub max_mcp_sessions: usize,
    /// How long an idle MCP session lives (default 5 minutes).
    pub mcp_session_idle: Duration,
    /// The most open connections (default 512); further clients wait in the listen backlog.
    pub max_connections: usize,
    /// The most open connections from one IP address (default 128): one client cannot take
    /// every connection. A connection over it is answered 429 and closed. Behind a reverse
    /// proxy every client has the proxy's address: raise it to `max_connections` there. A cap
    /// above `max_connections` would let one address hold every slot, so it is then taken as a
    /// quarter of `max_connections` ([`Limits::connections_per_peer`]).
    pub max_connections_per_peer: usize,
    /// The most HTTP/2 streams (gRPC calls) one connection may have open at once (default 100);
    /// the client is told in its SETTINGS and further streams are refused, so one connection
    /// cannot start unbounded work.
    pub max_streams_per_connection: u32,
    /// How long a client may take to send a request's headers, counted from when the server
    /// starts waiting for them; it also closes keep-alive connections idle that long (default
    /// 15 s).
    pub header_timeout: Duration,
    /// The longest pause while a request body is read (default 15 s).
    pub body_timeout: Duration,
    /// The longest a whole request body may take to arrive, counted from its request's head
    /// (default 30 s): a client trickling a byte now and then cannot hold a connection longer.
    pub body_deadline: Duration,
    /// How long a graceful shutdown lets in-flight requests and running tasks finish before it
    /// cancels them (default 30 s).
    pub shutdown_timeout: Duration,
    /// How long a stopping server keeps serving, its health check failing, before it stops
    /// accepting (default 0): the time a load balancer needs to see the failed check and send
    /// new requests elsewhere, so a rolling restart loses none.
    pub drain_delay: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_body_bytes: MIB,
            max_message_parts: 64,
            max_part_bytes: MIB,
            max_task_history_bytes: 4 * MIB,
            max_task_artifact_bytes: 16 * MIB,
            max_tasks: 10_000,
            max_store_bytes: 256 * MIB,
            task_ttl: Duration::from_secs(3600),
            max_list_bytes: 4 * MIB,
            max_running_per_caller: 100,
            max_waiting_per_caller: 100,
            max_streams_per_caller: 32,
            tasks_per_second_per_caller: 50,
            task_burst_per_caller: 200,
            max_waiting_tasks: 10_000,
            input_timeout: Duration::from_secs(15 * 60),
            idempotency_ttl: crate::task::idempotency::DEFAULT_KEY_TTL,
            cancel_grace: Duration::from_secs(5),
            stream_buffer: 256,
            sse_keep_alive: Duration::from_secs(15),
            mcp_task_after: Duration::from_millis(250),
            max_mcp_sessions: 1_000,
            mcp_session_idle: Duration::from_secs(5 * 60),
            max_connections: 512,
            max_connections_per_peer: 128,
            max_streams_per_connection: 100,
            header_timeout: Duration::from_secs(15),
            body_timeout: Duration::from_secs(15),
            body_deadline: Duration::from_secs(30),
            shutdown_timeout: Duration::from_secs(30),
            drain_delay: Duration::ZERO,
        }
    }
}

impl Limits {
    /// The per-peer connection cap the listener applies: `max_connections_per_peer` when it is
    /// at most `max_connections` (equal is a reverse proxy's setting, made on purpose); above
    /// it (the default 128 beside a smaller `max_connections`), a quarter of
    /// `max_connections`, at least one, so that no single address can hold every connection.
    pub fn connections_per_peer(&self) -> usize {
        if self.max_connections_per_peer <= self.max_connections {
            self.max_connections_per_peer
        } else {
            (self.max_connections / 4).max(1)
        }
    }

    /// How long request bodies may take.
    pub fn body_time(&self) -> crate::body::BodyTime {
        crate::body::BodyTime {
            pause: self.body_timeout,
            deadline: self.body_deadline,
        }
    }

    /// Checks that the limits make sense together; the error names the setting.
    pub fn validate(&self) -> Result<(), Error> {
        let positive = [
            ("max-body-bytes", self.max_body_bytes),
            ("max-message-parts", self.max_message_parts),
            ("max-part-bytes", self.max_part_bytes),
            ("max-task-history-bytes", self.max_task_history_bytes),
            ("max-task-artifact-bytes", self.max_task_artifact_bytes),
            ("max-tasks", self.max_tasks),
            ("max-store-bytes", self.max_store_bytes),
            ("max-list-bytes", self.max_list_bytes),
            ("max-running-per-caller", self.max_running_per_caller),
            ("max-waiting-per-caller", self.max_waiting_per_caller),
            ("max-streams-per-caller", self.max_streams_per_caller),
            ("max-waiting-tasks", self.max_waiting_tasks),
            ("stream-buffer", self.stream_buffer),
            ("max-mcp-sessions", self.max_mcp_sessions),
            ("max-connections", self.max_connections),
            ("max-connections-per-peer", self.max_connections_per_peer),
        ];
        for (name, value) in positive {
            if value == 0 {
                return Err(Error::Config(format!("--{name} must be at least 1")));
            }
        }
        if self.tasks_per_second_per_caller == 0 || self.task_burst_per_caller == 0 {
            return Err(Error::Config(
                "--tasks-per-second-per-caller and --task-burst-per-caller must be at least 1"
                    .into(),
            ));
        }
        let nonzero = [
            ("input-timeout", self.input_timeout),
            ("idempotency-ttl", self.idempotency_ttl),
            ("sse-keep-alive", self.sse_keep_alive),
            ("mcp-session-idle", self.mcp_session_idle),
            ("header-timeout", self.header_timeout),
            ("body-timeout", self.body_timeout),
            ("body-deadline", self.body_deadline),
        ];
        for (name, value) in nonzero {
            if value.is_zero() {
                return Err(Error::Config(format!("--{name} must be longer than zero")));
            }
        }
        if self.max_store_bytes < self.max_task_history_bytes {
            return Err(Error::Config(format!(
                "--max-store-bytes ({}) must be at least --max-task-history-bytes ({}), or no \
                 task would fit",
                self.max_store_bytes, self.max_task_history_bytes
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        Limits::default().validate().expect("valid defaults");
    }

    #[test]
    fn zero_limits_are_named() {
        let limits = Limits {
            max_streams_per_caller: 0,
            ..Limits::default()
        };
        let error = limits.validate().expect_err("zero streams").to_string();
        assert!(error.contains("--max-streams-per-caller"), "{error}");
    }
}
