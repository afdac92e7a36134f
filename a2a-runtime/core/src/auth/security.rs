//! The security an agent runs with: its declared schemes joined with what is configured to
//! verify them (keys, secrets, JWKS, custom authenticators), checked once at startup.

use std::sync::Arc;

use http::request::Parts;

use super::api_key::{ApiKeyAuthenticator, DEFAULT_API_KEY_HEADER};
#[cfg(feature = "jwt")]
use super::jwt_verify::JwtAuthenticator;
#[cfg(feature = "mtls")]
use super::mtls::MtlsAuthenticator;
use super::{
    ApiKeyLocation, ApiKeys, AuthError, Authenticator, Caller, JwtConfig, NamedScheme,
    ScopeImplications, SecurityScheme,
};

/// What verifies credentials, configured by the builder, flags or environment.
#[derive(Clone, Default)]
pub struct AuthConfig {
    /// Keys for the API key scheme.
    pub api_keys: ApiKeys,
    /// How bearer JWTs are verified.
    pub jwt: Option<JwtConfig>,
    /// More issuers whose bearer JWTs the same schemes accept, each chosen by a token's `iss`
    /// (so each must set its [`issuer`](JwtConfig::issuer)).
    pub jwt_issuers: Vec<JwtConfig>,
    /// Whether client certificates are verified (`--tls-client-ca`), so the mutual TLS scheme
    /// can read them.
    pub client_certificates: bool,
    /// Schemes with their own authenticators, from the builder.
    pub custom: Vec<(NamedScheme, Arc<dyn Authenticator>)>,
    /// Scopes that grant others, applied to every authenticated caller.
    pub scope_implies: ScopeImplications,
}

impl std::fmt::Debug for AuthConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthConfig")
            .field("api_keys", &self.api_keys)
            .field("jwt", &self.jwt)
            .field("jwt_issuers", &self.jwt_issuers)
            .field("scope_implies", &self.scope_implies)
            .field("client_certificates", &self.client_certificates)
            .field(
                "custom",
                &self.custom.iter().map(|(s, _)| &s.name).collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// The schemes in force and their authenticators, in the order they are tried.
pub struct Security {
    schemes: Vec<(NamedScheme, Arc<dyn Authenticator>)>,
    /// Scopes that grant others.
    implications: ScopeImplications,
    /// Which tokens of one issuer this endpoint takes, whatever its authenticators accept.
    audience: Option<AudienceRule>,
}

/// The audiences an endpoint takes the tokens of one issuer for: an endpoint that serves the
/// agents of several (a host's shared `/mcp`) authenticates with each agent's verifiers, and
/// must still refuse a token issued for one agent's own resource.
#[derive(Debug, Clone)]
pub struct AudienceRule {
    /// The issuer (`iss`) whose tokens the rule applies to.
    pub issuer: String,
    /// The `aud` values accepted; a token must carry one.
    pub audiences: Vec<String>,
}

impl AudienceRule {
    /// Whether `caller`'s token passes: it is another issuer's, or names an accepted audience.
    fn admits(&self, caller: &Caller) -> bool {
        let claims = caller.claims();
        if claims.get("iss").and_then(serde_json::Value::as_str) != Some(self.issuer.as_str()) {
            return true;
        }
        let accepted = |aud: &serde_json::Value| {
            aud.as_str()
                .is_some_and(|aud| self.audiences.iter().any(|a| a == aud))
        };
        match claims.get("aud") {
            Some(serde_json::Value::Array(auds)) => auds.iter().any(accepted),
            Some(aud) => accepted(aud),
            None => false,
        }
    }
}

/// Why a request was not authenticated: no scheme recognized credentials (`error` is `None`),
/// or one refused them.
#[derive(Debug, Clone)]
pub struct Unauthenticated {
    pub reason: String,
    /// One `WWW-Authenticate` challenge per scheme.
    pub challenges: Vec<String>,
}

impl Unauthenticated {
    /// The `WWW-Authenticate` values of the 401 answer, one per scheme; a `resource_metadata`
    /// parameter is added to Bearer challenges for MCP clients (RFC 9728).
    pub fn challenge_headers<'a>(
        &'a self,
        resource_metadata: Option<&'a str>,
    ) -> impl Iterator<Item = http::HeaderValue> + 'a {
        self.challenges.iter().filter_map(move |challenge| {
            let challenge = match resource_metadata {
                Some(url) if challenge.starts_with("Bearer") => {
                    format!("{challenge}, resource_metadata={}", super::quoted(url))
                }
                _ => challenge.clone(),
            };
            http::HeaderValue::from_str(&challenge).ok()
        })
    }
}

