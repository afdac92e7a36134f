//! `a2a login` and `a2a logout`, and the saved sign-in every other command sends when no
//! credentials are given on the command line.

use std::process::ExitCode;

use a2a_runtime::client::login::{Login, LoginError, SavedLogin, is_safe_to_open};

use crate::cli::Cli;

/// `a2a login URL`: signs the person in through the agent's authorization server and saves
/// the tokens for later commands.
pub(crate) async fn login(
    url: &str,
    scope: Option<&str>,
    client_id: Option<&str>,
    port: Option<u16>,
    browser: bool,
) -> Result<ExitCode, LoginError> {
    let mut discovered = Login::discover(url).await?;
    if let Some(scope) = scope {
        discovered = discovered.scopes(scope.split_whitespace().map(str::to_owned).collect());
    }
    if let Some(client_id) = client_id {
        discovered = discovered.client_id(client_id);
    }
    eprintln!(
        "Signing in to {} through {}.",
        discovered.resource(),
        discovered.issuer()
    );
    let saved = discovered
        .sign_in(port, |url| {
            eprintln!("Open this URL in a browser to sign in:\n\n  {url}\n");
            if browser {
                open_browser(url);
            }
        })
        .await?;
    let path = saved.save()?;
    eprintln!(
        "Signed in (scopes: {}); saved in {}.",
        if saved.scope.is_empty() {
            "none"
        } else {
            &saved.scope
        },
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// `a2a logout URL`: forgets the saved sign-in for the agent.
pub(crate) fn logout(url: &str) -> Result<ExitCode, LoginError> {
    match SavedLogin::forget(url)? {
        Some(resource) => eprintln!("Signed out of {resource}."),
        None => eprintln!("No saved sign-in for {url}."),
    }
    Ok(ExitCode::SUCCESS)
}

/// The bearer token to send to `url`: `--token`, else the saved sign-in's (refreshed when it
/// expired), else none. A saved sign-in that cannot be used is said, and the call goes on
/// without it (the agent then says what it needs).
pub(crate) async fn bearer(cli: &Cli, url: &str) -> Option<String> {
    if let Some(token) = &cli.token {
        return Some(token.clone());
    }
    if !cli.api_keys.is_empty() {
        return None;
    }
    let saved = match SavedLogin::load(url) {
        Ok(saved) => saved?,
        Err(error) => {
            eprintln!("a2a: the saved sign-in is not usable: {error}");
            return None;
        }
    };
    let mut saved = saved;
    match saved.access_token().await {
        Ok(token) => Some(token),
        Err(error) => {
            eprintln!("a2a: {error} (a2a login {url})");
            None
        }
    }
}

/// Opens `url` in the person's browser, if it is https (or http on this machine) and a way is
/// known; the URL is printed anyway. On Windows the URL goes to the URL handler as one
/// argument, never through `cmd`, which would split it at `&` and run the rest.
fn open_browser(url: &str) {
    if !is_safe_to_open(url) {
        eprintln!("(not opened in a browser: only https URLs, or http on this machine, are)");
        return;
    }
    let opener: &[&str] = if cfg!(target_os = "macos") {
        &["open"]
    } else if cfg!(windows) {
        &["rundll32", "url.dll,FileProtocolHandler"]
    } else {
        &["xdg-open"]
    };
    let spawned = std::process::Command::new(opener[0])
        .args(&opener[1..])
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if spawned.is_err() {
        eprintln!("(no browser could be opened: copy the URL)");
    }
}
