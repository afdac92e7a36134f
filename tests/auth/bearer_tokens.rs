//! Bearer tokens: what is refused and named (expiry, audience, issuer), cached verifications that
//! still expire, keys from JWKS and OpenID Connect discovery.

use super::*;

#[tokio::test]
async fn expired_future_wrong_or_missing_audience_and_issuer_tokens_are_refused_by_name() {
    let server = start(secured()).await;
    let base = |claims: &mut Value| {
        claims["iss"] = json!("https://issuer.test");
        claims["aud"] = json!("vault");
    };
    type Spoil = fn(&mut Value);
    fn remove(claims: &mut Value, claim: &str) {
        claims.as_object_mut().unwrap().remove(claim);
    }
    let cases: [(&str, Spoil); 7] = [
        ("expired", |c| c["exp"] = json!(tokens::now() - 3600)),
        ("not valid yet", |c| c["nbf"] = json!(tokens::now() + 3600)),
        // What the token carried, and what was expected.
        (
            "`aud` is `someone-else`, which does not include `vault`",
            |c| c["aud"] = json!("someone-else"),
        ),
        (
            "`iss` is `https://evil.test`, not `https://issuer.test`",
            |c| c["iss"] = json!("https://evil.test"),
        ),
        ("differ only in the trailing `/`", |c| {
            c["iss"] = json!("https://issuer.test/");
        }),
        // A configured audience or issuer is required, not only checked when present.
        ("no `aud` claim", |c| remove(c, "aud")),
        ("no `iss` claim", |c| remove(c, "iss")),
    ];
    for (expected, spoil) in cases {
        let mut claims = tokens::claims("dave", "");
        base(&mut claims);
        spoil(&mut claims);
        let token = tokens::hs256(&claims);
        let (status, challenges, body) =
            rpc(&server, Auth::Bearer(&token), "ListTasks", json!({})).await;
        assert_eq!(status, 401, "{expected}: {body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains(expected), "{expected}: {message}");
        assert!(
            challenges.iter().any(|c| c.contains("invalid_token")),
            "{challenges:?}"
        );
    }
}

#[tokio::test]
async fn a_cached_token_is_still_refused_once_it_expires() {
    // Verified once, trusted from the cache afterwards: its `exp` is still checked every time.
    let jwt = JwtConfig::hs256(SECRET).leeway(Duration::ZERO);
    let server = start(Vault.server().api_keys(keys()).jwt(jwt)).await;
    let mut claims = tokens::claims("hal", "");
    claims["exp"] = json!(tokens::now() + 2);
    let token = tokens::hs256(&claims);
    for _ in 0..2 {
        let (status, _, body) = rpc(&server, Auth::Bearer(&token), "ListTasks", json!({})).await;
        assert_eq!(status, 200, "{body}");
    }
    tokio::time::sleep(Duration::from_millis(3100)).await;
    let (status, _, body) = rpc(&server, Auth::Bearer(&token), "ListTasks", json!({})).await;
    assert_eq!(status, 401, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("expired"),
        "{body}"
    );
}

#[tokio::test]
async fn jwks_keys_verify_rs256_and_es256_and_a_rotated_key_is_fetched() {
    let (rsa1, rsa2, ec) = (tokens::rsa_key(1), tokens::rsa_key(2), tokens::ec_key());
    let jwks = JwksServer::start(vec![
        tokens::jwk(Algorithm::RS256, &rsa1),
        tokens::jwk(Algorithm::ES256, &ec),
    ])
    .await;
    let server = start(
        Vault
            .server()
            .api_keys(keys())
            .jwt(JwtConfig::jwks(&jwks.url)),
    )
    .await;
    let claims = tokens::claims("erin", "");
    for token in [
        tokens::signed(Algorithm::RS256, &rsa1, &claims),
        tokens::signed(Algorithm::ES256, &ec, &claims),
    ] {
        let (status, _, body) = rpc(
            &server,
            Auth::Bearer(&token),
            "SendMessage",
            message("whoami", json!({})),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(text_of(&body["result"]["task"]), "erin via bearer []");
    }
    assert_eq!(jwks.fetches(), 1, "the set is cached");
    // An unknown kid is refused by name.
    let rotated = tokens::signed(Algorithm::RS256, &rsa2, &claims);
    let (status, _, body) = rpc(&server, Auth::Bearer(&rotated), "ListTasks", json!({})).await;
    assert_eq!(status, 401, "{body}");
    assert!(
        body["error"]["message"].as_str().unwrap().contains("rsa-2"),
        "{body}"
    );
    // The provider rotates to key 2: after the refetch cool-down the new kid is fetched.
    jwks.rotate(vec![tokens::jwk(Algorithm::RS256, &rsa2)]);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let (status, _, body) = rpc(&server, Auth::Bearer(&rotated), "ListTasks", json!({})).await;
    assert_eq!(status, 200, "{body}");
    // A token signed with HMAC over the public key is not accepted (algorithm confusion).
    let forged = tokens::hs256(&claims);
    let (status, _, body) = rpc(&server, Auth::Bearer(&forged), "ListTasks", json!({})).await;
    assert_eq!(status, 401, "{body}");
}

#[tokio::test]
async fn jwks_tokens_without_the_configured_audience_or_issuer_are_refused() {
    let rsa = tokens::rsa_key(1);
    let jwks = JwksServer::start(vec![tokens::jwk(Algorithm::RS256, &rsa)]).await;
    let config = JwtConfig::jwks(&jwks.url)
        .issuer("https://issuer.test")
        .audience("vault");
    let server = start(Vault.server().api_keys(keys()).jwt(config)).await;
    let mut claims = tokens::claims("gina", "");
    claims["iss"] = json!("https://issuer.test");
    claims["aud"] = json!(["other", "vault"]);
    let good = tokens::signed(Algorithm::RS256, &rsa, &claims);
    let (status, _, body) = rpc(&server, Auth::Bearer(&good), "ListTasks", json!({})).await;
    assert_eq!(status, 200, "{body}");
    for claim in ["aud", "iss"] {
        let mut spoiled = claims.clone();
        spoiled.as_object_mut().unwrap().remove(claim);
        let token = tokens::signed(Algorithm::RS256, &rsa, &spoiled);
        let (status, _, body) = rpc(&server, Auth::Bearer(&token), "ListTasks", json!({})).await;
        assert_eq!(status, 401, "{claim}: {body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("no `{claim}` claim")),
            "{message}"
        );
    }
}

#[tokio::test]
async fn openid_connect_discovery_finds_the_keys_and_the_issuer() {
    let rsa = tokens::rsa_key(1);
    let jwks = JwksServer::start(vec![tokens::jwk(Algorithm::RS256, &rsa)]).await;
    let discovery = format!("{}/.well-known/openid-configuration", jwks.issuer());
    let server = start(
        Vault
            .server()
            .api_keys(keys())
            .jwt(JwtConfig::discover(discovery)),
    )
    .await;
    let mut claims = tokens::claims("frank", "");
    claims["iss"] = json!(jwks.issuer());
    let good = tokens::signed(Algorithm::RS256, &rsa, &claims);
    let (status, _, body) = rpc(&server, Auth::Bearer(&good), "ListTasks", json!({})).await;
    assert_eq!(status, 200, "{body}");
    claims["iss"] = json!("https://elsewhere.test");
    let foreign = tokens::signed(Algorithm::RS256, &rsa, &claims);
    let (status, _, body) = rpc(&server, Auth::Bearer(&foreign), "ListTasks", json!({})).await;
    assert_eq!(status, 401, "{body}");
}