impl Security {
    /// Joins the `declared` schemes with `config`. A declared scheme with nothing configured to
    /// verify it is an error naming what to set; configured credentials with no declared scheme
    /// add the scheme they imply (`apiKey` in `X-API-Key`, `bearer` JWT).
    pub fn resolve(declared: &[NamedScheme], config: &AuthConfig) -> Result<Self, String> {
        // Trusted issuers alone: the first verifies as the configured one would.
        let promoted;
        let config = match (&config.jwt, config.jwt_issuers.split_first()) {
            (None, Some((first, rest))) => {
                promoted = AuthConfig {
                    jwt: Some(first.clone()),
                    jwt_issuers: rest.to_vec(),
                    ..config.clone()
                };
                &promoted
            }
            _ => config,
        };
        let custom_names: Vec<&str> = config.custom.iter().map(|(s, _)| s.name.as_str()).collect();
        let mut schemes: Vec<(NamedScheme, Arc<dyn Authenticator>)> = Vec::new();
        for scheme in with_implied(declared, config) {
            if custom_names.contains(&scheme.name.as_str()) {
                continue;
            }
            let authenticator = verifier(&scheme, config)?;
            schemes.push((scheme, authenticator));
        }
        schemes.extend(config.custom.iter().cloned());
        let mut names: Vec<&str> = schemes.iter().map(|(s, _)| s.name.as_str()).collect();
        names.sort_unstable();
        if let Some(pair) = names.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(format!("two security schemes are named `{}`", pair[0]));
        }
        Ok(Self {
            schemes,
            implications: config.scope_implies.clone(),
            audience: None,
        })
    }

    /// The schemes of every one of `all` (several agents behind one endpoint), each name once
    /// (the first agent's scheme of a name is tried; the agents of one server share their
    /// credentials, so same-named schemes verify alike).
    pub fn union<'a>(all: impl IntoIterator<Item = &'a Self>) -> Self {
        let mut schemes: Vec<(NamedScheme, Arc<dyn Authenticator>)> = Vec::new();
        let mut implications = ScopeImplications::new();
        for security in all {
            for (scheme, authenticator) in &security.schemes {
                if !schemes.iter().any(|(s, _)| s.name == scheme.name) {
                    schemes.push((scheme.clone(), Arc::clone(authenticator)));
                }
            }
            implications.extend(&security.implications);
        }
        Self {
            schemes,
            implications,
            audience: None,
        }
    }

    /// Takes the tokens of `rule`'s issuer only for its audiences.
    #[must_use]
    pub fn restricted(mut self, rule: AudienceRule) -> Self {
        self.audience = Some(rule);
        self
    }

    /// Whether requests must authenticate.
    pub fn is_enabled(&self) -> bool {
        !self.schemes.is_empty()
    }

    /// The schemes in force, in the order they are tried.
    pub fn schemes(&self) -> impl Iterator<Item = &NamedScheme> {
        self.schemes.iter().map(|(scheme, _)| scheme)
    }

    /// The names of the schemes whose tokens carry scopes.
    pub fn scoped(&self) -> impl Iterator<Item = &str> {
        self.schemes()
            .filter(|s| s.scheme.carries_scopes())
            .map(|s| s.name.as_str())
    }

    /// The caller of `request`: the first scheme that accepts its credentials decides.
    pub async fn authenticate(&self, request: &Parts) -> Result<Caller, Unauthenticated> {
        let mut refused: Option<(usize, AuthError)> = None;
        for (index, (_, authenticator)) in self.schemes.iter().enumerate() {
            match authenticator.authenticate(request).await {
                Ok(Some(caller))
                    if self
                        .audience
                        .as_ref()
                        .is_some_and(|rule| !rule.admits(&caller)) =>
                {
                    let rule = self.audience.as_ref().map(|rule| &rule.audiences);
                    refused.get_or_insert((
                        index,
                        AuthError::invalid(format!(
                            "the token was issued for another resource (its `aud` is {}); ask \
                             for a token for this endpoint: `{}`",
                            a2a_runtime_types::util::echoed(
                                &caller
                                    .claims()
                                    .get("aud")
                                    .map(ToString::to_string)
                                    .unwrap_or_default()
                            ),
                            rule.map(|a| a.join("` or `")).unwrap_or_default()
                        )),
                    ));
                }
                Ok(Some(caller)) if self.implications.is_empty() => return Ok(caller),
                Ok(Some(caller)) => return Ok(caller.with_implied(&self.implications)),
                Ok(None) => {}
                Err(error) => {
                    refused.get_or_insert((index, error));
                }
            }
        }
        let challenges = self
            .schemes
            .iter()
            .enumerate()
            .map(|(index, (_, authenticator))| {
                let error = refused
                    .as_ref()
                    .filter(|(at, _)| *at == index)
                    .map(|(_, e)| e);
                authenticator.challenge(error)
            })
            .collect();
        let reason = match refused {
            Some((index, error)) => format!(
                "credentials refused by security scheme `{}`: {error}",
                self.schemes[index].0.name
            ),
            None => format!(
                "authentication required: send credentials of security scheme {}",
                self.schemes
                    .iter()
                    .map(|(s, _)| format!("`{}`", s.name))
                    .collect::<Vec<_>>()
                    .join(" or ")
            ),
        };
        Err(Unauthenticated { reason, challenges })
    }
}

