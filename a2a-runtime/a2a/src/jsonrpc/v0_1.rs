//! The early A2A draft's JSON-RPC methods (`tasks/send`, `tasks/sendSubscribe`, …) over the
//! shared service. The draft let clients name tasks: their ids are kept as aliases of ours, so
//! `tasks/get` with the client's id works, and a `tasks/send` to a task that ended reopens it as
//! a new task in the same session, as the draft allowed.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use serde_json::Value;

use super::{JsonRpc, Reply, envelope_frames};
use crate::A2aError;
use crate::decode::params;
use crate::push::PushRegistration;
use crate::service::SendRequest;
use a2a_runtime_core::quota::CallerId;
use a2a_runtime_core::task::{StreamItem, ends_stream};
use a2a_runtime_types::model::{PushWire, Task, TaskEvent, TaskState, TaskStatus};
use a2a_runtime_types::protocol::a2a::push::{self, PushConfigIn};
use a2a_runtime_types::protocol::a2a::v0_1;
use a2a_runtime_types::protocol::a2a::v0_3::{Tag, message_in};
use a2a_runtime_types::protocol::jsonrpc;

/// The most client-chosen ids remembered; the oldest are forgotten first.
const MAX_ALIASES: usize = 100_000;

/// Methods only the draft has.
const OWN_METHODS: &[&str] = &[
    "tasks/send",
    "tasks/sendSubscribe",
    "tasks/pushNotification/set",
    "tasks/pushNotification/get",
];

/// Methods the draft shares with 0.3.
const SHARED_METHODS: &[&str] = &["tasks/get", "tasks/cancel", "tasks/resubscribe"];

/// What the draft's `method` is called in A2A 1.0.
pub(crate) fn v1_name(method: &str) -> Option<&'static str> {
    Some(match method {
        "tasks/send" => "SendMessage",
        "tasks/sendSubscribe" => "SendStreamingMessage",
        "tasks/pushNotification/set" => "CreateTaskPushNotificationConfig",
        "tasks/pushNotification/get" => "GetTaskPushNotificationConfig",
        "tasks/get" => "GetTask",
        "tasks/cancel" => "CancelTask",
        "tasks/resubscribe" => "SubscribeToTask",
        _ => return None,
    })
}

/// Whether `method` exists only in the draft.
pub(super) fn serves_only(method: &str) -> bool {
    OWN_METHODS.contains(&method)
}

/// Whether the draft has `method`.
pub(super) fn serves(method: &str) -> bool {
    serves_only(method) || SHARED_METHODS.contains(&method)
}

/// Client-chosen task ids and the tasks they name.
#[derive(Default)]
pub struct Aliases {
    inner: Mutex<AliasTable>,
}

#[derive(Default)]
struct AliasTable {
    tasks: HashMap<String, String>,
    order: VecDeque<String>,
}

impl Aliases {
    fn table(&self) -> std::sync::MutexGuard<'_, AliasTable> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether `params.id` is a client-chosen id `caller` gave this server.
    pub(super) fn names(&self, id: &str, caller: &CallerId) -> bool {
        self.table().tasks.contains_key(&alias_key(caller, id))
    }

    fn get(&self, alias: &str) -> Option<String> {
        self.table().tasks.get(alias).cloned()
    }

    fn bind(&self, alias: &str, task_id: &str) {
        let mut table = self.table();
        if table
            .tasks
            .insert(alias.to_owned(), task_id.to_owned())
            .is_none()
        {
            table.order.push_back(alias.to_owned());
        }
        while table.order.len() > MAX_ALIASES {
            if let Some(old) = table.order.pop_front() {
                table.tasks.remove(&old);
            }
        }
    }
}

/// A draft message, with the client's task id and session applied.
fn send_request(
    request: &v0_1::TaskSendParams,
    resume: Option<&Task>,
    session: Option<String>,
) -> Result<SendRequest, A2aError> {
    let mut message = message_in(&request.message, Tag::Type, "message")
        .map_err(|(f, r)| A2aError::invalid_params(f, r))?;
    message.context_id = session;
    message.task_id = resume.map(|task| task.id.clone());
    Ok(SendRequest {
        message,
        // The draft returns no history unless asked for (its `historyLength` defaults to 0).
        history_length: Some(request.history_length.unwrap_or(0)),
        return_immediately: false,
        // The draft answers `tasks/send` with a task, always.
        message_reply: false,
        version: a2a_runtime_types::model::A2aVersion::EarlyDraft,
        binding: a2a_runtime_types::model::Binding::JsonRpc,
        push_config: request
            .push_notification
            .clone()
            .map(|config| draft_registration(config, "pushNotification", &request.id))
            .transpose()?,
    })
}

