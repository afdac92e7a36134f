//! Trusted reverse proxies (`--trusted-proxy`): only a connection from one of them has its
//! `Forwarded` (RFC 7239) or `X-Forwarded-For` and `X-Forwarded-Host` believed. Each request it
//! forwards is then the client's: rate limits, quotas, usage records and the console key on the
//! client's address, the per-peer connection cap leaves the proxy alone (it carries everyone's
//! connections), and the browser guard checks the host the browser asked for. From any other
//! peer the headers are ignored, so nobody can choose their own address by sending them.

use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;
use std::sync::Arc;

use axum::http::HeaderMap;
use ipnet::IpNet;

/// The most forwarding hops read from the right of a request's chain: a longer chain is cut
/// there (its client then counts as that hop), so a padded header costs no more.
const MAX_HOPS: usize = 16;

/// The address ranges of the reverse proxies in front of the server (empty: none, and
/// forwarding headers are never believed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Arc<[IpNet]>);

impl TrustedProxies {
    /// The ranges of `list`: CIDRs (`10.0.0.0/8`, `fd00::/8`) or single addresses.
    pub fn new<S: AsRef<str>>(list: impl IntoIterator<Item = S>) -> Result<Self, String> {
        let ranges = list
            .into_iter()
            .map(|item| range(item.as_ref().trim()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self(ranges.into()))
    }

    /// Also trusts the proxies in `ranges` (each already read by [`range`]).
    pub(crate) fn extend(&mut self, ranges: impl IntoIterator<Item = IpNet>) {
        self.0 = self.0.iter().copied().chain(ranges).collect();
    }

    /// Whether no proxy is trusted.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `ip` is one of the proxies.
    pub(crate) fn trusts(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.0.iter().any(|range| range.contains(&ip))
    }

    /// What a request from the trusted proxy `peer` says of its client: the first address
    /// from the right of its forwarding chain that is not a trusted proxy (RFC 7239 §5.2; the
    /// proxy itself when the chain names none it can be read as).
    pub(crate) fn forwarded(&self, peer: SocketAddr, headers: &HeaderMap) -> Forwarded {
        let mut client = peer.ip();
        for hop in chain(headers).into_iter().rev().take(MAX_HOPS) {
            let Some(hop) = hop else { break };
            client = hop;
            if !self.trusts(hop) {
                break;
            }
        }
        Forwarded {
            client: SocketAddr::new(client, 0),
            host: forwarded_host(headers),
        }
    }
}

impl FromStr for TrustedProxies {
    type Err = String;

