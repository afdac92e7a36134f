//! What a token's header must say: the server's own access tokens are typed `at+jwt` (RFC 9068
//! §4) and a `crit` naming extensions nobody here understands is refused (RFC 7515 §4.1.11).

use std::sync::Arc;

use a2a_runtime::auth::{JwtConfig, KeyProvider};
use a2a_tests::start;
use a2a_tests::tokens::{self, JwksServer};
use a2a_tests::vault::Vault;
use jsonwebtoken::{Algorithm, Header};
use serde_json::{Value, json};

use super::{Auth, keys, message, rpc};

/// Keys held by this process, as the server's own authorization server hands them over.
struct HeldKeys(Value);

impl KeyProvider for HeldKeys {
    fn key_set(
        &self,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<Value, String>> + Send + '_>>
    {
        let keys = self.0.clone();
        Box::pin(async move { Ok(keys) })
    }
}

fn token(typ: Option<&str>, crit: Option<Vec<String>>) -> String {
    let ec = tokens::ec_key();
    let mut header = Header::new(Algorithm::ES256);
    header.kid = Some(ec.1.clone());
    header.typ = typ.map(str::to_owned);
    header.crit = crit;
    let claims = tokens::claims("erin", "");
    jsonwebtoken::encode(&header, &claims, &ec.0).unwrap()
}

#[tokio::test]
async fn the_servers_own_tokens_must_be_typed_as_access_tokens() {
    let set = json!({"keys": [tokens::jwk(Algorithm::ES256, &tokens::ec_key())]});
    let provided = JwtConfig::provided(Arc::new(HeldKeys(set)));
    let server = start(Vault.server().api_keys(keys()).jwt(provided)).await;
    for typ in ["at+jwt", "application/at+jwt", "AT+JWT"] {
        let (status, _, body) = rpc(
            &server,
            Auth::Bearer(&token(Some(typ), None)),
            "ListTasks",
            json!({}),
        )
        .await;
        assert_eq!(status, 200, "{typ}: {body}");
    }
    for typ in [Some("JWT"), None, Some("id_token+jwt")] {
        let (status, _, body) = rpc(
            &server,
            Auth::Bearer(&token(typ, None)),
            "ListTasks",
            json!({}),
        )
        .await;
        assert_eq!(status, 401, "{typ:?}: {body}");
        let said = body["error"]["message"].as_str().unwrap();
        assert!(said.contains("at+jwt"), "{said}");
    }
    let crit = token(Some("at+jwt"), Some(vec!["urn:example:unknown".into()]));
    let (status, _, body) = rpc(
        &server,
        Auth::Bearer(&crit),
        "SendMessage",
        message("whoami", json!({})),
    )
    .await;
    assert_eq!(status, 401, "{body}");
}

#[tokio::test]
async fn a_critical_extension_nobody_understands_is_refused_from_any_issuer() {
    let jwks = JwksServer::start(vec![tokens::jwk(Algorithm::ES256, &tokens::ec_key())]).await;
    let server = start(
        Vault
            .server()
            .api_keys(keys())
            .jwt(JwtConfig::jwks(&jwks.url)),
    )
    .await;
    // Other issuers' tokens may be typed `JWT`, or not at all.
    for typ in [Some("JWT"), None] {
        let (status, _, body) = rpc(
            &server,
            Auth::Bearer(&token(typ, None)),
            "ListTasks",
            json!({}),
        )
        .await;
        assert_eq!(status, 200, "{typ:?}: {body}");
    }
    let crit = token(
        Some("JWT"),
        Some(vec!["exp".into(), "urn:example:b64".into()]),
    );
    let (status, _, body) = rpc(&server, Auth::Bearer(&crit), "ListTasks", json!({})).await;
    assert_eq!(status, 401, "{body}");
    let said = body["error"]["message"].as_str().unwrap();
    assert!(
        said.contains("crit") && said.contains("urn:example:b64"),
        "{said}"
    );
}
