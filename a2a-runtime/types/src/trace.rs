//! [`TraceContext`]: the W3C Trace Context a call arrived in, so a skill that calls further
//! services can continue the caller's trace.

use std::fmt;

/// The W3C Trace Context (`traceparent`, `tracestate`) of the request that started a call.
///
/// Read from the request's headers when they are well formed (a malformed `traceparent` is
/// ignored, as the W3C recommendation asks); `None` for calls without one.
///
/// A context may also be a span of this process (a request it serves, a skill call it runs),
/// which it reports to a tracing backend: [`parent_id`](Self::parent_id) is then that span's
/// id, and [`local_parent`](Self::local_parent) the id of the span it was started under.
#[derive(Clone, PartialEq, Eq)]
pub struct TraceContext {
    traceparent: String,
    tracestate: Option<String>,
    /// For a span of this process: the span it was started under (none for a trace's root).
    local: Option<LocalSpan>,
}

/// What a span of this process records of where it was started.
#[derive(Clone, PartialEq, Eq)]
struct LocalSpan {
    parent: Option<Box<str>>,
    /// A span it is linked to, not started under: `(trace id, span id)`.
    link: Option<Box<(String, String)>>,
}

/// The longest `tracestate` kept (32 list members of at most 256 bytes each would be more; the
/// recommendation lets a vendor truncate, and 512 bytes is what it asks to propagate at least).
const MAX_TRACESTATE: usize = 512;

impl TraceContext {
    /// Parses a `traceparent` header value (`00-<32 hex trace id>-<16 hex parent id>-<2 hex
    /// flags>`) and the optional `tracestate`. `None` when `traceparent` is malformed or its
    /// ids are all zeros.
    pub fn parse(traceparent: &str, tracestate: Option<&str>) -> Option<Self> {
        let traceparent = traceparent.trim();
        let mut fields = traceparent.split('-');
        let version = fields.next()?;
        let trace_id = fields.next()?;
        let parent_id = fields.next()?;
        let flags = fields.next()?;
        let hex = |s: &str, len: usize| {
            s.len() == len && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        };
        let zero = |s: &str| s.bytes().all(|b| b == b'0');
        // Version 00 has exactly four fields; later versions may append more.
        let valid = hex(version, 2)
            && version != "ff"
            && (version != "00" || fields.next().is_none())
            && hex(trace_id, 32)
            && !zero(trace_id)
            && hex(parent_id, 16)
            && !zero(parent_id)
            && hex(flags, 2);
        if !valid {
            return None;
        }
        let tracestate = tracestate
            .map(str::trim)
            .filter(|s| !s.is_empty() && s.len() <= MAX_TRACESTATE && s.is_ascii())
            .map(str::to_owned);
        Some(Self {
            traceparent: traceparent.to_owned(),
            tracestate,
            local: None,
        })
    }

    /// A span of this process serving a request that came in `incoming` (its caller's span
    /// its parent, its sampling the caller's), or, without one, the root of a new trace,
    /// sampled with probability `sample_ratio` (0 to 1).
    pub fn start_span(incoming: Option<&Self>, sample_ratio: f64) -> Self {
        match incoming {
            Some(incoming) => Self {
                local: Some(LocalSpan {
                    parent: Some(incoming.parent_id().into()),
                    link: None,
                }),
                ..incoming.with_span(random_span())
            },
            None => {
                let trace = uuid::Uuid::new_v4().as_u128();
                let flags = if sampled(sample_ratio) { "01" } else { "00" };
                Self {
                    traceparent: format!("00-{trace:032x}-{:016x}-{flags}", random_span()),
                    tracestate: None,
                    local: Some(LocalSpan {
                        parent: None,
                        link: None,
                    }),
                }
            }
        }
    }

    /// A span of this process started under this one (a skill call under the request that
    /// made it).
    pub fn child_span(&self) -> Self {
        Self {
            local: Some(LocalSpan {
                parent: Some(self.parent_id().into()),
                link: None,
            }),
            ..self.with_span(random_span())
        }
    }

    /// The context a request that also carries `parent` in its own body (MCP's
    /// `params._meta.traceparent`) is served in: for a span of this process, the same span moved
    /// under `parent` (its id kept, so every part of the request agrees on it; trace, state
    /// and sampling the parent's), linked to the span it was started under (the HTTP request's
    /// caller); otherwise `parent` itself, to carry on.
    pub fn under(&self, parent: &Self) -> Self {
        let Some(local) = &self.local else {
            return parent.clone();
        };
        if self.trace_id() == parent.trace_id()
            && local.parent.as_deref() == Some(parent.parent_id())
        {
            return self.clone();
        }
        let link = local
            .parent
            .as_deref()
            .map(|span| Box::new((self.trace_id().to_owned(), span.to_owned())));
        let flags = &parent.traceparent[53..55];
        Self {
            traceparent: format!("00-{}-{}-{flags}", parent.trace_id(), self.parent_id()),
            tracestate: parent.tracestate.clone(),
            local: Some(LocalSpan {
                parent: Some(parent.parent_id().into()),
                link,
            }),
        }
    }

