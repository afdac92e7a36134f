//! `tracing` events of a skill, forwarded to the client that called it (MCP
//! `notifications/message`). The skill's future runs with a forwarding dispatcher as its default:
//! every event goes on to the application's own subscriber as before, and, when the call has a
//! [`LogSink`] wanting that level, to the sink. One dispatcher serves every call (creating a
//! dispatcher rebuilds tracing's interest cache, too costly per call); each call's sink lives in
//! a task-local.

use std::future::Future;
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value};
use tracing::field::{Field, Visit};
use tracing::instrument::WithSubscriber as _;
use tracing::level_filters::LevelFilter;
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Dispatch, Event, Level, Metadata, Subscriber};

/// Severity, as MCP (and syslog, RFC 5424) orders it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}

impl LogLevel {
    /// The level of a `tracing` event (TRACE is never forwarded).
    fn of(level: Level) -> Option<Self> {
        match level {
            Level::TRACE => None,
            Level::DEBUG => Some(Self::Debug),
            Level::INFO => Some(Self::Info),
            Level::WARN => Some(Self::Warning),
            Level::ERROR => Some(Self::Error),
        }
    }
}

/// One forwarded event.
#[derive(Debug, Clone)]
pub struct LogRecord {
    pub level: LogLevel,
    /// The event's target (its module path unless set): MCP's `logger`.
    pub logger: &'static str,
    /// `message` and the event's other fields.
    pub data: Map<String, Value>,
}

/// Where one call's events go.
pub trait LogSink: Send + Sync {
    /// Whether events of `level` are wanted.
    fn wants(&self, level: LogLevel) -> bool;
    /// Takes one event; must not block.
    fn log(&self, record: LogRecord);
}

tokio::task_local! {
    static SINK: Arc<dyn LogSink>;
}

/// Runs `future` with its `tracing` events also going to `sink`.
pub fn forwarding<F: Future>(sink: Arc<dyn LogSink>, future: F) -> impl Future<Output = F::Output> {
    SINK.scope(sink, future.with_subscriber(forwarder().clone()))
}

/// The one forwarding dispatcher, over the default dispatcher of the first call that needed it
/// (the application's global subscriber).
fn forwarder() -> &'static Dispatch {
    static FORWARDER: OnceLock<Dispatch> = OnceLock::new();
    FORWARDER.get_or_init(|| {
        let inner = tracing::dispatcher::get_default(Dispatch::clone);
        Dispatch::new(Forwarder { inner })
    })
}

/// Whether the current task's sink wants `level`.
fn wanted(level: Level) -> bool {
    LogLevel::of(level)
        .is_some_and(|level| SINK.try_with(|sink| sink.wants(level)).unwrap_or(false))
}

struct Forwarder {
    inner: Dispatch,
}

impl Subscriber for Forwarder {
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        let inner = self.inner.register_callsite(metadata);
        // Events a sink may want are decided per event; everything else as the application's
        // subscriber decides.
        if metadata.is_event() && LogLevel::of(*metadata.level()).is_some() && !inner.is_always() {
            Interest::sometimes()
        } else {
            inner
        }
    }

    /// DEBUG, the most verbose level a sink may want (TRACE is never forwarded). What the
    /// application's subscriber wants is counted by its own registration: tracing's level
    /// limit is the most verbose of every dispatcher's, and no hint (the default) would make
    /// it TRACE for the whole process, so every `trace!` anywhere would ask its callsite.
    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(LevelFilter::DEBUG)
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        self.inner.enabled(metadata) || (metadata.is_event() && wanted(*metadata.level()))
    }

    fn new_span(&self, span: &Attributes<'_>) -> Id {
        self.inner.new_span(span)
    }

    fn record(&self, span: &Id, values: &Record<'_>) {
        self.inner.record(span, values);
    }

    fn record_follows_from(&self, span: &Id, follows: &Id) {
        self.inner.record_follows_from(span, follows);
    }

    fn event(&self, event: &Event<'_>) {
        let metadata = event.metadata();
        if let Some(level) = LogLevel::of(*metadata.level()) {
            let _ = SINK.try_with(|sink| {
                if sink.wants(level) {
                    let mut fields = Fields(Map::new());
                    event.record(&mut fields);
                    sink.log(LogRecord {
                        level,
                        logger: metadata.target(),
                        data: fields.0,
                    });
                }
            });
        }
        // The application's subscriber sees only what it asked for.
        if self.inner.enabled(metadata) {
            self.inner.event(event);
        }
    }

    fn enter(&self, span: &Id) {
        self.inner.enter(span);
    }

    fn exit(&self, span: &Id) {
        self.inner.exit(span);
    }

    fn clone_span(&self, id: &Id) -> Id {
        self.inner.clone_span(id)
    }

    fn try_close(&self, id: Id) -> bool {
        self.inner.try_close(id)
    }

    fn current_span(&self) -> tracing_core::span::Current {
        self.inner.current_span()
    }
}

/// An event's fields as JSON.
struct Fields(Map<String, Value>);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0
            .insert(field.name().to_owned(), Value::String(format!("{value:?}")));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0
            .insert(field.name().to_owned(), Value::String(value.to_owned()));
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.insert(field.name().to_owned(), Value::from(value));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().to_owned(), Value::from(value));
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        self.0.insert(field.name().to_owned(), Value::from(value));
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.insert(field.name().to_owned(), Value::from(value));
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    struct Collect {
        min: LogLevel,
        records: Mutex<Vec<LogRecord>>,
    }

    impl LogSink for Collect {
        fn wants(&self, level: LogLevel) -> bool {
            level >= self.min
        }
        fn log(&self, record: LogRecord) {
            self.records
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(record);
        }
    }

    #[tokio::test]
    async fn a_sink_that_wants_debug_gets_debug_but_never_trace() {
        let sink = Arc::new(Collect {
            min: LogLevel::Debug,
            records: Mutex::new(Vec::new()),
        });
        forwarding(Arc::clone(&sink) as Arc<dyn LogSink>, async {
            tracing::trace!("never forwarded");
            tracing::debug!("detail");
        })
        .await;
        let records = sink.records.lock().unwrap_or_else(|e| e.into_inner());
        let messages: Vec<_> = records.iter().map(|r| r.data["message"].clone()).collect();
        assert_eq!(messages, [Value::from("detail")]);
    }

    #[tokio::test]
    async fn events_in_the_future_reach_its_sink_at_or_above_its_level() {
        let sink = Arc::new(Collect {
            min: LogLevel::Info,
            records: Mutex::new(Vec::new()),
        });
        forwarding(Arc::clone(&sink) as Arc<dyn LogSink>, async {
            tracing::debug!("too quiet");
            tracing::info!(count = 3, "started");
            tracing::warn!(target: "billing", "late");
        })
        .await;
        // Outside the future nothing is forwarded.
        tracing::error!("elsewhere");
        let records = sink.records.lock().unwrap_or_else(|e| e.into_inner());
        assert_eq!(records.len(), 2, "{records:?}");
        assert_eq!(records[0].level, LogLevel::Info);
        assert_eq!(records[0].data["message"], "started");
        assert_eq!(records[0].data["count"], 3);
        assert_eq!(records[1].level, LogLevel::Warning);
        assert_eq!(records[1].logger, "billing");
    }
}
