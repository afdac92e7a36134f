//! Minting test JWTs and serving a JWKS on loopback, for the authentication tests and benches.

use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use a2a_runtime::axum::{Json, Router, routing::get};
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

/// The HS256 secret the tests configure.
pub const SECRET: &str = "test-secret-of-at-least-32-bytes!!";

/// The test RSA key `n` (1 or 2) and its `kid`.
pub fn rsa_key(n: u8) -> (EncodingKey, String) {
    let pem = match n {
        1 => include_bytes!("../fixtures/jwt-rsa-1.pem").as_slice(),
        _ => include_bytes!("../fixtures/jwt-rsa-2.pem").as_slice(),
    };
    let key = EncodingKey::from_rsa_pem(pem).expect("test RSA key");
    (key, format!("rsa-{n}"))
}

/// The test EC P-256 key and its `kid`.
pub fn ec_key() -> (EncodingKey, String) {
    let pem = include_bytes!("../fixtures/jwt-ec.pem");
    (
        EncodingKey::from_ec_pem(pem).expect("test EC key"),
        "ec-1".to_owned(),
    )
}

/// Seconds since the epoch.
pub fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or_default()
}

/// Claims for `sub` valid for an hour, with `scope`.
pub fn claims(sub: &str, scope: &str) -> Value {
    json!({"sub": sub, "scope": scope, "iat": now(), "exp": now() + 3600})
}

/// An HS256 token over `claims`, signed with [`SECRET`].
pub fn hs256(claims: &Value) -> String {
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        claims,
        &EncodingKey::from_secret(SECRET.as_bytes()),
    )
    .expect("sign HS256")
}

/// A token over `claims` signed with `key` as `alg`, naming `kid`.
pub fn signed(alg: Algorithm, key: &(EncodingKey, String), claims: &Value) -> String {
    let mut header = Header::new(alg);
    header.kid = Some(key.1.clone());
    jsonwebtoken::encode(&header, claims, &key.0).expect("sign")
}

/// The public JWK of `key`, as `alg`, with its `kid`.
pub fn jwk(alg: Algorithm, key: &(EncodingKey, String)) -> Jwk {
    let mut jwk = Jwk::from_encoding_key(&key.0, alg).expect("public JWK");
    jwk.common.key_id = Some(key.1.clone());
    jwk
}

/// A JWKS served on loopback whose keys a test can replace (key rotation); counts fetches.
#[derive(Clone)]
pub struct JwksServer {
    /// `http://127.0.0.1:PORT/jwks.json`.
    pub url: String,
    keys: Arc<Mutex<Vec<Jwk>>>,
    fetches: Arc<Mutex<usize>>,
}

impl JwksServer {
    /// Serves `keys`; also serves OpenID Connect discovery at
    /// `/.well-known/openid-configuration` naming `issuer` (the server's base URL).
    pub async fn start(keys: Vec<Jwk>) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("address"));
        let keys = Arc::new(Mutex::new(keys));
        let fetches = Arc::new(Mutex::new(0));
        let (served, counted) = (Arc::clone(&keys), Arc::clone(&fetches));
        let discovery = json!({"issuer": base, "jwks_uri": format!("{base}/jwks.json")});
        let app = Router::new()
            .route(
                "/jwks.json",
                get(move || {
                    *counted.lock().expect("lock") += 1;
                    let set = JwkSet {
                        keys: served.lock().expect("lock").clone(),
                    };
                    async move { Json(set) }
                }),
            )
            .route(
                "/.well-known/openid-configuration",
                get(move || async move { Json(discovery) }),
            );
        tokio::spawn(async move { a2a_runtime::axum::serve(listener, app).await });
        Self {
            url: format!("{base}/jwks.json"),
            keys,
            fetches,
        }
    }

    /// The issuer its discovery document names.
    pub fn issuer(&self) -> String {
        self.url.trim_end_matches("/jwks.json").to_owned()
    }

    /// Replaces the served keys.
    pub fn rotate(&self, keys: Vec<Jwk>) {
        *self.keys.lock().expect("lock") = keys;
    }

    /// How often the set was fetched.
    pub fn fetches(&self) -> usize {
        *self.fetches.lock().expect("lock")
    }
}
