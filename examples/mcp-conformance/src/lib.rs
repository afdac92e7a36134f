//! The tools, resources and prompts the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`) calls by name, declared with the macros like any agent:
//! no protocol code. `tests/mcp_conformance.rs` runs the suite against it.

use std::time::Duration;

use a2a_runtime::prelude::*;
use a2a_runtime::serde_json::{self, json};

/// The fixtures of the MCP conformance suite.
#[agent(name = "MCP Conformance")]
#[derive(Debug, Clone, Copy, Default)]
pub struct Conformance;

/// A 1×1 red PNG.
const RED_PIXEL_PNG: [u8; 69] = [
    137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0,
    0, 0, 144, 119, 83, 222, 0, 0, 0, 12, 73, 68, 65, 84, 120, 156, 99, 248, 207, 192, 0, 0, 3, 1,
    1, 0, 201, 254, 146, 239, 0, 0, 0, 0, 73, 69, 78, 68, 174, 66, 96, 130,
];

/// One millisecond of silence: a WAV file, 8 kHz, mono, 8-bit.
const SILENCE_WAV: [u8; 52] = [
    82, 73, 70, 70, 44, 0, 0, 0, 87, 65, 86, 69, 102, 109, 116, 32, 16, 0, 0, 0, 1, 0, 1, 0, 64,
    31, 0, 0, 64, 31, 0, 0, 1, 0, 8, 0, 100, 97, 116, 97, 8, 0, 0, 0, 128, 128, 128, 128, 128, 128,
    128, 128,
];

fn image() -> Part {
    Part::raw(RED_PIXEL_PNG.to_vec(), "image/png")
}

fn embedded_text() -> Part {
    let mut part = Part::raw(
        b"This is an embedded resource content.".to_vec(),
        "text/plain",
    );
    part.filename = Some("embedded-resource.txt".into());
    part
}

/// Return simple text.
#[skill(agent = Conformance)]
async fn test_simple_text() -> String {
    "This is a simple text response for testing.".into()
}

/// Return an image.
#[skill(agent = Conformance)]
async fn test_image_content() -> Vec<Part> {
    vec![image()]
}

/// Return audio.
#[skill(agent = Conformance)]
async fn test_audio_content() -> Vec<Part> {
    vec![Part::raw(SILENCE_WAV.to_vec(), "audio/wav")]
}

/// Return an embedded resource.
#[skill(agent = Conformance)]
async fn test_embedded_resource() -> Vec<Part> {
    vec![embedded_text()]
}

/// Return text, an image and an embedded resource.
#[skill(agent = Conformance)]
async fn test_multiple_content_types() -> Vec<Part> {
    vec![
        Part::text("Multiple content types test:"),
        image(),
        embedded_text(),
    ]
}

/// Fail on purpose.
#[skill(agent = Conformance)]
async fn test_error_handling() -> Result<String, SkillError> {
    Err(SkillError::new(
        "This tool intentionally returns an error for testing",
    ))
}

/// Report progress three times, 50 ms apart.
#[skill(agent = Conformance)]
async fn test_tool_with_progress(ctx: TaskContext) -> String {
    for done in [0, 50, 100] {
        ctx.progress_of(done, 100);
        a2a_runtime::tokio::time::sleep(Duration::from_millis(50)).await;
    }
    "Progress test completed".into()
}

/// A static text resource.
#[resource(agent = Conformance, uri = "test://static-text", mime_type = "text/plain")]
async fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// A static binary resource: a 1×1 PNG.
#[resource(agent = Conformance, uri = "test://static-binary", mime_type = "image/png")]
async fn static_binary() -> Vec<u8> {
    RED_PIXEL_PNG.to_vec()
}

/// A resource per id, from a template.
#[resource(agent = Conformance, uri = "test://template/{id}/data")]
async fn template_data(
    /// Which record.
    id: String,
) -> Json<serde_json::Value> {
    Json(json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}))
}

/// A resource clients subscribe to.
#[resource(agent = Conformance, uri = "test://watched-resource")]
async fn watched_resource() -> &'static str {
    "Watched resource content."
}

/// A simple prompt without arguments.
#[prompt(agent = Conformance, name = "test_simple_prompt")]
async fn simple_prompt() -> &'static str {
    "This is a simple prompt for testing."
}

