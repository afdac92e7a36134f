//! The command line of a served agent: every [`ServeConfig`] setting as a flag with an
//! environment variable. A flag or variable that is given overrides what the builder set; one
//! that is not leaves it, so `--help` and the builder never disagree about what runs.

use clap::{CommandFactory, FromArgMatches, Parser};

mod apply;
mod args;
#[cfg(feature = "oauth-server")]
mod oauth_args;
mod remote_args;
#[cfg(feature = "remote")]
mod remotes_file;

use super::config::ServeConfig;
use a2a_runtime_core::error::Error;
use args::{AuthArgs, LimitArgs, NetworkArgs, ObserveArgs, PushArgs, StorageArgs, TlsArgs};

/// What the command line asked for.
pub(crate) enum Command {
    /// Serve with this configuration.
    Serve(Box<ServeConfig>),
    /// `--help` or `--version`: this text was printed; do not serve.
    Printed,
}

/// What `--help` says after the flags: their units, and which flags need a feature this build
/// leaves out (using one is a startup error naming the feature).
fn after_help() -> String {
    let mut text = "Sizes are bytes, or a number with KiB, MiB or GiB; durations are like 500ms, \
                    30s, 15m or 1h. Every flag has the environment variable shown."
        .to_owned();
    let missing: Vec<&str> = [
        (
            cfg!(not(feature = "jwt")),
            "--jwt-* and --jwks-url need the `jwt` feature",
        ),
        (
            cfg!(not(feature = "tls")),
            "--tls-cert, --tls-key and --tls-client-ca need the `tls` feature",
        ),
        (
            cfg!(not(feature = "sqlite")),
            "--store sqlite://… needs the `sqlite` feature (tasks are kept in memory by default)",
        ),
        (
            cfg!(not(feature = "postgres")),
            "--store postgres://… needs the `postgres` feature",
        ),
        (
            cfg!(not(feature = "metrics")),
            "--metrics needs the `metrics` feature",
        ),
        (
            cfg!(not(feature = "otlp")),
            "--otlp-endpoint needs the `otlp` feature",
        ),
        (
            cfg!(not(feature = "usage")),
            "--usage and --call-budget need the `usage` feature",
        ),
        (
            cfg!(not(feature = "remote")),
            "--remote-agent needs the `remote` feature",
        ),
        (
            cfg!(not(feature = "oauth-server")),
            "an authorization server for MCP connectors (--oauth-*) needs the `oauth-server` \
             feature",
        ),
    ]
    .into_iter()
    .filter_map(|(left_out, what)| left_out.then_some(what))
    .collect();
    if !missing.is_empty() {
        text.push_str("\n\nThis build leaves features of a2a-runtime out: ");
        text.push_str(&missing.join("; "));
        text.push('.');
    }
    text
}

#[derive(Debug, Parser)]
struct Cli {
    #[command(flatten)]
    network: NetworkArgs,
    #[command(flatten)]
    limits: LimitArgs,
    #[command(flatten)]
    auth: AuthArgs,
    #[command(flatten)]
    tls: TlsArgs,
    #[command(flatten)]
    storage: StorageArgs,
    #[command(flatten)]
    push: PushArgs,
    #[command(flatten)]
    observe: ObserveArgs,
    #[cfg(feature = "oauth-server")]
    #[command(flatten)]
    oauth: oauth_args::OAuthArgs,
    #[command(flatten)]
    remote: remote_args::RemoteArgs,
}

/// The name this program was started as (`--help` shows it), `agent` if it cannot tell.
pub(crate) fn program_name() -> String {
    std::env::args_os()
        .next()
        .map(std::path::PathBuf::from)
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "agent".into())
}

/// Reads `args` (with the program name first) and the environment over `config`. `name`,
/// `version` and `about` describe the agent in `--help` and `--version`.
pub(crate) fn parse<I, S>(
    args: I,
    config: ServeConfig,
    name: String,
    version: &'static str,
    about: String,
) -> Result<Command, Error>
where
    I: IntoIterator<Item = S>,
    S: Into<std::ffi::OsString> + Clone,
{
    Ok(
        match parse_with::<NoFlags, _, _>(args, config, name, version, about)? {
            Some((config, NoFlags {})) => Command::Serve(Box::new(config)),
            None => Command::Printed,
        },
    )
}

/// An application that adds no flags of its own.
#[derive(Debug, clap::Args)]
struct NoFlags {}

