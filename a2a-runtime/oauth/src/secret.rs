//! Random values, digests and comparisons for codes, tokens and secrets. Codes and refresh
//! tokens are stored by digest, so a leaked store does not hand out live credentials.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest as _, Sha256};
use subtle::ConstantTimeEq as _;

/// A fresh random value of 256 bits, URL-safe base64 (43 characters).
pub(crate) fn random_token() -> String {
    let mut bytes = [0_u8; 32];
    // The system's random source failing is not something a server can go on without.
    getrandom::fill(&mut bytes).expect("the system random number generator failed");
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The SHA-256 digest of `value`, URL-safe base64: how codes, tokens and secrets are stored.
pub(crate) fn digest_of(value: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(value.as_bytes()))
}

/// Whether two secrets (or their digests) are equal, in time independent of where they differ.
pub(crate) fn same(a: &str, b: &str) -> bool {
    // Slices of different lengths are unequal (only the length is not hidden).
    bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

/// The PKCE S256 challenge of `verifier` (RFC 7636 §4.2).
pub(crate) fn s256(verifier: &str) -> String {
    digest_of(verifier)
}

/// Whether `verifier` is a PKCE code verifier: 43 to 128 unreserved characters (RFC 7636 §4.1).
pub(crate) fn is_verifier(verifier: &str) -> bool {
    (43..=128).contains(&verifier.len())
        && verifier
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

/// Whether `challenge` has the form of an S256 challenge: 43 URL-safe base64 characters.
pub(crate) fn is_s256_challenge(challenge: &str) -> bool {
    challenge.len() == 43
        && challenge
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 7636 appendix B.
    #[test]
    fn the_s256_challenge_is_the_rfc_example() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        assert!(is_verifier(verifier));
        assert_eq!(
            s256(verifier),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        assert!(is_s256_challenge(&s256(verifier)));
        assert!(!is_verifier("short"));
        assert!(!is_verifier(&"a".repeat(129)));
        assert!(!is_verifier(&format!("{}+", "a".repeat(50))));
    }

    #[test]
    fn random_tokens_differ_and_compare_in_constant_time() {
        let (a, b) = (random_token(), random_token());
        assert_eq!(a.len(), 43);
        assert_ne!(a, b);
        assert!(same(&a, &a.clone()) && !same(&a, &b) && !same(&a, "x"));
    }
}
