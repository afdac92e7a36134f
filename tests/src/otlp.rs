//! An OTLP/HTTP trace receiver on loopback: it decodes each export with the types generated
//! from the official OpenTelemetry protobuf definitions (`opentelemetry-proto`) and keeps every
//! span with the resource it came from.

use std::sync::{Arc, Mutex};

use a2a_runtime::axum::Router;
use a2a_runtime::axum::body::Bytes;
use a2a_runtime::axum::extract::State;
use a2a_runtime::axum::http::{HeaderMap, StatusCode};
use a2a_runtime::axum::routing::post;
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message as _;

/// A span as received, with its resource's attributes.
#[derive(Debug, Clone)]
pub struct Received {
    /// The span, as decoded.
    pub span: Span,
    /// The attributes of the resource that sent it.
    pub resource: Vec<KeyValue>,
}

impl Received {
    /// A string attribute of the span.
    pub fn attribute(&self, key: &str) -> Option<String> {
        text_of(&self.span.attributes, key)
    }

    /// A string attribute of the resource.
    pub fn resource(&self, key: &str) -> Option<String> {
        text_of(&self.resource, key)
    }

    /// The trace id, in hex.
    pub fn trace_id(&self) -> String {
        hex(&self.span.trace_id)
    }

    /// The span id, in hex.
    pub fn span_id(&self) -> String {
        hex(&self.span.span_id)
    }

    /// The parent's span id, in hex (empty for a root).
    pub fn parent_id(&self) -> String {
        hex(&self.span.parent_span_id)
    }

    /// An integer attribute of the span.
    pub fn int_attribute(&self, key: &str) -> Option<i64> {
        let value = self.span.attributes.iter().find(|kv| kv.key == key)?;
        match value.value.as_ref()?.value.as_ref()? {
            Value::IntValue(number) => Some(*number),
            _ => None,
        }
    }

    /// The spans this one is linked to: `(trace id, span id)` in hex.
    pub fn links(&self) -> Vec<(String, String)> {
        self.span
            .links
            .iter()
            .map(|link| (hex(&link.trace_id), hex(&link.span_id)))
            .collect()
    }
}

fn text_of(attributes: &[KeyValue], key: &str) -> Option<String> {
    attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref()?.value.as_ref())
        .and_then(|value| match value {
            Value::StringValue(text) => Some(text.clone()),
            _ => None,
        })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The receiver: its endpoint (what `--otlp-endpoint` takes) and what it received.
pub struct Collector {
    /// `http://127.0.0.1:PORT`.
    pub endpoint: String,
    spans: Arc<Mutex<Vec<Received>>>,
}

impl Collector {
    /// Starts a receiver on an ephemeral loopback port (it stops with the test's runtime).
    pub async fn start() -> Self {
        let spans: Arc<Mutex<Vec<Received>>> = Arc::default();
        let app = Router::new()
            .route("/v1/traces", post(receive))
            .with_state(Arc::clone(&spans));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let endpoint = format!("http://{}", listener.local_addr().expect("address"));
        tokio::spawn(async move { a2a_runtime::axum::serve(listener, app).await });
        Self { endpoint, spans }
    }

    /// Every span received so far.
    pub fn spans(&self) -> Vec<Received> {
        self.spans.lock().expect("spans").clone()
    }

    /// The spans received, once `done` holds for them (a hang guard of 30 s).
    pub async fn until(&self, done: impl Fn(&[Received]) -> bool) -> Vec<Received> {
        for _ in 0..300 {
            let spans = self.spans();
            if done(&spans) {
                return spans;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        panic!("the spans expected never arrived: {:#?}", self.spans());
    }
}

async fn receive(
    State(spans): State<Arc<Mutex<Vec<Received>>>>,
    headers: HeaderMap,
    body: Bytes,
) -> (StatusCode, Vec<u8>) {
    if headers.get("content-type").and_then(|v| v.to_str().ok()) != Some("application/x-protobuf") {
        return (StatusCode::UNSUPPORTED_MEDIA_TYPE, Vec::new());
    }
    let Ok(request) = ExportTraceServiceRequest::decode(body) else {
        return (StatusCode::BAD_REQUEST, Vec::new());
    };
    let mut kept = spans.lock().expect("spans");
    for resource_spans in request.resource_spans {
        let resource = resource_spans
            .resource
            .map(|r| r.attributes)
            .unwrap_or_default();
        for scope_spans in resource_spans.scope_spans {
            for span in scope_spans.spans {
                kept.push(Received {
                    span,
                    resource: resource.clone(),
                });
            }
        }
    }
    (
        StatusCode::OK,
        ExportTraceServiceResponse::default().encode_to_vec(),
    )
}
