//! The administrative API: the registered clients listed, and deleted (a deleted client's
//! refresh tokens stop working at once, and it is told `invalid_client`, so it registers
//! again). Only principals named administrators may call it.

use axum::Json;
use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::OAuthError;
use crate::clients::Client;
use crate::server::{AuthorizationServer, Inner};
use crate::store::CLIENTS;

/// The most clients one listing returns.
const MAX_LISTED: usize = 1000;

/// `GET /oauth/clients`.
pub(crate) async fn list(State(server): State<AuthorizationServer>, request: Request) -> Response {
    let inner = &server.inner;
    let listed = async {
        admit(inner, request).await?;
        let clients: Vec<Client> = inner.grants.list(CLIENTS, MAX_LISTED).await?;
        let clients: Vec<Value> = clients.iter().map(Client::public_view).collect();
        Ok::<_, OAuthError>(json!({ "clients": clients }))
    };
    match listed.await {
        Ok(clients) => Json(clients).into_response(),
        Err(error) => error.into_response(),
    }
}

/// `DELETE /oauth/clients/{id}`.
pub(crate) async fn delete(
    State(server): State<AuthorizationServer>,
    Path(client_id): Path<String>,
    request: Request,
) -> Response {
    let inner = &server.inner;
    let deleted = async {
        admit(inner, request).await?;
        if !inner.grants.delete(CLIENTS, &client_id).await? {
            return Err(OAuthError::NotFound(format!(
                "no registered client `{client_id}`"
            )));
        }
        tracing::info!(%client_id, "authorization server: a client was deleted");
        Ok(())
    };
    match deleted.await {
        Ok(()) => StatusCode::NO_CONTENT.into_response(),
        Err(error) => error.into_response(),
    }
}

/// Refuses a request whose caller is not an administrator.
async fn admit(inner: &Inner, request: Request) -> Result<(), OAuthError> {
    let (parts, _) = request.into_parts();
    let Some(auth) = &inner.admin_auth else {
        return Err(OAuthError::Forbidden(
            "the client administration API needs the server's authentication; none is set up"
                .into(),
        ));
    };
    if inner.settings.admins.is_empty() {
        return Err(OAuthError::Forbidden(
            "no administrators are configured (--oauth-admin PRINCIPAL)".into(),
        ));
    }
    match auth.principal(&parts).await {
        Some(principal) if inner.settings.admins.contains(&principal) => Ok(()),
        Some(principal) => Err(OAuthError::Forbidden(format!(
            "{principal} is not an administrator of this authorization server"
        ))),
        None => Err(OAuthError::Forbidden(
            "authenticate as an administrator to manage clients".into(),
        )),
    }
}
