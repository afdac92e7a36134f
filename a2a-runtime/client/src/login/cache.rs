//! Saved sign-ins: one file per protected resource under the user's configuration directory
//! (`logins/`, readable by the user only), holding what refreshing needs; the access token is
//! refreshed, and the file rewritten, when it is about to expire.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::Digest as _;

use super::token::token_request;
use super::{Login, LoginError};

/// How long before its expiry an access token is refreshed rather than sent.
const REFRESH_MARGIN_SECS: i64 = 60;

/// The longest lifetime taken from `expires_in` (a week): a larger (or overflowing) one is
/// cut to it, so a token is refreshed, or the person asked to sign in again, at the latest
/// then.
const MAX_LIFETIME_SECS: i64 = 7 * 24 * 3600;

/// The largest saved sign-in read.
const MAX_FILE_BYTES: u64 = 64 * 1024;

/// A sign-in to one agent (its protected resource), as saved.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SavedLogin {
    /// The protected resource the tokens are for.
    pub resource: String,
    /// The authorization server that issued them.
    pub issuer: String,
    token_endpoint: String,
    client_id: String,
    access_token: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    refresh_token: Option<String>,
    /// When the access token expires (Unix seconds).
    pub expires_at: i64,
    /// The scopes granted.
    #[serde(default)]
    pub scope: String,
}

impl SavedLogin {
    /// The sign-in the token answer `tokens` gives `client_id` through `login`.
    pub(super) fn from_tokens(
        login: &Login,
        client_id: String,
        tokens: &Value,
    ) -> Result<Self, LoginError> {
        let mut saved = Self {
            resource: login.resource.clone(),
            issuer: login.issuer.clone(),
            token_endpoint: login.token_endpoint.clone(),
            client_id,
            access_token: String::new(),
            refresh_token: None,
            expires_at: 0,
            scope: String::new(),
        };
        saved.take(tokens);
        Ok(saved)
    }

    /// Keeps the tokens of a token answer (a refresh token is kept when none is given anew).
    fn take(&mut self, tokens: &Value) {
        self.access_token = tokens["access_token"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if let Some(refresh) = tokens["refresh_token"].as_str() {
            self.refresh_token = Some(refresh.to_owned());
        }
        let lifetime = tokens["expires_in"].as_i64().unwrap_or(300);
        self.expires_at = now().saturating_add(lifetime.clamp(0, MAX_LIFETIME_SECS));
        if let Some(scope) = tokens["scope"].as_str() {
            self.scope = scope.to_owned();
        }
    }

    /// The saved sign-in whose resource is `url` or the nearest ancestor of it, if any.
    pub fn load(url: &str) -> Result<Option<Self>, LoginError> {
        let dir = logins_dir()?;
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(storage(&dir, &error)),
        };
        let mut best: Option<Self> = None;
        for entry in entries.flatten() {
            let Some(saved) = read(&entry.path()) else {
                continue;
            };
            // Compared as URLs: a saved `http://` covers no agent, `https://a.example` not
            // `https://a.example.evil`.
            let covers = super::resource_covers(&saved.resource, url);
            if covers
                && best
                    .as_ref()
                    .is_none_or(|b| b.resource.len() < saved.resource.len())
            {
                best = Some(saved);
            }
        }
        Ok(best)
    }

    /// Forgets the saved sign-in `load(url)` finds: the resource it was for, if any.
    pub fn forget(url: &str) -> Result<Option<String>, LoginError> {
        let Some(saved) = Self::load(url)? else {
            return Ok(None);
        };
        let path = logins_dir()?.join(file_name(&saved.resource));
        std::fs::remove_file(&path).map_err(|e| storage(&path, &e))?;
        Ok(Some(saved.resource))
    }

    /// Writes the sign-in to its file (replacing the resource's earlier one), readable by the
    /// user only.
    pub fn save(&self) -> Result<PathBuf, LoginError> {
        let dir = logins_dir()?;
        create_private_dir(&dir).map_err(|e| storage(&dir, &e))?;
        let path = dir.join(file_name(&self.resource));
        let text = serde_json::to_vec_pretty(self).map_err(|e| storage(&path, &e))?;
        // Written aside and renamed: a crash never leaves half a file.
        let partial = path.with_extension("json.partial");
        write_private(&partial, &text).map_err(|e| storage(&partial, &e))?;
        std::fs::rename(&partial, &path).map_err(|e| storage(&path, &e))?;
        Ok(path)
    }

    /// An access token to send: the saved one while it has more than a minute left, else a
    /// refreshed one (saved at once, since the refresh token rotates).
    pub async fn access_token(&mut self) -> Result<String, LoginError> {
        if self.expires_at - now() > REFRESH_MARGIN_SECS {
            return Ok(self.access_token.clone());
        }
        let Some(refresh) = self.refresh_token.clone() else {
            return Err(LoginError::Expired(self.resource.clone()));
        };
        let form = [
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh.as_str()),
            ("client_id", self.client_id.as_str()),
            ("resource", self.resource.as_str()),
        ];
        let tokens = match token_request(&self.token_endpoint, &form, "the refresh").await {
            Ok(tokens) => tokens,
            Err(LoginError::Refused { error, .. }) if error == "invalid_grant" => {
                return Err(LoginError::Expired(self.resource.clone()));
            }
            Err(other) => return Err(other),
        };
        self.take(&tokens);
        self.save()?;
        Ok(self.access_token.clone())
    }
}

/// Where this client keeps its files: `$A2A_CONFIG_DIR`, else `$XDG_CONFIG_HOME/a2a`, else
/// `~/.config/a2a` (`%APPDATA%\a2a` on Windows).
pub fn config_dir() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("A2A_CONFIG_DIR")
        .or_else(|| var("XDG_CONFIG_HOME").map(|d| d.join("a2a")))
        .or_else(|| var("HOME").map(|d| d.join(".config").join("a2a")))
        .or_else(|| var("APPDATA").map(|d| d.join("a2a")))
}

/// The file of `resource`'s sign-in: named by its digest, which no URL can escape.
fn file_name(resource: &str) -> String {
    let digest = sha2::Sha256::digest(resource.as_bytes());
    let name: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("{name}.json")
}

fn logins_dir() -> Result<PathBuf, LoginError> {
    config_dir()
        .map(|dir| dir.join("logins"))
        .ok_or_else(|| LoginError::Storage {
            path: "the configuration directory".into(),
            reason: "none is known: set A2A_CONFIG_DIR or HOME".into(),
        })
}

/// A saved sign-in file, unless it is unreadable, too large or not one.
fn read(path: &Path) -> Option<SavedLogin> {
    let is_json = path.extension().is_some_and(|e| e == "json");
    let small = std::fs::metadata(path).is_ok_and(|m| m.len() <= MAX_FILE_BYTES);
    if !is_json || !small {
        return None;
    }
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

/// Creates `dir` (and its parents) if missing; on Unix the folder itself only its owner may
/// enter.
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt as _;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// Writes `bytes` to a new file at `path` only its owner may read (on Unix). A file already
/// there (left by a crash, or put there by someone else) is removed first: opening it would
/// keep its permissions, which the mode given at creation does not change.
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    match std::fs::remove_file(path) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => return Err(error),
        _ => {}
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

fn storage(path: &Path, error: &dyn std::fmt::Display) -> LoginError {
    LoginError::Storage {
        path: path.display().to_string(),
        reason: error.to_string(),
    }
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}
