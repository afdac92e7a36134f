//! The [`Hub`] a server's records go through to its observers, and the [`Meter`] each agent's
//! front-ends and tasks report to.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::CallObserver;
use super::queue::{Event, Queue};
use super::record::{
    CallOutcome, CallRecord, OperationRecord, PushDelivery, StoreWrite, TaskChange,
};
use crate::call::SkillResult;
use a2a_runtime_types::TraceContext;
use a2a_runtime_types::outgoing::{ClientSpan, SpanSink};

/// The records queued for an observer before it falls behind and records are dropped.
const DEFAULT_QUEUE: usize = 4096;

/// The observers of one server, shared by its agents.
pub struct Hub {
    /// Called where the record is made: only observers that never block (counters).
    inline: Vec<Arc<dyn CallObserver>>,
    /// Each behind a bounded queue of its own.
    queued: Vec<Queue>,
    /// Whether requests and calls are spans of a trace (an exporter of spans is registered),
    /// and the share of traces started here that are sampled.
    tracing: Option<f64>,
}

/// The span of a request this process serves, kept in the request's extensions from the
/// moment it arrives (see [`Meter::begin_request`]): the caller's identity reads its trace
/// from there.
#[derive(Debug, Clone)]
pub struct RequestSpan(pub TraceContext);

/// Assembles a [`Hub`].
#[derive(Default)]
pub struct HubBuilder {
    inline: Vec<Arc<dyn CallObserver>>,
    queued: Vec<Arc<dyn CallObserver>>,
    capacity: Option<usize>,
    tracing: Option<f64>,
}

impl HubBuilder {
    /// Adds an observer called where each record is made, under whatever lock the reporter
    /// holds (a task's): for observers that only count, never block, and never call back
    /// into the server.
    #[must_use]
    pub fn inline(mut self, observer: Arc<dyn CallObserver>) -> Self {
        self.inline.push(observer);
        self
    }

    /// Adds an observer that runs on a thread of its own, behind a bounded queue.
    #[must_use]
    pub fn queued(mut self, observer: Arc<dyn CallObserver>) -> Self {
        self.queued.push(observer);
        self
    }

    /// Records each queued observer may fall behind by before they are dropped (4096 unless
    /// set).
    #[must_use]
    pub fn capacity(mut self, records: usize) -> Self {
        self.capacity = Some(records);
        self
    }

    /// Makes every request and call a span (for an exporter of spans, added as an observer):
    /// a request's caller decides whether its trace is sampled; of the traces started here,
    /// `sample_ratio` (0 to 1) are.
    #[must_use]
    pub fn tracing(mut self, sample_ratio: f64) -> Self {
        self.tracing = Some(sample_ratio.clamp(0.0, 1.0));
        self
    }

    /// The hub; `None` without observers, so that metering is off and costs nothing.
    pub fn build(self) -> Option<Arc<Hub>> {
        if self.inline.is_empty() && self.queued.is_empty() {
            return None;
        }
        let capacity = self.capacity.unwrap_or(DEFAULT_QUEUE);
        Some(Arc::new(Hub {
            tracing: self.tracing,
            inline: self.inline,
            queued: self
                .queued
                .into_iter()
                .map(|observer| Queue::new(observer, capacity))
                .collect(),
        }))
    }
}

impl Hub {
    /// A hub to assemble.
    pub fn builder() -> HubBuilder {
        HubBuilder::default()
    }

    /// The inline observer of type `T`, if one was added (an exporter finds its own state).
    pub fn find<T: CallObserver>(&self) -> Option<Arc<T>> {
        self.inline.iter().find_map(|observer| {
            let any: Arc<dyn std::any::Any + Send + Sync> = Arc::clone(observer) as _;
            any.downcast::<T>().ok()
        })
    }

    /// Records dropped so far because a queued observer fell behind, over all of them.
    pub fn dropped(&self) -> u64 {
        self.queued.iter().map(Queue::dropped).sum()
    }

    fn send(&self, event: Event) {
        if self.queued.is_empty() {
            return;
        }
        let event = Arc::new(event);
        for queue in &self.queued {
            queue.send(&event);
        }
    }

    fn call(&self, record: CallRecord) {
        for observer in &self.inline {
            observer.call(&record);
        }
        self.send(Event::Call(record));
    }

    fn task(&self, change: TaskChange<'_>) {
        for observer in &self.inline {
            observer.task(&change);
        }
        if !self.queued.is_empty() {
            self.send(Event::Task(change.into_owned()));
        }
    }

    fn operation(&self, operation: OperationRecord) {
        for observer in &self.inline {
            observer.operation(&operation);
        }
        self.send(Event::Operation(operation));
    }

    fn store_write(&self, write: StoreWrite) {
        for observer in &self.inline {
            observer.store_write(&write);
        }
        self.send(Event::Store(write));
    }