    /// Comma-separated ranges, as `--trusted-proxy` and `A2A_TRUSTED_PROXIES` take them.
    fn from_str(list: &str) -> Result<Self, String> {
        Self::new(list.split(',').filter(|item| !item.trim().is_empty()))
    }
}

/// What a trusted proxy said of the request it forwarded.
#[derive(Debug, Clone)]
pub(crate) struct Forwarded {
    /// The client's address (port unknown: 0).
    pub(crate) client: SocketAddr,
    /// The host the client asked for, when the proxy said.
    pub(crate) host: Option<String>,
}

/// One range: a CIDR, or a single address.
pub(crate) fn range(item: &str) -> Result<IpNet, String> {
    item.parse::<IpNet>()
        .or_else(|_| item.parse::<IpAddr>().map(IpNet::from))
        .map(|net| net.trunc())
        .map_err(|_| {
            format!(
                "`{item}` is not an address range; a trusted proxy is a CIDR such as \
                 10.0.0.0/8 or an address such as 127.0.0.1"
            )
        })
}

/// The forwarding chain a request carries, leftmost (the original client) first: `Forwarded`'s
/// `for=` if the request has one, else `X-Forwarded-For`. `None` for a hop that is not an
/// address (`unknown`, an obfuscated name), which ends the walk from the right.
fn chain(headers: &HeaderMap) -> Vec<Option<IpAddr>> {
    let forwarded: Vec<&str> = headers
        .get_all("forwarded")
        .iter()
        .filter_map(|value| value.to_str().ok())
        .collect();
    if !forwarded.is_empty() {
        return forwarded
            .iter()
            .flat_map(|value| value.split(','))
            .filter_map(|element| parameter(element, "for"))
            .map(|node| address(&node))
            .collect();
    }
    headers
        .get_all("x-forwarded-for")
        .iter()
        .flat_map(|value| value.to_str().unwrap_or("unknown").split(','))
        .map(|node| address(node.trim()))
        .collect()
}

/// The value of parameter `name` in one `Forwarded` element (`for=…;proto=…`), unquoted.
fn parameter(element: &str, name: &str) -> Option<String> {
    element.split(';').find_map(|pair| {
        let (key, value) = pair.split_once('=')?;
        key.trim()
            .eq_ignore_ascii_case(name)
            .then(|| value.trim().trim_matches('"').to_owned())
    })
}

/// A node of a forwarding chain as an address: `192.0.2.1`, `192.0.2.1:4711`, `2001:db8::1`,
/// `[2001:db8::1]:4711`.
fn address(node: &str) -> Option<IpAddr> {
    if let Ok(ip) = node.parse::<IpAddr>() {
        return Some(ip.to_canonical());
    }
    if let Ok(socket) = node.parse::<SocketAddr>() {
        return Some(socket.ip().to_canonical());
    }
    node.strip_prefix('[')
        .and_then(|rest| rest.split(']').next())
        .and_then(|ip| ip.parse::<IpAddr>().ok())
}

/// The host the client asked for: `Forwarded`'s `host=`, else `X-Forwarded-Host`, the
/// rightmost of each: the one the trusted proxy in front of this server added. What is left of
/// it came with the request, and a client can write anything there (`X-Forwarded-Host:
/// localhost` to pass the browser guard).
fn forwarded_host(headers: &HeaderMap) -> Option<String> {
    let from_forwarded = headers
        .get_all("forwarded")
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .rev()
        .find_map(|element| parameter(element, "host"));
    from_forwarded.or_else(|| {
        headers
            .get_all("x-forwarded-host")
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .next_back()
            .map(|host| host.trim().to_owned())
            .filter(|host| !host.is_empty())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.append(*name, value.parse().unwrap());
        }
        headers
    }

    fn client(proxies: &TrustedProxies, pairs: &[(&'static str, &'static str)]) -> IpAddr {
        let peer: SocketAddr = "10.0.0.5:40000".parse().unwrap();
        proxies.forwarded(peer, &headers(pairs)).client.ip()
    }

    #[test]
    fn the_client_is_the_first_untrusted_hop_from_the_right() {
        let proxies: TrustedProxies = "10.0.0.0/8, 192.168.1.7".parse().unwrap();
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        // A client's own claim at the left is not believed past an untrusted hop.
        let spoofed = [("x-forwarded-for", "6.6.6.6, 203.0.113.9, 192.168.1.7")];
        assert_eq!(client(&proxies, &spoofed), ip("203.0.113.9"));
        let two_headers = [
            ("x-forwarded-for", "198.51.100.4"),
            ("x-forwarded-for", "10.1.2.3"),
        ];
        assert_eq!(client(&proxies, &two_headers), ip("198.51.100.4"));
        let rfc7239 = [(
            "forwarded",
            "for=\"[2001:db8:cafe::17]:4711\";proto=https, for=10.9.9.9",
        )];
        assert_eq!(client(&proxies, &rfc7239), ip("2001:db8:cafe::17"));
        // Forwarded wins over X-Forwarded-For; an unknown hop stops the walk at the proxy.
        let both = [
            ("forwarded", "for=198.51.100.8"),
            ("x-forwarded-for", "6.6.6.6"),
        ];
        assert_eq!(client(&proxies, &both), ip("198.51.100.8"));
        assert_eq!(
            client(&proxies, &[("forwarded", "for=unknown")]),
            ip("10.0.0.5")
        );
        assert_eq!(client(&proxies, &[]), ip("10.0.0.5"));
        assert_eq!(
            client(&proxies, &[("x-forwarded-for", "198.51.100.4:5555")]),
            ip("198.51.100.4")
        );
    }

    #[test]
    fn ranges_are_cidrs_or_addresses_and_the_host_is_the_clients() {
        assert!("10.0.0.0/8,::1".parse::<TrustedProxies>().is_ok());
        let bad = "10.0.0.0/33".parse::<TrustedProxies>().unwrap_err();
        assert!(bad.contains("10.0.0.0/33"), "{bad}");
        assert!("".parse::<TrustedProxies>().unwrap().is_empty());
        let proxies: TrustedProxies = "127.0.0.1".parse().unwrap();
        assert!(proxies.trusts("::ffff:127.0.0.1".parse().unwrap()));
        let peer: SocketAddr = "127.0.0.1:1".parse().unwrap();
        let host = |pairs| proxies.forwarded(peer, &headers(pairs)).host;
        // The rightmost is the trusted proxy's; a client wrote what is left of it.
        assert_eq!(
            host(&[("x-forwarded-host", "localhost, agents.example")]).as_deref(),
            Some("agents.example")
        );
        const FORWARDED: &str = "host=localhost, for=1.2.3.4;host=agents.example";
        assert_eq!(
            host(&[("forwarded", FORWARDED)]).as_deref(),
            Some("agents.example")
        );
        assert_eq!(
            host(&[("forwarded", "for=1.2.3.4;host=\"agents.example:8443\"")]).as_deref(),
            Some("agents.example:8443")
        );
    }
}
