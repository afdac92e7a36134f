//! [`TraceContext`]: the W3C Trace Context a call arrived in, so a skill that calls further
//! services can continue the caller's trace.

use std::fmt;

/// The W3C Trace Context (`traceparent`, `tracestate`) of the request that started a call.
///
/// Read from the request's headers when they are well formed (a malformed `traceparent` is
/// ignored, as the W3C recommendation asks); `None` for calls without one.
#[derive(Clone, PartialEq, Eq)]
pub struct TraceContext {
    traceparent: String,
    tracestate: Option<String>,
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
        })
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
    /// The trace of the skill call being polled.
    static CURRENT: TraceContext;
}

impl TraceContext {
    /// The trace of the skill call this code runs in, when its request carried one: what an
    /// outgoing request from a skill continues (the crate's client sends it on by itself).
    /// Set while the skill's own future is polled, not in tasks it spawns.
    pub fn current() -> Option<Self> {
        CURRENT.try_with(Clone::clone).ok()
    }

    /// The context of a request made within this trace: the same trace id, flags and
    /// `tracestate`, and a new parent id, the outgoing request's own span (W3C Trace Context
    /// §3.2.2.3: a caller sends its own span, not the one it was called from).
    pub fn child(&self) -> Self {
        let span = loop {
            // A random 64-bit id; all zeros is invalid.
            let id = uuid::Uuid::new_v4().as_u64_pair().0;
            if id != 0 {
                break id;
            }
        };
        let flags = &self.traceparent[53..55];
        Self {
            traceparent: format!("00-{}-{span:016x}-{flags}", self.trace_id()),
            tracestate: self.tracestate.clone(),
        }
    }

    /// Runs `future` with this trace as [`current`](Self::current).
    #[doc(hidden)]
    pub fn scope<F: Future>(self, future: F) -> impl Future<Output = F::Output> {
        CURRENT.scope(self, future)
    }
}

impl fmt::Debug for TraceContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TraceContext")
            .field("traceparent", &self.traceparent)
            .field("tracestate", &self.tracestate)
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
}
