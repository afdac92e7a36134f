//! The bounds on waiting for answers, shared by every protocol: how long a question may stay
//! open and how many may be open at once.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::AskError;

/// How long questions wait and how many may wait at once.
#[derive(Debug, Clone)]
pub struct InputLimits {
    timeout: Duration,
    max_waiting: usize,
    permits: Arc<Semaphore>,
}

impl InputLimits {
    pub fn new(timeout: Duration, max_waiting: usize) -> Self {
        let max_waiting = max_waiting.min(Semaphore::MAX_PERMITS);
        Self {
            timeout,
            max_waiting,
            permits: Arc::new(Semaphore::new(max_waiting)),
        }
    }

    /// How long a question waits before its call fails.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// A slot for one waiting question, held until it is answered or given up.
    pub fn acquire(&self, prompt: &str) -> Result<OwnedSemaphorePermit, AskError> {
        Arc::clone(&self.permits)
            .try_acquire_owned()
            .map_err(|_| AskError::Capacity {
                prompt: prompt.to_owned(),
                limit: self.max_waiting,
            })
    }

    /// The error for a question that waited too long.
    pub fn expired(&self, prompt: &str) -> AskError {
        AskError::Expired {
            prompt: prompt.to_owned(),
            after: self.timeout,
        }
    }

    /// How many questions are waiting now.
    pub fn waiting(&self) -> usize {
        self.max_waiting - self.permits.available_permits()
    }
}
