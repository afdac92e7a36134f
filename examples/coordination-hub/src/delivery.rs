//! Putting messages in inboxes, which are bounded (`Settings::inbox_size`) without losing what
//! nobody has seen: when an inbox is full, the oldest messages its agent has already read make
//! room; an inbox full of unread messages refuses new ones and the sender is told
//! (`inbox_full`). So that one chatty sender cannot fill another agent's inbox and silence
//! everyone else, each sender may have at most a fifth of it unread there.

use a2a_runtime::prelude::*;
use a2a_runtime::records::{Entry, RecordError};
use a2a_runtime::serde_json::json;

use crate::model::InboxMessage;
use crate::{Hub, collection, failure, store_failed};

/// How many times a delivery makes room and tries again when other writers take the room.
const ATTEMPTS: usize = 16;

/// Whether a message was put in an inbox.
#[derive(Debug)]
pub(crate) enum Delivered {
    Yes,
    /// The inbox could not take it: the refusal to give the sender.
    Full(SkillError),
}

impl Delivered {
    /// The sender's error when the message was not delivered.
    pub(crate) fn or_refuse(self) -> Result<(), SkillError> {
        match self {
            Delivered::Yes => Ok(()),
            Delivered::Full(refusal) => Err(refusal),
        }
    }
}

impl Hub {
    /// Puts `message` in `session`'s inbox in `project`, making room as the module says; an
    /// error only when the records fail.
    pub(crate) async fn deliver(
        &self,
        project: &str,
        session: &str,
        message: &InboxMessage,
    ) -> Result<Delivered, SkillError> {
        let inbox = collection::inbox(project, session);
        let size = self.settings().inbox_size.max(1);
        let fair_share = (size / 5).max(1);
        for _ in 0..ATTEMPTS {
            let entries: Vec<Entry<InboxMessage>> = self
                .records()
                .entries(&inbox, None)
                .await
                .map_err(store_failed)?;
            let unread = |from: Option<&str>| {
                entries
                    .iter()
                    .filter(|e| !e.value.read && from.is_none_or(|from| e.value.from == from))
                    .count()
            };
            let from_sender = unread(Some(&message.from));
            if from_sender >= fair_share {
                return Ok(Delivered::Full(inbox_full(
                    session,
                    format!(
                        "{session} has {from_sender} unread messages from {}, the most one \
                         sender may have waiting there; wait until it reads them",
                        message.from
                    ),
                    size,
                )));
            }
            let written = self
                .records()
                .put(&inbox, &message.id, message)
                .at_most(size)
                .await;
            match written {
                Ok(_) => return Ok(Delivered::Yes),
                Err(RecordError::Full { .. }) => {}
                Err(other) => return Err(store_failed(other)),
            }
            // Full: the oldest message already read makes room (entries are newest first).
            let Some(oldest_read) = entries.iter().rev().find(|e| e.value.read) else {
                return Ok(Delivered::Full(inbox_full(
                    session,
                    format!(
                        "{session}'s inbox holds {} unread messages, its limit; it must read \
                         them (check_messages) before it can take more",
                        unread(None)
                    ),
                    size,
                )));
            };
            self.records()
                .delete_if(&inbox, &oldest_read.key, oldest_read.version)
                .await
                .map_err(store_failed)?;
        }
        Ok(Delivered::Full(inbox_full(
            session,
            format!("{session}'s inbox is full and changing too fast to make room; try again"),
            size,
        )))
    }
}

fn inbox_full(session: &str, message: String, size: usize) -> SkillError {
    failure(
        "inbox_full",
        message,
        json!({ "recipient": session, "inbox_size": size }),
    )
}
