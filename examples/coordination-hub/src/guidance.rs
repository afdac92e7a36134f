//! How an agent is told to use the hub: the MCP instructions (on `#[agent]`), and prompts that
//! expand to the protocol's steps with the project's state filled in (Claude Code offers MCP
//! prompts as slash commands: `/mcp__coordination-hub__start_task`).

use a2a_runtime::prelude::*;

use crate::Hub;

/// Starts a task as one of several agents on this repository: registers, plans, and looks at
/// what the others are doing before touching any file.
#[prompt(agent = Hub)]
pub async fn start_task(
    hub: State<Hub>,
    /// Your session name, unique among the agents (your task id, say).
    session_name: String,
    /// What you are to do.
    task: String,
    /// Your git branch.
    branch: Option<String>,
    /// Project identifier (the hub's default project when omitted).
    project_id: Option<String>,
) -> Result<String, SkillError> {
    let project = hub.project(project_id)?;
    let overview = hub.overview(&project).await?;
    let branch = branch.unwrap_or_else(|| "the current branch".into());
    Ok(format!(
        "You are agent `{session_name}`, one of several AI agents changing this repository at \
         the same time, coordinated by the hub. Your task: {task}\n\n\
         1. Call `register_agent` with session_name `{session_name}`, a short task_id, branch \
         {branch} and a one-line description of the task.\n\
         2. Break the task into steps with `add_todo` (priority 1 to 3).\n\
         3. Read what the others are doing (below) and `get_recent_changes`; ask an agent with \
         `query_agent` before changing what it works on.\n\
         4. Before editing each file, `announce_file_change` it; on a `conflict`, do not edit it. \
         `release_file_lock` it when done.\n\
         5. Between steps, `check_messages` and answer queries with `respond_to_query`.\n\n\
         The project now:\n{}",
        overview.to_text()
    ))
}

/// Where things stand: every agent, what it holds, its open todos and the questions waiting
/// for an answer, with what to do about yours.
#[prompt(agent = Hub)]
pub async fn status(
    hub: State<Hub>,
    /// Your session name.
    session_name: String,
    /// Project identifier (the hub's default project when omitted).
    project_id: Option<String>,
) -> Result<String, SkillError> {
    let project = hub.project(project_id)?;
    let overview = hub.overview(&project).await?;
    Ok(format!(
        "{}\nYou are `{session_name}`. Call `check_messages` and answer every question asked of \
         you with `respond_to_query`; update your todos with `update_todo`; release the files you \
         are done with (`release_file_lock`).",
        overview.to_text()
    ))
}

/// Finishes a task: completes the todos, releases the files, tells the others, unregisters.
#[prompt(agent = Hub)]
pub async fn finish_task(
    hub: State<Hub>,
    /// Your session name.
    session_name: String,
    /// Project identifier (the hub's default project when omitted).
    project_id: Option<String>,
) -> Result<String, SkillError> {
    let project = hub.project(project_id)?;
    let overview = hub.overview(&project).await?;
    let mine = overview
        .agents
        .iter()
        .find(|agent| agent.session_name == session_name);
    let held: Vec<&str> = mine
        .map(|agent| {
            agent
                .reservations
                .iter()
                .map(|r| r.file_path.as_str())
                .collect()
        })
        .unwrap_or_default();
    let open: Vec<String> = mine
        .map(|agent| {
            agent
                .todos
                .iter()
                .map(|t| format!("{} ({})", t.text, t.id))
                .collect()
        })
        .unwrap_or_default();
    Ok(format!(
        "Finish your task as `{session_name}`:\n\
         1. Mark each todo done with `update_todo` (or say why it is not): {}.\n\
         2. Answer any question still waiting (`check_messages`, `respond_to_query`).\n\
         3. Tell the others what changed with `broadcast_message` (message_type `info`): the \
         files, the interfaces (`register_interface` any they will use).\n\
         4. Call `unregister_agent`: it releases the files you hold ({}).",
        list_or_none(&open),
        list_or_none(&held)
    ))
}

fn list_or_none<S: AsRef<str>>(items: &[S]) -> String {
    if items.is_empty() {
        return "none".into();
    }
    items
        .iter()
        .map(AsRef::as_ref)
        .collect::<Vec<_>>()
        .join("; ")
}

/// The hub's instructions for the agent of one worktree, whose hooks act as `session`: the
/// agent's own, then the name to register with, so the model's calls and the hooks agree.
pub(crate) fn instructions_for_session(session: &str) -> String {
    let general = <Hub as a2a_runtime::Agent>::descriptor().instructions();
    format!(
        "{general}\n\nYour session name is `{session}`: this worktree's hooks act as it. \
         Register with session_name `{session}` and use it in every call."
    )
}
