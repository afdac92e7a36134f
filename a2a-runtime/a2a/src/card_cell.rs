//! An agent's cards as served: built once for a compiled agent, replaced together when an agent
//! defined at run time (a remote's) changes its card or skills.

use std::sync::{Arc, PoisonError, RwLock};

use serde_json::Value;

use super::card::CardBody;

/// The cards of one agent, as served now.
#[derive(Debug)]
pub struct ServedCards {
    /// The public card.
    pub public: Value,
    /// The public card as the well-known paths serve it.
    pub public_body: CardBody,
    /// The extended card, for authenticated callers, when the agent has a scheme to require.
    pub extended: Option<Arc<Value>>,
}

/// The cards of one agent, replaceable while served.
#[derive(Debug)]
pub struct LiveCards(RwLock<Arc<ServedCards>>);

impl LiveCards {
    /// Serves `public`, and `extended` when there is one.
    pub fn new(public: Value, extended: Option<Value>) -> Self {
        Self(RwLock::new(Arc::new(served(public, extended))))
    }

    /// The cards now.
    pub fn current(&self) -> Arc<ServedCards> {
        Arc::clone(&self.0.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// Serves these cards from now on.
    pub fn replace(&self, public: Value, extended: Option<Value>) {
        *self.0.write().unwrap_or_else(PoisonError::into_inner) =
            Arc::new(served(public, extended));
    }
}

fn served(public: Value, extended: Option<Value>) -> ServedCards {
    ServedCards {
        public_body: CardBody::new(&public),
        public,
        extended: extended.map(Arc::new),
    }
}
