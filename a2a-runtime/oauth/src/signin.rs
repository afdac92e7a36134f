//! Who the user approving an authorization is. The server asks a [`SignIn`] on every browser
//! request of the flow; what it answers is the `sub` of the tokens issued. Three come with the
//! runtime: [`DevSignIn`] (every approval signed in as one name, for development on loopback),
//! the upstream OpenID Connect provider of proxy mode (`proxy.rs`), and any the application
//! registers (its own login, an API-key exchange).

use a2a_runtime_types::util::BoxFuture;
use axum::Router;
use http::request::Parts;

use crate::OAuthError;

/// A signed-in user.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct User {
    /// The stable identifier tokens carry as `sub` (tasks belong to it).
    pub subject: String,
    /// What the consent page calls the user, when known.
    pub name: Option<String>,
    /// Their email address, when the sign-in vouches for it (a provider's verified email).
    pub email: Option<String>,
    /// The domain an identity provider hosts the account in (Google's `hd`), when it says.
    pub hosted_domain: Option<String>,
    /// The groups the sign-in says they belong to (an ID token's or userinfo's `groups`).
    pub groups: Vec<String>,
}

impl User {
    /// The user `subject`.
    pub fn new(subject: impl Into<String>) -> Self {
        Self {
            subject: subject.into(),
            name: None,
            email: None,
            hosted_domain: None,
            groups: Vec::new(),
        }
    }

    /// With a display name.
    #[must_use]
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// With a (verified) email address.
    #[must_use]
    pub fn email(mut self, email: impl Into<String>) -> Self {
        self.email = Some(email.into());
        self
    }

    /// With the domain the account is hosted in.
    #[must_use]
    pub fn hosted_domain(mut self, domain: impl Into<String>) -> Self {
        self.hosted_domain = Some(domain.into());
        self
    }

    /// In `groups`.
    #[must_use]
    pub fn groups(mut self, groups: impl IntoIterator<Item = String>) -> Self {
        self.groups = groups.into_iter().collect();
        self
    }
}

/// How users sign in to approve authorizations.
pub trait SignIn: Send + Sync + 'static {
    /// The user the browser request `request` comes from, if one is signed in (typically read
    /// from a session cookie the sign-in set).
    fn user<'a>(&'a self, request: &'a Parts) -> BoxFuture<'a, Result<Option<User>, OAuthError>>;

    /// Where to send a browser that is not signed in. Once signed in, the sign-in sends it on
    /// to `return_to`, a path of this server (starting with a single `/`; check it with
    /// [`is_local_path`] before redirecting to it).
    fn sign_in_url(&self, return_to: &str) -> String;

    /// The routes the sign-in serves on this server (a login form, an upstream callback),
    /// merged beside the authorization server's. Called once, when the server is deployed:
    /// `context` says where, and where to keep what the sign-in keeps (sessions).
    fn routes(&self, context: &SignInContext) -> Router {
        let _ = context;
        Router::new()
    }

    /// Whether this sign-in is for development only: then the server refuses to serve it on
    /// anything but a loopback address.
    fn development_only(&self) -> bool {
        false
    }
}

/// Where the authorization server a sign-in serves is deployed.
#[derive(Clone)]
pub struct SignInContext {
    /// The server's public base URL, without a trailing `/`.
    pub base_url: String,
    /// Whether cookies must be `Secure` (the base URL is https).
    pub secure_cookies: bool,
    /// The authorization server's store, for sessions and sign-ins under way.
    pub store: std::sync::Arc<dyn crate::GrantStore>,
}

/// Every approval signed in as one user, without asking: development and tests on loopback
/// only (`--oauth-dev-user NAME`). The consent page is still shown.
#[derive(Debug, Clone)]
pub struct DevSignIn {
    user: User,
}

impl DevSignIn {
    /// Signs every approval in as `subject`.
    pub fn new(subject: impl Into<String>) -> Self {
        let subject = subject.into();
        Self {
            user: User::new(subject.clone()).named(format!("{subject} (development sign-in)")),
        }
    }
}

impl SignIn for DevSignIn {
    fn user<'a>(&'a self, _request: &'a Parts) -> BoxFuture<'a, Result<Option<User>, OAuthError>> {
        Box::pin(async move { Ok(Some(self.user.clone())) })
    }

    fn sign_in_url(&self, return_to: &str) -> String {
        return_to.to_owned()
    }

    fn development_only(&self) -> bool {
        true
    }
}

/// Whether `path` is a path of this server: it starts with one `/` (not `//`, a
/// scheme-relative URL, nor `/\`, which browsers read alike), so redirecting to it cannot leave
/// the site.
pub fn is_local_path(path: &str) -> bool {
    path.starts_with('/')
        && !path.starts_with("//")
        && !path.starts_with("/\\")
        && !path.chars().any(char::is_control)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_paths_of_this_server_are_local() {
        assert!(is_local_path("/oauth/consent?request=x"));
        for foreign in [
            "//evil.example/x",
            "/\\evil.example",
            "https://evil.example/",
            "x",
            "/a\nb",
        ] {
            assert!(!is_local_path(foreign), "{foreign}");
        }
    }
}
