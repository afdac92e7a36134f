//! Answering a task's questions at the prompt: when a task waits for input and standard input
//! is a terminal (or `--interactive` is given), the question is shown on standard error and the
//! line typed is sent as the answer, on the same task.

use std::io::{BufRead, IsTerminal, Write};

use a2a_runtime::client::StreamEvent;
use a2a_runtime::{Message, Part, Task, TaskState};

use crate::cli::Cli;

/// A question a task waits on: its task, conversation and prompt.
pub(crate) struct Asked {
    task_id: String,
    context_id: String,
    prompt: Option<String>,
}

impl Asked {
    /// The question `task` waits on (if it waits).
    pub(crate) fn of(task: &Task) -> Self {
        Self {
            task_id: task.id.clone(),
            context_id: task.context_id.clone(),
            prompt: task.status.message.as_ref().and_then(Message::text),
        }
    }
}

/// The question `event` leaves its task waiting on, if it does.
pub(crate) fn waiting(event: &StreamEvent) -> Option<(TaskState, Asked)> {
    let (state, asked) = match event {
        StreamEvent::Task(task) => (task.status.state, Asked::of(task)),
        StreamEvent::Status(update) => (
            update.status.state,
            Asked {
                task_id: update.task_id.clone(),
                context_id: update.context_id.clone(),
                prompt: update.status.message.as_ref().and_then(Message::text),
            },
        ),
        _ => return None,
    };
    Some((state, asked))
}

/// The message answering `asked` when the task waits for input (`state`) and the user gives an
/// answer; `None` to stop (not waiting, not asking here, or an empty line or end of input).
pub(crate) async fn answer(cli: &Cli, state: TaskState, asked: Asked) -> Option<Message> {
    if state != TaskState::InputRequired {
        return None;
    }
    let stdin = std::io::stdin();
    if !(cli.interactive || stdin.is_terminal()) {
        return None;
    }
    let prompt = asked
        .prompt
        .unwrap_or_else(|| "The agent asks for input".into());
    // Reading a line blocks: off the runtime's thread.
    let line = a2a_runtime::tokio::task::spawn_blocking(move || {
        let mut stderr = std::io::stderr();
        let _ = write!(stderr, "? {prompt}\n> ");
        let _ = stderr.flush();
        let mut line = String::new();
        stdin.lock().read_line(&mut line).ok()?;
        Some(line.trim_end_matches(['\r', '\n']).to_owned())
    })
    .await
    .ok()??;
    if line.is_empty() {
        eprintln!("a2a: no answer; task {} still waits for one", asked.task_id);
        return None;
    }
    let mut message = Message::user(vec![Part::text(line)]);
    message.task_id = Some(asked.task_id);
    message.context_id = Some(asked.context_id);
    Some(message)
}
