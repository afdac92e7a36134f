//! Serving the scenario agent from the command line: the server's flags, and the test kits'
//! credential. A kit authenticates with an opaque bearer token it is configured with (the
//! conformance suites send `Authorization: Bearer <token>`), so the agent accepts exactly that
//! token through the SDK's own [`Authenticator`] and grants it the scopes given here.

use std::future::Future;
use std::pin::Pin;

use a2a_runtime::auth::{AuthError, Authenticator, Caller, NamedScheme, SecurityScheme};
use a2a_runtime::axum::http;
use a2a_runtime::server::ServeConfig;

use crate::Scenarios;

/// The scenario agent's own flags, beside the server's.
#[derive(Debug, clap::Args)]
struct ScenarioFlags {
    /// Require this opaque bearer token of every caller (a test kit's configured credential);
    /// the card then declares a bearer scheme
    #[arg(long, env = "SCENARIOS_TEST_BEARER", value_name = "TOKEN")]
    test_bearer: Option<String>,
    /// The scopes a caller with the test bearer token has (space or comma separated)
    #[arg(
        long,
        env = "SCENARIOS_TEST_BEARER_SCOPES",
        value_name = "SCOPES",
        default_value = ""
    )]
    test_bearer_scopes: String,
}

/// An opaque bearer token compared whole: test credentials, not a production scheme.
struct TestBearer {
    token: String,
    scopes: Vec<String>,
}

impl Authenticator for TestBearer {
    fn authenticate<'a>(
        &'a self,
        request: &'a http::request::Parts,
    ) -> Pin<Box<dyn Future<Output = Result<Option<Caller>, AuthError>> + Send + 'a>> {
        let verdict = match a2a_runtime::auth::bearer_token(&request.headers) {
            None => Ok(None),
            Some(token) if token == self.token => Ok(Some(
                Caller::authenticated("testBearer", "test-kit").with_scopes(self.scopes.clone()),
            )),
            Some(_) => Err(AuthError::invalid("the bearer token is not the test kit's")),
        };
        Box::pin(std::future::ready(verdict))
    }

    fn challenge(&self, error: Option<&AuthError>) -> String {
        match error {
            Some(_) => "Bearer realm=\"agent\", error=\"invalid_token\"".to_owned(),
            None => "Bearer realm=\"agent\"".to_owned(),
        }
    }
}

/// Serves the scenario agent as the command line and environment say (`--help` lists the
/// flags, `--no-streaming` among the server's), until SIGTERM or Ctrl-C.
pub async fn serve_from_command_line() -> Result<(), a2a_runtime::Error> {
    let Some((config, flags)) = ServeConfig::from_command_line::<Scenarios, ScenarioFlags>()?
    else {
        return Ok(());
    };
    let mut server = Scenarios.server().config(config);
    if let Some(token) = flags.test_bearer {
        let scopes = flags
            .test_bearer_scopes
            .split([' ', ','])
            .filter(|scope| !scope.is_empty())
            .map(str::to_owned)
            .collect();
        let scheme = NamedScheme::new("testBearer", SecurityScheme::Bearer);
        server = server.authenticator(scheme, TestBearer { token, scopes });
    }
    server.serve().await
}