/// A draft config, for the task the client calls `alias`: one per task, so it takes the alias
/// as its id (a second set replaces the first).
fn draft_registration(
    config: Value,
    field: &str,
    alias: &str,
) -> Result<PushRegistration, A2aError> {
    let input =
        push::v0_3::config_in(config, field).map_err(|(f, r)| A2aError::invalid_params(f, r))?;
    Ok(PushRegistration {
        field: field.to_owned(),
        input: PushConfigIn { id: None, ..input },
        wire: PushWire::Draft {
            task_alias: alias.to_owned(),
        },
        default_id: Some(alias.to_owned()),
    })
}

/// Client-chosen task ids are per caller: two callers may pick the same one.
fn alias_key(caller: &CallerId, id: &str) -> String {
    format!("{}\n{id}", caller.owner())
}

/// The task a client-chosen id names for `caller`, or the id itself (a server task id).
fn resolve(endpoint: &JsonRpc, caller: &CallerId, id: &str) -> String {
    endpoint
        .aliases
        .get(&alias_key(caller, id))
        .unwrap_or_else(|| id.to_owned())
}

/// Builds the service request for `tasks/send` / `tasks/sendSubscribe`: a new task, the answer
/// to the task the client's id names, or that task reopened in its session once it ended.
async fn prepare(
    endpoint: &JsonRpc,
    raw: Value,
    caller: &CallerId,
) -> Result<(String, SendRequest), A2aError> {
    let request: v0_1::TaskSendParams = params(raw)?;
    if request.id.is_empty() {
        return Err(A2aError::invalid_params("id", "must not be empty"));
    }
    let existing = match endpoint.aliases.get(&alias_key(caller, &request.id)) {
        Some(task_id) => match endpoint.service.get_task(&task_id, Some(0), caller).await {
            Ok(task) => Some(task),
            Err(A2aError::TaskNotFound(_)) => None,
            Err(error) => return Err(error),
        },
        None => None,
    };
    if let (Some(task), Some(session)) = (&existing, &request.session_id)
        && *session != task.context_id
    {
        return Err(A2aError::invalid_params(
            "sessionId",
            format!(
                "`{session}` is not task `{}`'s session `{}`",
                request.id, task.context_id
            ),
        ));
    }
    let send = match existing {
        Some(task) if task.status.state.is_terminal() => {
            send_request(&request, None, Some(task.context_id))?
        }
        Some(task) => {
            let session = Some(task.context_id.clone());
            send_request(&request, Some(&task), session)?
        }
        None => {
            let session = request.session_id.clone().filter(|s| !s.is_empty());
            send_request(&request, None, session)?
        }
    };
    Ok((request.id, send))
}

/// Renders a task's stream in the draft's events under the client's id: no leading task (its
/// artifacts so far, then its status), artifacts numbered in the order they appeared.
fn draft_frames(id: &Value, alias: String) -> crate::sse::Frames {
    let mut indexes: Vec<String> = Vec::new();
    let mut index_of = move |artifact_id: &str| match indexes.iter().position(|a| a == artifact_id)
    {
        Some(i) => i,
        None => {
            indexes.push(artifact_id.to_owned());
            indexes.len() - 1
        }
    };
    envelope_frames(id, move |item| match item {
        StreamItem::Snapshot(task) => {
            let mut results: Vec<Value> = task
                .artifacts
                .iter()
                .map(|a| {
                    let artifact =
                        v0_1::artifact_out(a, index_of(&a.artifact_id), Some((false, false)));
                    v0_1::artifact_event_out(&alias, artifact)
                })
                .collect();
            let last = ends_stream(task.status.state);
            results.push(v0_1::status_event_out(&alias, &task.status, last));
            results
        }
        // The draft has no message results (its sends set no `message_reply`); were one
        // streamed, it would read as the task's final status.
        StreamItem::Message(message) => {
            let status = TaskStatus::now(TaskState::Completed, Some(message.as_ref().clone()));
            vec![v0_1::status_event_out(&alias, &status, true)]
        }
        StreamItem::Event(event) => vec![match event.as_ref() {
            TaskEvent::Status(update) => {
                v0_1::status_event_out(&alias, &update.status, ends_stream(update.status.state))
            }
            TaskEvent::Artifact(update) => {
                let index = index_of(&update.artifact.artifact_id);
                let chunk = Some((update.append, update.last_chunk));
                v0_1::artifact_event_out(&alias, v0_1::artifact_out(&update.artifact, index, chunk))
            }
        }],
    })
}

