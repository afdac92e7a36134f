//! A2A extensions on the wire (a2a-spec.md §1, §3.3.4): the URIs a request activates with
//! `A2A-Extensions` (0.3: `X-A2A-Extensions`), the refusal of a request that leaves out one the
//! agent marks `required`, and the response header naming the activated ones.

use axum::http::{HeaderMap, HeaderName};

use super::A2aError;
use super::card::SKILL_SCHEMAS_EXTENSION;
use a2a_runtime_core::descriptor::ExtensionDescriptor;

/// The request and response header of A2A 1.0.
pub(crate) const HEADER: HeaderName = HeaderName::from_static("a2a-extensions");
/// The request header of A2A 0.3.
const HEADER_V0_3: HeaderName = HeaderName::from_static("x-a2a-extensions");

/// The extensions an agent supports.
#[derive(Debug, Clone, Default)]
pub struct Extensions {
    /// Every URI on the card, in card order.
    supported: Vec<&'static str>,
    /// Those a client must activate.
    required: Vec<&'static str>,
}

impl Extensions {
    /// The built-in skill-schemas extension and the agent's declared ones.
    pub fn new(declared: &[ExtensionDescriptor]) -> Self {
        let mut supported = vec![SKILL_SCHEMAS_EXTENSION];
        supported.extend(declared.iter().map(|e| e.uri));
        Self {
            supported,
            required: declared
                .iter()
                .filter(|e| e.required)
                .map(|e| e.uri)
                .collect(),
        }
    }

    /// Refuses a request that does not activate every required extension (-32008), naming the
    /// first one missing.
    pub fn check(&self, headers: &HeaderMap) -> Result<(), A2aError> {
        if self.required.is_empty() {
            return Ok(());
        }
        let requested = requested(headers);
        match self
            .required
            .iter()
            .find(|uri| !requested.iter().any(|r| r == *uri))
        {
            Some(missing) => Err(A2aError::ExtensionRequired((*missing).to_owned())),
            None => Ok(()),
        }
    }

    /// The requested URIs this agent supports, in card order.
    pub(crate) fn activated(&self, headers: &HeaderMap) -> Vec<&'static str> {
        let requested = requested(headers);
        if requested.is_empty() {
            return Vec::new();
        }
        self.supported
            .iter()
            .copied()
            .filter(|uri| requested.iter().any(|r| r == uri))
            .collect()
    }
}

/// The URIs of every `A2A-Extensions` and `X-A2A-Extensions` line, trimmed, empty ones dropped.
fn requested(headers: &HeaderMap) -> Vec<String> {
    headers
        .get_all(HEADER)
        .iter()
        .chain(headers.get_all(HEADER_V0_3).iter())
        .flat_map(|value| {
            String::from_utf8_lossy(value.as_bytes())
                .split(',')
                .map(|uri| uri.trim().to_owned())
                .filter(|uri| !uri.is_empty())
                .collect::<Vec<_>>()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    const REQUIRED: ExtensionDescriptor = ExtensionDescriptor {
        uri: "urn:example:required",
        description: "",
        required: true,
        params: None,
    };
    const OPTIONAL: ExtensionDescriptor = ExtensionDescriptor {
        uri: "https://example.com/ext/optional/v1",
        description: "",
        required: false,
        params: None,
    };

    fn headers(lines: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in lines {
            map.append(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn a_required_extension_must_be_activated_in_either_header_spelling() {
        let extensions = Extensions::new(&[OPTIONAL, REQUIRED]);
        let refused = extensions.check(&headers(&[]));
        assert!(
            matches!(&refused, Err(A2aError::ExtensionRequired(uri)) if uri == REQUIRED.uri),
            "{refused:?}"
        );
        let only_optional = headers(&[("a2a-extensions", "https://example.com/ext/optional/v1")]);
        assert!(extensions.check(&only_optional).is_err());
        for accepted in [
            headers(&[("a2a-extensions", "urn:example:x, urn:example:required")]),
            headers(&[
                ("a2a-extensions", "urn:example:x"),
                ("a2a-extensions", "urn:example:required"),
            ]),
            headers(&[("x-a2a-extensions", "urn:example:required")]),
        ] {
            assert!(extensions.check(&accepted).is_ok(), "{accepted:?}");
        }
    }

    #[test]
    fn only_supported_extensions_are_reported_activated() {
        let extensions = Extensions::new(&[OPTIONAL, REQUIRED]);
        let asked = headers(&[(
            "a2a-extensions",
            "urn:example:unknown,urn:example:required , https://example.com/ext/optional/v1",
        )]);
        assert_eq!(
            extensions.activated(&asked),
            [OPTIONAL.uri, REQUIRED.uri],
            "card order, unknown ones left out"
        );
        assert!(extensions.activated(&headers(&[])).is_empty());
    }

    #[test]
    fn an_agent_without_required_extensions_accepts_any_request() {
        let extensions = Extensions::new(&[OPTIONAL]);
        assert!(extensions.check(&headers(&[])).is_ok());
    }
}
