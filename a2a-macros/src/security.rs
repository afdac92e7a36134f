//! `#[agent(security(..))]`: the declared schemes, read into [`model::Scheme`]s with every problem
//! reported on the key or value that caused it.

use darling::Error;
use darling::util::SpannedValue;
use proc_macro2::Span;

use crate::args::{ApiKeyArgs, OAuth2Args, SecurityArgs};
use crate::check;
use crate::errors::Errors;
use crate::model::{Flow, KeyLocation, Scheme, SchemeKind};

/// The header an API key travels in unless the declaration names another place.
const DEFAULT_API_KEY_HEADER: &str = "X-API-Key";

/// Reads the declared schemes, in a fixed order (the order the server tries them in).
pub(crate) fn read(args: SecurityArgs, span: Span, errors: &mut Errors) -> Vec<Scheme> {
    let mut schemes = Vec::new();
    if let Some(api_key) = args.api_key {
        schemes.extend(api_key_scheme(
            api_key.into_inner().unwrap_or_default(),
            errors,
        ));
    }
    if let Some(bearer) = args.bearer {
        let common = bearer.into_inner().unwrap_or_default();
        schemes.push(scheme(
            common.name,
            common.description,
            "bearer",
            SchemeKind::Bearer,
        ));
    }
    if let Some(oauth2) = args.oauth2 {
        schemes.extend(oauth2_scheme(
            oauth2.into_inner().unwrap_or_default(),
            errors,
        ));
    }
    if let Some(oidc) = args.openid_connect {
        let oidc = oidc.into_inner();
        if errors
            .handle(check::absolute_url(&oidc.url, "url", oidc.url.span()))
            .is_some()
        {
            let url = (*oidc.url).clone();
            schemes.push(scheme(
                oidc.name,
                oidc.description,
                "openIdConnect",
                SchemeKind::OpenIdConnect { url },
            ));
        }
    }
    if let Some(mtls) = args.mtls {
        let common = mtls.into_inner().unwrap_or_default();
        schemes.push(scheme(
            common.name,
            common.description,
            "mtls",
            SchemeKind::MutualTls,
        ));
    }
    if schemes.is_empty() && errors.count() == 0 {
        errors.push(
            Error::custom(
                "`security(..)` names no scheme; list at least one of `api_key`, `bearer`, \
                 `oauth2(..)`, `openid_connect(url = ..)` or `mtls`, or remove it",
            )
            .with_span(&span),
        );
    }
    let mut seen: Vec<&str> = Vec::new();
    for declared in &schemes {
        if seen.contains(&declared.name.as_str()) {
            errors.push(
                Error::custom(format!(
                    "two security schemes are named `{}`; give one another `name = \"..\"`",
                    declared.name
                ))
                .with_span(&span),
            );
        }
        seen.push(&declared.name);
    }
    schemes
}

fn scheme(
    name: Option<SpannedValue<String>>,
    description: Option<String>,
    default_name: &str,
    kind: SchemeKind,
) -> Scheme {
    Scheme {
        name: name.map_or_else(|| default_name.to_owned(), SpannedValue::into_inner),
        description,
        kind,
    }
}

fn api_key_scheme(args: ApiKeyArgs, errors: &mut Errors) -> Option<Scheme> {
    let places: Vec<(KeyLocation, SpannedValue<String>)> = [
        (KeyLocation::Header, args.header),
        (KeyLocation::Query, args.query),
        (KeyLocation::Cookie, args.cookie),
    ]
    .into_iter()
    .filter_map(|(location, name)| name.map(|name| (location, name)))
    .collect();
    let (location, key_name) = match places.as_slice() {
        [] => (KeyLocation::Header, DEFAULT_API_KEY_HEADER.to_owned()),
        [(location, name)] => {
            if name.trim().is_empty() || name.contains(char::is_whitespace) {
                errors.push(
                    Error::custom(format!(
                        "{:?} is not a header, query parameter or cookie name",
                        name.as_str()
                    ))
                    .with_span(&name.span()),
                );
                return None;
            }
            (*location, (**name).clone())
        }
        [_, (_, second), ..] => {
            errors.push(
                Error::custom(
                    "an API key travels in one place: set one of `header`, `query` or `cookie`",
                )
                .with_span(&second.span()),
            );
            return None;
        }
    };
    Some(scheme(
        args.name,
        args.description,
        "apiKey",
        SchemeKind::ApiKey {
            location,
            name: key_name,
        },
    ))
}

fn oauth2_scheme(args: OAuth2Args, errors: &mut Errors) -> Option<Scheme> {
    let before = errors.count();
    let mut url = |value: &SpannedValue<String>, key: &str| {
        errors.handle(check::absolute_url(value, key, value.span()));
        (**value).clone()
    };
    let metadata_url = args
        .metadata_url
        .as_ref()
        .map(|value| url(value, "metadata_url"));
    let mut flows = Vec::new();
    if let Some(flow) = &args.authorization_code {
        flows.push((
            flow.span(),
            Flow::AuthorizationCode {
                authorization_url: url(&flow.authorization_url, "authorization_url"),
                token_url: url(&flow.token_url, "token_url"),
            },
        ));
    }
    if let Some(flow) = &args.client_credentials {
        flows.push((
            flow.span(),
            Flow::ClientCredentials {
                token_url: url(&flow.token_url, "token_url"),
            },
        ));
    }
    if let Some(flow) = &args.device_code {
        flows.push((
            flow.span(),
            Flow::DeviceCode {
                device_authorization_url: url(
                    &flow.device_authorization_url,
                    "device_authorization_url",
                ),
                token_url: url(&flow.token_url, "token_url"),
            },
        ));
    }
    if let Some((second, _)) = flows.get(1) {
        errors.push(
            Error::custom(
                "an OAuth 2 scheme publishes one flow: keep one of `authorization_code`, \
                 `client_credentials` or `device_code` (declare another `name`d scheme with the \
                 builder for a second flow)",
            )
            .with_span(second),
        );
    }
    if errors.count() > before {
        return None;
    }
    let flow = flows.into_iter().next().map(|(_, flow)| flow);
    Some(scheme(
        args.name,
        args.description,
        "oauth2",
        SchemeKind::OAuth2 { metadata_url, flow },
    ))
}
