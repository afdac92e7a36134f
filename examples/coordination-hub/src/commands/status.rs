//! `coordination-hub status`: the project's active agents, what they hold, their open todos and
//! the questions they have not answered, once or refreshed (`--watch`).

use std::time::Duration;

use a2a_runtime::tokio;

use super::access::HubArgs;

/// `status`'s flags.
#[derive(Debug, clap::Args)]
pub(crate) struct StatusArgs {
    #[command(flatten)]
    hub: HubArgs,
    /// Refresh every this long until interrupted (e.g. `2s`)
    #[arg(long, num_args = 0..=1, default_missing_value = "2s", value_parser = humantime::parse_duration)]
    watch: Option<Duration>,
}

/// Prints the overview (again every `--watch`, clearing the terminal).
pub(crate) async fn run(args: StatusArgs) -> Result<(), String> {
    let cwd = std::env::current_dir().map_err(|e| format!("the current directory: {e}"))?;
    let project = args.hub.project(&cwd);
    let hub = args.hub.open(&project).await.map_err(|r| r.message)?;
    loop {
        let overview = hub.overview(&project).await.map_err(|r| r.message)?;
        let Some(every) = args.watch else {
            print!("{}", overview.to_text());
            return Ok(());
        };
        // Clear the screen and go home, then draw: one frame per refresh.
        print!("\x1b[2J\x1b[H{}", overview.to_text());
        tokio::select! {
            () = tokio::time::sleep(every) => {}
            _ = tokio::signal::ctrl_c() => return Ok(()),
        }
    }
}
