//! The records this process shares, by database: one handle each while any caller holds it.

use std::collections::HashMap;
#[cfg(feature = "sqlite")]
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock, Weak};

use super::{Inner, RecordError, Records};

/// The shared handles, by `sqlite:{path}` or `postgres:{url}`; an entry lives as long as a
/// handle does. Opening holds the lock, so two callers racing for one database get one handle.
fn registry() -> &'static tokio::sync::Mutex<HashMap<String, Weak<Inner>>> {
    static SHARED: OnceLock<tokio::sync::Mutex<HashMap<String, Weak<Inner>>>> = OnceLock::new();
    SHARED.get_or_init(Default::default)
}

/// The shared handle under `key`, opened with `open` if none is held.
pub(super) async fn get_or_open(
    key: String,
    open: impl Future<Output = Result<Records, RecordError>>,
) -> Result<Records, RecordError> {
    let mut shared = registry().lock().await;
    shared.retain(|_, held| held.strong_count() > 0);
    if let Some(inner) = shared.get(&key).and_then(Weak::upgrade) {
        return Ok(Records { inner });
    }
    let records = open.await?;
    shared.insert(key, Arc::downgrade(&records.inner));
    Ok(records)
}

/// `path` made absolute through its directory (created if missing), so two spellings of one
/// file share one handle.
#[cfg(feature = "sqlite")]
pub(super) fn canonical(path: &Path) -> Result<PathBuf, RecordError> {
    let dir = path
        .parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)
        .map_err(|e| super::backend(format!("cannot create {}: {e}", dir.display())))?;
    let dir = dir
        .canonicalize()
        .map_err(|e| super::backend(format!("cannot resolve {}: {e}", dir.display())))?;
    Ok(match path.file_name() {
        Some(name) => dir.join(name),
        None => dir,
    })
}
