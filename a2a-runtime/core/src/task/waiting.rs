//! A task's skill waiting for an answer: the task interrupted with the question, the skill's
//! future parked on a channel (no thread held), and expiry failing the task.

use std::sync::Arc;

use tokio::sync::oneshot;

use super::live::LiveTask;
use super::manager::TaskManager;
use crate::ask::{Answer, Ask, AskError, Asker, Question, Reply, ask_grouped};
use a2a_runtime_types::util::BoxFuture;

/// Puts a task skill's questions to the task's client.
pub(super) struct TaskAsker {
    manager: Arc<TaskManager>,
    live: Arc<LiveTask>,
}

impl TaskAsker {
    pub(super) fn new(manager: Arc<TaskManager>, live: Arc<LiveTask>) -> Self {
        Self { manager, live }
    }

    /// Puts `question` to the client and waits for its answer; `posed` is the answer's channel
    /// when the question is already posed (a task resumed after a restart waits on the
    /// question it was asked before).
    pub(super) async fn wait(
        &self,
        question: &Question,
        posed: Option<oneshot::Receiver<Answer>>,
    ) -> Result<Answer, AskError> {
        let limits = self.manager.input_limits();
        let _slot = limits.acquire(&question.prompt)?;
        // One caller's unanswered questions never use up everyone's waiting capacity.
        self.live
            .start_waiting()
            .map_err(|busy| AskError::CallerLimit {
                prompt: question.prompt.clone(),
                reason: busy.reason,
            })?;
        let _waiting = StopWaiting(&self.live);
        let canceled = || AskError::Canceled {
            prompt: question.prompt.clone(),
        };
        let mut answer = match posed {
            Some(answer) => answer,
            None => {
                let (sender, answer) = oneshot::channel();
                if !self.live.pose(question, sender, self.manager.max_history()) {
                    return Err(canceled());
                }
                self.manager.persist(&self.live).await;
                answer
            }
        };
        tokio::select! {
            // A dropped sender means the task ended (a cancel) while waiting.
            answer = &mut answer => answer.map_err(|_| canceled()),
            () = tokio::time::sleep(limits.timeout()) => {
                if self.live.withdraw(&question.id) {
                    self.manager.expire(&self.live, question).await;
                    Err(limits.expired(&question.prompt))
                } else {
                    // Answered as the timer fired: the answer is already sent.
                    answer.await.map_err(|_| canceled())
                }
            }
        }
    }
}

/// Counts the task as working again when its wait ends, however it ends.
struct StopWaiting<'a>(&'a LiveTask);

impl Drop for StopWaiting<'_> {
    fn drop(&mut self) {
        self.0.stop_waiting();
    }
}

impl Asker for TaskAsker {
    fn ask<'a>(&'a self, question: &'a Question) -> BoxFuture<'a, Result<Answer, AskError>> {
        Box::pin(self.wait(question, None))
    }

    fn ask_all<'a>(&'a self, asks: &'a [Ask]) -> BoxFuture<'a, Result<Vec<Reply>, AskError>> {
        Box::pin(ask_grouped(self, asks))
    }
}
