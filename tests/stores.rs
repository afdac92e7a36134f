//! The task store contract (`a2a_tests::store_suite`) on every backend.

use std::sync::Arc;

use a2a_runtime::{InMemoryTaskStore, MemoryStoreLimits};

#[tokio::test]
async fn the_memory_store_keeps_the_store_contract() {
    a2a_tests::store_suite::run(Arc::new(InMemoryTaskStore::new(
        MemoryStoreLimits::default(),
    )))
    .await;
}
