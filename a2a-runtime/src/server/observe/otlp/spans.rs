//! Records as OTLP spans, with attributes of the OpenTelemetry semantic conventions: a request
//! is a SERVER span named by its method (MCP: `tools/call {tool}`), a skill call an INTERNAL
//! `execute_tool {skill}` span under it, both only for sampled traces this process started a
//! span in.

use std::time::{Duration, SystemTime};

use a2a_runtime_core::observe::{
    CallKind, CallOutcome, CallRecord, ClientSpan, OperationDetail, OperationRecord,
};
use a2a_runtime_types::TraceContext;
use a2a_runtime_types::model::{Binding, Protocol};

use super::wire::{
    KeyValue, Link, SPAN_KIND_CLIENT, SPAN_KIND_INTERNAL, SPAN_KIND_SERVER, STATUS_CODE_ERROR,
    Span, Status,
};

/// The span of a request, when it is one of a sampled trace.
pub(super) fn of_operation(operation: &OperationRecord) -> Option<Span> {
    let trace = sampled(operation.trace.as_ref())?;
    let mut attributes = vec![KeyValue::text("gen_ai.agent.name", &*operation.agent)];
    let name = match operation.protocol {
        Protocol::Mcp => mcp_operation(operation, &mut attributes),
        protocol => {
            // The logical operation, whatever the binding or dialect (`SendMessage` for
            // `POST /message:send` and 0.3's `message/send` alike).
            let method = &*operation.method;
            attributes.push(KeyValue::text("a2a.method.name", method));
            attributes.push(KeyValue::text("a2a.protocol.version", protocol.version()));
            attributes.push(KeyValue::text("a2a.binding", operation.binding.as_str()));
            if let Some(detail) = operation.detail.as_deref() {
                a2a_detail(detail, &mut attributes);
            }
            method.to_owned()
        }
    };
    let status = operation.error_type.as_deref().map(|error| {
        attributes.push(KeyValue::text("error.type", error));
        Status {
            message: error.to_owned(),
            code: STATUS_CODE_ERROR,
        }
    });
    let at = times(operation.started_at, operation.duration);
    Some(span(trace, name, SPAN_KIND_SERVER, at, attributes, status))
}

/// An MCP request's attributes; its span's name (`{mcp.method.name} {target}`).
fn mcp_operation(operation: &OperationRecord, attributes: &mut Vec<KeyValue>) -> String {
    let method = &*operation.method;
    attributes.push(KeyValue::text("mcp.method.name", method));
    let transport = match operation.binding {
        Binding::Stdio => "pipe",
        _ => "tcp",
    };
    attributes.push(KeyValue::text("network.transport", transport));
    if let Some(detail) = operation.detail.as_deref() {
        let texts = [
            ("jsonrpc.request.id", &detail.request_id),
            ("mcp.session.id", &detail.session_id),
            ("mcp.protocol.version", &detail.protocol_version),
        ];
        for (key, value) in texts {
            if let Some(value) = value {
                attributes.push(KeyValue::text(key, value));
            }
        }
    }
    match (method, operation.target.as_deref()) {
        ("tools/call", Some(tool)) => {
            attributes.push(KeyValue::text("gen_ai.tool.name", tool));
            attributes.push(KeyValue::text("gen_ai.operation.name", "execute_tool"));
            format!("{method} {tool}")
        }
        ("prompts/get", Some(prompt)) => {
            attributes.push(KeyValue::text("gen_ai.prompt.name", prompt));
            format!("{method} {prompt}")
        }
        _ => method.to_owned(),
    }
}

/// What an A2A request was about, as the A2A conventions name it.
fn a2a_detail(detail: &OperationDetail, attributes: &mut Vec<KeyValue>) {
    let texts = [
        ("a2a.task.id", &detail.task_id),
        ("a2a.message.id", &detail.message_id),
        ("gen_ai.conversation.id", &detail.context_id),
        ("a2a.tenant", &detail.tenant),
        ("jsonrpc.request.id", &detail.request_id),
    ];
    for (key, value) in texts {
        if let Some(value) = value {
            attributes.push(KeyValue::text(key, value));
        }
    }
    if let Some(state) = detail.task_state {
        let name = a2a_runtime_types::protocol::a2a::v1::state_name(state);
        attributes.push(KeyValue::text("a2a.task.state", name));
    }
}

