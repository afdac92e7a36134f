//! [`OAuthServer`]: what an application configures (how users sign in, lifetimes, which
//! clients may register and where they may redirect), before the server facade adds what it
//! knows (the issuer URL, the resources tokens are for, the scopes the agents use).

use std::sync::Arc;
use std::time::Duration;

use crate::policy::AccessPolicy;
use crate::redirects::RedirectPolicy;
use crate::signin::{DevSignIn, SignIn};
use crate::store::GrantStore;

/// The longest a code may live (OAuth 2.1 §4.1.2 recommends 10 minutes at most).
pub const MAX_CODE_TTL: Duration = Duration::from_secs(600);

/// The authorization server's configuration, as an application builds it.
///
/// ```
/// use a2a_runtime_oauth::OAuthServer;
/// use std::time::Duration;
///
/// let server = OAuthServer::dev_user("alice")
///     .access_token_ttl(Duration::from_secs(600))
///     .redirect_preset("claude")?
///     .redirect_preset("chatgpt")?;
/// # Ok::<(), String>(())
/// ```
#[derive(Clone)]
pub struct OAuthServer {
    pub(crate) sign_in: Arc<dyn SignIn>,
    pub(crate) access_token_ttl: Duration,
    pub(crate) refresh_token_ttl: Duration,
    pub(crate) code_ttl: Duration,
    pub(crate) key_rotation: Duration,
    pub(crate) signing_key_pem: Option<String>,
    pub(crate) registration: bool,
    pub(crate) max_clients: usize,
    pub(crate) unused_client_ttl: Duration,
    pub(crate) redirects: RedirectPolicy,
    pub(crate) client_documents: bool,
    pub(crate) documents_allow_private: bool,
    pub(crate) document_roots: Vec<String>,
    pub(crate) admins: Vec<String>,
    pub(crate) store: Option<Arc<dyn GrantStore>>,
    pub(crate) policy: AccessPolicy,
}

