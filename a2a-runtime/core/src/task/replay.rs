//! A skill run again after a restart: its questions are answered from the task's checkpoint, in
//! the order they were first answered, until the skill reaches the question the task waits on
//! (or, for a re-run, runs out of recorded answers); from there it asks its client as usual.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::oneshot;

use super::live::LiveTask;
use super::waiting::TaskAsker;
use crate::ask::{Answer, Ask, AskError, Asker, Question, Reply, ask_grouped};
use a2a_runtime_types::util::BoxFuture;

/// Hands a resumed skill its recorded answers, then asks live.
pub(super) struct ReplayAsker {
    live: Arc<LiveTask>,
    asker: TaskAsker,
    replay: Mutex<Replay>,
}

struct Replay {
    /// The recorded answers not yet handed out; `None` is an authorization (not stored).
    answers: VecDeque<Option<Answer>>,
    /// How many recorded answers were handed out.
    given: usize,
    /// The question the task waited on when it was resumed, and where its answer arrives.
    pending: Option<(Question, oneshot::Receiver<Answer>)>,
}

/// What the next question gets.
enum Next {
    Recorded(Answer),
    Pending(Question, oneshot::Receiver<Answer>),
    Live,
}

impl ReplayAsker {
    /// Replays `answers`, then waits on `pending` (the question the task still shows), then
    /// asks live.
    pub(super) fn new(
        live: Arc<LiveTask>,
        asker: TaskAsker,
        answers: Vec<Option<Answer>>,
        pending: Option<(Question, oneshot::Receiver<Answer>)>,
    ) -> Self {
        Self {
            live,
            asker,
            replay: Mutex::new(Replay {
                answers: answers.into(),
                given: 0,
                pending,
            }),
        }
    }

    fn next(&self) -> Next {
        let mut replay = self.replay.lock().unwrap_or_else(PoisonError::into_inner);
        let next = match replay.answers.pop_front() {
            Some(Some(answer)) => {
                replay.given += 1;
                Next::Recorded(answer)
            }
            Some(None) => {
                // The credential of an authorization is not stored: it is asked for again, and
                // so is every question after it (the task's record is cut back to match).
                replay.answers.clear();
                replay.pending = None;
                self.live.forget_answers_from(replay.given);
                Next::Live
            }
            None => match replay.pending.take() {
                Some((question, answer)) => Next::Pending(question, answer),
                None => Next::Live,
            },
        };
        if replay.answers.is_empty() && replay.pending.is_none() {
            // From here on the skill does what it did not get to do before the restart.
            self.live.set_replaying(false);
        }
        next
    }
}

impl Asker for ReplayAsker {
    fn ask<'a>(&'a self, question: &'a Question) -> BoxFuture<'a, Result<Answer, AskError>> {
        Box::pin(async move {
            match self.next() {
                Next::Recorded(answer) => Ok(answer),
                Next::Pending(posed, answer) => {
                    // The skill asks what it asked before; the client still sees the question as
                    // it was first put (its id included), and its answer comes here.
                    self.asker.wait(&posed, Some(answer)).await
                }
                Next::Live => self.asker.wait(question, None).await,
            }
        })
    }

    // Grouped as the task asked it the first time, so each recorded answer meets its question.
    fn ask_all<'a>(&'a self, asks: &'a [Ask]) -> BoxFuture<'a, Result<Vec<Reply>, AskError>> {
        Box::pin(ask_grouped(self, asks))
    }
}
