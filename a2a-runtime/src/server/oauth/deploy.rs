//! Planning the authorization server from the builder and the flags, and deploying it once the
//! server is bound: its resources, its scopes, who administers it, where it keeps grants.

use std::sync::Arc;
use std::time::Duration;

use a2a_runtime_core::auth::{AuthConfig, NamedScheme, Security};
use a2a_runtime_oauth::{
    AdminAuth, AuthorizationServer, Deployment, DevSignIn, GrantStore, MemoryGrants, OAuthServer,
    ProxySignIn, SignIn,
};
use a2a_runtime_types::util::BoxFuture;
use axum::Router;
use tokio_util::sync::CancellationToken;

use super::{AgentOAuth, OAuthOptions};
use crate::server::config::ServeConfig;
use crate::server::storage::Storage;
use a2a_runtime_core::error::Error;

/// How often expired codes, requests and tokens are removed.
const SWEEP_EVERY: Duration = Duration::from_secs(600);

/// The authorization server a server's builder and flags ask for, before it is deployed.
#[derive(Clone)]
pub(crate) struct Plan {
    settings: OAuthServer,
}

impl Plan {
    /// The authorization server of `builder` (an application's own) or of the flags, with the
    /// flags' settings added; `None` when neither asks for one.
    pub(crate) fn of(
        builder: Option<&OAuthServer>,
        options: &OAuthOptions,
    ) -> Result<Option<Self>, Error> {
        let config = |reason: String| Error::Config(reason);
        let flags = flagged_sign_in(options)?;
        let mut settings = match (builder, flags) {
            (Some(_), Some(_)) => {
                return Err(config(
                    "--oauth-dev-user and --oauth-proxy choose how users sign in, and this \
                     server's builder already sets a sign-in (authorization_server): use one"
                        .into(),
                ));
            }
            (Some(server), None) => server.clone(),
            (None, Some(sign_in)) => OAuthServer::with_sign_in(sign_in),
            (None, None) => return Ok(None),
        };
        for pattern in &options.redirect_allow {
            settings = settings.allow_redirect(pattern).map_err(config)?;
        }
        for assistant in &options.connectors {
            settings = settings.redirect_preset(assistant).map_err(config)?;
        }
        if let Some(ttl) = options.access_token_ttl {
            settings = settings.access_token_ttl(ttl);
        }
        if let Some(path) = &options.signing_key {
            let pem = std::fs::read_to_string(path)
                .map_err(|e| config(format!("--oauth-signing-key {}: {e}", path.display())))?;
            settings = settings.signing_key_pem(pem);
        }
        for admin in &options.admins {
            settings = settings.admin(admin);
        }
        let mut policy = std::mem::take(settings.policy_mut());
        for user in &options.allow_users {
            policy = policy.allow_user(user.trim());
        }
        for domain in &options.allow_domains {
            policy = policy.allow_domain(domain.trim());
        }
        for rule in &options.group_scopes {
            policy = policy
                .group_rule(rule)
                .map_err(|e| config(format!("--oauth-group-scopes: {e}")))?;
        }
        settings = settings.access_policy(policy);
        if options.no_registration {
            settings = settings.dynamic_registration(false);
        }
        if options.allow_private_clients {
            settings = settings.client_documents_allow_private(true);
        }
        if let Some(max) = options.max_clients {
            settings = settings.max_clients(max);
        }
        if let Some(ttl) = options.unused_client_ttl {
            settings = settings.unused_client_ttl(ttl);
        }
        Ok(Some(Self { settings }))
    }