/// A prompt with two arguments.
#[prompt(agent = Conformance, name = "test_prompt_with_arguments")]
async fn prompt_with_arguments(
    /// First test argument.
    arg1: String,
    /// Second test argument.
    arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// A prompt embedding a resource.
#[prompt(agent = Conformance, name = "test_prompt_with_embedded_resource")]
async fn prompt_with_embedded_resource(
    /// URI of the resource to embed.
    #[arg(name = "resourceUri")]
    resource_uri: String,
) -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(PromptContent::text_resource(
            resource_uri,
            "text/plain",
            "Embedded resource content for testing.",
        )),
        PromptMessage::user_text("Please process the embedded resource above."),
    ]
}

/// A prompt holding an image.
#[prompt(agent = Conformance, name = "test_prompt_with_image")]
async fn prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(PromptContent::image(RED_PIXEL_PNG.to_vec(), "image/png")),
        PromptMessage::user_text("Please analyze the image above."),
    ]
}

/// What `test_input_required_result_prompt` asks for.
#[derive(Debug, Deserialize, JsonSchema)]
struct PromptSetting {
    context: String,
}

/// A prompt that asks for its context first (an input-required round on 2026-07-28).
#[prompt(agent = Conformance, name = "test_input_required_result_prompt")]
async fn input_required_prompt(ctx: PromptContext) -> Result<String, SkillError> {
    let setting: PromptSetting = ctx
        .ask_named("user_context", "What context should the prompt use?")
        .await?;
    Ok(format!("Answer using this context: {}", setting.context))
}

/// Log three messages at info level, 50 ms apart: `tracing` events inside a skill reach the
/// MCP client as log notifications.
#[skill(agent = Conformance)]
async fn test_tool_with_logging() -> String {
    a2a_runtime::tracing::info!("Tool execution started");
    a2a_runtime::tokio::time::sleep(Duration::from_millis(50)).await;
    a2a_runtime::tracing::info!("Tool processing data");
    a2a_runtime::tokio::time::sleep(Duration::from_millis(50)).await;
    a2a_runtime::tracing::info!("Tool execution completed");
    "Logging test completed".into()
}

/// What `test_elicitation` asks for.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct UserInfo {
    /// User's response.
    username: String,
    /// User's email address.
    email: String,
}

/// "Elicitation completed: action=…, content=…", as the suite's fixtures answer.
fn elicited<T: Serialize>(
    answer: Result<T, a2a_runtime::ask::AskError>,
) -> Result<String, SkillError> {
    match answer {
        Ok(content) => Ok(format!(
            "Elicitation completed: action=accept, content={}",
            serde_json::to_string(&content).map_err(|e| SkillError::new(e.to_string()))?
        )),
        Err(a2a_runtime::ask::AskError::Declined { .. }) => {
            Ok("Elicitation completed: action=decline, content={}".into())
        }
        Err(error) => Err(error.into()),
    }
}

/// Ask the user for their name and email.
#[skill(agent = Conformance)]
async fn test_elicitation(
    /// The message to show the user.
    message: String,
    ctx: TaskContext,
) -> Result<String, SkillError> {
    let answer = ctx.ask::<UserInfo>(message).await;
    Ok(elicited(answer)?.replace("Elicitation completed:", "User response:"))
}

/// A status with a default.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
enum Status {
    #[default]
    Active,
    Inactive,
    Pending,
}

/// A form whose every field has a default (SEP-1034).
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
struct Defaults {
    name: String,
    age: i64,
    score: f64,
    status: Status,
    verified: bool,
}

impl Default for Defaults {
    fn default() -> Self {
        Self {
            name: "John Doe".into(),
            age: 30,
            score: 95.5,
            status: Status::Active,
            verified: true,
        }
    }
}

/// Ask for a form whose fields have defaults.
#[skill(agent = Conformance)]
async fn test_elicitation_sep1034_defaults(ctx: TaskContext) -> Result<String, SkillError> {
    elicited(ctx.ask::<Defaults>("Please review your details").await)
}

/// Plain choices.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Untitled {
    Option1,
    Option2,
    Option3,
}

/// Choices with titles.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Titled {
    #[schemars(title = "First Option")]
    Value1,
    #[schemars(title = "Second Option")]
    Value2,
    #[schemars(title = "Third Option")]
    Value3,
}

/// The deprecated titled form: `enum` with `enumNames`.
#[derive(Debug, Serialize, Deserialize)]
struct Legacy(String);

impl JsonSchema for Legacy {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Legacy".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        })
    }
}

/// A form with every SEP-1330 enum shape.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Enums {
    untitled_single: Untitled,
    titled_single: Titled,
    legacy_enum: Legacy,
    untitled_multi: Vec<Untitled>,
    titled_multi: Vec<Titled>,
}

