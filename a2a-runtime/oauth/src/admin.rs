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

/// The most clients one page holds.
const MAX_PAGE: usize = 1000;

/// The clients a page holds unless `page_size` says otherwise.
const DEFAULT_PAGE: usize = 100;

/// `GET /oauth/clients[?page_size=N&page_token=T]`: the registered clients, the most recently
/// written first, a page at a time; `next_page_token` continues while there are more, so every
/// client can be seen (and deleted), however many registered.
pub(crate) async fn list(State(server): State<AuthorizationServer>, request: Request) -> Response {
    let inner = &server.inner;
    let listed = async {
        let (parts, _) = request.into_parts();
        admit(inner, &parts).await?;
        let pairs = crate::web::query(&parts)?;
        let (size, start) = page(&pairs)?;
        let end = start.saturating_add(size);
        // One more than the page, to know whether another follows.
        let clients: Vec<Client> = inner.grants.list(CLIENTS, end.saturating_add(1)).await?;
        let more = clients.len() > end;
        let clients: Vec<Value> = clients
            .iter()
            .skip(start)
            .take(size)
            .map(Client::public_view)
            .collect();
        let mut answer = json!({ "clients": clients });
        if more {
            answer["next_page_token"] = end.to_string().into();
        }
        Ok::<_, OAuthError>(answer)
    };
    match listed.await {
        Ok(clients) => Json(clients).into_response(),
        Err(error) => error.into_response(),
    }
}

/// The page a listing asks for: its size and where it starts.
fn page(pairs: &[(String, String)]) -> Result<(usize, usize), OAuthError> {
    let number = |name: &str| {
        crate::web::param(pairs, name)
            .filter(|value| !value.is_empty())
            .map(|value| {
                value.parse::<usize>().map_err(|_| {
                    OAuthError::InvalidRequest(format!("`{name}` must be a whole number"))
                })
            })
            .transpose()
    };
    let size = number("page_size")?.unwrap_or(DEFAULT_PAGE);
    if !(1..=MAX_PAGE).contains(&size) {
        return Err(OAuthError::InvalidRequest(format!(
            "`page_size` must be between 1 and {MAX_PAGE}"
        )));
    }
    Ok((size, number("page_token")?.unwrap_or(0)))
}

/// `DELETE /oauth/clients/{id}`.
pub(crate) async fn delete(
    State(server): State<AuthorizationServer>,
    Path(client_id): Path<String>,
    request: Request,
) -> Response {
    let inner = &server.inner;
    let deleted = async {
        admit(inner, &request.into_parts().0).await?;
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

/// Refuses a request whose caller is not an administrator: authenticated by the server's own
/// credentials, or by an access token this authorization server signed (a person named
/// administrator signs in here like anyone else, through the console or a client).
async fn admit(inner: &Inner, parts: &http::request::Parts) -> Result<(), OAuthError> {
    if inner.settings.admins.is_empty() {
        return Err(OAuthError::Forbidden(
            "no administrators are configured (--oauth-admin PRINCIPAL)".into(),
        ));
    }
    let by_credentials = match &inner.admin_auth {
        Some(auth) => auth.principal(parts).await,
        None => None,
    };
    let principal = match by_credentials {
        Some(principal) => Some(principal),
        None => signed_in(inner, parts).await,
    };
    match principal {
        Some(principal) if inner.settings.admins.contains(&principal) => Ok(()),
        Some(principal) => Err(OAuthError::Forbidden(format!(
            "{principal} is not an administrator of this authorization server"
        ))),
        None => Err(OAuthError::Forbidden(
            "authenticate as an administrator to manage clients (the server's credentials, or \
             a token of this authorization server)"
                .into(),
        )),
    }
}

/// The principal of the access token this server signed that the request carries, if any.
async fn signed_in(inner: &Inner, parts: &http::request::Parts) -> Option<String> {
    use a2a_runtime_core::auth::Authenticator as _;
    let caller = inner.own_tokens.authenticate(parts).await.ok()??;
    Some(caller.principal().to_owned())
}
