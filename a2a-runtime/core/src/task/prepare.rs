//! A new task, built for a call before it is stored: its id and context, its first message,
//! its checkpoint, and the call's metered first turn; then registered live once stored.

use std::sync::Arc;

use super::checkpoint::PendingCheckpoint;
use super::handle::TaskHandle;
use super::manager::TaskManager;
use super::record::StoredTask;
use crate::auth::Caller;
use crate::descriptor::Resume;
use crate::dispatch::Call;
use crate::quota::TaskSlot;
use a2a_runtime_types::model::{
    Message, PushConfig, Task, TaskState, TaskStatus, new_id, new_task_id,
};

/// A task built for a call, before it is stored and registered live.
pub(super) struct Prepared {
    pub(super) task: StoredTask,
    /// The call's first turn, metered from its start.
    pub(super) turn: crate::observe::Metered,
    pub(super) skill: &'static str,
    pub(super) caller: Caller,
    /// The checkpoint built once the task first waits for an answer.
    pub(super) held: Option<PendingCheckpoint>,
}

impl TaskManager {
    /// The task `call` creates, not stored or registered yet (see [`create`](Self::create)).
    pub(super) fn prepare(&self, call: &mut Call, push_configs: Vec<PushConfig>) -> Prepared {
        let (skill, caller) = (call.skill, call.caller.clone());
        // Measured before the task takes the call's arguments.
        let turn = self.dispatcher.meter().start(|| call.record());
        let resume = self
            .dispatcher
            .registry()
            .get(call.skill)
            .map_or(Resume::Never, |skill| skill.resume());
        // A task that may need its checkpoint keeps the request shared with the call; any
        // other takes it (a synthesized one is its alone) for its history.
        let request = call.message();
        let (mut message, request) = match resume {
            Resume::Never => (Arc::unwrap_or_clone(request), None),
            Resume::Answers | Resume::Rerun => (Message::clone(&request), Some(request)),
        };
        let context_id = message.context_id.clone().unwrap_or_else(new_id);
        let task_id = new_task_id();
        message.context_id = Some(context_id.clone());
        message.task_id = Some(task_id.clone());
        let pending = request.map(|request| {
            let arguments = match call.message {
                Some(_) => std::mem::take(&mut call.arguments),
                None => call.arguments.clone(),
            };
            PendingCheckpoint::new(
                call.skill,
                arguments,
                request,
                call.caller.clone(),
                call.protocol,
            )
        });
        // A skill that re-runs after a restart needs its checkpoint stored from the start; one
        // that resumes from its answers only once it first waits for one (built then).
        let (stored, held) = match resume {
            Resume::Rerun => (pending.map(|p| p.build(&task_id, &context_id)), None),
            Resume::Answers | Resume::Never => (None, pending),
        };
        let mut task = StoredTask::new(
            Task {
                id: task_id,
                context_id,
                status: TaskStatus::now(TaskState::Submitted, None),
                artifacts: Vec::new(),
                history: vec![message],
                metadata: None,
                created_at: chrono::Utc::now(),
            },
            call.caller.owner(),
        );
        task.agent = self.agent.to_string();
        task.checkpoint = stored;
        task.push_configs = push_configs;
        task.idempotency_key = call.idempotency_key.as_deref().map(str::to_owned);
        Prepared {
            task,
            turn,
            skill,
            caller,
            held,
        }
    }

    /// Registers a prepared task as live, holding `quota`.
    pub(super) fn register(&self, prepared: Prepared, quota: TaskSlot) -> TaskHandle {
        let Prepared {
            task,
            turn,
            skill,
            caller,
            held,
        } = prepared;
        let task_id = task.task.id.clone();
        let live = self.live_task(task, skill, caller, Some(quota), held);
        live.begin_turn(turn);
        self.live_map().insert(task_id, Arc::clone(&live));
        TaskHandle::here(live, None)
    }
}