    /// Deploys on the server `bound`, its grants beside the tasks at `location` (memory when
    /// `None`) unless the settings name a store.
    pub(crate) async fn deploy_at(
        self,
        bound: &ServeConfig,
        storage: Option<&Storage>,
        resources: Vec<String>,
        scopes: Vec<String>,
        auth: &AuthConfig,
    ) -> Result<Deployed, Error> {
        let store: Arc<dyn GrantStore> = match storage {
            Some(storage) if !self.settings.has_store() => super::grants::open(storage).await?,
            _ => Arc::new(MemoryGrants::default()),
        };
        let mut deployed = self.deploy(bound, resources, scopes, auth, store)?;
        if let Some(coordination) = storage.and_then(|s| s.tasks().coordination()) {
            let live = Arc::new(move || coordination.live_replicas());
            deployed.server.share_limits_among(live);
        }
        #[cfg(any(feature = "sqlite", feature = "postgres"))]
        if let Some(storage) = storage
            && !matches!(
                storage.location,
                crate::server::config::StoreLocation::Memory
            )
        {
            deployed.revocations = Some(storage.records().await?);
        }
        Ok(deployed)
    }

    /// Deploys without opening a store (for `router()`, which is not async): grants are kept
    /// in memory unless the settings name a store.
    pub(crate) fn deploy_at_once(
        self,
        config: &ServeConfig,
        resources: Vec<String>,
        scopes: Vec<String>,
        auth: &AuthConfig,
    ) -> Result<Deployed, Error> {
        if !self.settings.has_store() {
            tracing::warn!(
                "the authorization server keeps clients and refresh tokens in memory: give \
                 OAuthServer::store(..) to keep them across restarts"
            );
        }
        self.deploy(
            config,
            resources,
            scopes,
            auth,
            Arc::new(MemoryGrants::default()),
        )
    }

    /// Deploys on the server `bound` (bound to its address: its URL is the issuer) for
    /// `resources` (the first is the default) and `scopes`; the credentials of `auth`
    /// authenticate the administrative API; grants go to `store` unless the settings name one.
    fn deploy(
        self,
        bound: &ServeConfig,
        resources: Vec<String>,
        scopes: Vec<String>,
        auth: &AuthConfig,
        store: Arc<dyn GrantStore>,
    ) -> Result<Deployed, Error> {
        if self.settings.development_only() && !bound.bind.ip().is_loopback() {
            return Err(Error::Config(format!(
                "--oauth-dev-user signs everyone in without asking who they are: it serves on \
                 a loopback address only, and this server binds {}",
                bound.bind
            )));
        }
        let deployment = Deployment {
            base_url: bound.base_url(),
            resources,
            scopes,
            admin_auth: admin_security(auth)
                .map(|security| Arc::new(ServerAdmin(security)) as Arc<dyn AdminAuth>),
        };
        let server =
            AuthorizationServer::new(self.settings, deployment, store).map_err(Error::Config)?;
        Ok(Deployed {
            server,
            verified_cache: bound.auth.jwt_cache_ttl,
            #[cfg(any(feature = "sqlite", feature = "postgres"))]
            revocations: None,
        })
    }
}

/// The sign-in the flags choose, if any: a development user or an upstream provider.
fn flagged_sign_in(options: &OAuthOptions) -> Result<Option<Arc<dyn SignIn>>, Error> {
    match (&options.dev_user, &options.proxy_issuer) {
        (Some(_), Some(_)) => Err(Error::Config(
            "--oauth-dev-user and --oauth-proxy both choose how users sign in: use one".into(),
        )),
        (Some(user), None) => Ok(Some(Arc::new(DevSignIn::new(user)))),
        (None, Some(issuer)) => {
            let client_id = options.proxy_client_id.clone().ok_or_else(|| {
                Error::Config(format!(
                    "--oauth-proxy {issuer} needs --oauth-proxy-client-id: this server's client \
                     id at the provider (register {{public URL}}/oauth/upstream/callback as its \
                     redirect URI there)"
                ))
            })?;
            let proxy = ProxySignIn::new(
                issuer,
                client_id,
                options.proxy_client_secret.clone(),
                options.proxy_scope.as_deref(),
            )
            .map_err(|e| Error::Config(format!("--oauth-proxy: {e}")))?;
            Ok(Some(Arc::new(proxy)))
        }
        (None, None) => Ok(None),
    }
}

