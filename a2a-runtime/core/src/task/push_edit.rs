//! A change to a task's push configs, as the owner asks for it and as one replica hands it to
//! the replica running the task.

use serde::{Deserialize, Serialize};

use super::error::TaskError;
use a2a_runtime_types::model::PushConfig;

/// A change to a task's push configs.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "edit", rename_all = "camelCase")]
pub enum PushEdit {
    /// Adds the config, or replaces the one with its id; a task holds at most `limit`.
    Set { config: PushConfig, limit: usize },
    /// Removes the config with this id (nothing happens if there is none).
    Delete { id: String },
}

impl PushEdit {
    /// Applies the edit to `configs` of task `task`.
    pub(super) fn apply(&self, task: &str, configs: &mut Vec<PushConfig>) -> Result<(), TaskError> {
        match self {
            Self::Set { config, limit } => {
                let count = configs.len();
                match configs.iter_mut().find(|c| c.id == config.id) {
                    Some(existing) => *existing = config.clone(),
                    None if count >= *limit => {
                        return Err(TaskError::PushConfigLimit {
                            id: task.to_owned(),
                            limit: *limit,
                        });
                    }
                    None => configs.push(config.clone()),
                }
                Ok(())
            }
            Self::Delete { id } => {
                configs.retain(|c| c.id != *id);
                Ok(())
            }
        }
    }
}
