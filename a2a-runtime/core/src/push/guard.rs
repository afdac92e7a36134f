//! The SSRF guard on webhook URLs: a push delivery is a request the server makes on a client's
//! behalf, so it must not reach the server's own network. A URL is checked when it is
//! registered and every address it resolves to is checked again when a delivery connects (a
//! name may resolve elsewhere by then: DNS rebinding).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use url::{Host, Url};

/// Why a webhook URL is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlRefusal {
    /// Not a URL.
    #[error("is not a valid URL: {0}")]
    Invalid(String),
    /// Not http or https.
    #[error("uses the scheme `{0}`; push notifications are delivered over http or https only")]
    Scheme(String),
    /// No host to deliver to.
    #[error("has no host")]
    NoHost,
    /// A name that resolves to no address.
    #[error("names the host `{host}`, which does not resolve: {reason}")]
    Unresolved { host: String, reason: String },
    /// An address of a network the server does not deliver to.
    #[error(
        "reaches {address}, {rule}; webhooks to such addresses are refused (SSRF guard; a \
         server started with --push-allow-private delivers to them, for local development)"
    )]
    Forbidden { address: IpAddr, rule: &'static str },
    /// `localhost` and its subdomains.
    #[error(
        "names `{0}`, a loopback name; webhooks to such addresses are refused (SSRF guard; a \
         server started with --push-allow-private delivers to them, for local development)"
    )]
    LoopbackName(String),
}

/// The rule that forbids delivering to `address`, if one does: loopback, private, link-local
/// (which holds the cloud metadata address 169.254.169.254), carrier-grade NAT (100.64/10, which
/// holds Alibaba's 100.100.100.200), unique local IPv6 (fd00:ec2::254 on AWS), and the reserved,
/// multicast and unspecified ranges. IPv4 addresses inside IPv6 (mapped, NAT64) are judged as
/// the IPv4 address they carry.
pub fn forbidden(address: IpAddr) -> Option<&'static str> {
    match address {
        IpAddr::V4(v4) => forbidden_v4(v4),
        IpAddr::V6(v6) => forbidden_v6(v6),
    }
}

fn forbidden_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        (169, 254, 169) if ip.octets()[3] == 254 => "the cloud metadata address (169.254.169.254)",
        (100, 100, 100) if ip.octets()[3] == 200 => "a cloud metadata address (100.100.100.200)",
        (0, _, _) => "an unspecified address (0.0.0.0/8)",
        (127, _, _) => "a loopback address (127.0.0.0/8)",
        (10, _, _) => "a private address (10.0.0.0/8)",
        (172, 16..=31, _) => "a private address (172.16.0.0/12)",
        (192, 168, _) => "a private address (192.168.0.0/16)",
        (169, 254, _) => "a link-local address (169.254.0.0/16)",
        (100, 64..=127, _) => "a carrier-grade NAT address (100.64.0.0/10)",
        (192, 0, 0) => "an IETF protocol assignment (192.0.0.0/24)",
        (198, 18..=19, _) => "a benchmarking address (198.18.0.0/15)",
        (224..=239, _, _) => "a multicast address (224.0.0.0/4)",
        (240..=255, _, _) => "a reserved address (240.0.0.0/4)",
        _ => return None,
    })
}

fn forbidden_v6(ip: Ipv6Addr) -> Option<&'static str> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return forbidden_v4(v4);
    }
    let segments = ip.segments();
    // NAT64 (64:ff9b::/96) carries an IPv4 address in its last 32 bits.
    if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        let [.., high, low] = segments;
        let v4 = Ipv4Addr::from((u32::from(high) << 16) | u32::from(low));
        return forbidden_v4(v4);
    }
    Some(match segments[0] {
        _ if ip.is_loopback() => "a loopback address (::1)",
        _ if ip.is_unspecified() => "an unspecified address (::)",
        0xfd00 if segments[1] == 0x0ec2 => "a cloud metadata address (fd00:ec2::/32)",
        s if s & 0xfe00 == 0xfc00 => "a unique local address (fc00::/7)",
        s if s & 0xffc0 == 0xfe80 => "a link-local address (fe80::/10)",
        s if s & 0xff00 == 0xff00 => "a multicast address (ff00::/8)",
        // Deprecated IPv4-compatible addresses (::a.b.c.d).
        0 if segments[1..6] == [0; 5] => "an IPv4-compatible address (::/96)",
        _ => return None,
    })
}

/// Whether `host` is `localhost` or one of its subdomains (RFC 6761: they resolve to loopback).
fn loopback_name(host: &str) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    host == "localhost" || host.ends_with(".localhost")
}

