//! Writes what `scripts/bench-load` needs to measure authenticated requests into the directory
//! given as the only argument: `hs256.jwt` (signed with the test secret), `rs256.jwt` (signed
//! with the test RSA key, valid for a day) and `jwks.json` (that key's public half).

use a2a_tests::tokens;
use jsonwebtoken::Algorithm;
use jsonwebtoken::jwk::JwkSet;

fn main() -> std::io::Result<()> {
    let dir = std::env::args_os()
        .nth(1)
        .map(std::path::PathBuf::from)
        .ok_or_else(|| std::io::Error::other("usage: bench-tokens DIR"))?;
    let mut claims = tokens::claims("bench", "");
    claims["exp"] = serde_json::json!(tokens::now() + 86_400);
    let rsa = tokens::rsa_key(1);
    std::fs::write(dir.join("hs256.jwt"), tokens::hs256(&claims))?;
    std::fs::write(
        dir.join("rs256.jwt"),
        tokens::signed(Algorithm::RS256, &rsa, &claims),
    )?;
    let jwks = JwkSet {
        keys: vec![tokens::jwk(Algorithm::RS256, &rsa)],
    };
    std::fs::write(dir.join("jwks.json"), serde_json::to_vec(&jwks)?)?;
    Ok(())
}
