//! Tasks another replica runs, served here: answers and cancels go to that replica, and
//! subscriptions follow a mirror of the task (`cluster/`). Each method returns `None` when the
//! task is not live on any other replica, and the caller then serves it from the store; and the
//! `*_here` methods are what the running replica does when asked.

use std::sync::Arc;
use std::time::Duration;

use super::answers::Addressed;
use super::cluster::{Answering, Member, Outcome, Request, RequestError};
use super::error::TaskError;
use super::handle::TaskHandle;
use super::live::{LiveTask, Subscribed};
use super::manager::TaskManager;
use super::push_edit::PushEdit;
use crate::ask::{Answer, QuestionKind};
use crate::auth::Caller;
use a2a_runtime_types::model::{Message, Task};
use a2a_runtime_types::util::BoxFuture;

/// How long an answered mirror may take to show the answer's effect.
const APPLIED_WAIT: Duration = Duration::from_secs(10);

impl TaskManager {
    /// The replica, other than this one, running `task`, when replicas share the store.
    pub(super) async fn runner(&self, task: &str) -> Result<Option<String>, TaskError> {
        match &self.cluster {
            Some(cluster) => Ok(cluster.runner(task).await?),
            None => Ok(None),
        }
    }

    /// The task error for a request about `task` that did not come back done; `None` when the
    /// task is no longer live there.
    pub(super) fn remote_error(&self, task: &str, error: RequestError) -> Option<TaskError> {
        match error {
            RequestError::Refused(refusal) => {
                refusal.into_task_error(task, &self.dispatcher.registry())
            }
            RequestError::Silent(replica) => {
                Some(TaskError::Store(super::StoreError::backend(format!(
                    "replica {replica}, which runs task `{task}`, did not answer; retry shortly"
                ))))
            }
            RequestError::Store(error) => Some(TaskError::Store(error)),
        }
    }

    /// Sends an A2A answer for `task` to the replica running it: a handle on the task's mirror
    /// here, subscribed from the answer on.
    pub(super) async fn resume_remote(
        &self,
        task: &str,
        message: &Message,
        caller: &Caller,
    ) -> Result<Option<TaskHandle>, TaskError> {
        let (Some(cluster), Some(runner)) = (&self.cluster, self.runner(task).await?) else {
            return Ok(None);
        };
        let mirror = match cluster.mirror(&runner, &self.agent, task, caller).await {
            Ok(mirror) => mirror,
            Err(error) => return self.remote_error(task, error).map(Err).transpose(),
        };
        super::manager::check_context(task, &mirror.context_id, message)?;
        let request = Request::Answer(Box::new(Answering {
            task: task.to_owned(),
            owner: caller.owner().to_owned(),
            kind: QuestionKind::Input,
            question: None,
            answer: Answer::Message(message.clone()),
            history: Some(message.clone()),
            caller: Some(caller.clone()),
        }));
        let revision = match cluster.request(&runner, &self.agent, request).await {
            Ok(Outcome::Answered { revision }) => revision,
            Ok(_) => return Ok(None),
            Err(error) => return self.remote_error(task, error).map(Err).transpose(),
        };
        // Subscribed once the mirror shows the answer taken, so the subscription starts from
        // the resumed task, as it does for a task answered here.
        mirror.applied(revision, APPLIED_WAIT).await;
        Ok(Some(TaskHandle::mirrored(
            Arc::clone(&mirror),
            Arc::clone(&self.store),
        )))
    }

    /// Sends an answer (MCP input, or an authorization) for `task` to the replica running it.
    pub(super) async fn answer_remote(
        &self,
        task: &str,
        owner: &str,
        to: Addressed<'_>,
        answer: Answer,
        history: Option<Message>,
        caller: Option<&Caller>,
    ) -> Result<Option<()>, TaskError> {
        let (Some(cluster), Some(runner)) = (&self.cluster, self.runner(task).await?) else {
            return Ok(None);
        };
        let request = Request::Answer(Box::new(Answering {
            task: task.to_owned(),
            owner: owner.to_owned(),
            kind: to.kind,
            question: to.question.map(str::to_owned),
            answer,
            history,
            caller: caller.cloned(),
        }));
        match cluster.request(&runner, &self.agent, request).await {
            Ok(_) => Ok(Some(())),
            Err(error) => self.remote_error(task, error).map(Err).transpose(),
        }
    }