    /// For a span of this process, the span it is linked to: `(trace id, span id)`.
    pub fn link(&self) -> Option<(&str, &str)> {
        let link = self.local.as_ref()?.link.as_deref()?;
        Some((&link.0, &link.1))
    }

    /// Another span of this process beside this one, under the same parent (the next turn of
    /// a task's call). A context that is no span of this process is returned as it is.
    pub fn next_span(&self) -> Self {
        match &self.local {
            Some(local) => Self {
                local: Some(local.clone()),
                ..self.with_span(random_span())
            },
            None => self.clone(),
        }
    }

    /// Whether this is a span of this process.
    pub fn is_local(&self) -> bool {
        self.local.is_some()
    }

    /// For a span of this process, the id of the span it was started under: `Some(None)` for
    /// the root of a trace. `None` for a caller's context.
    pub fn local_parent(&self) -> Option<Option<&str>> {
        self.local.as_ref().map(|local| local.parent.as_deref())
    }

    /// The context a request sent from here carries: this span itself when it is one of this
    /// process (the backend has it as the request's parent), else a [`child`](Self::child).
    pub fn outgoing(&self) -> Self {
        match &self.local {
            Some(_) => Self {
                local: None,
                ..self.clone()
            },
            None => self.child(),
        }
    }

    /// This context with `span` as its span id.
    fn with_span(&self, span: u64) -> Self {
        let flags = &self.traceparent[53..55];
        Self {
            traceparent: format!("00-{}-{span:016x}-{flags}", self.trace_id()),
            tracestate: self.tracestate.clone(),
            local: None,
        }
    }

    /// The `traceparent` header value to send on.
    pub fn traceparent(&self) -> &str {
        &self.traceparent
    }

    /// The `tracestate` header value to send on, if the caller sent one.
    pub fn tracestate(&self) -> Option<&str> {
        self.tracestate.as_deref()
    }

    /// The 32-hex-digit trace id.
    pub fn trace_id(&self) -> &str {
        &self.traceparent[3..35]
    }

    /// The 16-hex-digit id of the caller's span.
    pub fn parent_id(&self) -> &str {
        &self.traceparent[36..52]
    }

    /// Whether the caller sampled this trace.
    pub fn is_sampled(&self) -> bool {
        u8::from_str_radix(&self.traceparent[53..55], 16).is_ok_and(|flags| flags & 1 == 1)
    }
}

tokio::task_local! {
    /// The trace of the skill call being polled, and where the spans of its outgoing requests
    /// go when the server reports them.
    static CURRENT: Current;
}

/// What a skill call's future carries while it is polled.
#[derive(Clone)]
pub(crate) struct Current {
    pub(crate) trace: TraceContext,
    pub(crate) sink: Option<std::sync::Arc<dyn crate::outgoing::SpanSink>>,
}

impl TraceContext {
    /// The trace of the skill call this code runs in, when its request carried one: what an
    /// outgoing request from a skill continues (the crate's client sends it on by itself).
    /// Set while the skill's own future is polled, not in tasks it spawns.
    pub fn current() -> Option<Self> {
        CURRENT.try_with(|current| current.trace.clone()).ok()
    }

    /// The trace and span sink this code runs in.
    pub(crate) fn current_scope() -> Option<Current> {
        CURRENT.try_with(Clone::clone).ok()
    }

    /// The context of a request made within this trace: the same trace id, flags and
    /// `tracestate`, and a new parent id, the outgoing request's own span (W3C Trace Context
    /// §3.2.2.3: a caller sends its own span, not the one it was called from).
    pub fn child(&self) -> Self {
        self.with_span(random_span())
    }

    /// Runs `future` with this trace as [`current`](Self::current).
    #[doc(hidden)]
    pub fn scope<F: Future>(self, future: F) -> impl Future<Output = F::Output> {
        CURRENT.scope(
            Current {
                trace: self,
                sink: None,
            },
            future,
        )
    }

    /// Runs `future` with this trace as [`current`](Self::current), the spans of the requests
    /// it sends out reported to `sink`.
    #[doc(hidden)]
    pub fn scope_reporting<F: Future>(
        self,
        sink: std::sync::Arc<dyn crate::outgoing::SpanSink>,
        future: F,
    ) -> impl Future<Output = F::Output> {
        CURRENT.scope(
            Current {
                trace: self,
                sink: Some(sink),
            },
            future,
        )
    }

