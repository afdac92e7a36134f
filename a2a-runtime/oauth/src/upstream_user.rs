//! Who a person signed in upstream is, from the provider's claims (proxy mode): the ID token's,
//! completed with the userinfo endpoint's (OpenID Connect Core §5.3) when the ID token leaves
//! out the email or the groups, as providers that follow the core spec's scope claims do.

use futures::StreamExt as _;
use serde_json::{Map, Value};

use crate::OAuthError;

/// The largest userinfo answer read.
const MAX_USERINFO_BYTES: usize = 64 * 1024;

/// What the session keeps of the person besides their subject.
#[derive(Debug, Default)]
pub(crate) struct Profile {
    pub(crate) name: Option<String>,
    pub(crate) email: Option<String>,
    pub(crate) hosted_domain: Option<String>,
    pub(crate) groups: Vec<String>,
}

impl Profile {
    /// The profile `claims` describe. An email is kept only when the provider says it verified
    /// it (`email_verified` `true`, or the string `"true"` some providers send): an unverified
    /// or unvouched address may not be the person's, and allow-lists by email or domain must
    /// not admit whoever typed it.
    pub(crate) fn of(claims: &Map<String, Value>) -> Self {
        let text = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_owned);
        let verified = match claims.get("email_verified") {
            Some(Value::Bool(verified)) => *verified,
            Some(Value::String(said)) => said.eq_ignore_ascii_case("true"),
            _ => false,
        };
        let groups = match claims.get("groups") {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            Some(Value::String(one)) => one.split_whitespace().map(str::to_owned).collect(),
            _ => Vec::new(),
        };
        Self {
            name: ["name", "email", "preferred_username"]
                .iter()
                .find_map(|claim| text(claim)),
            email: text("email").filter(|_| verified),
            hosted_domain: text("hd"),
            groups,
        }
    }

    /// Whether the email or the groups are missing, which userinfo may give.
    pub(crate) fn incomplete(&self) -> bool {
        self.email.is_none() || self.groups.is_empty()
    }
}

/// The claims the provider's userinfo endpoint gives for `access_token`, merged under
/// `claims` (the ID token's win); unchanged when userinfo fails or names another subject.
pub(crate) async fn completed(
    http: &reqwest::Client,
    endpoint: &str,
    access_token: &str,
    mut claims: Map<String, Value>,
) -> Map<String, Value> {
    match userinfo(http, endpoint, access_token).await {
        // §5.3.2: the userinfo `sub` must be the ID token's, else it is not used.
        Ok(info) if info.get("sub") == claims.get("sub") => {
            for (name, value) in info {
                claims.entry(name).or_insert(value);
            }
        }
        Ok(_) => tracing::warn!("the sign-in provider's userinfo names another subject: ignored"),
        Err(error) => tracing::warn!(%error, "the sign-in provider's userinfo was not read"),
    }
    claims
}

async fn userinfo(
    http: &reqwest::Client,
    endpoint: &str,
    access_token: &str,
) -> Result<Map<String, Value>, OAuthError> {
    let failed = |why: String| OAuthError::Unavailable(format!("userinfo: {why}"));
    let response = http
        .get(endpoint)
        .bearer_auth(access_token)
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| failed(e.to_string()))?;
    if !response.status().is_success() {
        return Err(failed(format!("answered {}", response.status())));
    }
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| failed(e.to_string()))?;
        if body.len() + chunk.len() > MAX_USERINFO_BYTES {
            return Err(failed(format!("larger than {MAX_USERINFO_BYTES} bytes")));
        }
        body.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&body).map_err(|e| failed(format!("not a JSON object: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_emails_and_hosted_domains_are_read_from_claims() {
        let claims = |v: Value| v.as_object().cloned().unwrap();
        let profile = Profile::of(&claims(serde_json::json!({
            "sub": "1", "email": "ann@corp.example", "email_verified": true,
            "groups": ["finance", "staff"], "hd": "corp.example"
        })));
        assert_eq!(profile.groups, ["finance", "staff"]);
        assert_eq!(profile.email.as_deref(), Some("ann@corp.example"));
        assert_eq!(profile.hosted_domain.as_deref(), Some("corp.example"));
        let unverified = Profile::of(&claims(serde_json::json!({
            "sub": "2", "email": "eve@corp.example", "email_verified": false
        })));
        assert_eq!(unverified.email, None);
        assert!(unverified.incomplete());
        // Only `true` and the string "true" vouch for an address; "false", a missing claim and
        // anything else do not.
        for (said, kept) in [
            (serde_json::json!(true), true),
            (serde_json::json!("true"), true),
            (serde_json::json!("TRUE"), true),
            (serde_json::json!("false"), false),
            (serde_json::json!(1), false),
            (Value::Null, false),
        ] {
            let mut fields = claims(serde_json::json!({"sub": "3", "email": "eve@corp.example"}));
            if !said.is_null() {
                fields.insert("email_verified".into(), said.clone());
            }
            assert_eq!(Profile::of(&fields).email.is_some(), kept, "{said}");
        }
    }
}