/// The `declared` schemes, plus those configured credentials imply when no declared scheme
/// takes them: API keys in `X-API-Key`, a bearer JWT, client certificates.
fn with_implied(declared: &[NamedScheme], config: &AuthConfig) -> Vec<NamedScheme> {
    let mut declared = declared.to_vec();
    let declares = |declared: &[NamedScheme], test: fn(&SecurityScheme) -> bool| {
        declared.iter().any(|s| test(&s.scheme))
    };
    if !config.api_keys.is_empty()
        && !declares(&declared, |s| matches!(s, SecurityScheme::ApiKey { .. }))
    {
        declared.push(NamedScheme::new(
            "apiKey",
            SecurityScheme::ApiKey {
                location: ApiKeyLocation::Header,
                name: DEFAULT_API_KEY_HEADER.to_owned(),
            },
        ));
    }
    if config.jwt.is_some() && !declares(&declared, SecurityScheme::is_jwt) {
        declared.push(NamedScheme::new("bearer", SecurityScheme::Bearer));
    }
    if config.client_certificates
        && !declares(&declared, |s| matches!(s, SecurityScheme::MutualTls))
    {
        declared.push(NamedScheme::new("mtls", SecurityScheme::MutualTls));
    }
    declared
}

/// What verifies `scheme` with `config`, or the error naming what to configure.
fn verifier(scheme: &NamedScheme, config: &AuthConfig) -> Result<Arc<dyn Authenticator>, String> {
    Ok(match &scheme.scheme {
        SecurityScheme::ApiKey { location, name } => {
            if config.api_keys.is_empty() {
                return Err(format!(
                    "security scheme {scheme} takes API keys, and none are configured: set \
                     A2A_API_KEYS (`principal=key,…`) or A2A_API_KEYS_FILE, or pass --api-keys / \
                     --api-keys-file"
                ));
            }
            Arc::new(ApiKeyAuthenticator {
                scheme: scheme.name.clone(),
                location: *location,
                name: name.clone(),
                keys: config.api_keys.clone(),
            })
        }
        SecurityScheme::Bearer
        | SecurityScheme::OAuth2 { .. }
        | SecurityScheme::OpenIdConnect { .. } => {
            let jwt = jwt_config(scheme, config)?;
            jwt.validate()
                .map_err(|reason| format!("security scheme {scheme}: {reason}"))?;
            for trusted in &config.jwt_issuers {
                if trusted.issuer.is_none() {
                    return Err(format!(
                        "security scheme {scheme}: a trusted issuer needs its `iss`, by which \
                         tokens are matched to it (JwtConfig::issuer)"
                    ));
                }
                trusted
                    .validate()
                    .map_err(|reason| format!("security scheme {scheme}: {reason}"))?;
            }
            jwt_verifier(scheme, &jwt, &config.jwt_issuers)?
        }
        SecurityScheme::MutualTls => {
            if !config.client_certificates {
                return Err(format!(
                    "security scheme {scheme} takes client certificates, and none are verified: \
                     serve TLS with --tls-cert/--tls-key and name the CA that issues client \
                     certificates with --tls-client-ca (A2A_TLS_CLIENT_CA)"
                ));
            }
            certificate_verifier(scheme)?
        }
    })
}

