//! `a2a`: a command-line client of A2A agents (and of a server's usage), built on
//! `a2a_runtime::client`.
//!
//! Every command takes the agent's base URL (or its card's URL). `--json` prints A2A 1.0 JSON
//! (one object, or one line per stream event) for scripts; without it the output is for people.
//! Exit status: 0 on success, 1 when the agent refused or a card has errors, 2 on bad usage.

mod ask;
mod cli;
mod login;
mod manifest;
mod print;
mod scaffold;

use std::process::ExitCode;

use a2a_runtime::client::{
    A2aClient, ClientError, ListTasks, PushNotificationConfig, SendOptions, SendResult, Severity,
    UsageReport, UsageRequest, fetch_usage,
};
use a2a_runtime::futures::StreamExt;
use a2a_runtime::{Message, Part};
use clap::Parser;

use cli::{Cli, Command, Input, PushCommand};

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Command::New {
        name,
        dir,
        mcp_only,
        with_client,
        runtime_path,
        no_lock,
    } = cli.command
    {
        let scaffold = scaffold::Scaffold {
            dir: dir.unwrap_or_else(|| name.clone().into()),
            name,
            mcp_only,
            with_client,
            runtime_path,
        };
        return new_agent(&scaffold, !no_lock);
    }
    let runtime = match a2a_runtime::tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("a2a: cannot start: {error}");
            return ExitCode::FAILURE;
        }
    };
    if let Command::Manifest {
        url,
        out,
        force,
        binary,
        flags,
    } = &cli.command
    {
        let source = match binary {
            Some(binary) => manifest::Source::Binary(binary, flags),
            None => manifest::Source::Url(url.as_deref().unwrap_or_default()),
        };
        return runtime.block_on(write_manifests(source, out, cli.timeout.into(), *force));
    }
    if let Some(code) = runtime.block_on(signing(&cli)) {
        return code;
    }
    match runtime.block_on(run(cli)) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("a2a: {error}");
            ExitCode::FAILURE
        }
    }
}

