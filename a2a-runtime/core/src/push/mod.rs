//! Push notifications: every event of a task with push configs is POSTed to each config's
//! receiver. The [`Pusher`] observes task events (the task-event hook), renders each in the
//! config's wire version, and hands it to the receiver's queue: one queue per config, delivered
//! in order by its own worker, so a receiver that is down delays nobody else and never the task.
//! Pending deliveries are kept in the store's outbox when it has one (they survive a restart).

pub mod deliver;
pub mod guard;
pub mod outbox;
pub mod render;

use std::time::Duration;

pub use deliver::Pusher;
pub use guard::check_url;

/// How push notifications are delivered.
#[derive(Debug, Clone)]
pub struct PushSettings {
    /// Deliver to loopback and private addresses too (local development and tests).
    pub allow_private: bool,
    /// How long one delivery attempt may take.
    pub timeout: Duration,
    /// Attempts per delivery before it is given up.
    pub attempts: u32,
    /// The pause before the first retry; each later one doubles, up to [`MAX_RETRY_DELAY`],
    /// each with up to half of it taken off at random (so receivers coming back are not hit
    /// by every sender at once).
    pub first_retry: Duration,
    /// Deliveries queued per config; beyond it the oldest pending one is dropped.
    pub queue: usize,
}

/// The longest pause between two attempts of one delivery.
pub const MAX_RETRY_DELAY: Duration = Duration::from_secs(60);

impl Default for PushSettings {
    fn default() -> Self {
        Self {
            allow_private: false,
            timeout: Duration::from_secs(10),
            attempts: 8,
            first_retry: Duration::from_secs(1),
            queue: 1000,
        }
    }
}
