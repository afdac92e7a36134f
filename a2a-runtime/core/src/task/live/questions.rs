//! A live task's questions: posing one (the task waits, its checkpoint records it), taking
//! its answer (matched under the task's lock, so an answer never reaches a newer question),
//! the parts of a grouped question answered one at a time, and withdrawing one that waited too
//! long.

use super::*;

impl LiveTask {
    /// Puts `question` to the caller: the task becomes INPUT_REQUIRED (or AUTH_REQUIRED) with
    /// the question as its status message, also kept in history. `false` if the task ended.
    pub fn pose(
        &self,
        question: &Question,
        answer: oneshot::Sender<Answer>,
        max_history: usize,
    ) -> bool {
        let event = self.status_event(question.kind.state(), Some(question.message()), None);
        let message = event.status_message();
        let mut inner = self.lock();
        let applied = self.apply(&mut inner, event, message, max_history);
        if applied.is_some() {
            if let Some(pending) = inner.deferred.take() {
                inner.checkpoint = Some(pending.build(&self.id, &self.context_id));
            }
            if let Some(checkpoint) = inner.checkpoint.as_mut() {
                checkpoint.question = Some(question.clone());
            }
            inner.waiting = Some(Waiter {
                question: question.clone(),
                answer,
                partial: serde_json::Map::new(),
            });
        }
        drop(inner);
        self.publish(applied)
    }

    /// Hands the waiting question of `kind` (and, when given, with id `question`) its answer and
    /// sets the task WORKING again, keeping `history` (the answering message) when given. The
    /// question is matched under the task's lock, so an answer never reaches a newer question.
    pub fn answer(
        &self,
        kind: QuestionKind,
        question: Option<&str>,
        answer: Answer,
        history: Option<Message>,
        max_history: usize,
    ) -> Result<Subscribed, Refusal> {
        let mut inner = self.lock();
        let state = inner.task.status.state;
        if state.is_terminal() {
            return Err(Refusal::Ended(state));
        }
        let matches = |w: &mut Waiter| {
            w.question.kind == kind && question.is_none_or(|id| w.question.id == id)
        };
        let Some(waiter) = inner.waiting.take_if(matches) else {
            return Err(match (&inner.waiting, question) {
                (Some(other), _) if other.question.kind != kind => {
                    Refusal::WaitsFor(other.question.kind)
                }
                (Some(_), Some(id)) => Refusal::OtherQuestion(id.to_owned()),
                _ => Refusal::NotWaiting(state),
            });
        };
        let history = history.map(|m| Message {
            context_id: Some(self.context_id.clone()),
            task_id: Some(self.id.clone()),
            ..m
        });
        if let Some(checkpoint) = inner.checkpoint.as_mut() {
            checkpoint.answered(&waiter.question, &answer);
        }
        if inner.turn.is_on() {
            // The answer starts the call's next turn.
            let input = match (&history, &answer) {
                (Some(message), _) | (None, Answer::Message(message)) => message.byte_size(),
                (None, Answer::Value(value)) => value.byte_size(),
                (None, Answer::Declined) => 0,
            };
            let output = inner.artifact_bytes;
            inner.turn.resume(input, output);
        }
        let event = self.status_event(TaskState::Working, None, None);
        let applied = self.apply(&mut inner, event, history, max_history);
        drop(inner);
        self.publish(applied);
        // Taken before the skill gets its answer, so it holds every event the skill sends next
        // however slow the caller is to read it (a store write may come first).
        let subscribed = self.subscribe();
        // The skill may have been dropped meanwhile (a cancel); the task then ends anyway.
        let _ = waiter.answer.send(answer);
        Ok(subscribed)
    }

    /// Waits again on `question`, which the task was asked before a restart and still shows:
    /// the next answer to it goes to the returned receiver.
    pub fn rewait(&self, question: Question) -> oneshot::Receiver<Answer> {
        let (answer, receiver) = oneshot::channel();
        self.lock().waiting = Some(Waiter {
            question,
            answer,
            partial: serde_json::Map::new(),
        });
        receiver
    }

    /// Takes back the question `id` because it waited too long; `false` if an answer took it
    /// first (the answer is then on its way).
    pub fn withdraw(&self, id: &str) -> bool {
        self.lock()
            .waiting
            .take_if(|w| w.question.id == id)
            .is_some()
    }

    /// The question the task waits on, if any; of a grouped question, the parts that still
    /// wait for answers.
    pub fn question(&self) -> Option<Question> {
        let inner = self.lock();
        let waiter = inner.waiting.as_ref()?;
        let mut question = waiter.question.clone();
        question
            .parts
            .retain(|part| !waiter.partial.contains_key(part.key()));
        Some(question)
    }

    /// Keeps `answers` (by part key) for the parts of the grouped question `id`; once every
    /// part has one, the answer to the whole question (to hand over with
    /// [`answer`](Self::answer)). Answers to parts already answered are kept as first given.
    pub fn answer_parts(
        &self,
        id: &str,
        answers: Vec<(String, serde_json::Value)>,
    ) -> Result<Option<Answer>, Refusal> {
        let mut inner = self.lock();
        let state = inner.task.status.state;
        let Some(waiter) = inner.waiting.as_mut() else {
            return Err(Refusal::NotWaiting(state));
        };
        if waiter.question.id != id {
            return Err(Refusal::OtherQuestion(id.to_owned()));
        }
        for (key, value) in answers {
            waiter.partial.entry(key).or_insert(value);
        }
        let complete = waiter
            .question
            .parts
            .iter()
            .all(|part| waiter.partial.contains_key(part.key()));
        Ok(complete.then(|| Answer::Value(serde_json::Value::Object(waiter.partial.clone()))))
    }
}