    /// Runs `future` in `current`.
    pub(crate) fn rescope<F: Future>(
        current: Current,
        future: F,
    ) -> impl Future<Output = F::Output> {
        CURRENT.scope(current, future)
    }
}

/// Whether a trace is sampled at `ratio`: a uniform draw from a v4 UUID's random bits.
fn sampled(ratio: f64) -> bool {
    if ratio >= 1.0 {
        return true;
    }
    let draw = uuid::Uuid::new_v4().as_u64_pair().0 >> 11;
    // 53 random bits make an f64 in [0, 1) exactly.
    #[allow(clippy::cast_precision_loss)]
    let unit = draw as f64 / (1u64 << 53) as f64;
    unit < ratio
}

/// A random 64-bit span id (all zeros is invalid).
fn random_span() -> u64 {
    loop {
        let id = uuid::Uuid::new_v4().as_u64_pair().0;
        if id != 0 {
            return id;
        }
    }
}

impl fmt::Debug for TraceContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TraceContext")
            .field("traceparent", &self.traceparent)
            .field("tracestate", &self.tracestate)
            .field(
                "local_parent",
                &self.local.as_ref().map(|local| local.parent.as_deref()),
            )
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VALID: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn a_valid_traceparent_exposes_its_ids_and_flags() {
        let trace = TraceContext::parse(VALID, Some("congo=t61rcWkgMzE")).unwrap();
        assert_eq!(trace.trace_id(), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(trace.parent_id(), "00f067aa0ba902b7");
        assert!(trace.is_sampled());
        assert_eq!(trace.tracestate(), Some("congo=t61rcWkgMzE"));
    }

    #[test]
    fn a_child_keeps_the_trace_and_takes_a_span_of_its_own() {
        let trace = TraceContext::parse(VALID, Some("congo=t61rcWkgMzE")).unwrap();
        let child = trace.child();
        assert_eq!(child.trace_id(), trace.trace_id());
        assert_ne!(child.parent_id(), trace.parent_id());
        assert!(child.is_sampled());
        assert_eq!(child.tracestate(), trace.tracestate());
        let reparsed = TraceContext::parse(child.traceparent(), None);
        assert_eq!(
            reparsed.map(|t| t.trace_id().to_owned()),
            Some(trace.trace_id().into())
        );
    }

    #[test]
    fn a_span_of_this_process_keeps_its_parent_and_is_sent_on_as_itself() {
        let incoming = TraceContext::parse(VALID, None).unwrap();
        let request = TraceContext::start_span(Some(&incoming), 0.0);
        assert_eq!(request.trace_id(), incoming.trace_id());
        assert!(request.is_sampled(), "the caller's sampling decides");
        assert_eq!(request.local_parent(), Some(Some("00f067aa0ba902b7")));
        let skill = request.child_span();
        assert_eq!(skill.local_parent(), Some(Some(request.parent_id())));
        let next = skill.next_span();
        assert_ne!(next.parent_id(), skill.parent_id());
        assert_eq!(next.local_parent(), skill.local_parent());
        let sent = skill.outgoing();
        assert_eq!(
            sent.parent_id(),
            skill.parent_id(),
            "the skill's span is the parent"
        );
        assert!(!sent.is_local());
        assert_ne!(incoming.outgoing().parent_id(), incoming.parent_id());
    }

    #[test]
    fn a_trace_started_here_is_sampled_as_asked() {
        let root = TraceContext::start_span(None, 1.0);
        assert!(root.is_sampled());
        assert_eq!(root.local_parent(), Some(None));
        assert!(TraceContext::parse(root.traceparent(), None).is_some());
        assert!(!TraceContext::start_span(None, 0.0).is_sampled());
    }

    #[test]
    fn malformed_traceparents_are_ignored() {
        for bad in [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "00-4bf92f3577b34da6a3ce929d0e0e47361-00f067aa0ba902b7-01",
        ] {
            assert!(TraceContext::parse(bad, None).is_none(), "{bad}");
        }
    }

    #[test]
    fn a_span_moved_under_the_requests_own_context_keeps_its_id_and_links_its_caller() {
        let http = TraceContext::parse(VALID, None).unwrap();
        let request = TraceContext::start_span(Some(&http), 1.0);
        let own = TraceContext::parse(
            "00-11111111111111111111111111111111-2222222222222222-01",
            None,
        )
        .unwrap();
        let moved = request.under(&own);
        assert_eq!(moved.parent_id(), request.parent_id());
        assert_eq!(moved.trace_id(), own.trace_id());
        assert_eq!(moved.local_parent(), Some(Some(own.parent_id())));
        assert_eq!(moved.link(), Some((http.trace_id(), http.parent_id())));
        assert!(moved.is_sampled());
        // The same context in both places changes nothing; outside a span, the context is kept.
        assert_eq!(request.under(&http), request);
        assert_eq!(http.under(&own), own);
    }
}
