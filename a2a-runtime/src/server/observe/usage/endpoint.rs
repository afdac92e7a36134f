//! `GET /usage`: usage totals from the hourly rollups, for callers holding the admin scope
//! (`?since=…&until=…&by=caller|skill|agent|claim:NAME&agent=…&limit=…`; a claim kept with the
//! rows groups the rows themselves); `GET /usage/me`: the same of the caller's own calls only,
//! for any authenticated caller (`by=skill|agent`).

use std::collections::HashMap;
use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::extract::Query;
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::Usage;
use crate::server::paths::{USAGE, USAGE_OWN};
use a2a_runtime_core::auth::Security;
use a2a_runtime_sql::{UsageBy, UsageQuery, UsageTotal};

/// How far back `/usage` looks without `since`.
const DEFAULT_SPAN: chrono::TimeDelta = chrono::TimeDelta::days(30);
/// The most groups one answer lists.
const MAX_LIMIT: usize = 1000;

/// Whose calls a request may see.
#[derive(Clone, Copy)]
enum Seen {
    /// Everyone's: the admin scope is required.
    All,
    /// The caller's own.
    Own,
}

/// The `/usage` route over `usage`, for callers `security` authenticates with its admin scope,
/// and `/usage/me` for any caller it authenticates.
pub(in crate::server::observe) fn routes(usage: Arc<Usage>, security: Arc<Security>) -> Router {
    let route = |seen: Seen| {
        let (usage, security) = (Arc::clone(&usage), Arc::clone(&security));
        get(move |parts: Parts, query: Query<HashMap<String, String>>| {
            let (usage, security) = (Arc::clone(&usage), Arc::clone(&security));
            async move { answer(&usage, &security, &parts, &query, seen).await }
        })
    };
    Router::new()
        .route(USAGE, route(Seen::All))
        .route(USAGE_OWN, route(Seen::Own))
}

async fn answer(
    usage: &Usage,
    security: &Security,
    parts: &Parts,
    query: &HashMap<String, String>,
    seen: Seen,
) -> Response {
    let own = match seen {
        Seen::All => match admit(usage, security, parts).await {
            Some(refusal) => return refusal,
            None => None,
        },
        Seen::Own => match identify(security, parts).await {
            Ok(caller) => Some(caller),
            Err(refusal) => return refusal,
        },
    };
    let question =
        read(query, usage.claims()).and_then(|question| mine(question, own.as_deref(), query));
    let question = match question {
        Ok(question) => question,
        Err((parameter, reason)) => {
            let error = json!({"error": "invalid_request", "parameter": parameter,
                "message": format!("`{parameter}` {reason}")});
            return (StatusCode::BAD_REQUEST, Json(error)).into_response();
        }
    };
    let Some(store) = usage.store() else {
        return unavailable("the usage store is not open yet");
    };
    match store.totals(&question).await {
        Ok(totals) => {
            let mut document = document(&question, &totals);
            if let Some(caller) = &question.caller {
                document["caller"] = caller.clone().into();
            }
            Json(document).into_response()
        }
        Err(error) => unavailable(&error.to_string()),
    }
}

/// The owner key of an authenticated caller of `/usage/me` (the key its calls are recorded
/// under), or the refusal of an unauthenticated one.
async fn identify(security: &Security, parts: &Parts) -> Result<String, Response> {
    if !security.is_enabled() {
        return Err(refused(
            StatusCode::FORBIDDEN,
            &format!(
                "{USAGE_OWN} shows an authenticated caller its own calls, and this server \
                 authenticates no one: every caller is the one anonymous principal"
            ),
        ));
    }
    match security.authenticate(parts).await {
        Ok(caller) => Ok(caller.owner().to_owned()),
        Err(refusal) => Err(unauthenticated(&refusal)),
    }
}

/// `question` narrowed to the calls of `own`, when the caller sees only its own: grouped by
/// skill unless asked by agent (by caller would be one line).
fn mine(
    mut question: UsageQuery,
    own: Option<&str>,
    query: &HashMap<String, String>,
) -> Result<UsageQuery, (&'static str, String)> {
    let Some(own) = own else {
        return Ok(question);
    };
    match query.get("by").map(String::as_str) {
        None => question.by = UsageBy::Skill,
        Some("skill" | "agent") => {}
        Some(_) => return Err(("by", format!("must be skill or agent on {USAGE_OWN}"))),
    }
    question.caller = Some(own.to_owned());
    Ok(question)
}

