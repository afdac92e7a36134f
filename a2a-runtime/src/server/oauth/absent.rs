//! Without the `oauth-server` feature: nothing is ever deployed (the types have no values), and
//! settings asking for an authorization server are refused, naming the feature.

use axum::Router;
use tokio_util::sync::CancellationToken;

use a2a_runtime_core::auth::AuthConfig;

use super::{AgentOAuth, OAuthOptions};
use crate::server::config::ServeConfig;
use crate::server::storage::Storage;
use a2a_runtime_core::error::Error;

/// No application's authorization server exists in this build.
#[derive(Clone)]
pub(crate) enum AuthorizationServer {}

/// No authorization server can be planned in this build.
pub(crate) enum Plan {}

impl Plan {
    /// Refuses settings that ask for an authorization server.
    pub(crate) fn of(
        _builder: Option<&AuthorizationServer>,
        options: &OAuthOptions,
    ) -> Result<Option<Self>, Error> {
        if options.requested() {
            return Err(Error::Config(
                "an authorization server (--oauth-dev-user, --oauth-*) needs the \
                 `oauth-server` feature of a2a-runtime, which this build leaves out"
                    .into(),
            ));
        }
        Ok(None)
    }

    pub(crate) async fn deploy_at(
        self,
        _bound: &ServeConfig,
        _storage: Option<&Storage>,
        _resources: Vec<String>,
        _scopes: Vec<String>,
        _auth: &AuthConfig,
    ) -> Result<Deployed, Error> {
        match self {}
    }

    pub(crate) fn deploy_at_once(
        self,
        _config: &ServeConfig,
        _resources: Vec<String>,
        _scopes: Vec<String>,
        _auth: &AuthConfig,
    ) -> Result<Deployed, Error> {
        match self {}
    }
}

/// No authorization server is deployed in this build.
#[derive(Clone)]
pub(crate) enum Deployed {}

impl Deployed {
    pub(crate) fn for_agent(&self, _audiences: &[String]) -> AgentOAuth {
        match *self {}
    }

    pub(crate) fn router(&self) -> Router {
        match *self {}
    }

    pub(crate) fn sweep_until(&self, _stop: CancellationToken) {
        match *self {}
    }

    pub(crate) fn metadata_url(&self) -> String {
        match *self {}
    }

    pub(crate) fn issuer(&self) -> String {
        match *self {}
    }
}