/// `a2a manifest`: writes the documents and says what a registry needs beside them.
async fn write_manifests(
    source: manifest::Source<'_>,
    out: &std::path::Path,
    timeout: std::time::Duration,
    force: bool,
) -> ExitCode {
    match manifest::write(source, out, timeout, force).await {
        Ok(written) => {
            for file in &written {
                println!("wrote {}", file.display());
            }
            for line in manifest::registry_lines(&written) {
                println!(
                    "to publish to the MCP Registry, put this line in the crate's README: {line}"
                );
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("a2a manifest: {error}");
            ExitCode::FAILURE
        }
    }
}

/// `a2a new`: writes the crate (and, with `lock`, its Cargo.lock) and says what to run next.
fn new_agent(scaffold: &scaffold::Scaffold, lock: bool) -> ExitCode {
    match scaffold::write(scaffold) {
        Ok(files) => {
            println!("created {} ({})", scaffold.dir.display(), files.join(", "));
            if lock && let Err(reason) = scaffold::lock(&scaffold.dir) {
                // The crate is whole without it: Cargo resolves on the first build.
                eprintln!(
                    "a2a new: no Cargo.lock written ({reason}); {}",
                    scaffold::LOCK_HINT
                );
            }
            println!("next: cd {} && cargo run", scaffold.dir.display());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("a2a new: {error}");
            ExitCode::from(2)
        }
    }
}

/// `a2a login` and `a2a logout`, run apart from the calls: their exit status, or `None` for
/// any other command.
async fn signing(cli: &Cli) -> Option<ExitCode> {
    let done = match &cli.command {
        Command::Login {
            url,
            scope,
            client_id,
            port,
            no_browser,
        } => {
            let scope = scope.as_deref();
            login::login(url, scope, client_id.as_deref(), *port, !no_browser).await
        }
        Command::Logout { url } => login::logout(url),
        _ => return None,
    };
    Some(done.unwrap_or_else(|error| {
        eprintln!("a2a: {error}");
        ExitCode::FAILURE
    }))
}

async fn connect(cli: &Cli, url: &str) -> Result<A2aClient, ClientError> {
    let mut builder = A2aClient::builder(url)
        .timeout(cli.timeout.into())
        .stream_idle_timeout(cli.timeout.into());
    if let Some(token) = login::bearer(cli, url).await {
        builder = builder.bearer_token(&token);
    }
    for (name, value) in cli.headers.iter().chain(&cli.api_keys) {
        builder = builder.header(name, value);
    }
    if let Some(binding) = &cli.binding {
        builder = builder.only(binding.clone());
    }
    builder.connect().await
}

/// The message a send carries: text, or a data part; `--skill` names the skill.
fn message(input: &Input) -> Result<Message, String> {
    let part = match (&input.text, &input.data) {
        (_, Some(data)) => {
            let value =
                serde_json::from_str(data).map_err(|e| format!("--data is not JSON: {e}"))?;
            Part::data(value)
        }
        (Some(text), None) => Part::text(text.clone()),
        (None, None) => return Err("give the message as TEXT or --data JSON".into()),
    };
    let mut message = Message::user(vec![part]);
    if let Some(skill) = &input.skill {
        let mut metadata = serde_json::Map::new();
        metadata.insert("skill".into(), serde_json::Value::String(skill.clone()));
        message.metadata = Some(metadata);
    }
    Ok(message)
}

async fn run(cli: Cli) -> Result<ExitCode, ClientError> {
    let json = cli.json;
    match &cli.command {
        Command::Card { url } => {
            let agent = connect(&cli, url).await?;
            print::card(&agent.card(), json);
        }
        Command::Validate { url } => {
            let agent = connect(&cli, url).await?;
            let findings = agent.card().validate();
            print::findings(&findings, json);
            if findings.iter().any(|f| f.severity == Severity::Error) {
                return Ok(ExitCode::FAILURE);
            }
        }
        Command::Send {
            url,
            input,
            no_wait,
        } => return send(&cli, url, input, *no_wait).await,
        Command::Stream { url, input } => return stream(&cli, url, input).await,
        Command::Subscribe { url, task_id } => {
            let agent = connect(&cli, url).await?;
            let mut events = agent.subscribe(task_id).await?;
            while let Some(event) = events.next().await {
                print::event(&event?, json);
            }
        }
        Command::Get { url, task_id } => {
            let agent = connect(&cli, url).await?;
            print::task(&agent.get_task(task_id, None).await?, json);
        }
        Command::Cancel { url, task_id } => {
            let agent = connect(&cli, url).await?;
            print::task(&agent.cancel_task(task_id).await?, json);
        }
        Command::List {
            url,
            state,
            context,
            page_size,
        } => {
            let agent = connect(&cli, url).await?;
            let query = ListTasks {
                context_id: context.clone(),
                state: *state,
                page_size: *page_size,
                ..ListTasks::default()
            };
            let mut tasks = std::pin::pin!(agent.list_tasks(&query));
            while let Some(task) = tasks.next().await {
                print::listed(&task?, json);
            }
        }
        Command::Push(push) => return run_push(&cli, push).await,
        // Run before any call: in `signing`, and in `main`.
        Command::Login { .. } | Command::Logout { .. } => {}
        Command::New { .. } | Command::Manifest { .. } => {}
        Command::Usage {
            url,
            since,
            until,
            by,
            mine,
            agent,
            limit,
        } => {
            let request = UsageRequest {
                since: since.clone(),
                until: until.clone(),
                by: by.clone(),
                agent: agent.clone(),
                limit: *limit,
                mine: *mine,
            };
            print::usage(&usage(&cli, url, &request).await?, json);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `a2a usage`: the server's usage report, with the command line's credentials.
async fn usage(cli: &Cli, url: &str, request: &UsageRequest) -> Result<UsageReport, ClientError> {
    let mut headers: Vec<(String, String)> = cli.headers.clone();
    headers.extend(cli.api_keys.iter().cloned());
    if let Some(token) = login::bearer(cli, url).await {
        headers.push(("authorization".into(), format!("Bearer {token}")));
    }
    fetch_usage(url, request, &headers, cli.timeout.into()).await
}

/// `a2a send`: sends the message, prints the answer, and asks the person for what the task
/// asks until it ends (or `--no-wait`).
async fn send(cli: &Cli, url: &str, input: &Input, no_wait: bool) -> Result<ExitCode, ClientError> {
    let Ok(message) = message(input).map_err(|e| eprintln!("a2a: {e}")) else {
        return Ok(ExitCode::from(2));
    };
    let agent = connect(cli, url).await?;
    let options = SendOptions {
        return_immediately: no_wait,
        history_length: None,
    };
    let mut sent = agent.send_with(message, options).await?;
    loop {
        print::sent(&sent, cli.json);
        let SendResult::Task(task) = &sent else { break };
        let Some(answer) = ask::answer(cli, task.status.state, ask::Asked::of(task)).await else {
            break;
        };
        sent = agent.send_with(answer, options).await?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `a2a stream`: streams the message's events, and what the task asks.
async fn stream(cli: &Cli, url: &str, input: &Input) -> Result<ExitCode, ClientError> {
    let Ok(message) = message(input).map_err(|e| eprintln!("a2a: {e}")) else {
        return Ok(ExitCode::from(2));
    };
    let agent = connect(cli, url).await?;
    let mut events = agent.send_streaming(message).await?;
    loop {
        let mut last = None;
        while let Some(event) = events.next().await {
            let event = event?;
            print::event(&event, cli.json);
            last = ask::waiting(&event).or(last);
        }
        // The stream ends where the task asks; the answer streams the rest.
        let Some((state, asked)) = last else { break };
        let Some(answer) = ask::answer(cli, state, asked).await else {
            break;
        };
        events = agent.send_streaming(answer).await?;
    }
    Ok(ExitCode::SUCCESS)
}

async fn run_push(cli: &Cli, push: &PushCommand) -> Result<ExitCode, ClientError> {
    let json = cli.json;
    match push {
        PushCommand::Set {
            url,
            task_id,
            webhook,
            token,
        } => {
            let agent = connect(cli, url).await?;
            let mut config = PushNotificationConfig::new(task_id, webhook);
            config.token.clone_from(token);
            print::push_config(&agent.set_push_config(&config).await?, json);
        }
        PushCommand::Get { url, task_id, id } => {
            let agent = connect(cli, url).await?;
            print::push_config(&agent.get_push_config(task_id, id).await?, json);
        }
        PushCommand::List { url, task_id } => {
            let agent = connect(cli, url).await?;
            for config in agent.list_push_configs(task_id).await? {
                print::push_config(&config, json);
            }
        }
        PushCommand::Delete { url, task_id, id } => {
            let agent = connect(cli, url).await?;
            agent.delete_push_config(task_id, id).await?;
            if !json {
                println!("deleted {id}");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
