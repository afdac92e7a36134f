//! The discovery documents a server publishes, fetched to host them statically or publish them
//! to a registry (what `a2a manifest` writes): its AI Catalog and every document it names on the
//! same origin (agent cards, MCP server cards and their `server.json` beside them, `SKILL.md`s),
//! the MCP catalog and the Agent Skills index. Each `SKILL.md` is checked against the digest
//! the index gives it; every read is bounded in size and time.

use std::time::Duration;

use reqwest::Url;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::body::read_ok;
use super::error::ClientError;

/// The largest discovery document read.
const MAX_DOCUMENT_BYTES: usize = 1024 * 1024;
/// The most documents fetched from one server.
const MAX_DOCUMENTS: usize = 256;

/// One document as served.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Manifest {
    /// Its path on the server (from the root, starting with `/`).
    pub path: String,
    /// Its text, byte for byte.
    pub text: String,
}

/// The discovery documents of the server (or hosted agent) at `server_url`, each read within
/// `timeout`. Documents on other origins are left out: they are not this server's to host.
pub async fn fetch_manifests(
    server_url: &str,
    timeout: Duration,
) -> Result<Vec<Manifest>, ClientError> {
    let mut base = Url::parse(server_url).map_err(|e| ClientError::InvalidUrl {
        url: server_url.to_owned(),
        reason: e.to_string(),
    })?;
    if !base.path().ends_with('/') {
        let path = format!("{}/", base.path());
        base.set_path(&path);
    }
    let http = a2a_runtime_types::https::client_builder()?
        .timeout(timeout)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|source| ClientError::Transport {
            url: base.to_string(),
            source,
        })?;
    let mut fetcher = Fetcher {
        http,
        base,
        fetched: Vec::new(),
    };
    fetcher.fetch_all().await?;
    Ok(fetcher.fetched)
}

struct Fetcher {
    http: reqwest::Client,
    base: Url,
    fetched: Vec<Manifest>,
}

impl Fetcher {
    async fn fetch_all(&mut self) -> Result<(), ClientError> {
        let catalog = self.json(".well-known/ai-catalog.json", true).await?;
        let mut urls: Vec<String> = entry_urls(catalog.as_ref());
        let mcp_catalog = self.json(".well-known/mcp/catalog.json", false).await?;
        urls.extend(entry_urls(mcp_catalog.as_ref()));
        urls.push(self.url("mcp/server.json"));
        let cards: Vec<String> = urls
            .iter()
            .filter_map(|url| url.strip_suffix("/server-card"))
            .map(|endpoint| format!("{endpoint}/server.json"))
            .collect();
        urls.extend(cards);
        for url in urls {
            self.document(&url, false).await?;
        }
        let index = self
            .json(".well-known/agent-skills/index.json", false)
            .await?;
        let skills = index
            .as_ref()
            .and_then(|index| index.get("skills"))
            .and_then(Value::as_array);
        for (at, skill) in skills.into_iter().flatten().enumerate() {
            let url = skill.get("url").and_then(Value::as_str).unwrap_or_default();
            let digest = skill.get("digest").and_then(Value::as_str);
            let Some(text) = self.document(url, true).await? else {
                continue;
            };
            let actual = sha256(text.as_bytes());
            if digest != Some(actual.as_str()) {
                return Err(ClientError::InvalidResponse {
                    field: format!("skills[{at}].digest"),
                    reason: format!("{url} has the digest {actual}, not {digest:?}"),
                });
            }
        }
        Ok(())
    }

    /// `relative` to the base URL.
    fn url(&self, relative: &str) -> String {
        self.base
            .join(relative)
            .map_or_else(|_| relative.to_owned(), String::from)
    }

    /// The JSON document at `relative`; `None` when it is not served and not `required`.
    async fn json(&mut self, relative: &str, required: bool) -> Result<Option<Value>, ClientError> {
        let url = self.url(relative);
        let Some(text) = self.document(&url, required).await? else {
            return Ok(None);
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| ClientError::InvalidResponse {
                field: String::new(),
                reason: format!("{url} is not JSON: {e}"),
            })
    }

    /// The document at `url` (relative to the base), kept; `None` when it is on another origin,
    /// already fetched, or not served and not `required`.
    async fn document(&mut self, url: &str, required: bool) -> Result<Option<String>, ClientError> {
        let Ok(url) = self.base.join(url) else {
            return Ok(None);
        };
        let path = url.path().to_owned();
        if url.origin() != self.base.origin() || self.fetched.iter().any(|m| m.path == path) {
            return Ok(None);
        }
        if self.fetched.len() >= MAX_DOCUMENTS {
            return Err(ClientError::InvalidResponse {
                field: String::new(),
                reason: format!("the server names more than {MAX_DOCUMENTS} documents"),
            });
        }
        let transport = |source| ClientError::Transport {
            url: url.to_string(),
            source,
        };
        let response = self.http.get(url.clone()).send().await.map_err(transport)?;
        let status = response.status().as_u16();
        if status == 404 && !required {
            return Ok(None);
        }
        let body = read_ok(response, url.as_str(), MAX_DOCUMENT_BYTES).await?;
        let text = String::from_utf8(body.to_vec()).map_err(|_| ClientError::InvalidResponse {
            field: String::new(),
            reason: format!("{url} is not UTF-8"),
        })?;
        self.fetched.push(Manifest {
            path,
            text: text.clone(),
        });
        Ok(Some(text))
    }
}

/// The `url` of every entry of a catalog.
fn entry_urls(catalog: Option<&Value>) -> Vec<String> {
    catalog
        .and_then(|c| c.get("entries"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.get("url").and_then(Value::as_str))
        .map(str::to_owned)
        .collect()
}

/// `sha256:{hex}` of `bytes`.
fn sha256(bytes: &[u8]) -> String {
    let hex: String = Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    format!("sha256:{hex}")
}
