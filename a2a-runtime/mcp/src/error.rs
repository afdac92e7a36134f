//! The one place task-layer failures get their MCP form (as `a2a/error.rs` is for A2A).

use a2a_runtime_types::protocol::jsonrpc::code;
use rmcp::ErrorData as McpError;
use rmcp::model::ErrorCode;
use serde_json::json;

use a2a_runtime_core::ask::AskError;
use a2a_runtime_core::dispatch::MissingScope;
use a2a_runtime_core::quota::{Busy, BusyKind};
use a2a_runtime_core::skill_error::SkillError;
use a2a_runtime_core::task::{StoreError, TaskError};

/// A retryable refusal (over a per-caller quota, the server at capacity). MCP defines no code
/// for it, so it carries A2A's (`-32029`) and says when to retry in `data`.
pub(super) fn busy(busy: Busy) -> McpError {
    let seconds = busy.retry_after.as_secs_f64().ceil().max(1.0) as u64;
    McpError::new(
        rmcp::model::ErrorCode(code::BUSY as i32),
        busy.to_string(),
        Some(json!({ "reason": "RESOURCE_EXHAUSTED", "retryAfterSeconds": seconds })),
    )
}

/// The refusal of a call whose caller lacks a scope the tool needs (the code A2A uses for
/// `PERMISSION_DENIED`; MCP defines none).
pub(super) fn forbidden(missing: MissingScope) -> McpError {
    McpError::new(
        rmcp::model::ErrorCode(code::PERMISSION_DENIED as i32),
        tool_refusal(&missing),
        Some(json!({
            "tool": missing.skill,
            "missingScopes": missing.missing,
            "requiredScopes": missing.needed,
        })),
    )
}

/// What a call refused for `missing` scopes is told: the tool and every scope it lacks.
pub fn tool_refusal(missing: &MissingScope) -> String {
    let noun = if missing.missing.len() == 1 {
        "scope"
    } else {
        "scopes"
    };
    format!(
        "tool `{}` needs {noun} {}, which the caller's credentials do not grant",
        missing.skill,
        missing.missing_list()
    )
}

/// A call that failed because it needed a capability the client did not declare: on protocol
/// 2026-07-28 the request itself is refused with MissingRequiredClientCapability (-32021, HTTP
/// 400), `data.requiredCapabilities` naming it as a `ClientCapabilities` object. `None` for
/// any other failure, which stays a tool error.
pub(super) fn missing_capability(error: &SkillError) -> Option<McpError> {
    let AskError::MissingCapability { capability, .. } = error.ask_error()? else {
        return None;
    };
    Some(McpError::new(
        ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        error.message().to_owned(),
        Some(json!({ "requiredCapabilities": { *capability: {} } })),
    ))
}

/// The refusal of a call to a tool that requires tasks from a client that did not declare the
/// MCP tasks extension (-32021, naming it as the capability it needs).
pub(super) fn tasks_required(tool: &str) -> McpError {
    McpError::new(
        ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        format!(
            "tool `{tool}` runs only as a task; declare the {TASKS_EXTENSION} extension in the \
             client capabilities to call it"
        ),
        Some(json!({
            "requiredCapabilities": { "extensions": { TASKS_EXTENSION: {} } },
        })),
    )
}

/// The MCP tasks extension, as clients declare it.
const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// A request that does not fit the task's current state (unknown task, a question that is not
/// waiting, a task that already ended …) is the client's mistake: invalid params (-32602), with
/// the task id in `data`. Only store failures are internal errors (-32603).
pub(super) fn task_error(error: TaskError) -> McpError {
    let task_id = match &error {
        TaskError::Forbidden(missing) => return forbidden(missing.clone()),
        TaskError::Quota(refusal) => return busy(refusal.clone()),
        TaskError::NotFound(id)
        | TaskError::NotRunning(id)
        | TaskError::Busy(id)
        | TaskError::AwaitingAuth(id)
        | TaskError::Terminal { id, .. }
        | TaskError::Ended { id, .. }
        | TaskError::NotCancelable { id, .. }
        | TaskError::NotAwaitingAuth { id, .. }
        | TaskError::NoSuchQuestion { id, .. }
        | TaskError::PushConfigLimit { id, .. }
        | TaskError::ContextMismatch { task: id, .. } => id.clone(),
        TaskError::Store(StoreError::InvalidPageToken) => {
            return McpError::invalid_params(error.to_string(), Some(json!({"field": "cursor"})));
        }
        TaskError::Store(StoreError::Full(held)) => {
            return busy(Busy::new(
                BusyKind::Store,
                format!("the task store is full ({held} tasks held, none finished)"),
                std::time::Duration::from_secs(5),
            ));
        }
        TaskError::KeyReused { .. } => {
            let field = json!({ "field": format!("_meta.{}", crate::keyed::META_KEY) });
            return McpError::invalid_params(error.to_string(), Some(field));
        }
        TaskError::Store(_) => return McpError::internal_error(error.to_string(), None),
        TaskError::NotStored { id, .. } => {
            return McpError::internal_error(error.to_string(), Some(json!({ "taskId": id })));
        }
    };
    let message = match &error {
        // "task `x` not found" reads oddly in MCP, where tasks are what tools/call returned.
        TaskError::NotFound(_) => format!("unknown task `{task_id}`"),
        other => other.to_string(),
    };
    McpError::invalid_params(message, Some(json!({ "taskId": task_id })))
}

#[cfg(test)]
mod tests {
    use rmcp::model::ErrorCode;

    use super::*;
    use a2a_runtime_types::model::TaskState;

    #[test]
    fn state_conflicts_are_invalid_params_naming_the_task() {
        let cases = [
            TaskError::NotFound("t1".into()),
            TaskError::NoSuchQuestion {
                id: "t1".into(),
                question: "q9".into(),
            },
            TaskError::ContextMismatch {
                task: "t1".into(),
                given: "c2".into(),
                actual: "c1".into(),
            },
            TaskError::Ended {
                id: "t1".into(),
                state: TaskState::Completed,
            },
            TaskError::Busy("t1".into()),
        ];
        for error in cases {
            let text = error.to_string();
            let mapped = task_error(error);
            assert_eq!(mapped.code, ErrorCode::INVALID_PARAMS, "{text}");
            assert_eq!(mapped.data, Some(json!({"taskId": "t1"})), "{text}");
        }
    }

    #[test]
    fn store_failures_are_internal_errors() {
        let mapped = task_error(TaskError::Store(StoreError::Backend("disk".into())));
        assert_eq!(mapped.code, ErrorCode::INTERNAL_ERROR);
        assert!(mapped.message.contains("disk"), "{}", mapped.message);
    }
}