    fn push(&self, delivery: PushDelivery) {
        for observer in &self.inline {
            observer.push(&delivery);
        }
        self.send(Event::Push(delivery));
    }
}

/// The spans of requests skills send out go to the observers called inline (the exporters).
impl SpanSink for Hub {
    fn client_span(&self, span: ClientSpan) {
        for observer in &self.inline {
            observer.client_span(&span);
        }
    }
}

/// Where one agent reports what it does (cheap to clone). Off without a hub: every report is
/// then a branch, and nothing it would report is built (reports take closures).
#[derive(Clone, Default)]
pub struct Meter {
    agent: Arc<str>,
    hub: Option<Arc<Hub>>,
}

impl std::fmt::Debug for Meter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Meter")
            .field("agent", &self.agent)
            .field("on", &self.hub.is_some())
            .finish()
    }
}

impl Meter {
    /// The meter of agent `agent` (empty: the one agent of a server), reporting to `hub`.
    pub fn new(agent: &str, hub: Option<Arc<Hub>>) -> Self {
        Self {
            agent: Arc::from(agent),
            hub,
        }
    }

    /// Whether anything observes this agent.
    pub fn is_on(&self) -> bool {
        self.hub.is_some()
    }

    /// The agent reported as.
    pub fn agent(&self) -> &Arc<str> {
        &self.agent
    }

    /// The hub reported to, when on.
    pub fn hub(&self) -> Option<&Arc<Hub>> {
        self.hub.as_ref()
    }

    /// A call starting now, as `begin` describes it (called only when the meter is on); it is
    /// reported when [finished](Metered::finish), or as canceled if dropped unfinished.
    pub fn start(&self, begin: impl FnOnce() -> CallRecord) -> Metered {
        let Some(hub) = &self.hub else {
            return Metered(None);
        };
        let mut record = begin();
        record.agent = Arc::clone(&self.agent);
        Metered(Some(Box::new(Running {
            hub: Arc::clone(hub),
            record,
            started: Instant::now(),
            output_base: 0,
            open: true,
        })))
    }

    /// A call waiting for an answer (a task revived after a restart), reported from the turn
    /// the answer [starts](Metered::resume).
    pub fn waiting(&self, begin: impl FnOnce() -> CallRecord) -> Metered {
        let mut metered = self.start(begin);
        if let Some(running) = &mut metered.0 {
            running.open = false;
        }
        metered
    }

    /// A call refused before it ran, as `outcome` (`Forbidden` or `Busy`), for `reason`.
    pub fn refused(
        &self,
        begin: impl FnOnce() -> CallRecord,
        outcome: CallOutcome,
        reason: impl FnOnce() -> String,
    ) {
        if self.hub.is_some() {
            self.start(begin).fail(outcome, 0, reason());
        }
    }

    /// Now, when the meter is on: the start of an operation to [report](Self::operation).
    pub fn clock(&self) -> Option<Instant> {
        self.hub.as_ref().map(|_| Instant::now())
    }

    /// An operation [started](Self::clock) at `started` was answered: `record` describes it
    /// given its duration.
    pub fn operation(
        &self,
        started: Option<Instant>,
        record: impl FnOnce(Duration) -> OperationRecord,
    ) {
        if let (Some(hub), Some(started)) = (&self.hub, started) {
            let mut record = record(started.elapsed());
            record.agent = Arc::clone(&self.agent);
            hub.operation(record);
        }
    }

    /// Where the spans of requests a skill sends out go, when this server reports traces.
    pub fn span_sink(&self) -> Option<Arc<dyn SpanSink>> {
        let hub = self.hub.as_ref().filter(|hub| hub.tracing.is_some())?;
        Some(Arc::clone(hub) as Arc<dyn SpanSink>)
    }

    /// Whether requests and calls are spans of traces this server reports.
    pub fn traces(&self) -> bool {
        self.hub.as_ref().is_some_and(|hub| hub.tracing.is_some())
    }

    /// Starts the span of a request that just arrived with `headers`, when this server traces
    /// requests: it goes in `extensions`, where the caller's identity takes its trace from.
    pub fn begin_request(&self, extensions: &mut http::Extensions, headers: &http::HeaderMap) {
        let Some(ratio) = self.hub.as_ref().and_then(|hub| hub.tracing) else {
            return;
        };
        let incoming = crate::quota::caller::trace_of(headers);
        let span = TraceContext::start_span(incoming.as_ref(), ratio);
        extensions.insert(RequestSpan(span));
    }

    /// A task moved to a new state, as `change` describes it.
    pub fn task_change<'a>(&self, change: impl FnOnce() -> TaskChange<'a>) {
        if let Some(hub) = &self.hub {
            hub.task(change());
        }
    }

    /// The store took, or gave up on, a task's update.
    pub fn store_write(&self, write: StoreWrite) {
        if let Some(hub) = &self.hub {
            hub.store_write(write);
        }
    }

    /// A push delivery attempt ended.
    pub fn push(&self, delivery: PushDelivery) {
        if let Some(hub) = &self.hub {
            hub.push(delivery);
        }
    }
}

