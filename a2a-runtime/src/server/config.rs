//! The configuration of a served agent: where it listens, which hosts and origins it accepts,
//! and its [`Limits`]. The builder, the flags and the environment all set this one type.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use super::Limits;
use crate::error::Error;

/// Where and how a server listens, and its limits.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServeConfig {
    /// Address to listen on (`--bind`, `A2A_BIND`; default `127.0.0.1:8080`).
    pub bind: SocketAddr,
    /// The URL clients use to reach the agent (`--public-url`, `A2A_PUBLIC_URL`). Defaults to
    /// `http://<bind>/`; required in practice when binding to all interfaces.
    pub public_url: Option<String>,
    /// Serve MCP over stdin/stdout instead of HTTP (`--stdio`, `A2A_STDIO=1`).
    pub stdio: bool,
    /// Extra `Host` values accepted (`--allowed-host`, `A2A_ALLOWED_HOSTS`, comma separated).
    /// Loopback names are always accepted on loopback binds, and the public URL's host always.
    pub allowed_hosts: Vec<String>,
    /// Extra browser origins (`scheme://host[:port]`, `*` as the port for any) allowed to call
    /// the agent (`--allowed-origin`, `A2A_ALLOWED_ORIGINS`). Requests without `Origin`
    /// (non-browser clients) are unaffected.
    pub allowed_origins: Vec<String>,
    /// Origins allowed to read A2A and MCP responses cross-origin (CORS; `--cors-origin`,
    /// `A2A_CORS_ORIGINS`; `*` for any). The agent card is readable from any origin regardless.
    pub cors_origins: Vec<String>,
    /// Limits on requests, tasks, callers, connections and shutdown.
    pub limits: Limits,
}

impl Default for ServeConfig {
    fn default() -> Self {
        Self {
            bind: SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 8080),
            public_url: None,
            stdio: false,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            cors_origins: Vec::new(),
            limits: Limits::default(),
        }
    }
}

impl ServeConfig {
    /// Checks the configuration; the error names the setting at fault.
    pub fn validate(&self) -> Result<(), Error> {
        if let Some(url) = &self.public_url
            && !(url.starts_with("http://") || url.starts_with("https://"))
        {
            return Err(Error::Config(format!(
                "public URL `{url}` must start with http:// or https://"
            )));
        }
        for origin in self.allowed_origins.iter().chain(&self.cors_origins) {
            let authority = origin
                .strip_prefix("http://")
                .or_else(|| origin.strip_prefix("https://"));
            let well_formed = origin == "*"
                || authority.is_some_and(|a| !a.is_empty() && !a.contains(['/', ' ']));
            if !well_formed {
                return Err(Error::Config(format!(
                    "origin `{origin}` must look like https://app.example or http://localhost:3000"
                )));
            }
        }
        self.limits.validate()
    }

    /// The agent's base URL (ending in `/`): the public URL, or one derived from the bind
    /// address, never an unspecified address such as `0.0.0.0`.
    pub(crate) fn base_url(&self) -> String {
        if let Some(url) = &self.public_url {
            return if url.ends_with('/') {
                url.clone()
            } else {
                format!("{url}/")
            };
        }
        let ip = match self.bind.ip() {
            IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
            ip => ip,
        };
        format!("http://{}/", SocketAddr::new(ip, self.bind.port()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unspecified_bind_never_reaches_the_card() {
        let config = ServeConfig {
            bind: "0.0.0.0:8080".parse().expect("address"),
            ..ServeConfig::default()
        };
        assert_eq!(config.base_url(), "http://127.0.0.1:8080/");
    }

    #[test]
    fn malformed_origins_are_named() {
        let config = ServeConfig {
            allowed_origins: vec!["evil.example".into()],
            ..ServeConfig::default()
        };
        let error = config.validate().expect_err("no scheme").to_string();
        assert!(error.contains("evil.example"), "{error}");
    }
}
