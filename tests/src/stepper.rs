//! A test agent whose skills report progress and stream artifacts. Tests step its skills through
//! named gates, so event order never depends on timing, and read the log of what the skills
//! observed (cancellation, being dropped).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_runtime::futures::{StreamExt, stream};
use a2a_runtime::prelude::*;
use tokio::sync::Semaphore;

/// An agent for streaming tests. Clones share gates and log, so a test keeps one clone.
#[agent(name = "Stepper")]
#[derive(Debug, Clone, Default)]
pub struct Stepper {
    shared: Arc<Shared>,
}

#[derive(Debug, Default)]
struct Shared {
    gates: Mutex<HashMap<String, Arc<Semaphore>>>,
    log: Mutex<Vec<String>>,
}

impl Stepper {
    /// Lets skills waiting on `gate` take `steps` more steps.
    pub fn release(&self, gate: &str, steps: usize) {
        self.gate(gate).add_permits(steps);
    }

    /// What the skills recorded, oldest first.
    pub fn log(&self) -> Vec<String> {
        self.shared.log.lock().expect("stepper lock").clone()
    }

    /// Waits (at most 10 s, a hang guard rather than a timing assertion) until `entry` is
    /// logged; returns whether it was.
    pub async fn logged(&self, entry: &str) -> bool {
        self.logged_with_prefix(entry).await.as_deref() == Some(entry)
    }

    /// Waits (at most 10 s) for an entry starting with `prefix`; returns it.
    pub async fn logged_with_prefix(&self, prefix: &str) -> Option<String> {
        for _ in 0..1000 {
            if let Some(entry) = self.log().into_iter().find(|e| e.starts_with(prefix)) {
                return Some(entry);
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        None
    }

    fn record(&self, entry: String) {
        self.shared.log.lock().expect("stepper lock").push(entry);
    }

    fn gate(&self, name: &str) -> Arc<Semaphore> {
        let mut gates = self.shared.gates.lock().expect("stepper lock");
        Arc::clone(
            gates
                .entry(name.to_owned())
                .or_insert_with(|| Arc::new(Semaphore::new(0))),
        )
    }
}

/// Take `steps` steps, each released by the test through `gate`: a progress report and one
/// chunk of the `steps` artifact per step.
#[skill(agent = Stepper)]
pub async fn steps(
    state: State<Stepper>,
    ctx: TaskContext,
    /// The gate that releases each step.
    gate: String,
    /// How many steps.
    steps: u64,
) -> String {
    let semaphore = state.gate(&gate);
    let mut chunks = ctx.artifact_writer("steps");
    for step in 1..=steps {
        tokio::select! {
            permit = semaphore.acquire() => {
                if let Ok(permit) = permit {
                    permit.forget();
                }
            }
            () = ctx.cancelled() => {
                state.record(format!("cancelled:{}", ctx.task_id()));
                return "cancelled".into();
            }
        }
        ctx.progress_with(step, steps, format!("step {step}"));
        chunks.append(format!("chunk {step};"));
    }
    chunks.finish();
    format!("{steps} steps")
}

/// Send `count` chunks of `size` bytes as fast as possible, after one step of `gate` if given.
#[skill(agent = Stepper)]
pub async fn flood(
    state: State<Stepper>,
    ctx: TaskContext,
    /// How many chunks.
    count: u64,
    /// Bytes per chunk.
    size: usize,
    /// A gate to pass before starting.
    gate: Option<String>,
) -> String {
    if let Some(gate) = gate
        && let Ok(permit) = state.gate(&gate).acquire().await
    {
        permit.forget();
    }
    let mut chunks = ctx.artifact_writer("flood");
    let chunk = "x".repeat(size);
    for step in 0..count {
        chunks.append(chunk.clone());
        if step % 64 == 0 {
            tokio::task::yield_now().await;
        }
    }
    chunks.finish();
    format!("{count} chunks")
}

/// Release `steps` steps of `gate` (so a client can step gated skills).
#[skill(agent = Stepper)]
pub async fn open_gate(
    state: State<Stepper>,
    /// The gate.
    gate: String,
    /// How many steps to release.
    steps: usize,
) -> String {
    state.release(&gate, steps);
    format!("released {steps}")
}

/// Stream the numbers 1 to `upto`, one line each.
#[skill(agent = Stepper)]
pub async fn count(
    /// The last number.
    upto: u64,
) -> impl Stream<Item = String> {
    stream::iter((1..=upto).map(|n| format!("{n}\n")))
}

/// Stream one line, then fail.
#[skill(agent = Stepper)]
pub async fn broken_stream() -> impl Stream<Item = Result<String, SkillError>> {
    stream::iter([
        Ok("first line\n".to_owned()),
        Err(SkillError::new("the source went away")),
    ])
}

/// Stream one line, then panic inside the stream.
#[skill(agent = Stepper)]
pub async fn panicky_stream() -> impl Stream<Item = String> {
    stream::iter(0..2).map(|n| {
        assert!(n == 0, "the stream broke at item {n}");
        "only line\n".to_owned()
    })
}

/// Log `waiting:<task id>`, then wait until cancelled (logging `cancelled:<task id>`), or for
/// `millis` milliseconds.
#[skill(agent = Stepper)]
pub async fn wait(
    state: State<Stepper>,
    ctx: TaskContext,
    /// How long to wait at most.
    millis: u64,
) -> String {
    ctx.progress("waiting");
    state.record(format!("waiting:{}", ctx.task_id()));
    tokio::select! {
        () = tokio::time::sleep(Duration::from_millis(millis)) => "waited".into(),
        () = ctx.cancelled() => {
            state.record(format!("cancelled:{}", ctx.task_id()));
            "cancelled".into()
        }
    }
}

/// Ignore cancellation and sleep `millis` milliseconds; logs `dropped:<task id>` if stopped
/// before it finished.
#[skill(agent = Stepper)]
pub async fn stubborn(
    state: State<Stepper>,
    ctx: TaskContext,
    /// How long to sleep.
    millis: u64,
) -> String {
    let guard = DropLog {
        stepper: state.0.as_ref().clone(),
        entry: Some(format!("dropped:{}", ctx.task_id())),
    };
    tokio::time::sleep(Duration::from_millis(millis)).await;
    guard.disarm();
    "done".into()
}

/// Logs its entry when dropped unless disarmed.
struct DropLog {
    stepper: Stepper,
    entry: Option<String>,
}

impl DropLog {
    fn disarm(mut self) {
        self.entry = None;
    }
}

impl Drop for DropLog {
    fn drop(&mut self) {
        if let Some(entry) = self.entry.take() {
            self.stepper.record(entry);
        }
    }
}
