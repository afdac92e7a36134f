//! The `CLIENT` spans of requests a skill sends out (to another agent over A2A or MCP): started
//! under the skill's span when its server reports traces, carried by the request as its
//! `traceparent` (so the callee's span hangs under it), and handed to the server's exporter
//! when the answer is in.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use crate::TraceContext;
use crate::model::Protocol;
use crate::trace::Current;

/// A request sent out from a skill, as its span reports it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ClientSpan {
    /// The span: a span of this process under the skill's.
    pub trace: TraceContext,
    /// The protocol it was sent in.
    pub protocol: Protocol,
    /// The operation: an A2A 1.0 method (`SendMessage`) or an MCP method (`tools/call`).
    pub method: Cow<'static, str>,
    /// The tool it called, for `tools/call`.
    pub target: Option<String>,
    /// The server's host and port (`server.address`, `server.port`).
    pub server: Option<(String, u16)>,
    /// When it was sent.
    pub started_at: SystemTime,
    /// Until its answer (a stream: until it opened).
    pub duration: Duration,
    /// How it failed: the JSON-RPC or A2A error code, an HTTP status, `tool_error`, or the
    /// kind of failure (`transport`, `timeout`); none when it succeeded.
    pub error_type: Option<String>,
}

/// Where the spans of outgoing requests go: the server's exporter.
pub trait SpanSink: Send + Sync {
    /// A request ended.
    fn client_span(&self, span: ClientSpan);
}

/// An outgoing request's span under way: [`finish`](Self::finish) it when the answer is in.
pub struct Outgoing {
    span: ClientSpan,
    sink: Arc<dyn SpanSink>,
    started: Instant,
    scope: Current,
}

impl Outgoing {
    /// The span of a request of `method` (about `target`) in `protocol` to `url`, when the skill
    /// this runs in is a span its server reports; `None` otherwise (nothing to record).
    pub fn start(
        protocol: Protocol,
        method: impl Into<Cow<'static, str>>,
        target: Option<&str>,
        url: &str,
    ) -> Option<Self> {
        let current = TraceContext::current_scope()?;
        let sink = current.sink.clone()?;
        if !(current.trace.is_local() && current.trace.is_sampled()) {
            return None;
        }
        let trace = current.trace.child_span();
        let scope = Current {
            trace: trace.clone(),
            sink: Some(Arc::clone(&sink)),
        };
        Some(Self {
            span: ClientSpan {
                trace,
                protocol,
                method: method.into(),
                target: target.map(str::to_owned),
                server: server_of(url),
                started_at: SystemTime::now(),
                duration: Duration::ZERO,
                error_type: None,
            },
            sink,
            started: Instant::now(),
            scope,
        })
    }

    /// The context the request carries: this span.
    pub fn context(&self) -> TraceContext {
        self.span.trace.outgoing()
    }

    /// Runs `future` (the request) with this span as the current trace, so what it sends
    /// carries it.
    pub fn within<F: Future>(&self, future: F) -> impl Future<Output = F::Output> {
        TraceContext::rescope(self.scope.clone(), future)
    }

    /// The answer is in: reports the span, failed as `error_type` (none: it succeeded).
    pub fn finish(mut self, error_type: Option<String>) {
        self.span.duration = self.started.elapsed();
        self.span.error_type = error_type;
        self.sink.client_span(self.span);
    }
}

/// The host and port of `url` (the scheme's default port when it names none).
fn server_of(url: &str) -> Option<(String, u16)> {
    let (scheme, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit('@').next()?;
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, port)) if !host.ends_with(']') || authority.starts_with('[') => {
            match port.parse() {
                Ok(port) => (host, port),
                Err(_) => (authority, default_port(scheme)?),
            }
        }
        _ => (authority, default_port(scheme)?),
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    (!host.is_empty()).then(|| (host.to_owned(), port))
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_are_named_by_host_and_port() {
        assert_eq!(
            server_of("http://127.0.0.1:8080/mcp"),
            Some(("127.0.0.1".into(), 8080))
        );
        assert_eq!(
            server_of("https://agent.example.com/"),
            Some(("agent.example.com".into(), 443))
        );
        assert_eq!(server_of("http://[::1]:9/x"), Some(("::1".into(), 9)));
        assert_eq!(server_of("not a url"), None);
    }

    #[test]
    fn without_a_reported_skill_span_nothing_is_started() {
        assert!(Outgoing::start(Protocol::Mcp, "tools/call", Some("t"), "http://h/").is_none());
    }
}