/// Ask for a form with every kind of enum.
#[skill(agent = Conformance)]
async fn test_elicitation_sep1330_enums(ctx: TaskContext) -> Result<String, SkillError> {
    elicited(ctx.ask::<Enums>("Please choose").await)
}

/// Ask the client's model to answer a prompt.
#[skill(agent = Conformance)]
async fn test_sampling(
    /// The prompt to send to the model.
    prompt: String,
    ctx: TaskContext,
) -> Result<String, SkillError> {
    let sampled = ctx
        .sample(a2a_runtime::ask::Sampling::new(prompt).max_tokens(100))
        .await?;
    Ok(format!("LLM response: {}", sampled.text))
}

/// What `test_input_required_result_elicitation` asks for.
#[derive(Debug, Deserialize, JsonSchema)]
struct Name {
    name: String,
}

/// Ask for the user's name in an input-required round (2026-07-28), under the key `user_name`.
#[skill(agent = Conformance)]
async fn test_input_required_result_elicitation(ctx: TaskContext) -> Result<String, SkillError> {
    let answer: Name = ctx.ask_named("user_name", "What is your name?").await?;
    Ok(format!("Hello, {}!", answer.name))
}

/// The same, for the tampered-state scenario (a retry with an altered requestState).
#[skill(agent = Conformance)]
async fn test_input_required_result_tampered_state(ctx: TaskContext) -> Result<String, SkillError> {
    let answer: Name = ctx.ask_named("user_name", "What is your name?").await?;
    Ok(format!("Hello, {}!", answer.name))
}

/// What `test_input_required_result_request_state` asks for.
#[derive(Debug, Deserialize, JsonSchema)]
struct Confirmation {
    ok: bool,
}

/// Ask for a confirmation; the sealed requestState carries the call to the next round.
#[skill(agent = Conformance)]
async fn test_input_required_result_request_state(ctx: TaskContext) -> Result<String, SkillError> {
    let answer: Confirmation = ctx.ask_named("confirm", "Please confirm").await?;
    Ok(format!("state-ok: confirmed={}", answer.ok))
}

/// What step 2 of `test_input_required_result_multi_round` asks for.
#[derive(Debug, Deserialize, JsonSchema)]
struct Color {
    color: String,
}

/// Ask two questions, one round each.
#[skill(agent = Conformance)]
async fn test_input_required_result_multi_round(ctx: TaskContext) -> Result<String, SkillError> {
    let name: Name = ctx.ask_named("step1", "Step 1: What is your name?").await?;
    let color: Color = ctx
        .ask_named("step2", "Step 2: What is your favorite color?")
        .await?;
    Ok(format!("{} likes {}", name.name, color.color))
}

/// Ask the client's model a question in an input-required round (2026-07-28).
#[skill(agent = Conformance)]
async fn test_input_required_result_sampling(ctx: TaskContext) -> Result<String, SkillError> {
    let sampled = ctx
        .sample(
            a2a_runtime::ask::Sampling::new("What is the capital of France?")
                .named("capital_question")
                .max_tokens(100),
        )
        .await?;
    Ok(format!("LLM response: {}", sampled.text))
}

/// Ask the client for its roots in an input-required round (2026-07-28).
#[skill(agent = Conformance)]
async fn test_input_required_result_list_roots(ctx: TaskContext) -> Result<String, SkillError> {
    let roots = ctx.roots().await?;
    let listed: Vec<String> = roots.iter().map(|root| root.uri.clone()).collect();
    Ok(format!("Roots: {}", listed.join(", ")))
}

/// Ask for a name, a greeting from the client's model and the client's roots, all in one
/// input-required round (2026-07-28).
#[skill(agent = Conformance)]
async fn test_input_required_result_multiple_inputs(
    ctx: TaskContext,
) -> Result<String, SkillError> {
    let (name, greeting, roots) = ctx
        .ask_all((
            Input::<Name>::new("What is your name?").named("user_name"),
            Sampling::new("Generate a greeting")
                .named("greeting")
                .max_tokens(50),
            ListRoots::new().named("client_roots"),
        ))
        .await?;
    Ok(format!(
        "{}, {}! ({} roots)",
        greeting.text,
        name.name,
        roots.len()
    ))
}