    /// Asks the replica running `task` to cancel it.
    pub(super) async fn cancel_remote(
        &self,
        task: &str,
        owner: &str,
    ) -> Result<Option<Task>, TaskError> {
        let (Some(cluster), Some(runner)) = (&self.cluster, self.runner(task).await?) else {
            return Ok(None);
        };
        let request = Request::Cancel {
            task: task.to_owned(),
            owner: owner.to_owned(),
        };
        match cluster.request(&runner, &self.agent, request).await {
            Ok(Outcome::Canceled { task }) => Ok(Some(*task)),
            Ok(_) => Ok(None),
            Err(error) => self.remote_error(task, error).map(Err).transpose(),
        }
    }

    /// A subscription to `task`, which another replica runs, through its mirror here.
    pub(super) async fn subscribe_remote(
        &self,
        task: &str,
        owner: &str,
    ) -> Result<Option<Subscribed>, TaskError> {
        let Some(cluster) = &self.cluster else {
            return Ok(None);
        };
        if let Some(mirror) = self.followed(task, owner) {
            return Ok(Some(mirror.subscribe()));
        }
        let Some(runner) = self.runner(task).await? else {
            return Ok(None);
        };
        let owner = Caller::owning(owner);
        match cluster.mirror(&runner, &self.agent, task, &owner).await {
            Ok(mirror) => Ok(Some(mirror.subscribe())),
            Err(error) => self.remote_error(task, error).map(Err).transpose(),
        }
    }

    /// The mirror of `task` this replica follows, if `owner` owns the task and it is this
    /// agent's.
    pub(super) fn followed(&self, task: &str, owner: &str) -> Option<Arc<LiveTask>> {
        self.cluster
            .as_ref()?
            .followed(task)
            .filter(|mirror| mirror.caller.owner() == owner && *mirror.agent == *self.agent)
    }

    /// Cancels `task` if it is live here (for another replica).
    pub(super) async fn cancel_here(&self, task: &str, owner: &str) -> Result<Task, TaskError> {
        match self.live(task, owner) {
            Some(live) => self.cancel_live(&live).await,
            None => Err(TaskError::NotRunning(task.to_owned())),
        }
    }

    /// Delivers an answer to `task` if it is live here (for another replica); the revision the
    /// task reached taking it.
    pub(super) async fn answer_here(&self, answering: Answering) -> Result<u64, TaskError> {
        let Answering {
            task,
            owner,
            kind,
            question,
            answer,
            history,
            caller,
        } = answering;
        let live = self
            .live(&task, &owner)
            .ok_or(TaskError::NotRunning(task))?;
        if let Some(caller) = &caller {
            self.may_answer(&live, caller)?;
        }
        self.deliver(&live, kind, question.as_deref(), answer, history)
            .await?;
        Ok(live.revision())
    }
}

impl Member for TaskManager {
    fn agent(&self) -> &str {
        TaskManager::agent(self)
    }

    fn live(&self, task: &str, owner: &str) -> Option<Arc<LiveTask>> {
        TaskManager::live(self, task, owner)
    }

    fn cancel_here<'a>(
        &'a self,
        task: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Task, TaskError>> {
        Box::pin(TaskManager::cancel_here(self, task, owner))
    }

    fn edit_here<'a>(
        &'a self,
        task: &'a str,
        owner: &'a str,
        edit: &'a PushEdit,
    ) -> BoxFuture<'a, Option<Result<(), TaskError>>> {
        Box::pin(TaskManager::edit_here(self, task, owner, edit))
    }

    fn answer_here(&self, answering: Answering) -> BoxFuture<'_, Result<u64, TaskError>> {
        Box::pin(TaskManager::answer_here(self, answering))
    }
}
