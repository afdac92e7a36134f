//! An agent for authentication tests: a skill anyone signed in may call, one that needs a
//! scope, one that holds its task open and one that asks a question.

use a2a_runtime::prelude::*;

/// Keeps secrets for signed-in callers.
#[agent(name = "Vault", security(api_key, bearer))]
#[derive(Debug, Default)]
pub struct Vault;

/// Who the vault thinks is calling.
#[skill(agent = Vault)]
pub async fn whoami(caller: Caller) -> String {
    let scopes: Vec<&str> = caller.scopes().collect();
    format!(
        "{} via {} [{}]",
        caller.principal(),
        caller.scheme().unwrap_or("none"),
        scopes.join(" ")
    )
}

/// Open the vault.
#[skill(agent = Vault, scopes = ["vault:open"])]
pub async fn open(
    /// What to take out.
    item: String,
) -> String {
    format!("took {item}")
}

/// Hold the task open until it is cancelled.
#[skill(agent = Vault)]
pub async fn hold(ctx: TaskContext) -> String {
    ctx.cancelled().await;
    "released".into()
}

/// Ask whether to go on, and say what was answered.
#[skill(agent = Vault)]
pub async fn confirm(ctx: TaskContext) -> Result<String, SkillError> {
    let yes = ctx.ask::<bool>("Go on?").await?;
    Ok(format!("answered {yes}"))
}

/// List everything in the vault (only on the extended card).
#[skill(agent = Vault, extended_only)]
pub async fn audit() -> String {
    "3 items".into()
}

/// The trace the call belongs to, as `trace-id/parent-id`.
#[skill(agent = Vault)]
pub async fn traced(ctx: TaskContext) -> String {
    ctx.trace_context().map_or_else(
        || "untraced".to_owned(),
        |trace| format!("{}/{}", trace.trace_id(), trace.parent_id()),
    )
}

/// Sign in out of band, then say who signed in.
#[skill(agent = Vault)]
pub async fn signin(ctx: TaskContext) -> Result<String, SkillError> {
    let credential = ctx.require_auth("Sign in to the vault").await?;
    Ok(format!("signed in as {credential}"))
}

/// Withdraw an amount, asked for (needs the vault open).
#[skill(agent = Vault, scopes = ["vault:open"])]
pub async fn withdraw(ctx: TaskContext) -> Result<String, SkillError> {
    let amount = ctx.ask::<u32>("How much?").await?;
    Ok(format!("withdrew {amount}"))
}