/// What verifies the JWTs of `scheme`.
#[cfg(feature = "jwt")]
fn jwt_verifier(
    scheme: &NamedScheme,
    jwt: &JwtConfig,
    trusted: &[JwtConfig],
) -> Result<Arc<dyn Authenticator>, String> {
    Ok(Arc::new(JwtAuthenticator::trusting(
        &scheme.name,
        jwt,
        trusted,
    )))
}

/// Without the `jwt` feature nothing verifies JWTs: a scheme that takes them cannot serve.
#[cfg(not(feature = "jwt"))]
fn jwt_verifier(
    scheme: &NamedScheme,
    _jwt: &JwtConfig,
    _trusted: &[JwtConfig],
) -> Result<Arc<dyn Authenticator>, String> {
    Err(format!(
        "security scheme {scheme} takes JWTs, and this build cannot verify them: enable the \
         `jwt` feature of a2a-runtime in Cargo.toml"
    ))
}

/// What reads the caller of `scheme` from its client certificate.
#[cfg(feature = "mtls")]
fn certificate_verifier(scheme: &NamedScheme) -> Result<Arc<dyn Authenticator>, String> {
    Ok(Arc::new(MtlsAuthenticator {
        scheme: scheme.name.clone(),
    }))
}

/// Without TLS support no client certificate is ever verified.
#[cfg(not(feature = "mtls"))]
fn certificate_verifier(scheme: &NamedScheme) -> Result<Arc<dyn Authenticator>, String> {
    Err(format!(
        "security scheme {scheme} takes client certificates, and this build serves no TLS: \
         enable the `tls` feature of a2a-runtime in Cargo.toml"
    ))
}

/// How a JWT-carrying `scheme` verifies tokens: the configured keys, else the provider's
/// discovery document (it names its keys and issuer).
fn jwt_config(scheme: &NamedScheme, config: &AuthConfig) -> Result<JwtConfig, String> {
    match (&config.jwt, &scheme.scheme) {
        (Some(jwt), _) => Ok(jwt.clone()),
        (None, SecurityScheme::OpenIdConnect { url }) => Ok(JwtConfig::discover(url)),
        (
            None,
            SecurityScheme::OAuth2 {
                metadata_url: Some(url),
                ..
            },
        ) => Ok(JwtConfig::discover(url)),
        (None, _) => Err(format!(
            "security scheme {scheme} takes JWTs, and nothing verifies them: set A2A_JWT_SECRET \
             (HS256) or A2A_JWKS_URL, or pass --jwt-secret / --jwks-url"
        )),
    }
}
