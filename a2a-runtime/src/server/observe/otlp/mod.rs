//! OpenTelemetry traces over OTLP (HTTP/protobuf): an inline observer encodes the records of
//! sampled traces as spans into a bounded buffer as they come; a task of its own posts them in
//! batches to `{endpoint}/v1/traces`, each within a timeout, and what could not be kept or sent
//! is counted and logged, never waited for by a call.
//!
//! Spans are encoded on arrival, not kept as structures until a batch goes: hundreds of small
//! objects freed at once made the allocator consolidate its free lists on every export, and
//! batches stay small enough (well under 64 KiB) that their buffers are no large allocations.

mod spans;
mod wire;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use prost::Message as _;
use prost::encoding::{WireType, encode_key, encode_varint, encoded_len_varint, key_len};
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};

use futures::future::BoxFuture;

use super::ObserveOptions;
use super::exporter::{Dropped, Exporter};
use a2a_runtime_core::error::Error;
use a2a_runtime_core::observe::{CallObserver, CallRecord, ClientSpan, OperationRecord};
use wire::{InstrumentationScope, KeyValue, Resource};

/// Bytes of encoded spans kept while the collector is slow or down; beyond, new spans are
/// dropped (counted).
const MAX_BUFFERED: usize = 8 << 20;
/// Spans that make a batch worth sending at once.
const BATCH: usize = 128;
/// How often what is buffered is sent, at the latest.
const EXPORT_PERIOD: Duration = Duration::from_secs(1);
/// How long one export request may take.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);

/// The exporter (cheap to clone: a handle on what its task shares).
pub(super) struct Otlp(Arc<Shared>);

struct Shared {
    /// The share of traces started here that are sampled (`--otlp-sample-ratio`).
    sample_ratio: f64,
    /// `{endpoint}/v1/traces`.
    url: String,
    headers: HeaderMap,
    /// Who the spans are from, and the instrumentation scope, encoded once.
    resource: Vec<u8>,
    scope: Vec<u8>,
    /// Encoded spans waiting.
    buffer: Mutex<Pending>,
    /// Wakes the export task when a batch is full.
    full: tokio::sync::Notify,
    started: AtomicBool,
    dropped: AtomicU64,
    client: reqwest::Client,
}

impl Otlp {
    /// An exporter to the collector at `endpoint` (`http(s)://host:port`, or a path under
    /// which `/v1/traces` is), sending the headers of `options` (`--otlp-header`) and sampling
    /// as they say, for the service `service`.
    pub(super) fn new(
        endpoint: &str,
        options: &ObserveOptions,
        service: super::Service<'_>,
    ) -> Result<Self, Error> {
        let headers = &options.otlp_headers;
        let url = format!("{}/v1/traces", endpoint.trim_end_matches('/'));
        let mut map = HeaderMap::new();
        for (name, value) in headers {
            let header = HeaderName::from_bytes(name.trim().as_bytes())
                .ok()
                .zip(HeaderValue::from_str(value.trim()).ok());
            let Some((name, value)) = header else {
                return Err(Error::Config(format!(
                    "--otlp-header `{name}` is no HTTP header"
                )));
            };
            map.insert(name, value);
        }
        map.insert(
            CONTENT_TYPE,
            HeaderValue::from_static("application/x-protobuf"),
        );
        let client = a2a_runtime_types::https::client_builder()
            .map_err(|e| Error::Config(format!("the OTLP client could not be built: {e}")))?
            .timeout(EXPORT_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| Error::Config(format!("the OTLP client could not be built: {e}")))?;
        let resource = Resource {
            attributes: vec![
                KeyValue::text("service.name", service.name),
                KeyValue::text("service.version", service.version),
                // Tells replicas (and two runs) of one service apart.
                KeyValue::text("service.instance.id", a2a_runtime_types::model::new_id()),
                KeyValue::text("telemetry.sdk.name", "a2a-runtime"),
                KeyValue::text("telemetry.sdk.language", "rust"),
                KeyValue::text("telemetry.sdk.version", env!("CARGO_PKG_VERSION")),
            ],
        };
        let scope = InstrumentationScope {
            name: "a2a-runtime".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        };
        Ok(Self(Arc::new(Shared {
            sample_ratio: options.otlp_sample_ratio,
            url,
            headers: map,
            resource: resource.encode_to_vec(),
            scope: scope.encode_to_vec(),
            buffer: Mutex::new(Pending::default()),
            full: tokio::sync::Notify::new(),
            started: AtomicBool::new(false),
            dropped: AtomicU64::new(0),
            client,
        })))
    }

    /// Spans dropped so far: beyond the buffer while the collector was slow or down, or
    /// refused by it.
    pub(super) fn dropped(&self) -> u64 {
        self.0.dropped.load(Ordering::Relaxed)
    }

    /// Sends every span buffered now (at shutdown).
    pub(super) async fn flush(&self) {
        while self.0.export().await {}
    }