/// A call under way, reported once when it ends (nothing when the meter is off). A task's
/// call is reported per turn: [`end_turn`](Self::end_turn) when it settles or stops to wait,
/// [`resume`](Self::resume) when an answer starts the next.
#[derive(Default)]
pub struct Metered(Option<Box<Running>>);

struct Running {
    hub: Arc<Hub>,
    /// The call's record, its outcome and sizes filled in when it ends.
    record: CallRecord,
    started: Instant,
    /// Output the task held when this turn started (a task's artifacts accumulate).
    output_base: u64,
    /// Whether a turn is under way (a task waiting for an answer has none).
    open: bool,
}

impl Metered {
    /// Whether this call is reported.
    pub fn is_on(&self) -> bool {
        self.0.is_some()
    }

    /// The trace context the call runs in (its span, when this process reports spans).
    pub fn set_trace(&mut self, trace: Option<&TraceContext>) {
        if let Some(running) = &mut self.0 {
            running.record.trace = trace.cloned();
        }
    }

    /// The task this call runs as, once it has one.
    pub fn set_task(&mut self, task_id: &str, context_id: &str) {
        if let Some(running) = &mut self.0 {
            running.record.task_id = Some(task_id.to_owned());
            running.record.context_id = Some(context_id.to_owned());
        }
    }

    /// Output already held when the turn started: what [`end_turn`](Self::end_turn) is given
    /// counts from it.
    pub fn set_output_base(&mut self, bytes: usize) {
        if let Some(running) = &mut self.0 {
            running.output_base = bytes as u64;
        }
    }

    /// The call ended as `outcome`, having produced `output_bytes`.
    pub fn finish(mut self, outcome: CallOutcome, output_bytes: usize) {
        self.close(outcome, output_bytes, None, true);
    }

    /// The call failed or was refused as `outcome`, for `error`.
    pub fn fail(mut self, outcome: CallOutcome, output_bytes: usize, error: String) {
        self.close(outcome, output_bytes, Some(error), true);
    }

    /// A call that ran ended with `result`, having published `published` bytes of artifacts
    /// besides what it returned.
    pub fn result(self, result: &SkillResult, published: usize) {
        match result {
            Ok(output) => self.finish(CallOutcome::Completed, published + output.byte_size()),
            Err(error) => self.fail(error.outcome(), published, error.message().to_owned()),
        }
    }

    /// The call is not reported here after all (a task reports it, turn by turn).
    pub fn discard(mut self) {
        if let Some(running) = &mut self.0 {
            running.open = false;
        }
    }

    /// The current turn ended as `outcome`; `output_bytes` is the task's output so far (see
    /// [`set_output_base`](Self::set_output_base)). `last`: no answer will start another (the
    /// task ended). Nothing when no turn is under way.
    pub fn end_turn(
        &mut self,
        outcome: CallOutcome,
        output_bytes: usize,
        error: Option<String>,
        last: bool,
    ) {
        self.close(outcome, output_bytes, error, last);
    }

    fn close(
        &mut self,
        outcome: CallOutcome,
        output_bytes: usize,
        error: Option<String>,
        last: bool,
    ) {
        let Some(running) = &mut self.0 else {
            return;
        };
        if !running.open {
            return;
        }
        running.open = false;
        let duration = running.started.elapsed();
        let output = (output_bytes as u64).saturating_sub(running.output_base);
        // The last turn gives its record away; an earlier one keeps it for the next.
        let (hub, mut record) = match self.0.take() {
            Some(running) if last => (running.hub, running.record),
            Some(running) => {
                let kept = (Arc::clone(&running.hub), running.record.clone());
                self.0 = Some(running);
                kept
            }
            None => return,
        };
        record.duration = duration;
        record.output_bytes = output;
        record.outcome = outcome;
        record.error = error;
        hub.call(record);
    }

    /// An answer of `input_bytes` started the call's next turn; the task holds `output_bytes`.
    pub fn resume(&mut self, input_bytes: usize, output_bytes: usize) {
        let Some(running) = &mut self.0 else {
            return;
        };
        if running.open {
            return;
        }
        running.open = true;
        running.started = Instant::now();
        running.record.started_at = std::time::SystemTime::now();
        running.record.input_bytes = input_bytes as u64;
        running.output_base = output_bytes as u64;
        // Each turn is a span of its own, beside the first.
        running.record.trace = running.record.trace.as_ref().map(TraceContext::next_span);
    }
}

impl Drop for Metered {
    fn drop(&mut self) {
        // A call whose future was dropped mid-way (its client went away) ended canceled.
        self.close(CallOutcome::Canceled, 0, None, true);
    }
}
