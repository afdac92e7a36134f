//! Network configuration from flags and environment variables.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use crate::error::Error;

/// Where and how a server listens.
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
    /// Extra `Host` values the MCP endpoint accepts (`--allowed-host`, `A2A_ALLOWED_HOSTS`,
    /// comma separated). Loopback names are always accepted on loopback binds.
    pub allowed_hosts: Vec<String>,
}

impl Default for ServeConfig {
    fn default() -> Self {
        Self {
            bind: SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 8080),
            public_url: None,
            stdio: false,
            allowed_hosts: Vec::new(),
        }
    }
}

const USAGE: &str = "options: --bind ADDR:PORT  --public-url URL  --stdio  --allowed-host HOST  \
                     (env: A2A_BIND, A2A_PUBLIC_URL, A2A_STDIO, A2A_ALLOWED_HOSTS)";

impl ServeConfig {
    /// Reads the process's arguments and environment. Flags win over environment variables.
    pub fn from_env_and_args() -> Result<Self, Error> {
        Self::parse(std::env::args().skip(1), |name| std::env::var(name).ok())
    }

    /// Parses `args` (without the program name) over the variables `env` returns.
    pub fn parse<I, S>(args: I, env: impl Fn(&str) -> Option<String>) -> Result<Self, Error>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut config = Self::default();
        if let Some(bind) = env("A2A_BIND") {
            config.bind = parse_bind(&bind, "A2A_BIND")?;
        }
        config.public_url = env("A2A_PUBLIC_URL").filter(|u| !u.is_empty());
        config.stdio = env("A2A_STDIO").is_some_and(|v| matches!(v.as_str(), "1" | "true" | "yes"));
        if let Some(hosts) = env("A2A_ALLOWED_HOSTS") {
            config.allowed_hosts = hosts
                .split(',')
                .map(str::trim)
                .filter(|h| !h.is_empty())
                .map(str::to_owned)
                .collect();
        }
        let mut args = args.into_iter().map(Into::into);
        while let Some(arg) = args.next() {
            let (flag, inline) = match arg.split_once('=') {
                Some((flag, value)) if flag.starts_with("--") => {
                    (flag.to_owned(), Some(value.to_owned()))
                }
                _ => (arg.clone(), None),
            };
            let mut value = |name: &str| {
                inline
                    .clone()
                    .or_else(|| args.next())
                    .ok_or_else(|| Error::Config(format!("{name} needs a value; {USAGE}")))
            };
            match flag.as_str() {
                "--bind" => config.bind = parse_bind(&value("--bind")?, "--bind")?,
                "--public-url" => config.public_url = Some(value("--public-url")?),
                "--allowed-host" => config.allowed_hosts.push(value("--allowed-host")?),
                "--stdio" => config.stdio = true,
                other => {
                    return Err(Error::Config(format!(
                        "unknown argument `{other}`; {USAGE}"
                    )));
                }
            }
        }
        if let Some(url) = &config.public_url
            && !(url.starts_with("http://") || url.starts_with("https://"))
        {
            return Err(Error::Config(format!(
                "public URL `{url}` must start with http:// or https://"
            )));
        }
        Ok(config)
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

fn parse_bind(value: &str, what: &str) -> Result<SocketAddr, Error> {
    value.parse().map_err(|_| {
        Error::Config(format!(
            "{what} `{value}` is not an address like 127.0.0.1:8080"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn flags_override_environment() {
        let env = |name: &str| (name == "A2A_BIND").then(|| "127.0.0.1:9000".to_owned());
        let config = ServeConfig::parse(
            ["--bind", "127.0.0.1:9001", "--public-url=https://a.example"],
            env,
        )
        .unwrap();
        assert_eq!(config.bind.port(), 9001);
        assert_eq!(config.base_url(), "https://a.example/");
    }

    #[test]
    fn unspecified_bind_never_reaches_the_card() {
        let config = ServeConfig::parse(["--bind", "0.0.0.0:8080"], no_env).unwrap();
        assert_eq!(config.base_url(), "http://127.0.0.1:8080/");
    }

    #[test]
    fn bad_flags_are_named() {
        let err = ServeConfig::parse(["--bnd", "x"], no_env)
            .unwrap_err()
            .to_string();
        assert!(err.contains("--bnd"), "{err}");
        let err = ServeConfig::parse(["--bind"], no_env)
            .unwrap_err()
            .to_string();
        assert!(err.contains("--bind needs a value"), "{err}");
    }
}