/// The span of a call, when it is one of a sampled trace.
pub(super) fn of_call(call: &CallRecord) -> Option<Span> {
    let trace = sampled(call.trace.as_ref())?;
    let mut attributes = vec![
        KeyValue::text("gen_ai.agent.name", &*call.agent),
        KeyValue::text("a2a.call.outcome", call.outcome.as_str()),
        KeyValue::int("a2a.call.input_bytes", call.input_bytes),
        KeyValue::int("a2a.call.output_bytes", call.output_bytes),
    ];
    let name = match call.kind {
        CallKind::Skill => {
            attributes.push(KeyValue::text("gen_ai.operation.name", "execute_tool"));
            attributes.push(KeyValue::text("gen_ai.tool.name", &*call.name));
            format!("execute_tool {}", call.name)
        }
        CallKind::Prompt => {
            attributes.push(KeyValue::text("gen_ai.prompt.name", &*call.name));
            format!("prompts/get {}", call.name)
        }
        // A resource's URI would make names of unbounded variety.
        _ => {
            attributes.push(KeyValue::text("mcp.resource.uri", &*call.name));
            "resources/read".to_owned()
        }
    };
    if let Some(task) = &call.task_id {
        attributes.push(KeyValue::text("a2a.task.id", task));
    }
    if let Some(context) = &call.context_id {
        attributes.push(KeyValue::text("a2a.context.id", context));
    }
    let status = failed(call.outcome).then(|| {
        attributes.push(KeyValue::text("error.type", call.outcome.as_str()));
        Status {
            message: call.error.clone().unwrap_or_default(),
            code: STATUS_CODE_ERROR,
        }
    });
    let at = times(call.started_at, call.duration);
    Some(span(
        trace,
        name,
        SPAN_KIND_INTERNAL,
        at,
        attributes,
        status,
    ))
}

/// The span of a request a skill sent out, when it is one of a sampled trace: named and
/// described as the callee's span is (`SendMessage`, `tools/call {tool}`), with the server it
/// went to.
pub(super) fn of_client(sent: &ClientSpan) -> Option<Span> {
    let trace = sampled(Some(&sent.trace))?;
    let method = &*sent.method;
    let mut attributes = Vec::new();
    let name = match sent.protocol {
        Protocol::Mcp => {
            attributes.push(KeyValue::text("mcp.method.name", method));
            attributes.push(KeyValue::text("network.transport", "tcp"));
            match &sent.target {
                Some(tool) => {
                    attributes.push(KeyValue::text("gen_ai.tool.name", tool));
                    attributes.push(KeyValue::text("gen_ai.operation.name", "execute_tool"));
                    format!("{method} {tool}")
                }
                None => method.to_owned(),
            }
        }
        protocol => {
            attributes.push(KeyValue::text("a2a.method.name", method));
            attributes.push(KeyValue::text("a2a.protocol.version", protocol.version()));
            method.to_owned()
        }
    };
    if let Some((host, port)) = &sent.server {
        attributes.push(KeyValue::text("server.address", host));
        attributes.push(KeyValue::int("server.port", u64::from(*port)));
    }
    let status = sent.error_type.as_deref().map(|error| {
        attributes.push(KeyValue::text("error.type", error));
        Status {
            message: error.to_owned(),
            code: STATUS_CODE_ERROR,
        }
    });
    let at = times(sent.started_at, sent.duration);
    Some(span(trace, name, SPAN_KIND_CLIENT, at, attributes, status))
}

/// Whether a call that ended as `outcome` failed (a declined or canceled one did not).
fn failed(outcome: CallOutcome) -> bool {
    !matches!(
        outcome,
        CallOutcome::Completed
            | CallOutcome::InputRequired
            | CallOutcome::Rejected
            | CallOutcome::Canceled
    )
}

/// `trace`, when it is a span of this process in a sampled trace.
fn sampled(trace: Option<&TraceContext>) -> Option<&TraceContext> {
    trace.filter(|trace| trace.is_local() && trace.is_sampled())
}

fn span(
    trace: &TraceContext,
    name: String,
    kind: i32,
    at: Interval,
    attributes: Vec<KeyValue>,
    status: Option<Status>,
) -> Span {
    let parent = trace.local_parent().flatten().map(hex).unwrap_or_default();
    let links = trace
        .link()
        .map(|(trace_id, span_id)| Link {
            trace_id: hex(trace_id),
            span_id: hex(span_id),
        })
        .into_iter()
        .collect();
    Span {
        trace_id: hex(trace.trace_id()),
        span_id: hex(trace.parent_id()),
        trace_state: trace.tracestate().unwrap_or_default().to_owned(),
        parent_span_id: parent,
        flags: u32::from(trace.is_sampled()),
        name,
        kind,
        start_time_unix_nano: at.start,
        end_time_unix_nano: at.end,
        attributes,
        links,
        status,
    }
}

/// Nanoseconds since the epoch at `started` and `duration` later.
/// When a span started and ended, in nanoseconds since the epoch.
struct Interval {
    start: u64,
    end: u64,
}

fn times(started: SystemTime, duration: Duration) -> Interval {
    let nanos = |at: SystemTime| {
        at.duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |since| {
                u64::try_from(since.as_nanos()).unwrap_or(u64::MAX)
            })
    };
    let start = nanos(started);
    let length = u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX);
    Interval {
        start,
        end: start.saturating_add(length),
    }
}

/// The bytes of a lower-case hex id (the W3C form, already validated).
fn hex(text: &str) -> Vec<u8> {
    text.as_bytes()
        .chunks(2)
        .map(|pair| {
            let digit = |byte: u8| match byte {
                b'0'..=b'9' => byte - b'0',
                _ => byte.wrapping_sub(b'a').wrapping_add(10) & 0x0f,
            };
            digit(pair[0]) << 4 | digit(pair.get(1).copied().unwrap_or(b'0'))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_ids_become_their_bytes() {
        assert_eq!(
            hex("00f067aa0ba902b7"),
            [0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7]
        );
    }
}