/// Ask only what the client declared it can answer: a form if it takes forms, else its model.
#[skill(agent = Conformance)]
async fn test_input_required_result_capabilities(ctx: TaskContext) -> Result<String, SkillError> {
    match ctx
        .ask_named::<Name>("user_name", "What is your name?")
        .await
    {
        Ok(answer) => Ok(format!("Hello, {}!", answer.name)),
        Err(a2a_runtime::ask::AskError::MissingCapability { .. }) => {
            let sampled = ctx
                .sample(a2a_runtime::ask::Sampling::new("Suggest a name").named("name_suggestion"))
                .await?;
            Ok(format!("Suggested: {}", sampled.text))
        }
        Err(error) => Err(error.into()),
    }
}

/// Ask the client's model, which needs the sampling capability: a client that did not declare
/// it is refused with -32021 (2026-07-28).
#[skill(agent = Conformance)]
async fn test_missing_capability(ctx: TaskContext) -> Result<String, SkillError> {
    let sampled = ctx
        .sample(Sampling::new("Say hello").max_tokens(20))
        .await?;
    Ok(sampled.text)
}

/// Log a message at info level (the suite checks nothing is sent without a requested level).
#[skill(agent = Conformance)]
async fn test_logging_tool() -> String {
    a2a_runtime::tracing::info!("Logging tool called");
    "Logged".into()
}

/// Ask a question while the call's response stream is open (2026-07-28: an input-required
/// result, never a request of the server's own on the stream).
#[skill(agent = Conformance)]
async fn test_streaming_elicitation(ctx: TaskContext) -> Result<String, SkillError> {
    let answer: Name = ctx.ask_named("user_name", "What is your name?").await?;
    Ok(format!("Hello, {}!", answer.name))
}

/// Greet someone by name, at once (never a task).
#[skill(agent = Conformance, task_support = "forbidden")]
async fn greet(
    /// Who to greet.
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Sleep for `seconds`, then report what was computed (a task, for clients of the tasks
/// extension); canceling it while it sleeps ends it canceled.
#[skill(agent = Conformance)]
async fn slow_compute(
    /// How long to work.
    seconds: u64,
    /// A label echoed in the result.
    label: Option<String>,
    ctx: TaskContext,
) -> Result<String, SkillError> {
    a2a_runtime::tokio::select! {
        () = a2a_runtime::tokio::time::sleep(Duration::from_secs(seconds)) => {}
        () = ctx.cancelled() => return Err(SkillError::new("canceled")),
    }
    Ok(format!(
        "Computed after {seconds}s ({})",
        label.unwrap_or_default()
    ))
}

/// Fail with a tool error after about a second (always a task).
#[skill(agent = Conformance, task_support = "required")]
async fn failing_job() -> Result<String, SkillError> {
    a2a_runtime::tokio::time::sleep(Duration::from_secs(1)).await;
    Err(SkillError::new("the job failed"))
}

/// Panic: the runtime reports an internal error (always a task).
#[skill(agent = Conformance, task_support = "required")]
#[allow(clippy::panic)] // The fixture's whole point.
async fn protocol_error_job() -> String {
    panic!("protocol_error_job always panics")
}

/// What `confirm_delete` asks.
#[derive(Debug, Deserialize, JsonSchema)]
struct Confirm {
    confirm: bool,
}

/// Ask before deleting a file.
#[skill(agent = Conformance)]
async fn confirm_delete(
    /// The file to delete.
    filename: String,
    ctx: TaskContext,
) -> Result<String, SkillError> {
    let answer: Confirm = ctx
        .ask_named("confirm", format!("Delete {filename}?"))
        .await?;
    Ok(if answer.confirm {
        format!("Deleted {filename}")
    } else {
        format!("Kept {filename}")
    })
}

/// Ask for two names at once.
#[skill(agent = Conformance)]
async fn multi_input(ctx: TaskContext) -> Result<String, SkillError> {
    let (first, second) = ctx
        .ask_all((
            Input::<Name>::new("First name?").named("first"),
            Input::<Name>::new("Second name?").named("second"),
        ))
        .await?;
    Ok(format!("{} and {}", first.name, second.name))
}

/// Ask for the user's name, then work as a task: a client that can answer gets the question as
/// an input-required result and the task once it has answered.
#[skill(agent = Conformance, task_support = "required")]
async fn test_tool_with_task(ctx: TaskContext) -> Result<String, SkillError> {
    let answer: Name = ctx.ask_named("user_name", "What is your name?").await?;
    a2a_runtime::tokio::time::sleep(Duration::from_millis(100)).await;
    Ok(format!("Task done for {}", answer.name))
}
