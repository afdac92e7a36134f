//! The authorization server's metadata (RFC 8414), and the same as an OpenID Connect
//! discovery document for clients that look there; the JWKS of its signing keys.

use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::clients::AUTH_METHODS;
use crate::server::{AuthorizationServer, Inner};

/// `GET /.well-known/oauth-authorization-server`.
pub(crate) async fn oauth(State(server): State<AuthorizationServer>) -> Response {
    Json(document(&server.inner)).into_response()
}

/// `GET /.well-known/openid-configuration`: the same, with the fields OpenID Connect
/// discovery requires. No ID tokens are issued (`openid` is not a scope here).
pub(crate) async fn openid(State(server): State<AuthorizationServer>) -> Response {
    let mut document = document(&server.inner);
    document["subject_types_supported"] = json!(["public"]);
    document["id_token_signing_alg_values_supported"] = json!(["ES256"]);
    Json(document).into_response()
}

/// `GET /oauth/jwks`.
pub(crate) async fn jwks(State(server): State<AuthorizationServer>) -> Response {
    match server.inner.keys.jwks().await {
        Ok(set) => Json(set).into_response(),
        Err(error) => error.into_response(),
    }
}

fn document(inner: &Inner) -> Value {
    let mut scopes = inner.scopes.clone();
    scopes.push("offline_access".to_owned());
    let mut document = json!({
        "issuer": inner.issuer,
        "authorization_endpoint": inner.endpoint("authorize"),
        "token_endpoint": inner.endpoint("token"),
        "jwks_uri": inner.endpoint("jwks"),
        "revocation_endpoint": inner.endpoint("revoke"),
        "scopes_supported": scopes,
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_methods_supported": AUTH_METHODS,
        "revocation_endpoint_auth_methods_supported": AUTH_METHODS,
        "code_challenge_methods_supported": ["S256"],
        "authorization_response_iss_parameter_supported": true,
        "client_id_metadata_document_supported": inner.documents.is_some(),
    });
    if inner.settings.registration {
        document["registration_endpoint"] = inner.endpoint("register").into();
    }
    document
}
