//! The API key scheme: static keys, each naming its principal, compared in constant time.

use std::path::Path;

use http::header;
use http::request::Parts;
use sha2::{Digest as _, Sha256};
use subtle::ConstantTimeEq as _;

use super::authenticator::{challenge, quoted};
use super::{ApiKeyLocation, AuthError, Authenticator, Caller};
use a2a_runtime_types::util::BoxFuture;

/// The header API keys travel in unless declared otherwise.
pub const DEFAULT_API_KEY_HEADER: &str = "X-API-Key";

/// A set of API keys, each belonging to a principal (`alice=3f9c…`).
///
/// Keys are kept as SHA-256 digests and every presented key is compared with all of them in
/// constant time, so neither the keys nor their lengths leak through timing. Keys are never
/// logged.
#[derive(Clone, Default)]
pub struct ApiKeys {
    keys: Vec<(String, [u8; 32])>,
}

impl std::fmt::Debug for ApiKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiKeys")
            .field(
                "principals",
                &self.keys.iter().map(|(p, _)| p).collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// Why a key list could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ApiKeysError {
    /// An entry is not `principal=key`.
    #[error("API key entry {entry} is not `principal=key`")]
    Malformed {
        /// The 1-based position of the entry (its line, in a file).
        entry: usize,
    },
    /// A key shorter than 16 characters (guessable).
    #[error("the API key of `{principal}` is shorter than 16 characters")]
    TooShort {
        /// Whose key.
        principal: String,
    },
    /// The key file could not be read.
    #[error("cannot read API key file {path}: {source}")]
    File {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
}

impl ApiKeys {
    /// No keys.
    pub fn new() -> Self {
        Self::default()
    }

    /// These keys with `key` belonging to `principal`.
    ///
    /// # Errors
    ///
    /// A key shorter than 16 characters.
    pub fn with_key(mut self, principal: &str, key: &str) -> Result<Self, ApiKeysError> {
        if key.chars().count() < 16 {
            return Err(ApiKeysError::TooShort {
                principal: principal.to_owned(),
            });
        }
        self.keys
            .push((principal.to_owned(), Sha256::digest(key.as_bytes()).into()));
        Ok(self)
    }

    /// Reads comma- or newline-separated `principal=key` entries (the form of `A2A_API_KEYS`);
    /// blank entries and lines starting with `#` are skipped.
    ///
    /// # Errors
    ///
    /// An entry that is not `principal=key`, or a key shorter than 16 characters.
    pub fn parse(list: &str) -> Result<Self, ApiKeysError> {
        let mut keys = Self::new();
        let entries = list.split([',', '\n']).map(str::trim);
        for (index, entry) in entries.enumerate() {
            if entry.is_empty() || entry.starts_with('#') {
                continue;
            }
            let (principal, key) = entry
                .split_once('=')
                .map(|(p, k)| (p.trim(), k.trim()))
                .filter(|(p, k)| !p.is_empty() && !k.is_empty())
                .ok_or(ApiKeysError::Malformed { entry: index + 1 })?;
            keys = keys.with_key(principal, key)?;
        }
        Ok(keys)
    }

    /// Reads a key file: one `principal=key` per line (the form of `A2A_API_KEYS_FILE`).
    ///
    /// # Errors
    ///
    /// The file cannot be read, or [`parse`](Self::parse) refuses it.
    pub fn from_file(path: &Path) -> Result<Self, ApiKeysError> {
        let text = std::fs::read_to_string(path).map_err(|source| ApiKeysError::File {
            path: path.display().to_string(),
            source,
        })?;
        Self::parse(&text)
    }

    /// Whether no key is configured.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Adds every key of `other`.
    pub fn extend(&mut self, other: Self) {
        self.keys.extend(other.keys);
    }

    /// The principal `key` belongs to. Every configured key is compared, whatever matches.
    fn principal_of(&self, key: &str) -> Option<&str> {
        let presented: [u8; 32] = Sha256::digest(key.as_bytes()).into();
        let mut found = None;
        for (principal, digest) in &self.keys {
            let equal = bool::from(presented.ct_eq(digest));
            if equal && found.is_none() {
                found = Some(principal.as_str());
            }
        }
        found
    }
}

/// The API key scheme `scheme` enforced with `keys`, read from `location`/`name`.
pub struct ApiKeyAuthenticator {
    pub scheme: String,
    pub location: ApiKeyLocation,
    pub name: String,
    pub keys: ApiKeys,
}

impl ApiKeyAuthenticator {
    fn presented<'a>(&self, request: &'a Parts) -> Option<&'a str> {
        match self.location {
            ApiKeyLocation::Header => request.headers.get(&self.name)?.to_str().ok(),
            ApiKeyLocation::Query => request
                .uri
                .query()?
                .split('&')
                .find_map(|pair| pair.strip_prefix(self.name.as_str())?.strip_prefix('=')),
            ApiKeyLocation::Cookie => request
                .headers
                .get_all(header::COOKIE)
                .iter()
                .filter_map(|value| value.to_str().ok())
                .flat_map(|value| value.split(';'))
                .find_map(|pair| {
                    pair.trim()
                        .strip_prefix(self.name.as_str())?
                        .strip_prefix('=')
                }),
        }
    }
}

impl Authenticator for ApiKeyAuthenticator {
    fn authenticate<'a>(
        &'a self,
        request: &'a Parts,
    ) -> BoxFuture<'a, Result<Option<Caller>, AuthError>> {
        let outcome = match self.presented(request) {
            None => Ok(None),
            Some(key) => match self.keys.principal_of(key) {
                Some(principal) => Ok(Some(Caller::authenticated(&self.scheme, principal))),
                None => Err(AuthError::invalid(format!(
                    "the {} `{}` holds no valid API key",
                    self.location.as_str(),
                    self.name
                ))),
            },
        };
        Box::pin(std::future::ready(outcome))
    }

    fn challenge(&self, error: Option<&AuthError>) -> String {
        let base = format!(
            "ApiKey realm=\"agent\", {}={}",
            self.location.as_str(),
            quoted(&self.name)
        );
        challenge(base, "invalid_key", error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_name_their_principal() {
        let keys =
            ApiKeys::parse("alice=0123456789abcdef0, bob = fedcba98765432100\n# c=x").unwrap();
        assert_eq!(keys.principal_of("fedcba98765432100"), Some("bob"));
        assert_eq!(keys.principal_of("0123456789abcdef0"), Some("alice"));
        assert_eq!(keys.principal_of("0123456789abcdef"), None);
    }

    #[test]
    fn malformed_and_short_entries_are_refused_by_position() {
        assert!(matches!(
            ApiKeys::parse("alice=0123456789abcdef0,bob"),
            Err(ApiKeysError::Malformed { entry: 2 })
        ));
        assert!(matches!(
            ApiKeys::parse("alice=short"),
            Err(ApiKeysError::TooShort { .. })
        ));
    }
}
