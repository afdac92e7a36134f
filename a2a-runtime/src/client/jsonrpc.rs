//! A2A 1.0 over JSON-RPC 2.0: one POST per call, the method's params in, its result out.

use std::sync::atomic::{AtomicU64, Ordering};

use futures::{Stream, StreamExt};
use reqwest::RequestBuilder;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderValue};
use serde_json::{Value, json};

use super::error::{ClientError, RemoteError};
use super::sse::{SseError, data_events};

/// The most of an unexpected body an error quotes.
const QUOTED_BODY: usize = 512;

/// Calls methods at one JSON-RPC endpoint.
#[derive(Debug)]
pub(crate) struct JsonRpc {
    url: String,
    next_id: AtomicU64,
}

impl JsonRpc {
    pub(crate) fn new(url: String) -> Self {
        Self {
            url,
            next_id: AtomicU64::new(1),
        }
    }

    /// Calls streaming `method` with `params`: the result of each event the agent streams, or
    /// the agent's error (at once, or as the stream's last item).
    pub(crate) async fn stream(
        &self,
        http: &reqwest::Client,
        method: &str,
        params: Value,
    ) -> Result<impl Stream<Item = Result<Value, ClientError>> + Send + use<>, ClientError> {
        let response = self
            .request(http, method, params)
            .header(ACCEPT, HeaderValue::from_static("text/event-stream"))
            .send()
            .await
            .map_err(|source| self.transport(source))?;
        let is_sse = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if !is_sse {
            // Refused before any event: a JSON-RPC error (or an HTTP one).
            let status = response.status().as_u16();
            let body = response
                .bytes()
                .await
                .map_err(|source| self.transport(source))?;
            let answer: Option<Value> = serde_json::from_slice(&body).ok();
            return Err(match answer.as_ref().and_then(|a| a.get("error")) {
                Some(error) => RemoteError::from_jsonrpc(error).into(),
                None => self.unexpected(status, &body),
            });
        }
        let url = self.url.clone();
        let events = data_events(response.bytes_stream().boxed()).map(move |event| {
            let data = event.map_err(|error| match error {
                SseError::Transport(source) => ClientError::Transport {
                    url: url.clone(),
                    source,
                },
                SseError::TooLarge => ClientError::InvalidResponse {
                    field: String::new(),
                    reason: "is an event larger than this client reads (16 MiB)".into(),
                },
            })?;
            let answer: Value =
                serde_json::from_str(&data).map_err(|e| ClientError::InvalidResponse {
                    field: String::new(),
                    reason: format!("is an event that is not JSON: {e}"),
                })?;
            if let Some(error) = answer.get("error") {
                return Err(RemoteError::from_jsonrpc(error).into());
            }
            answer
                .get("result")
                .cloned()
                .ok_or_else(|| ClientError::InvalidResponse {
                    field: "result".into(),
                    reason: "is missing from an event".into(),
                })
        });
        Ok(events)
    }

    /// The POST of one call.
    fn request(&self, http: &reqwest::Client, method: &str, params: Value) -> RequestBuilder {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        http.post(&self.url)
            .header("A2A-Version", HeaderValue::from_static("1.0"))
            .json(&request)
    }

    /// An answer that is neither a result nor a protocol error.
    fn unexpected(&self, status: u16, body: &[u8]) -> ClientError {
        ClientError::Http {
            url: self.url.clone(),
            status,
            body: quote(body),
        }
    }

    fn transport(&self, source: reqwest::Error) -> ClientError {
        ClientError::Transport {
            url: self.url.clone(),
            source,
        }
    }

    /// Calls `method` with `params`; its result, or the agent's error.
    pub(crate) async fn call(
        &self,
        http: &reqwest::Client,
        method: &str,
        params: Value,
    ) -> Result<Value, ClientError> {
        let response = self
            .request(http, method, params)
            .send()
            .await
            .map_err(|source| self.transport(source))?;
        let status = response.status();
        let is_json = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/json"));
        let body = response
            .bytes()
            .await
            .map_err(|source| self.transport(source))?;
        // A JSON-RPC error may come with any status (401, 403, 413 …): read it when there is one.
        let answer: Option<Value> = if is_json {
            serde_json::from_slice(&body).ok()
        } else {
            None
        };
        let Some(answer) = answer.filter(Value::is_object) else {
            return Err(self.unexpected(status.as_u16(), &body));
        };
        if let Some(error) = answer.get("error") {
            return Err(RemoteError::from_jsonrpc(error).into());
        }
        match answer.get("result") {
            Some(result) if status.is_success() => Ok(result.clone()),
            Some(_) => Err(self.unexpected(status.as_u16(), &body)),
            None => Err(ClientError::InvalidResponse {
                field: "result".into(),
                reason: "is missing, and there is no `error` either".into(),
            }),
        }
    }
}

fn quote(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    match text.char_indices().nth(QUOTED_BODY) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.into_owned(),
    }
}