pub(super) async fn call(
    endpoint: &JsonRpc,
    caller: &CallerId,
    id: &Value,
    method: &str,
    raw: Value,
) -> Result<Reply, A2aError> {
    let service = &endpoint.service;
    if method.starts_with("tasks/pushNotification/") {
        service.push()?;
    }
    let result = match method {
        "tasks/send" => {
            let (alias, request) = prepare(endpoint, raw, caller).await?;
            let started = service.start(request, caller).await?;
            endpoint
                .aliases
                .bind(&alias_key(caller, &alias), started.id());
            v0_1::task_out(&started.task_result().await?, &alias)
        }
        "tasks/sendSubscribe" => {
            let (alias, request) = prepare(endpoint, raw, caller).await?;
            let streamed = service.send_streaming(request, caller).await?;
            endpoint
                .aliases
                .bind(&alias_key(caller, &alias), &streamed.task_id);
            return Ok(Reply::Stream(streamed.events, draft_frames(id, alias)));
        }
        "tasks/get" => {
            let request: v0_1::TaskQueryParams = params(raw)?;
            let history = Some(request.history_length.unwrap_or(0));
            let task = service
                .get_task(&resolve(endpoint, caller, &request.id), history, caller)
                .await
                .map_err(|e| named(e, &request.id))?;
            v0_1::task_out(&task, &request.id)
        }
        "tasks/cancel" => {
            let request: v0_1::TaskIdParams = params(raw)?;
            let task = service
                .cancel_task(&resolve(endpoint, caller, &request.id), caller)
                .await
                .map_err(|e| named(e, &request.id))?;
            v0_1::task_out(&task.view(Some(0), true), &request.id)
        }
        "tasks/resubscribe" => {
            let request: v0_1::TaskIdParams = params(raw)?;
            let events = service
                .subscribe(&resolve(endpoint, caller, &request.id), caller)
                .await
                .map_err(|e| named(e, &request.id))?;
            return Ok(Reply::Stream(events, draft_frames(id, request.id)));
        }
        "tasks/pushNotification/set" => {
            let request: push::v0_1::SetParams = params(raw)?;
            let registration = draft_registration(
                request.push_notification_config,
                "pushNotificationConfig",
                &request.id,
            )?;
            let task_id = resolve(endpoint, caller, &request.id);
            let config = service
                .create_push_config(&task_id, registration, caller)
                .await
                .map_err(|e| named(e, &request.id))?;
            push::v0_1::config_out(&request.id, &config)
        }
        "tasks/pushNotification/get" => {
            let request: v0_1::TaskIdParams = params(raw)?;
            let task_id = resolve(endpoint, caller, &request.id);
            let configs = service
                .all_push_configs(&task_id, caller)
                .await
                .map_err(|e| named(e, &request.id))?;
            let position = configs.iter().position(|c| c.id == request.id);
            let config = configs
                .into_iter()
                .nth(position.unwrap_or(0))
                .ok_or_else(|| {
                    A2aError::invalid_params(
                        "id",
                        format!("task `{}` has no push notification config", request.id),
                    )
                })?;
            push::v0_1::config_out(&request.id, &config)
        }
        other => {
            return Err(A2aError::MethodNotFound {
                message: format!(
                    "method `{other}` not found; the early A2A draft's methods are {}, {}",
                    OWN_METHODS.join(", "),
                    SHARED_METHODS.join(", ")
                ),
            });
        }
    };
    Ok(Reply::Json(jsonrpc::success(id, result)))
}

/// A not-found error names the id the client used.
fn named(error: A2aError, alias: &str) -> A2aError {
    match error {
        A2aError::TaskNotFound(_) => A2aError::TaskNotFound(alias.to_owned()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_forget_the_oldest_beyond_the_bound() {
        let aliases = Aliases::default();
        for i in 0..=MAX_ALIASES {
            aliases.bind(&format!("c{i}"), &format!("t{i}"));
        }
        assert_eq!(aliases.get("c0"), None);
        assert_eq!(aliases.get("c1").as_deref(), Some("t1"));
        aliases.bind("c1", "t-new");
        assert_eq!(aliases.get("c1").as_deref(), Some("t-new"));
        assert_eq!(aliases.get("unknown"), None);
    }
}
