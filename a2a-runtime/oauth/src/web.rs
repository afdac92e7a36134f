//! What the endpoints share of HTTP: bounded body reads, forms without repeated parameters,
//! the browser cookie, the caller's address, and HTML escaping.

use std::net::SocketAddr;
use std::time::Duration;

use a2a_runtime_core::quota::PeerKey;
use axum::body::{Body, Bytes};
use axum::extract::ConnectInfo;
use axum::http::{HeaderMap, HeaderValue, header};
use http::request::Parts;

use crate::OAuthError;

/// The largest form or registration body read.
pub(crate) const MAX_BODY_BYTES: usize = 16 * 1024;

/// How long a body may take to arrive.
const BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// The cookie that ties an authorization request to the browser that started it.
pub(crate) const BROWSER_COOKIE: &str = "a2a_oauth_browser";

/// The body, at most [`MAX_BODY_BYTES`], within the body timeout.
pub(crate) async fn read_body(body: Body) -> Result<Bytes, OAuthError> {
    match tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, MAX_BODY_BYTES)).await {
        Err(_) => Err(OAuthError::InvalidRequest(format!(
            "the request body did not arrive within {} seconds",
            BODY_TIMEOUT.as_secs()
        ))),
        Ok(Err(_)) => Err(OAuthError::InvalidRequest(format!(
            "the request body is larger than {MAX_BODY_BYTES} bytes, or was cut off"
        ))),
        Ok(Ok(bytes)) => Ok(bytes),
    }
}

/// The parameters of an `application/x-www-form-urlencoded` body (refused otherwise), each
/// once: a repeated one is refused (RFC 6749 §3.1), except those in `repeatable`.
pub(crate) fn form(
    headers: &HeaderMap,
    body: &[u8],
    repeatable: &[&str],
) -> Result<Vec<(String, String)>, OAuthError> {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let media = content_type.split(';').next().unwrap_or("").trim();
    if !media.eq_ignore_ascii_case("application/x-www-form-urlencoded") {
        return Err(OAuthError::InvalidRequest(format!(
            "the body must be application/x-www-form-urlencoded, not `{content_type}`"
        )));
    }
    let pairs: Vec<(String, String)> = url::form_urlencoded::parse(body).into_owned().collect();
    for (index, (name, _)) in pairs.iter().enumerate() {
        if !repeatable.contains(&name.as_str()) && pairs[..index].iter().any(|(n, _)| n == name) {
            return Err(OAuthError::InvalidRequest(format!(
                "the parameter `{name}` is given more than once"
            )));
        }
    }
    Ok(pairs)
}

/// The value of the parameter `name`, if present and not empty.
pub(crate) fn param<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
        .filter(|v| !v.is_empty())
}

/// The value of the required parameter `name`.
pub(crate) fn required<'a>(
    pairs: &'a [(String, String)],
    name: &str,
) -> Result<&'a str, OAuthError> {
    param(pairs, name)
        .ok_or_else(|| OAuthError::InvalidRequest(format!("the parameter `{name}` is required")))
}

/// The query string's parameters, each at most once.
pub(crate) fn query(parts: &Parts) -> Result<Vec<(String, String)>, OAuthError> {
    let pairs: Vec<(String, String)> =
        url::form_urlencoded::parse(parts.uri.query().unwrap_or("").as_bytes())
            .into_owned()
            .collect();
    for (index, (name, _)) in pairs.iter().enumerate() {
        if pairs[..index].iter().any(|(n, _)| n == name) {
            return Err(OAuthError::InvalidRequest(format!(
                "the parameter `{name}` is given more than once"
            )));
        }
    }
    Ok(pairs)
}

/// The value of the cookie `name`.
pub(crate) fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v)
        .filter(|v| !v.is_empty())
}

/// A `Set-Cookie` value: HTTP-only, same-site lax (sent when the browser comes back from a
/// sign-in), `Secure` on https.
pub(crate) fn set_cookie(name: &str, value: &str, max_age: Duration, secure: bool) -> HeaderValue {
    let secure = if secure { "; Secure" } else { "" };
    let text = format!(
        "{name}={value}; Path=/; HttpOnly; SameSite=Lax; Max-Age={}{secure}",
        max_age.as_secs()
    );
    HeaderValue::from_str(&text).unwrap_or_else(|_| HeaderValue::from_static(""))
}

/// The key of the caller's address: the listener's, else axum's connect info, else one key
/// for every caller.
pub(crate) fn address(parts: &Parts) -> String {
    if let Some(peer) = parts.extensions.get::<PeerKey>() {
        return peer.as_str().to_owned();
    }
    if let Some(ConnectInfo(address)) = parts.extensions.get::<ConnectInfo<SocketAddr>>() {
        return PeerKey::of(*address).as_str().to_owned();
    }
    "ip:unknown".to_owned()
}

/// `text` safe inside HTML text and attribute values.
pub(crate) fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            c => escaped.push(c),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_parameters_are_refused_unless_repeatable() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::CONTENT_TYPE,
            "application/x-www-form-urlencoded; charset=utf-8"
                .parse()
                .unwrap(),
        );
        let refused = form(&headers, b"code=a&code=b", &[]).unwrap_err();
        assert!(refused.to_string().contains("`code`"), "{refused}");
        let pairs = form(&headers, b"scope=a&scope=b&x=%20y", &["scope"]).unwrap();
        assert_eq!(param(&pairs, "x"), Some(" y"));
        let json =
            HeaderMap::from_iter([(header::CONTENT_TYPE, "application/json".parse().unwrap())]);
        assert!(form(&json, b"{}", &[]).is_err());
    }

    #[test]
    fn cookies_are_found_by_name_and_html_is_escaped() {
        let headers = HeaderMap::from_iter([(
            header::COOKIE,
            "a=1; a2a_oauth_browser=xyz; b=2".parse().unwrap(),
        )]);
        assert_eq!(cookie(&headers, BROWSER_COOKIE), Some("xyz"));
        assert_eq!(cookie(&headers, "c"), None);
        assert_eq!(
            escape("<a href=\"x\">'&"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;"
        );
    }
}
