//! Todo lists: `add_todo`, `update_todo`, `get_my_todos`, `get_all_todos`. All of a project's
//! todos are one collection, keyed `{session}/{todo id}`.

use std::collections::BTreeMap;

use a2a_runtime::prelude::*;
use a2a_runtime::records::{Entry, RecordError};
use a2a_runtime::serde_json::json;

use crate::model::{Todo, TodoStatus};
use crate::registry::active;
use crate::{Hub, HubClient, checked, collection, failure, new_id, now, store_failed};

/// What `add_todo` answers.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct TodoAdded {
    /// `added`.
    pub status: String,
    /// The new todo's id, for `update_todo`.
    pub todo_id: String,
    /// What happened, for a person.
    pub message: String,
}

/// Adds a todo item to the agent's task breakdown.
#[skill(agent = Hub)]
pub async fn add_todo(
    hub: State<Hub>,
    caller: Caller,
    /// Project identifier (the hub's default project when omitted).
    project_id: Option<String>,
    /// The agent's session name.
    session_name: String,
    /// Description of the todo.
    todo_item: String,
    /// Priority: 1 high, 2 medium, 3 low.
    priority: u8,
) -> Result<TodoAdded, SkillError> {
    let project_id = hub.project(project_id)?;
    hub.acting(&caller, &project_id, &session_name).await?;
    if !(1..=3).contains(&priority) {
        return Err(SkillError::invalid_input(format!(
            "`priority` must be 1 (high), 2 (medium) or 3 (low); got {priority}"
        )));
    }
    if todo_item.trim().is_empty() {
        return Err(SkillError::invalid_input("`todo_item` is empty"));
    }
    let todos = collection::todos(&project_id);
    // Counted by key (`{session}/{id}`): the agent's own todos, not the project's.
    let held = hub
        .records()
        .count(&todos, &format!("{session_name}/"))
        .await
        .map_err(store_failed)?;
    let settings = hub.settings();
    if held >= settings.max_todos_per_session {
        return Err(full(format!(
            "{session_name} has {held} todos, the most one agent may; complete and clear some \
             first"
        )));
    }
    let todo = Todo {
        id: new_id("todo"),
        text: todo_item,
        status: TodoStatus::Pending,
        priority,
        created_at: now(),
        completed_at: None,
    };
    let written = hub
        .records()
        .put(&todos, &format!("{session_name}/{}", todo.id), &todo)
        .at_most(settings.max_todos_per_project)
        .await;
    match written {
        Ok(_) => {}
        Err(RecordError::Full { limit, .. }) => {
            return Err(full(format!(
                "the project has {limit} todos, the most it may; no todo is dropped to make \
                 room"
            )));
        }
        Err(other) => return Err(store_failed(other)),
    }
    Ok(TodoAdded {
        status: "added".into(),
        message: format!("Added todo: {}", todo.text),
        todo_id: todo.id,
    })
}

/// A refused `add_todo`: the caller's list, or its project's, is full.
fn full(message: String) -> SkillError {
    failure("limit_reached", message, json!({}))
}

/// What `update_todo` answers.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct TodoUpdated {
    /// `updated`.
    pub status: String,
    /// The todo.
    pub todo_id: String,
    /// Its state now.
    pub new_status: TodoStatus,
}

/// Updates the status of a todo item.
#[skill(agent = Hub)]
pub async fn update_todo(
    hub: State<Hub>,
    caller: Caller,
    /// Project identifier (the hub's default project when omitted).
    project_id: Option<String>,
    /// The agent's session name.
    session_name: String,
    /// ID of the todo to update.
    todo_id: String,
    /// New status.
    status: TodoStatus,
) -> Result<TodoUpdated, SkillError> {
    let project_id = hub.project(project_id)?;
    hub.acting(&caller, &project_id, &session_name).await?;
    checked("todo_id", &todo_id)?;
    let todos = collection::todos(&project_id);
    let key = format!("{session_name}/{todo_id}");
    loop {
        let entry: Option<Entry<Todo>> = hub
            .records()
            .entry(&todos, &key)
            .await
            .map_err(store_failed)?;
        let Some(entry) = entry else {
            return Err(failure(
                "not_found",
                format!("Todo {todo_id} not found for {session_name}"),
                json!({}),
            ));
        };
        let mut todo = entry.value;
        todo.status = status;
        todo.completed_at = (status == TodoStatus::Completed).then(now);
        let written = hub
            .records()
            .put(&todos, &key, &todo)
            .if_version(entry.version)
            .await;
        match written {
            Ok(_) => break,
            Err(RecordError::Conflict { .. }) => {}
            Err(other) => return Err(store_failed(other)),
        }
    }
    Ok(TodoUpdated {
        status: "updated".into(),
        todo_id,
        new_status: status,
    })
}