    fn keep(&self, span: &wire::Span) {
        let shared = &self.0;
        let mut pending = shared.buffer.lock().unwrap_or_else(PoisonError::into_inner);
        if pending.bytes.len() >= MAX_BUFFERED {
            drop(pending);
            shared.dropped.fetch_add(1, Ordering::Relaxed);
            return;
        }
        // A `ScopeSpans.spans` field (2): the span, length-delimited.
        encode_key(2, WireType::LengthDelimited, &mut pending.bytes);
        encode_varint(span.encoded_len() as u64, &mut pending.bytes);
        span.encode_raw(&mut pending.bytes);
        let end = pending.bytes.len();
        pending.ends.push(end);
        let full = pending.ends.len() >= BATCH;
        drop(pending);
        if !shared.started.swap(true, Ordering::AcqRel) {
            self.start();
        }
        if full {
            shared.full.notify_one();
        }
    }

    /// Starts the task that exports, every period or batch; it ends with the exporter.
    fn start(&self) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            self.0.started.store(false, Ordering::Release);
            return;
        };
        let shared: Weak<Shared> = Arc::downgrade(&self.0);
        runtime.spawn(async move {
            loop {
                let Some(strong) = shared.upgrade() else {
                    return;
                };
                tokio::select! {
                    () = strong.full.notified() => {}
                    () = tokio::time::sleep(EXPORT_PERIOD) => {}
                }
                while strong.export().await {}
            }
        });
    }
}

/// Encoded spans waiting to be sent.
#[derive(Default)]
struct Pending {
    /// The spans, each a `ScopeSpans.spans` field.
    bytes: Vec<u8>,
    /// Where each span ends in `bytes`.
    ends: Vec<usize>,
}

impl Shared {
    /// Posts one batch of what is buffered; whether there may be more.
    async fn export(&self) -> bool {
        let (body, count, more) = {
            let mut pending = self.buffer.lock().unwrap_or_else(PoisonError::into_inner);
            let count = pending.ends.len().min(BATCH);
            if count == 0 {
                return false;
            }
            let end = pending.ends[count - 1];
            let body = self.request(&pending.bytes[..end]);
            pending.bytes.drain(..end);
            pending.ends.drain(..count);
            for at in &mut pending.ends {
                *at -= end;
            }
            let more = !pending.ends.is_empty();
            (bytes::Bytes::from(body), count, more)
        };
        // One retry, for the failures the OTLP specification calls retryable.
        for attempt in 0..2 {
            match self.post(body.clone()).await {
                Ok(()) => return more,
                Err((error, retryable)) if retryable && attempt == 0 => {
                    tracing::debug!(%error, "OTLP export failed; retrying");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
                Err((error, _)) => {
                    self.dropped.fetch_add(count as u64, Ordering::Relaxed);
                    tracing::warn!(%error, spans = count, url = %self.url, "OTLP export failed; spans dropped");
                    return false;
                }
            }
        }
        false
    }

    /// An `ExportTraceServiceRequest` of `spans` (encoded `ScopeSpans.spans` fields): one
    /// `ResourceSpans` of this service's resource, holding one `ScopeSpans` of this runtime.
    fn request(&self, spans: &[u8]) -> Vec<u8> {
        let field = |number: u32, length: usize| {
            key_len(number) + encoded_len_varint(length as u64) + length
        };
        let scope_spans = field(1, self.scope.len()) + spans.len();
        let resource_spans = field(1, self.resource.len()) + field(2, scope_spans);
        let mut body = Vec::with_capacity(field(1, resource_spans));
        let open = |number: u32, length: usize, body: &mut Vec<u8>| {
            encode_key(number, WireType::LengthDelimited, body);
            encode_varint(length as u64, body);
        };
        open(1, resource_spans, &mut body);
        open(1, self.resource.len(), &mut body);
        body.extend_from_slice(&self.resource);
        open(2, scope_spans, &mut body);
        open(1, self.scope.len(), &mut body);
        body.extend_from_slice(&self.scope);
        body.extend_from_slice(spans);
        body
    }

    async fn post(&self, body: bytes::Bytes) -> Result<(), (String, bool)> {
        let sent = self
            .client
            .post(&self.url)
            .headers(self.headers.clone())
            .body(body)
            .send()
            .await;
        match sent {
            Ok(response) if response.status().is_success() => Ok(()),
            Ok(response) => {
                let status = response.status();
                let retryable = matches!(status.as_u16(), 429 | 502 | 503 | 504);
                Err((format!("the collector answered {status}"), retryable))
            }
            Err(error) => Err((error.to_string(), true)),
        }
    }
}

impl CallObserver for Otlp {
    fn call(&self, record: &CallRecord) {
        if let Some(span) = spans::of_call(record) {
            self.keep(&span);
        }
    }

    fn operation(&self, operation: &OperationRecord) {
        if let Some(span) = spans::of_operation(operation) {
            self.keep(&span);
        }
    }

    fn client_span(&self, span: &ClientSpan) {
        if let Some(span) = spans::of_client(span) {
            self.keep(&span);
        }
    }
}

/// The exporter as the server runs it: sampling what the options say, its spans sent at
/// exit, its drops counted.
impl Exporter for Otlp {
    fn sampling(&self) -> Option<f64> {
        Some(self.0.sample_ratio)
    }

    fn flush(&self) -> BoxFuture<'_, ()> {
        Box::pin(Otlp::flush(self))
    }

    fn dropped(&self) -> Option<Dropped> {
        Some(Dropped::Spans(Otlp::dropped(self)))
    }
}
