//! The OTLP messages a trace export holds, with the field numbers of the official definitions
//! (`opentelemetry/proto/trace/v1`, `resource/v1`, `common/v1`). Only what this exporter writes
//! is declared; the envelope (`ExportTraceServiceRequest`, `ResourceSpans`, `ScopeSpans`) is
//! written by the exporter around spans already encoded.

/// `opentelemetry.proto.resource.v1.Resource`.
#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct Resource {
    #[prost(message, repeated, tag = "1")]
    pub(super) attributes: Vec<KeyValue>,
}

/// `opentelemetry.proto.common.v1.InstrumentationScope`.
#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct InstrumentationScope {
    #[prost(string, tag = "1")]
    pub(super) name: String,
    #[prost(string, tag = "2")]
    pub(super) version: String,
}

/// `opentelemetry.proto.trace.v1.Span`.
#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct Span {
    #[prost(bytes = "vec", tag = "1")]
    pub(super) trace_id: Vec<u8>,
    #[prost(bytes = "vec", tag = "2")]
    pub(super) span_id: Vec<u8>,
    #[prost(string, tag = "3")]
    pub(super) trace_state: String,
    #[prost(bytes = "vec", tag = "4")]
    pub(super) parent_span_id: Vec<u8>,
    #[prost(fixed32, tag = "16")]
    pub(super) flags: u32,
    #[prost(string, tag = "5")]
    pub(super) name: String,
    #[prost(int32, tag = "6")]
    pub(super) kind: i32,
    #[prost(fixed64, tag = "7")]
    pub(super) start_time_unix_nano: u64,
    #[prost(fixed64, tag = "8")]
    pub(super) end_time_unix_nano: u64,
    #[prost(message, repeated, tag = "9")]
    pub(super) attributes: Vec<KeyValue>,
    #[prost(message, repeated, tag = "13")]
    pub(super) links: Vec<Link>,
    #[prost(message, optional, tag = "15")]
    pub(super) status: Option<Status>,
}

/// `opentelemetry.proto.trace.v1.Span.Link`: a span this one relates to without being under it.
#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct Link {
    #[prost(bytes = "vec", tag = "1")]
    pub(super) trace_id: Vec<u8>,
    #[prost(bytes = "vec", tag = "2")]
    pub(super) span_id: Vec<u8>,
}

/// `Span.SpanKind`: a skill call inside a request.
pub(super) const SPAN_KIND_INTERNAL: i32 = 1;
/// `Span.SpanKind`: a request served.
pub(super) const SPAN_KIND_SERVER: i32 = 2;
/// `Span.SpanKind`: a request a skill sent out.
pub(super) const SPAN_KIND_CLIENT: i32 = 3;

/// `opentelemetry.proto.trace.v1.Status`.
#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct Status {
    #[prost(string, tag = "2")]
    pub(super) message: String,
    #[prost(int32, tag = "3")]
    pub(super) code: i32,
}

/// `Status.StatusCode`: the span failed.
pub(super) const STATUS_CODE_ERROR: i32 = 2;

/// `opentelemetry.proto.common.v1.KeyValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct KeyValue {
    #[prost(string, tag = "1")]
    pub(super) key: String,
    #[prost(message, optional, tag = "2")]
    pub(super) value: Option<AnyValue>,
}

/// `opentelemetry.proto.common.v1.AnyValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct AnyValue {
    #[prost(oneof = "Value", tags = "1, 3")]
    pub(super) value: Option<Value>,
}

/// `AnyValue.value`: the kinds this exporter writes.
#[derive(Clone, PartialEq, prost::Oneof)]
pub(super) enum Value {
    #[prost(string, tag = "1")]
    StringValue(String),
    #[prost(int64, tag = "3")]
    IntValue(i64),
}

impl KeyValue {
    /// A string attribute.
    pub(super) fn text(key: &str, value: impl Into<String>) -> Self {
        Self {
            key: key.to_owned(),
            value: Some(AnyValue {
                value: Some(Value::StringValue(value.into())),
            }),
        }
    }

    /// An integer attribute.
    pub(super) fn int(key: &str, value: u64) -> Self {
        Self {
            key: key.to_owned(),
            value: Some(AnyValue {
                value: Some(Value::IntValue(i64::try_from(value).unwrap_or(i64::MAX))),
            }),
        }
    }
}