/// A deployed authorization server.
#[derive(Clone)]
pub(crate) struct Deployed {
    server: AuthorizationServer,
    /// How long a verified token is trusted (`--jwt-cache-ttl`), when set.
    verified_cache: Option<Duration>,
    /// The records the grants are kept in, when other replicas may share them: their
    /// revocations are followed, so a token revoked on one replica is refused on every one.
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    revocations: Option<a2a_runtime_sql::Records>,
}

impl Deployed {
    /// How an agent whose resources are `audiences` accepts the server's tokens.
    pub(crate) fn for_agent(&self, audiences: &[String]) -> AgentOAuth {
        let mut scheme = NamedScheme::new("oauth2", self.server.scheme());
        scheme.description = Some(format!(
            "Sign in through this server's authorization server ({})",
            self.server.issuer()
        ));
        let mut verifier = self.server.verifier(audiences);
        if let Some(ttl) = self.verified_cache {
            verifier = verifier.verified_cache(ttl);
        }
        AgentOAuth { verifier, scheme }
    }

    /// The authorization server's routes (and its sign-in's).
    pub(crate) fn router(&self) -> Router {
        self.server.router()
    }

    /// Removes expired grants every few minutes until `stop`, and follows revocations made by
    /// other replicas meanwhile.
    pub(crate) fn sweep_until(&self, stop: CancellationToken) {
        #[cfg(any(feature = "sqlite", feature = "postgres"))]
        if let Some(records) = self.revocations.clone() {
            tokio::spawn(follow_revocations(
                self.server.clone(),
                records,
                stop.clone(),
            ));
        }
        let server = self.server.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(SWEEP_EVERY);
            loop {
                tokio::select! {
                    () = stop.cancelled() => return,
                    _ = every.tick() => {}
                }
                match server.sweep().await {
                    Ok(0) => {}
                    Ok(removed) => tracing::debug!(removed, "expired grants removed"),
                    Err(error) => tracing::warn!(%error, "removing expired grants failed"),
                }
            }
        });
    }

    /// The issuer its tokens carry.
    pub(crate) fn issuer(&self) -> String {
        self.server.issuer().to_owned()
    }

    /// The metadata URL, for the startup banner.
    pub(crate) fn metadata_url(&self) -> String {
        self.server.metadata_url()
    }
}

/// The schemes the server's own credentials imply, which authenticate administrators.
fn admin_security(auth: &AuthConfig) -> Option<Arc<Security>> {
    Security::resolve(&[], auth)
        .ok()
        .filter(Security::is_enabled)
        .map(Arc::new)
}

/// The administrative API's callers, authenticated by the server's own credentials (API keys,
/// bearer JWTs, client certificates).
struct ServerAdmin(Arc<Security>);

impl AdminAuth for ServerAdmin {
    fn principal<'a>(&'a self, request: &'a http::request::Parts) -> BoxFuture<'a, Option<String>> {
        Box::pin(async move {
            self.0
                .authenticate(request)
                .await
                .ok()
                .filter(|caller| !caller.is_anonymous())
                .map(|caller| caller.principal().to_owned())
        })
    }
}

/// Until `stop`: whenever any replica revokes a token (or changes were missed), every token
/// this one verified is checked again at its next use, so the revoked one is refused here too.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
async fn follow_revocations(
    server: AuthorizationServer,
    records: a2a_runtime_sql::Records,
    stop: CancellationToken,
) {
    let mut changes = match records.watch(a2a_runtime_oauth::REVOCATIONS).await {
        Ok(changes) => changes,
        Err(error) => {
            tracing::warn!(%error, "revocations by other replicas are not followed");
            return;
        }
    };
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            // A change, or some missed: either way, check tokens again.
            _ = changes.next() => server.forget_verified_tokens(),
        }
    }
}
