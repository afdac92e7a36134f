//! The HTTP client of an MCP session whose bearer token comes from a [`CredentialSource`]:
//! every request of the session (each message, the standalone stream, the session's end) asks
//! the source for the token to send, so a token that expires mid-session is renewed, and one
//! the server refuses is not sent again.

use std::collections::HashMap;
use std::sync::Arc;

use futures::stream::BoxStream;
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use sse_stream::Sse;

use super::credentials::CredentialSource;

/// The error of a request this client makes.
type Failed = StreamableHttpError<reqwest::Error>;
/// Extra headers of a request.
type Headers = HashMap<HeaderName, HeaderValue>;

/// A session's HTTP client: the runtime's, sending the token of `source` when it has one (in
/// place of the transport's fixed one).
#[derive(Clone, Debug)]
pub struct McpHttp {
    http: reqwest::Client,
    source: Option<Arc<dyn CredentialSource>>,
}

impl McpHttp {
    pub(crate) fn new(http: reqwest::Client, source: Option<Arc<dyn CredentialSource>>) -> Self {
        Self { http, source }
    }

    /// The token to send: the source's now, or the transport's own.
    async fn token(&self, fixed: Option<String>) -> Result<Option<String>, Failed> {
        match &self.source {
            None => Ok(fixed),
            Some(source) => match source.token().await {
                Ok(token) => Ok(Some(token.to_string())),
                Err(error) => Err(StreamableHttpError::Io(std::io::Error::other(
                    error.to_string(),
                ))),
            },
        }
    }

    /// `result` of a request sent with `token`: a token refused is not sent again.
    fn checked<T>(&self, result: Result<T, Failed>, token: Option<&str>) -> Result<T, Failed> {
        if let (Err(StreamableHttpError::AuthRequired(_)), Some(source), Some(token)) =
            (&result, &self.source, token)
        {
            source.refused(token);
        }
        result
    }
}

impl StreamableHttpClient for McpHttp {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        headers: Headers,
    ) -> Result<StreamableHttpPostResponse, Failed> {
        let limits = StreamableHttpResponseLimits::default();
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            headers,
            limits,
        )
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        headers: Headers,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, Failed> {
        let mut limits = StreamableHttpResponseLimits::default();
        limits.max_sse_event_size = max_sse_event_size;
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            headers,
            limits,
        )
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        headers: Headers,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, Failed> {
        let token = self.token(auth_header).await?;
        let sent = self
            .http
            .post_message_with_response_limits(
                uri,
                message,
                session_id,
                token.clone(),
                headers,
                limits,
            )
            .await;
        self.checked(sent, token.as_deref())
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        headers: Headers,
    ) -> Result<(), Failed> {
        let token = self.token(auth_header).await?;
        let deleted = (self.http)
            .delete_session(uri, session_id, token.clone(), headers)
            .await;
        self.checked(deleted, token.as_deref())
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        headers: Headers,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, Failed> {
        let max = StreamableHttpResponseLimits::default().max_sse_event_size;
        self.get_stream_with_max_sse_event_size(
            uri,
            session_id,
            last_event_id,
            auth_header,
            headers,
            max,
        )
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        headers: Headers,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, Failed> {
        let token = self.token(auth_header).await?;
        let opened = self
            .http
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                token.clone(),
                headers,
                max_sse_event_size,
            )
            .await;
        self.checked(opened, token.as_deref())
    }
}
