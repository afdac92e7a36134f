use a2a_runtime::prelude::*;

/// Demo agent.
#[agent(prompts(quoted, injected, wrong_shape))]
struct Demo;

/// A completer named as a string.
#[prompt(agent = Demo)]
async fn quoted(
    /// A topic.
    #[arg(complete = "topics")]
    topic: String,
) -> String {
    topic
}

/// A completer on an injected parameter.
#[prompt(agent = Demo)]
async fn injected(#[arg(complete = topics)] caller: Caller) -> String {
    caller.principal().to_owned()
}

/// A completer that takes the wrong thing.
#[prompt(agent = Demo)]
async fn wrong_shape(
    /// A topic.
    #[arg(complete = counts)]
    topic: String,
) -> String {
    topic
}

async fn topics(request: Completion) -> Vec<String> {
    vec![request.value().to_owned()]
}

async fn counts(typed: u32) -> Vec<u32> {
    vec![typed]
}

fn main() {}