/// Checks a webhook URL when it is registered: http or https, a host, and (unless
/// `allow_private`) only addresses outside the forbidden ranges, resolving names now.
pub async fn check_url(url: &str, allow_private: bool) -> Result<Url, UrlRefusal> {
    let parsed = Url::parse(url).map_err(|e| UrlRefusal::Invalid(e.to_string()))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(UrlRefusal::Scheme(parsed.scheme().to_owned()));
    }
    let host = parsed.host().ok_or(UrlRefusal::NoHost)?;
    if allow_private {
        return Ok(parsed);
    }
    let port = parsed.port_or_known_default().unwrap_or(80);
    let addresses: Vec<IpAddr> = match host {
        Host::Ipv4(v4) => vec![IpAddr::V4(v4)],
        Host::Ipv6(v6) => vec![IpAddr::V6(v6)],
        Host::Domain(name) if loopback_name(name) => {
            return Err(UrlRefusal::LoopbackName(name.to_owned()));
        }
        Host::Domain(name) => tokio::net::lookup_host((name, port))
            .await
            .map_err(|e| UrlRefusal::Unresolved {
                host: name.to_owned(),
                reason: e.to_string(),
            })?
            .map(|a| a.ip())
            .collect(),
    };
    for address in addresses {
        if let Some(rule) = forbidden(address) {
            return Err(UrlRefusal::Forbidden { address, rule });
        }
    }
    Ok(parsed)
}

/// The resolver deliveries connect through: a name whose addresses include a forbidden one is
/// not connected to at all (an attacker's DNS may answer with a public address at
/// registration and a private one at delivery).
#[derive(Debug, Clone, Copy)]
pub struct GuardedResolver;

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        Box::pin(async move {
            let host = name.as_str().to_owned();
            if loopback_name(&host) {
                return Err(Box::new(UrlRefusal::LoopbackName(host)) as _);
            }
            let addresses: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            for address in &addresses {
                if let Some(rule) = forbidden(address.ip()) {
                    return Err(Box::new(UrlRefusal::Forbidden {
                        address: address.ip(),
                        rule,
                    }) as _);
                }
            }
            Ok(Box::new(addresses.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// Checks a delivery's URL before it is sent: an address literal is never resolved, so the
/// resolver cannot judge it.
pub fn check_literal(url: &Url) -> Result<(), UrlRefusal> {
    let address = match url.host() {
        Some(Host::Ipv4(v4)) => IpAddr::V4(v4),
        Some(Host::Ipv6(v6)) => IpAddr::V6(v6),
        Some(Host::Domain(_)) => return Ok(()),
        None => return Err(UrlRefusal::NoHost),
    };
    match forbidden(address) {
        Some(rule) => Err(UrlRefusal::Forbidden { address, rule }),
        None => Ok(()),
    }
}

/// The resolver for a client, or none (the system's) when private addresses are allowed.
pub fn resolver(allow_private: bool) -> Option<Arc<GuardedResolver>> {
    (!allow_private).then_some(Arc::new(GuardedResolver))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(address: &str) -> Option<&'static str> {
        forbidden(address.parse().unwrap())
    }

    #[test]
    fn private_loopback_link_local_cgnat_and_metadata_addresses_are_forbidden() {
        for address in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "169.254.1.1",
            "100.64.0.1",
            "100.100.100.200",
            "0.0.0.0",
            "224.0.0.1",
            "255.255.255.255",
            "::1",
            "::",
            "fd00:ec2::254",
            "fc00::1",
            "fe80::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::a00:1",
        ] {
            assert!(rule(address).is_some(), "{address} should be forbidden");
        }
        assert_eq!(
            rule("169.254.169.254"),
            Some("the cloud metadata address (169.254.169.254)")
        );
        assert_eq!(rule("10.0.0.1"), Some("a private address (10.0.0.0/8)"));
    }

    #[test]
    fn public_addresses_are_allowed() {
        for address in [
            "8.8.8.8",
            "172.32.0.1",
            "100.128.0.1",
            "2001:4860:4860::8888",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
        ] {
            assert_eq!(rule(address), None, "{address} should be allowed");
        }
    }

    /// What a name resolves to is judged, not only the name (`127.0.0.1` resolves to itself,
    /// standing in for a name whose DNS answers with an internal address).
    #[tokio::test]
    async fn the_delivery_resolver_judges_every_resolved_address() {
        use reqwest::dns::Resolve;
        let name: reqwest::dns::Name = "127.0.0.1".parse().unwrap();
        let Err(refused) = GuardedResolver.resolve(name).await else {
            panic!("resolved to loopback and allowed");
        };
        assert!(
            refused.to_string().contains("a loopback address"),
            "{refused}"
        );
    }

    #[tokio::test]
    async fn registration_refuses_schemes_loopback_names_and_private_literals() {
        assert_eq!(
            check_url("ftp://example.com/x", false).await,
            Err(UrlRefusal::Scheme("ftp".into()))
        );
        assert_eq!(
            check_url("http://app.localhost:8080/", false).await,
            Err(UrlRefusal::LoopbackName("app.localhost".into()))
        );
        assert!(matches!(
            check_url("http://[::1]:9/", false).await,
            Err(UrlRefusal::Forbidden {
                rule: "a loopback address (::1)",
                ..
            })
        ));
        assert!(check_url("http://127.0.0.1:9/hook", true).await.is_ok());
        assert!(check_url("http://93.184.216.34/hook", false).await.is_ok());
    }
}
