//! Every key and parameter kind in one place.

use a2a_runtime::prelude::*;
use a2a_runtime::{skills::Json, Part};

/// Converts things.
#[agent(
    name = "Converter",
    version = "2.0.0",
    provider(organization = "Acme", url = "https://acme.example"),
    documentation_url = "https://acme.example/docs",
    icon_url = "https://acme.example/icon.png",
    default_input_modes = ["application/json"],
    default_output_modes = ["application/json", "text/plain"],
    skills(convert, parts),
    security(
        api_key(query = "key", description = "A key from the dashboard."),
        bearer(name = "jwt"),
        oauth2(
            metadata_url = "https://auth.acme.example/.well-known/oauth-authorization-server",
            client_credentials(token_url = "https://auth.acme.example/token"),
        ),
        openid_connect(url = "https://id.acme.example/.well-known/openid-configuration"),
        mtls,
    ),
)]
struct Converter {
    factor: f64,
}

/// A target unit.
#[derive(Debug, Deserialize, JsonSchema)]
enum Unit {
    Metres,
    Feet,
}

/// A result.
#[derive(Serialize, JsonSchema)]
struct Converted {
    value: f64,
}

/// Convert a length.
///
/// Longer description.
#[skill(
    agent = Converter,
    id = "convert.length",
    name = "Convert length",
    tags = ["units"],
    examples = ["3 feet in metres"],
    input_modes = ["application/json"],
    output_modes = ["application/json"],
    scopes = ["units:read"],
    extended_only,
    resume = "rerun",
    read_only = true,
    destructive = false,
    idempotent = true,
    open_world = false,
    default,
)]
async fn convert(
    state: State<Converter>,
    /// The value.
    value: f64,
    /// The unit to convert to.
    to: Unit,
    /// Round the result.
    round: Option<bool>,
    ctx: TaskContext,
) -> Result<Json<Converted>, SkillError> {
    ctx.check_cancelled()?;
    let _ = (to, round);
    Ok(Json(Converted { value: value * state.factor }))
}

/// Return raw parts.
#[skill(agent = Converter)]
async fn parts() -> Vec<Part> {
    vec![Part::text("hi")]
}

/// A skill whose error type converts with `?`.
#[skill(agent = Converter)]
async fn parse(
    /// A number.
    text: String,
) -> Result<i64, std::num::ParseIntError> {
    text.parse()
}

/// Stream numbered lines, reporting progress along the way.
#[skill(agent = Converter)]
async fn lines(
    ctx: TaskContext,
    /// How many lines.
    count: u32,
) -> Result<impl Stream<Item = Result<String, SkillError>>, SkillError> {
    ctx.progress_of(0, u64::from(count));
    ctx.progress("starting");
    ctx.artifact(Part::text("header"));
    Ok(a2a_runtime::futures::stream::iter(
        (0..count).map(|n| Ok(format!("{n}\n"))),
    ))
}

/// Send an artifact in chunks.
#[skill(agent = Converter)]
async fn chunked(ctx: TaskContext) {
    let mut writer = ctx.artifact_writer("chunks");
    writer.append("one");
    writer.finish_with(Part::text("two"));
}

fn main() {
    let _ = Converter { factor: 1.0 }.server();
}