impl std::fmt::Debug for OAuthServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthServer")
            .field("access_token_ttl", &self.access_token_ttl)
            .field("refresh_token_ttl", &self.refresh_token_ttl)
            .field("code_ttl", &self.code_ttl)
            .field("registration", &self.registration)
            .field("max_clients", &self.max_clients)
            .field("unused_client_ttl", &self.unused_client_ttl)
            .field("redirects", &self.redirects)
            .field("client_documents", &self.client_documents)
            .field("admins", &self.admins)
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl OAuthServer {
    /// An authorization server whose users sign in through `sign_in`.
    pub fn new(sign_in: impl SignIn) -> Self {
        Self::with_sign_in(Arc::new(sign_in))
    }

    /// The same, with a shared sign-in.
    pub fn with_sign_in(sign_in: Arc<dyn SignIn>) -> Self {
        Self {
            sign_in,
            access_token_ttl: Duration::from_secs(900),
            refresh_token_ttl: Duration::from_secs(30 * 24 * 3600),
            code_ttl: Duration::from_secs(300),
            key_rotation: Duration::from_secs(30 * 24 * 3600),
            signing_key_pem: None,
            registration: true,
            max_clients: 10_000,
            unused_client_ttl: Duration::from_secs(24 * 3600),
            redirects: RedirectPolicy::open(),
            client_documents: true,
            documents_allow_private: false,
            document_roots: Vec::new(),
            admins: Vec::new(),
            store: None,
            policy: AccessPolicy::default(),
        }
    }

    /// Development only: every approval is signed in as `subject` (the consent page is still
    /// shown). The server refuses to serve it on an address other than loopback.
    pub fn dev_user(subject: impl Into<String>) -> Self {
        Self::new(DevSignIn::new(subject))
    }

    /// How long access tokens live (15 minutes unless set).
    #[must_use]
    pub fn access_token_ttl(mut self, ttl: Duration) -> Self {
        self.access_token_ttl = ttl;
        self
    }

    /// How long a refresh token lives unused (30 days unless set); each use rotates it.
    #[must_use]
    pub fn refresh_token_ttl(mut self, ttl: Duration) -> Self {
        self.refresh_token_ttl = ttl;
        self
    }

    /// How long an authorization code may wait to be redeemed (5 minutes unless set; at most
    /// 10).
    #[must_use]
    pub fn code_ttl(mut self, ttl: Duration) -> Self {
        self.code_ttl = ttl.min(MAX_CODE_TTL);
        self
    }

    /// How often a new signing key replaces the current one (30 days unless set).
    #[must_use]
    pub fn key_rotation(mut self, every: Duration) -> Self {
        self.key_rotation = every;
        self
    }

    /// Signs with this P-256 private key (PEM, PKCS#8 or SEC 1) instead of keys the server
    /// generates and rotates.
    #[must_use]
    pub fn signing_key_pem(mut self, pem: impl Into<String>) -> Self {
        self.signing_key_pem = Some(pem.into());
        self
    }

    /// Whether clients may register dynamically (RFC 7591; on unless set).
    #[must_use]
    pub fn dynamic_registration(mut self, on: bool) -> Self {
        self.registration = on;
        self
    }

    /// The most clients registered at once (10 000 unless set): past it, registration is
    /// refused (`temporarily_unavailable`, 503) until registrations lapse or an administrator
    /// deletes some, so a flood of registrations cannot grow the store without bound.
    #[must_use]
    pub fn max_clients(mut self, max: usize) -> Self {
        self.max_clients = max.max(1);
        self
    }

    /// How long a registration lasts when no person approves it (a day unless set): one that
    /// never completes a sign-in lapses then, and the client registers again if it comes back.
    #[must_use]
    pub fn unused_client_ttl(mut self, ttl: Duration) -> Self {
        self.unused_client_ttl = ttl;
        self
    }

    /// Whether clients may be identified by client ID metadata documents (on unless set).
    #[must_use]
    pub fn client_metadata_documents(mut self, on: bool) -> Self {
        self.client_documents = on;
        self
    }

    /// Fetch client metadata documents from loopback and private addresses too (development
    /// and tests; refused by default as server-side request forgery).
    #[must_use]
    pub fn client_documents_allow_private(mut self, allow: bool) -> Self {
        self.documents_allow_private = allow;
        self
    }

    /// Trust this certificate authority (PEM) for client metadata documents too.
    #[must_use]
    pub fn client_documents_ca(mut self, pem: impl Into<String>) -> Self {
        self.document_roots.push(pem.into());
        self
    }

    /// Registration accepts redirect URIs matching `pattern` (an https URL, exact or a prefix
    /// ending in `*`; an app's exact private-use URI); once any is given, only those (and
    /// loopback ones).
    pub fn allow_redirect(mut self, pattern: &str) -> Result<Self, String> {
        self.redirects = self.redirects.allow(pattern)?;
        Ok(self)
    }

    /// Allows the documented callbacks of a mainstream client (`chatgpt`, `claude`, `vscode`,
    /// `cursor`, `claude-code`, `inspector`) or of all of them (`all`); once any is given, only
    /// those (and loopback ones).
    pub fn redirect_preset(mut self, client: &str) -> Result<Self, String> {
        self.redirects = self.redirects.preset(client)?;
        Ok(self)
    }

    /// Whether loopback http redirect URIs (desktop clients) are accepted (yes unless set).
    #[must_use]
    pub fn loopback_redirects(mut self, allow: bool) -> Self {
        self.redirects.loopback = allow;
        self
    }

    /// Who may sign in and which scopes each person may grant (by default everyone signed in,
    /// every scope): people and email domains admitted, and the scopes each group may grant.
    ///
    /// ```
    /// use a2a_runtime_oauth::{AccessPolicy, OAuthServer};
    ///
    /// let policy = AccessPolicy::default()
    ///     .allow_domain("corp.example")
    ///     .group_scopes("finance", "currency:*")
    ///     .group_scopes("*", "library:members:read");
    /// let server = OAuthServer::dev_user("alice").access_policy(policy);
    /// ```
    #[must_use]
    pub fn access_policy(mut self, policy: AccessPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// The access policy, to add rules to (what `--oauth-allow-users` and the like do).
    pub fn policy_mut(&mut self) -> &mut AccessPolicy {
        &mut self.policy
    }

    /// The principal (as the server's security schemes authenticate it: an API key's name, a
    /// token's `sub`) may list and delete clients.
    #[must_use]
    pub fn admin(mut self, principal: impl Into<String>) -> Self {
        self.admins.push(principal.into());
        self
    }

    /// Keeps clients, codes, refresh tokens and keys in `store` (by default the server keeps
    /// them beside its tasks).
    #[must_use]
    pub fn store(mut self, store: Arc<dyn GrantStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// Whether a store was given.
    pub fn has_store(&self) -> bool {
        self.store.is_some()
    }

    /// Whether the sign-in is for development only (refused off loopback).
    pub fn development_only(&self) -> bool {
        self.sign_in.development_only()
    }
}