/// As [`parse`], with the application's own flags `X` beside the server's: `None` when
/// `--help` or `--version` printed.
pub(crate) fn parse_with<X, I, S>(
    args: I,
    mut config: ServeConfig,
    name: String,
    version: &'static str,
    about: String,
) -> Result<Option<(ServeConfig, X)>, Error>
where
    X: clap::Args + FromArgMatches,
    I: IntoIterator<Item = S>,
    S: Into<std::ffi::OsString> + Clone,
{
    // The application's own closing text (`#[command(after_help = "…")]` on `X`: its
    // subcommands, say) comes before the server's.
    let own = X::augment_args(clap::Command::new(""))
        .get_after_help()
        .map(ToString::to_string);
    let after = match own {
        Some(own) => format!("{own}\n\n{}", after_help()),
        None => after_help(),
    };
    let command = X::augment_args(Cli::command())
        .name(name)
        .version(version)
        .about(about)
        .after_help(after);
    let matches = match command.try_get_matches_from(args) {
        Ok(matches) => matches,
        Err(error)
            if matches!(
                error.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            ) =>
        {
            // A closed stdout (`--help | head`) is not worth failing over.
            let _ = error.print();
            return Ok(None);
        }
        Err(error) => {
            let text = error.render().to_string();
            let text = text.trim_start_matches("error: ").trim_end().to_owned();
            return Err(Error::Config(text));
        }
    };
    let cli = Cli::from_arg_matches(&matches).map_err(|e| Error::Config(e.to_string()))?;
    let own = X::from_arg_matches(&matches).map_err(|e| Error::Config(e.to_string()))?;
    cli.apply(&mut config);
    config.validate()?;
    Ok(Some((config, own)))
}

impl Cli {
    /// Sets what the flags and environment variables give over `config`.
    fn apply(self, config: &mut ServeConfig) {
        #[cfg(feature = "oauth-server")]
        self.oauth.apply(&mut config.oauth);
        self.observe.apply(&mut config.observe);
        self.network.apply(config);
        self.storage.apply(config);
        self.push.apply(&mut config.push);
        self.tls.apply(&mut config.tls);
        self.auth.apply(&mut config.auth);
        self.limits.apply(&mut config.limits);
        self.remote.apply(&mut config.remotes);
    }
}

#[cfg(test)]
mod tests {
    use super::args::{duration, size};
    use super::*;
    use std::time::Duration;

    fn serve(args: &[&str]) -> Result<ServeConfig, Error> {
        let args = std::iter::once("agent").chain(args.iter().copied());
        match parse(
            args,
            ServeConfig::default(),
            "agent".into(),
            "1.0.0",
            "An agent.".into(),
        )? {
            Command::Serve(config) => Ok(*config),
            Command::Printed => panic!("printed instead of serving"),
        }
    }

    #[test]
    fn flags_set_limits_and_keep_the_rest() {
        let config = serve(&[
            "--max-body-bytes",
            "2MiB",
            "--shutdown-timeout=2s",
            "--bind",
            "127.0.0.1:9001",
        ])
        .expect("valid flags");
        assert_eq!(config.limits.max_body_bytes, 2 << 20);
        assert_eq!(config.limits.shutdown_timeout, Duration::from_secs(2));
        assert_eq!(config.bind.port(), 9001);
        assert_eq!(config.limits.max_tasks, 10_000);
    }

    #[test]
    fn bad_values_are_named() {
        let error = serve(&["--max-body-bytes", "lots"]).expect_err("bad size");
        assert!(error.to_string().contains("--max-body-bytes"), "{error}");
        let error = serve(&["--bnd", "x"]).expect_err("unknown flag");
        assert!(error.to_string().contains("--bnd"), "{error}");
        let error = serve(&["--max-connections", "0"]).expect_err("zero");
        assert!(error.to_string().contains("--max-connections"), "{error}");
    }

    #[test]
    fn sizes_and_durations_read_units() {
        assert_eq!(size("512KiB"), Ok(512 << 10));
        assert_eq!(size("3"), Ok(3));
        assert!(size("1TiB").is_err());
        assert_eq!(duration("1h 30m"), Ok(Duration::from_secs(5400)));
    }

    #[test]
    fn help_lists_every_flag() {
        let help = Cli::command().render_long_help().to_string();
        for arg in Cli::command().get_arguments() {
            if let Some(long) = arg.get_long() {
                assert!(help.contains(&format!("--{long}")), "--{long} missing");
            }
        }
    }
}