/// The refusal of a caller without the admin scope: 401 with a challenge per scheme without
/// credentials, 403 with the scope it needs without the scope.
async fn admit(usage: &Usage, security: &Security, parts: &Parts) -> Option<Response> {
    let scope = usage.admin_scope();
    if !security.is_enabled() {
        return Some(refused(
            StatusCode::FORBIDDEN,
            &format!(
                "{USAGE} is for callers granted `{scope}`, and this server authenticates no \
                 one: configure a security scheme"
            ),
        ));
    }
    let caller = match security.authenticate(parts).await {
        Ok(caller) => caller,
        Err(refusal) => return Some(unauthenticated(&refusal)),
    };
    if caller.missing_scopes(&[scope]).is_empty() {
        return None;
    }
    let mut response = refused(
        StatusCode::FORBIDDEN,
        &format!("{USAGE} needs scope `{scope}`, which the caller's credentials do not grant"),
    );
    let challenge = a2a_runtime_core::auth::insufficient_scope(&[scope], None);
    if let Ok(challenge) = HeaderValue::from_str(&challenge) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, challenge);
    }
    Some(response)
}

/// The 401 of a caller no scheme authenticated: one challenge per scheme.
fn unauthenticated(refusal: &a2a_runtime_core::auth::security::Unauthenticated) -> Response {
    let mut response = refused(StatusCode::UNAUTHORIZED, &refusal.reason);
    for challenge in refusal.challenge_headers(None) {
        response
            .headers_mut()
            .append(header::WWW_AUTHENTICATE, challenge);
    }
    response
}

fn refused(status: StatusCode, message: &str) -> Response {
    let error = match status {
        StatusCode::UNAUTHORIZED => "unauthenticated",
        _ => "forbidden",
    };
    (status, Json(json!({"error": error, "message": message}))).into_response()
}

fn unavailable(message: &str) -> Response {
    let error = json!({"error": "unavailable", "message": message});
    (StatusCode::SERVICE_UNAVAILABLE, Json(error)).into_response()
}

/// The query's question (`claims` are those kept with the rows, which it may group by), or
/// the parameter at fault and why.
fn read(
    query: &HashMap<String, String>,
    claims: &[String],
) -> Result<UsageQuery, (&'static str, String)> {
    let instant = |name: &'static str| {
        query
            .get(name)
            .map(|text| {
                DateTime::parse_from_rfc3339(text)
                    .map(|at| at.with_timezone(&Utc))
                    .map_err(|_| (name, format!("must be an RFC 3339 time, got `{text}`")))
            })
            .transpose()
    };
    let until = instant("until")?.unwrap_or_else(Utc::now);
    let since = instant("since")?.unwrap_or(until - DEFAULT_SPAN);
    if since > until {
        return Err(("since", "must not be after `until`".into()));
    }
    let mut claim = None;
    let by = match query.get("by").map(String::as_str) {
        None | Some("caller") => UsageBy::Caller,
        Some("skill") => UsageBy::Skill,
        Some("agent") => UsageBy::Agent,
        Some(other) => match other.strip_prefix("claim:") {
            Some(name) if claims.iter().any(|kept| kept == name) => {
                claim = Some(name.to_owned());
                UsageBy::Caller
            }
            Some(name) => {
                return Err((
                    "by",
                    format!(
                        "names the claim `{name}`, which the rows do not keep (--usage-claim \
                         keeps {})",
                        if claims.is_empty() {
                            "none".to_owned()
                        } else {
                            claims.join(", ")
                        }
                    ),
                ));
            }
            None => {
                return Err((
                    "by",
                    format!("must be caller, skill, agent or claim:NAME, got `{other}`"),
                ));
            }
        },
    };
    let limit = match query.get("limit") {
        None => 100,
        Some(text) => match text.parse::<usize>() {
            Ok(limit @ 1..=MAX_LIMIT) => limit,
            _ => return Err(("limit", format!("must be 1 to {MAX_LIMIT}, got `{text}`"))),
        },
    };
    Ok(UsageQuery {
        since_us: since.timestamp_micros(),
        until_us: until.timestamp_micros(),
        by,
        agent: query.get("agent").cloned(),
        caller: None,
        claim,
        limit,
    })
}

/// The answer's JSON.
fn document(question: &UsageQuery, totals: &[UsageTotal]) -> Value {
    let (by, name) = match (&question.claim, question.by) {
        (Some(claim), _) => (format!("claim:{claim}"), claim.as_str()),
        (None, UsageBy::Caller) => ("caller".to_owned(), "caller"),
        (None, UsageBy::Skill) => ("skill".to_owned(), "skill"),
        (None, UsageBy::Agent) => ("agent".to_owned(), "agent"),
    };
    let stamp = |micros: i64| {
        DateTime::from_timestamp_micros(micros)
            .map(|at| at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
            .unwrap_or_default()
    };
    let since = question.since_us
        - question
            .since_us
            .rem_euclid(a2a_runtime_sql::usage::HOUR_US);
    let rows: Vec<Value> = totals
        .iter()
        .map(|total| {
            json!({
                name: total.key,
                "calls": total.calls,
                "ran": total.ran,
                "failed": total.failed,
                "refused": total.refused,
                "durationMs": total.duration_us / 1000,
                "inputBytes": total.input_bytes,
                "outputBytes": total.output_bytes,
            })
        })
        .collect();
    json!({
        "since": stamp(since),
        "until": stamp(question.until_us),
        "by": by,
        "usage": rows,
    })
}
