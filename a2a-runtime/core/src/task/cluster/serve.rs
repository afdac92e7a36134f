//! The running replica's side: requests for tasks live here, and forwarding a watched task's
//! events to the replica that follows it.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::broadcast::error::RecvError;

use super::wire::{Envelope, Outcome, RemoteError, Request};
use super::{Cluster, Member};
use crate::task::live::LiveTask;

/// How long a finished task's forwarder waits for its final state to be stored.
const FINAL_WRITE_WAIT: Duration = Duration::from_secs(10);

impl Cluster {
    /// Serves request `id` from replica `from` with the manager of the agent it names (none:
    /// that agent is not served here, so neither is its task) and replies.
    pub(super) async fn serve(
        self: &Arc<Self>,
        manager: Option<Arc<dyn Member>>,
        id: String,
        from: String,
        request: Request,
    ) {
        let outcome = match manager {
            Some(manager) => self.serve_with(&manager, id.clone(), &from, request).await,
            None => Some(Err(RemoteError::NotHere)),
        };
        let Some(outcome) = outcome else { return };
        let reply = Envelope::Reply { id, outcome };
        if let Err(error) = self.send(&from, &reply).await {
            tracing::warn!(%error, replica = %from, "could not reply to a replica");
        }
    }

    /// The outcome of `request` served by `manager`; `None` when a watch took the reply over.
    async fn serve_with(
        self: &Arc<Self>,
        manager: &Arc<dyn Member>,
        id: String,
        from: &str,
        request: Request,
    ) -> Option<Result<Outcome, RemoteError>> {
        Some(match request {
            Request::Watch { task, owner } => match manager.live(&task, &owner) {
                Some(live) => {
                    self.forward(live, id, from.to_owned()).await;
                    return None;
                }
                None => Err(RemoteError::NotHere),
            },
            Request::Cancel { task, owner } => manager
                .cancel_here(&task, &owner)
                .await
                .map(|task| Outcome::Canceled {
                    task: Box::new(task),
                })
                .map_err(RemoteError::of),
            Request::Push { task, owner, edit } => {
                match manager.edit_here(&task, &owner, &edit).await {
                    Some(outcome) => outcome.map(|()| Outcome::Pushed).map_err(RemoteError::of),
                    None => Err(RemoteError::NotHere),
                }
            }
            Request::Answer(answering) => manager
                .answer_here(*answering)
                .await
                .map(|revision| Outcome::Answered { revision })
                .map_err(RemoteError::of),
        })
    }

    /// Replies to a watch with the task's snapshot, then forwards its events and stored
    /// revisions, in order, until it is finished and stored.
    async fn forward(&self, live: Arc<LiveTask>, id: String, to: String) {
        let (subscribed, mut revision) = live.subscribe_at();
        let task = live.id.clone();
        let reply = Envelope::Reply {
            id,
            outcome: Ok(Outcome::Watching {
                task: Box::new(subscribed.snapshot),
                revision,
            }),
        };
        if self.send(&to, &reply).await.is_err() {
            return;
        }
        let mut seen = live.durability.version();
        let mut sent_stored = 0;
        if let Some(mut events) = subscribed.events {
            loop {
                tokio::select! {
                    event = events.recv() => match event {
                        Ok(event) => {
                            revision += 1;
                            let envelope = Envelope::Event {
                                task: task.clone(),
                                revision,
                                event: Box::new((*event).clone()),
                            };
                            if self.send(&to, &envelope).await.is_err() {
                                return;
                            }
                        }
                        // Too far behind to forward each event: the follower finishes with the
                        // stored state instead, as a subscriber here would.
                        Err(RecvError::Lagged(_)) => break,
                        Err(RecvError::Closed) => break,
                    },
                    version = live.durability.changed_since(seen) => {
                        seen = version;
                        let now = live.durability.revision();
                        if now > sent_stored {
                            sent_stored = now;
                            let envelope = Envelope::Stored { task: task.clone(), revision: now };
                            if self.send(&to, &envelope).await.is_err() {
                                return;
                            }
                        }
                    }
                }
            }
        }
        // Finished: forward the stored revision once the final write lands, then stop.
        let target = live.revision();
        let _ = tokio::time::timeout(FINAL_WRITE_WAIT, live.durability.holds(target)).await;
        let now = live.durability.revision();
        if now > sent_stored {
            let _ = self
                .send(
                    &to,
                    &Envelope::Stored {
                        task: task.clone(),
                        revision: now,
                    },
                )
                .await;
        }
        let _ = self.send(&to, &Envelope::WatchEnded { task }).await;
    }
}
