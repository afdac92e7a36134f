//! [`Caller`]: who made a request, as the authentication layer established it.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::{Arc, LazyLock};

use serde_json::{Map, Value};

/// The owner key of every task created without authentication.
pub const ANONYMOUS: &str = "anonymous";

/// The identity behind a request: its principal, the security scheme that vouched for it, the
/// scopes it was granted and, for token schemes, the token's claims.
///
/// A skill receives it as a parameter (`caller: Caller`); tasks belong to the caller that
/// created them. Without any security scheme configured every caller is the one
/// [anonymous](Caller::anonymous) principal.
#[derive(Clone, PartialEq)]
pub struct Caller(Arc<Inner>);

#[derive(Clone, PartialEq)]
struct Inner {
    principal: String,
    scheme: Option<String>,
    scopes: BTreeSet<String>,
    claims: Map<String, Value>,
    /// `scheme:principal`: principals of different schemes never share tasks.
    owner: Arc<str>,
}

impl Caller {
    /// The caller a request was authenticated as: the `Caller` its front-end's authentication
    /// put in its extensions, else (no scheme configured) the anonymous caller.
    pub fn of(extensions: &http::Extensions) -> Self {
        extensions.get::<Caller>().cloned().unwrap_or_default()
    }

    /// The unauthenticated caller: what every request is when no scheme is configured.
    pub fn anonymous() -> Self {
        // Shared: every request of an agent without authentication asks for it.
        static ANONYMOUS_CALLER: LazyLock<Caller> = LazyLock::new(|| {
            Caller::build(ANONYMOUS.to_owned(), None, BTreeSet::new(), Map::new())
        });
        ANONYMOUS_CALLER.clone()
    }

    /// A caller that scheme `scheme` (its name in the card's `securitySchemes`) authenticated
    /// as `principal`, with no scopes and no claims yet.
    pub fn authenticated(scheme: impl Into<String>, principal: impl Into<String>) -> Self {
        Self::build(
            principal.into(),
            Some(scheme.into()),
            BTreeSet::new(),
            Map::new(),
        )
    }

    /// This caller, granted `scopes` as well.
    #[must_use]
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        Arc::make_mut(&mut self.0)
            .scopes
            .extend(scopes.into_iter().map(Into::into));
        self
    }

    /// This caller, carrying the claims of the token that authenticated it.
    #[must_use]
    pub fn with_claims(mut self, claims: Map<String, Value>) -> Self {
        Arc::make_mut(&mut self.0).claims = claims;
        self
    }

    /// A stand-in for the caller whose owner key is `owner`, for a task followed here that
    /// another replica runs for its real caller: only its owner is ever read.
    pub fn owning(owner: &str) -> Self {
        if owner == ANONYMOUS {
            return Self::anonymous();
        }
        Self(Arc::new(Inner {
            principal: owner.to_owned(),
            scheme: None,
            scopes: BTreeSet::new(),
            claims: Map::new(),
            owner: Arc::from(owner),
        }))
    }

    fn build(
        principal: String,
        scheme: Option<String>,
        scopes: BTreeSet<String>,
        claims: Map<String, Value>,
    ) -> Self {
        let owner = match &scheme {
            Some(scheme) => Arc::from(format!("{scheme}:{principal}")),
            None => Arc::from(ANONYMOUS),
        };
        Self(Arc::new(Inner {
            principal,
            scheme,
            scopes,
            claims,
            owner,
        }))
    }

    /// Who the caller is: the API key's principal, the token's `sub`, the certificate's subject;
    /// `"anonymous"` without authentication.
    pub fn principal(&self) -> &str {
        &self.0.principal
    }

    /// The name of the security scheme that authenticated the caller; `None` when anonymous.
    pub fn scheme(&self) -> Option<&str> {
        self.0.scheme.as_deref()
    }

    /// Whether no scheme authenticated the caller.
    pub fn is_anonymous(&self) -> bool {
        self.0.scheme.is_none()
    }

    /// The scopes granted to the caller, sorted.
    pub fn scopes(&self) -> impl Iterator<Item = &str> {
        self.0.scopes.iter().map(String::as_str)
    }

    /// Whether the caller was granted `scope`: itself, or a wildcard over it (`mcp:tools:*`
    /// grants `mcp:tools:search`; see `auth::scopes`).
    pub fn has_scope(&self, scope: &str) -> bool {
        self.0.scopes.contains(scope)
            || self
                .0
                .scopes
                .iter()
                .any(|granted| super::scopes::covers(granted, scope))
    }

    /// This caller with the scopes `implications` grant for those it has.
    #[must_use]
    pub fn with_implied(self, implications: &super::ScopeImplications) -> Self {
        match implications.expand(&self.0.scopes) {
            Some(scopes) => {
                let mut caller = self;
                Arc::make_mut(&mut caller.0).scopes = scopes;
                caller
            }
            None => self,
        }
    }

    /// The claims of the token that authenticated the caller (empty for other schemes).
    pub fn claims(&self) -> &Map<String, Value> {
        &self.0.claims
    }

    /// Those of `required` the caller lacks.
    pub fn missing_scopes<'a>(&self, required: &[&'a str]) -> Vec<&'a str> {
        required
            .iter()
            .copied()
            .filter(|scope| !self.has_scope(scope))
            .collect()
    }

    /// The key tasks are owned under.
    pub fn owner(&self) -> &str {
        &self.0.owner
    }
}

impl Default for Caller {
    fn default() -> Self {
        Self::anonymous()
    }
}

// Claims may hold personal data: Debug names the principal, the scheme and the scopes only.
impl fmt::Debug for Caller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Caller")
            .field("principal", &self.0.principal)
            .field("scheme", &self.0.scheme)
            .field("scopes", &self.0.scopes)
            .finish_non_exhaustive()
    }
}

/// The stored form of a caller (a task's checkpoint keeps who its skill runs for); the owner
/// key is derived again when it is read back.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredCaller {
    principal: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scheme: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    scopes: BTreeSet<String>,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    claims: Map<String, Value>,
}

impl serde::Serialize for Caller {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        StoredCaller {
            principal: self.0.principal.clone(),
            scheme: self.0.scheme.clone(),
            scopes: self.0.scopes.clone(),
            claims: self.0.claims.clone(),
        }
        .serialize(serializer)
    }
}

impl<'de> serde::Deserialize<'de> for Caller {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let stored = StoredCaller::deserialize(deserializer)?;
        Ok(match stored.scheme {
            None => Caller::anonymous(),
            scheme => Caller::build(stored.principal, scheme, stored.scopes, stored.claims),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn principals_of_different_schemes_own_different_tasks() {
        let by_key = Caller::authenticated("apiKey", "alice");
        let by_token = Caller::authenticated("bearer", "alice");
        assert_ne!(by_key.owner(), by_token.owner());
        assert_eq!(Caller::anonymous().owner(), ANONYMOUS);
    }

    #[test]
    fn the_first_missing_scope_is_named() {
        let caller = Caller::authenticated("bearer", "bob").with_scopes(["read"]);
        assert_eq!(caller.missing_scopes(&["read", "write"]), ["write"]);
        assert!(caller.missing_scopes(&["read"]).is_empty());
    }
}