/// One agent's todos, as `get_my_todos` answers them.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct MyTodos {
    /// The agent.
    pub session_name: String,
    /// How many todos it has.
    pub total: usize,
    /// Its todos, by priority, then oldest first.
    pub todos: Vec<Todo>,
}

/// Gets all todos of the calling agent.
#[skill(agent = Hub, read_only = true)]
pub async fn get_my_todos(
    hub: State<Hub>,
    caller: Caller,
    /// Project identifier (the hub's default project when omitted).
    project_id: Option<String>,
    /// The agent's session name.
    session_name: String,
) -> Result<MyTodos, SkillError> {
    let project_id = hub.project(project_id)?;
    hub.acting(&caller, &project_id, &session_name).await?;
    let todos = by_session(&hub, &project_id)
        .await?
        .remove(&session_name)
        .unwrap_or_default();
    Ok(MyTodos {
        session_name,
        total: todos.len(),
        todos,
    })
}

/// One agent's todos, as `get_all_todos` lists them.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct AgentTodos {
    /// The agent's task.
    pub task_id: String,
    /// What it is doing.
    pub description: String,
    /// How many todos it has.
    pub total_todos: usize,
    /// How many are completed.
    pub completed: usize,
    /// Its todos, by priority, then oldest first.
    pub todos: Vec<Todo>,
}

/// Gets the todos of every active agent in the project, by session name: what everyone is
/// working on.
#[skill(agent = Hub, read_only = true)]
pub async fn get_all_todos(
    hub: State<Hub>,
    /// Project identifier (the hub's default project when omitted).
    project_id: Option<String>,
) -> Result<BTreeMap<String, AgentTodos>, SkillError> {
    let project_id = hub.project(project_id)?;
    let mut todos = by_session(&hub, &project_id).await?;
    Ok(active(&hub, &project_id)
        .await?
        .into_iter()
        .map(|(session, agent)| {
            let todos = todos.remove(&session).unwrap_or_default();
            let listed = AgentTodos {
                task_id: agent.task_id,
                description: agent.description,
                total_todos: todos.len(),
                completed: todos
                    .iter()
                    .filter(|t| t.status == TodoStatus::Completed)
                    .count(),
                todos,
            };
            (session, listed)
        })
        .collect())
}

/// An agent's todos by state, when it leaves.
#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct TodoSummary {
    /// How many it had.
    pub total: usize,
    /// Completed.
    pub completed: usize,
    /// Not started.
    pub pending: usize,
    /// Being worked on.
    pub in_progress: usize,
    /// Blocked.
    pub blocked: usize,
}

impl Hub {
    /// Removes `session`'s todos in `project`, answering what they were.
    pub(crate) async fn clear_todos(
        &self,
        project: &str,
        session: &str,
    ) -> Result<TodoSummary, SkillError> {
        let todos = by_session(self, project)
            .await?
            .remove(session)
            .unwrap_or_default();
        let mut summary = TodoSummary {
            total: todos.len(),
            ..TodoSummary::default()
        };
        let collection = collection::todos(project);
        for todo in todos {
            match todo.status {
                TodoStatus::Completed => summary.completed += 1,
                TodoStatus::Pending => summary.pending += 1,
                TodoStatus::InProgress => summary.in_progress += 1,
                TodoStatus::Blocked => summary.blocked += 1,
            }
            self.records()
                .delete(&collection, &format!("{session}/{}", todo.id))
                .await
                .map_err(store_failed)?;
        }
        Ok(summary)
    }
}

/// Every todo of `project`, by session, each list by priority then oldest first.
pub(crate) async fn by_session(
    hub: &Hub,
    project: &str,
) -> Result<BTreeMap<String, Vec<Todo>>, SkillError> {
    let entries: Vec<Entry<Todo>> = hub
        .records()
        .entries(&collection::todos(project), None)
        .await
        .map_err(store_failed)?;
    let mut sessions: BTreeMap<String, Vec<Todo>> = BTreeMap::new();
    for entry in entries {
        if let Some((session, _)) = entry.key.split_once('/') {
            sessions
                .entry(session.to_owned())
                .or_default()
                .push(entry.value);
        }
    }
    for todos in sessions.values_mut() {
        todos.sort_by_key(|todo| (todo.priority, todo.created_at));
    }
    Ok(sessions)
}
