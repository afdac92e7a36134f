//! `a2a new NAME`: a new agent as a crate of its own, ready to build, test and serve with no
//! edit: `Cargo.toml`, the agent and one documented skill (`src/lib.rs`), `src/main.rs` serving
//! it, a test on the authors' harness (`tests/agent.rs`), a README with the two commands, and
//! `.gitignore`; with `--with-client`, a program calling the served agent through its typed
//! client (`examples/call.rs`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What `a2a new` was asked for.
#[derive(Debug)]
pub(crate) struct Scaffold {
    /// The package name, as given (`weather-agent`).
    pub(crate) name: String,
    /// Where the crate goes.
    pub(crate) dir: PathBuf,
    /// For MCP clients: the test calls over MCP, the README configures MCP clients.
    pub(crate) mcp_only: bool,
    /// Also a program calling the agent through its typed client.
    pub(crate) with_client: bool,
    /// A checkout of the runtime to depend on (its `a2a-runtime` folder, or the checkout's
    /// root) instead of the published version.
    pub(crate) runtime_path: Option<PathBuf>,
}

/// Why a crate could not be written.
#[derive(Debug)]
pub(crate) enum ScaffoldError {
    /// The name cannot be a Cargo package name.
    Name(String),
    /// The folder exists and is not empty.
    Exists(PathBuf),
    /// `--runtime-path` does not hold the runtime.
    RuntimePath(PathBuf),
    /// A file could not be written.
    Io(PathBuf, std::io::Error),
}

impl std::fmt::Display for ScaffoldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Name(reason) => f.write_str(reason),
            Self::Exists(dir) => write!(f, "{} exists and is not empty", dir.display()),
            Self::RuntimePath(path) => write!(
                f,
                "--runtime-path {}: no a2a-runtime crate there (give the checkout or its a2a-runtime folder)",
                path.display()
            ),
            Self::Io(path, error) => write!(f, "cannot write {}: {error}", path.display()),
        }
    }
}

/// The version of the runtime a new crate depends on: this CLI's own.
const RUNTIME_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Writes the crate; the files written, relative to its folder.
pub(crate) fn write(scaffold: &Scaffold) -> Result<Vec<&'static str>, ScaffoldError> {
    let names = Names::of(&scaffold.name)?;
    let dependency = dependency(scaffold.runtime_path.as_deref())?;
    if std::fs::read_dir(&scaffold.dir).is_ok_and(|mut entries| entries.next().is_some()) {
        return Err(ScaffoldError::Exists(scaffold.dir.clone()));
    }
    let mut files = vec![
        ("Cargo.toml", cargo_toml(&names, &dependency)),
        (".gitignore", "/target\n".to_owned()),
        ("src/lib.rs", names.fill(LIB_RS)),
        ("src/main.rs", names.fill(MAIN_RS)),
        ("tests/agent.rs", names.fill(test_rs(scaffold.mcp_only))),
        ("README.md", readme(&names, scaffold)),
    ];
    if scaffold.with_client {
        files.push(("examples/call.rs", names.fill(CALL_RS)));
    }
    for (relative, text) in &files {
        let path = scaffold.dir.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| ScaffoldError::Io(parent.into(), e))?;
        }
        std::fs::write(&path, text).map_err(|e| ScaffoldError::Io(path.clone(), e))?;
    }
    Ok(files.into_iter().map(|(relative, _)| relative).collect())
}

/// What to run by hand when `a2a new` could not write the lock itself.
pub(crate) const LOCK_HINT: &str =
    "in the crate, `cargo update -p idna_adapter --precise 1.1.0` makes its first build lighter";

/// Resolves the new crate's dependencies into its Cargo.lock, with `idna_adapter` at 1.1: the
/// `url` crate's host-name processing through unicode-rs instead of ICU4X, the choice that
/// crate leaves to the application's lock (about twenty crates and their proc macros fewer in
/// the first build, the same UTS 46 behaviour). Needs `cargo` and its registry.
pub(crate) fn lock(dir: &Path) -> Result<(), String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args([
            "update",
            "--quiet",
            "-p",
            "idna_adapter",
            "--precise",
            "1.1.0",
        ])
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"))
        .output()
        .map_err(|error| format!("cannot run cargo: {error}"))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    Err(stderr
        .lines()
        .find(|l| l.starts_with("error"))
        .unwrap_or("cargo update failed")
        .to_owned())
}

/// The names a crate's files use: the package, its crate, the agent's type and title.
struct Names {
    package: String,
    krate: String,
    agent: String,
    title: String,
}

impl Names {
    fn of(name: &str) -> Result<Self, ScaffoldError> {
        let valid = name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if name.is_empty() || !valid || !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return Err(ScaffoldError::Name(format!(
                "`{name}` is not a package name: start with a letter, then letters, digits, - or _"
            )));
        }
        if RESERVED.contains(&name.replace('-', "_").as_str()) {
            return Err(ScaffoldError::Name(format!(
                "`{name}` is a Rust keyword or a built-in crate's name: pick another"
            )));
        }
        let words: Vec<&str> = name.split(['-', '_']).filter(|w| !w.is_empty()).collect();
        let capitalized = |word: &str| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        };
        let agent: String = words.iter().map(|w| capitalized(w)).collect();
        if ["Self", "Result", "Option", "String"].contains(&agent.as_str()) {
            return Err(ScaffoldError::Name(format!(
                "`{name}` would name the agent `{agent}`, which Rust already uses"
            )));
        }
        if TEMPLATE_NAMES.contains(&agent.as_str()) {
            return Err(ScaffoldError::Name(format!(
                "`{name}` would name the agent `{agent}`, which the crate's code imports from \
                 a2a-runtime: pick another (`{name}-agent`, say)"
            )));
        }
        if DEPENDENCIES.contains(&name.replace('-', "_").as_str()) {
            return Err(ScaffoldError::Name(format!(
                "`{name}` is the name of a crate the new one depends on: pick another"
            )));
        }
        Ok(Self {
            package: name.to_owned(),
            krate: name.replace('-', "_"),
            title: words
                .iter()
                .map(|w| capitalized(w))
                .collect::<Vec<_>>()
                .join(" "),
            agent,
        })
    }

    fn fill(&self, template: &str) -> String {
        template
            .replace("{{package}}", &self.package)
            .replace("{{crate}}", &self.krate)
            .replace("{{Agent}}", &self.agent)
            .replace("{{title}}", &self.title)
    }
}

/// The names the templates bring into scope besides the agent's own (the runtime's prelude, the
/// test harness): an agent of one of these names would not build.
const TEMPLATE_NAMES: &[&str] = &[
    "Input",
    "ListRoots",
    "Sampling",
    "Caller",
    "Completion",
    "PromptContent",
    "PromptContext",
    "PromptMessage",
    "ResourceContent",
    "Artifact",
    "Message",
    "Part",
    "Agent",
    "IncomingMessage",
    "Json",
    "SkillError",
    "SkillOutput",
    "State",
    "TaskContext",
    "Stream",
    "JsonSchema",
    "Deserialize",
    "Serialize",
    "TestAgent",
];

/// The crates a new crate depends on, by their crate names: a package of one of these names
/// would depend on itself.
const DEPENDENCIES: &[&str] = &["a2a_runtime"];

/// Names Cargo or rustc refuse for a package's crate: keywords and the built-in crates.
const RESERVED: &[&str] = &[
    "as",
    "async",
    "await",
    "break",
    "const",
    "continue",
    "crate",
    "dyn",
    "else",
    "enum",
    "extern",
    "false",
    "fn",
    "for",
    "if",
    "impl",
    "in",
    "let",
    "loop",
    "match",
    "mod",
    "move",
    "mut",
    "pub",
    "ref",
    "return",
    "self",
    "static",
    "struct",
    "super",
    "trait",
    "true",
    "type",
    "unsafe",
    "use",
    "where",
    "while",
    "abstract",
    "become",
    "box",
    "do",
    "final",
    "gen",
    "macro",
    "override",
    "priv",
    "try",
    "typeof",
    "unsized",
    "virtual",
    "yield",
    "std",
    "core",
    "alloc",
    "proc_macro",
    "test",
];

/// The dependency line's value: the published version, or a path to a checkout.
fn dependency(runtime_path: Option<&Path>) -> Result<String, ScaffoldError> {
    let Some(path) = runtime_path else {
        return Ok(format!("version = \"{RUNTIME_VERSION}\""));
    };
    let path = std::path::absolute(path).map_err(|e| ScaffoldError::Io(path.into(), e))?;
    let crate_dir = [path.join("a2a-runtime"), path.clone()]
        .into_iter()
        .find(|dir| {
            std::fs::read_to_string(dir.join("Cargo.toml"))
                .is_ok_and(|manifest| manifest.contains("name = \"a2a-runtime\""))
        })
        .ok_or(ScaffoldError::RuntimePath(path))?;
    Ok(format!(
        "path = {}",
        toml_string(&crate_dir.display().to_string())
    ))
}

/// `text` as a TOML basic string.
fn toml_string(text: &str) -> String {
    let mut quoted = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(quoted, "\\u{:04X}", u32::from(c));
            }
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

fn cargo_toml(names: &Names, dependency: &str) -> String {
    format!(
        r#"[package]
name = "{package}"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
a2a-runtime = {{ {dependency} }}

# The test harness (`a2a_runtime::testing`): the agent served in the test's own process.
[dev-dependencies]
a2a-runtime = {{ {dependency}, features = ["testing"] }}

# Debug builds a third faster and rebuilds twice as fast: line numbers in backtraces, no full
# debug info, none for dependencies. Remove these lines for a debugger.
[profile.dev]
debug = "line-tables-only"

[profile.dev.package."*"]
debug = false
"#,
        package = names.package
    )
}

const LIB_RS: &str = r#"//! {{title}}: an agent served to A2A peers and MCP clients by a2a-runtime.

use a2a_runtime::prelude::*;

// The doc comment below is the agent card's description (and the MCP server's instructions):
// say what the agent does.
/// Greets people by name.
#[agent]
pub struct {{Agent}};

/// Greet someone by name.
///
/// The first line of a skill's doc comment is its name on the card and its title as an MCP
/// tool; the rest describes it. Each parameter's doc comment describes it in the input's JSON
/// Schema, and an `Option` is optional.
#[skill(agent = {{Agent}}, tags = ["greeting"], examples = ["Ada"])]
pub async fn greet(
    /// Who to greet.
    name: String,
    /// How many exclamation marks, 1 to 5 (default 1).
    excitement: Option<u8>,
) -> Result<String, SkillError> {
    let name = name.trim();
    if name.is_empty() {
        // The caller is told which input was wrong (A2A: invalid params; MCP: a tool error).
        return Err(SkillError::invalid_input("name must not be empty"));
    }
    let marks = "!".repeat(usize::from(excitement.unwrap_or(1).clamp(1, 5)));
    Ok(format!("Hello, {name}{marks}"))
}
"#;

const MAIN_RS: &str = r#"//! Serves {{title}} over A2A and MCP on http://127.0.0.1:8080 (`cargo run -- --help` lists
//! the flags: the address, authentication, limits, where tasks are kept, `--stdio` for MCP).

use {{crate}}::{{Agent}};

#[a2a_runtime::main]
async fn main() -> Result<(), a2a_runtime::Error> {
    {{Agent}}.serve().await
}
"#;

/// The test: over both protocols, or over MCP alone.
fn test_rs(mcp_only: bool) -> &'static str {
    if mcp_only { TEST_MCP_RS } else { TEST_RS }
}

const TEST_RS: &str = r#"//! {{title}} served in the test's own process (a2a_runtime::testing), called as a peer would:
//! through its typed client over A2A and over MCP.

use a2a_runtime::testing::TestAgent;
use {{crate}}::{{{Agent}}, {{Agent}}Client};

#[a2a_runtime::tokio::test(crate = "a2a_runtime::tokio")]
async fn greets_over_a2a_and_mcp() -> Result<(), Box<dyn std::error::Error>> {
    let agent = TestAgent::start({{Agent}}.server()).await?;
    let over_a2a: {{Agent}}Client = agent.client().await?;
    assert_eq!(over_a2a.greet("Ada".into(), None).await?, "Hello, Ada!");
    let over_mcp: {{Agent}}Client = agent.mcp_client().await?;
    assert_eq!(over_mcp.greet("Ada".into(), Some(3)).await?, "Hello, Ada!!!");
    Ok(())
}

#[a2a_runtime::tokio::test(crate = "a2a_runtime::tokio")]
async fn an_empty_name_is_refused_naming_it() -> Result<(), Box<dyn std::error::Error>> {
    let agent = TestAgent::start({{Agent}}.server()).await?;
    let client: {{Agent}}Client = agent.client().await?;
    let refused = client.greet("  ".into(), None).await;
    assert!(matches!(&refused, Err(error) if error.to_string().contains("name")), "{refused:?}");
    Ok(())
}
"#;

const TEST_MCP_RS: &str = r#"//! {{title}} served in the test's own process (a2a_runtime::testing), called as an MCP client
//! would: its skill is a tool, called through the typed client over MCP.

use a2a_runtime::testing::TestAgent;
use {{crate}}::{{{Agent}}, {{Agent}}Client};

#[a2a_runtime::tokio::test(crate = "a2a_runtime::tokio")]
async fn the_greet_tool_answers() -> Result<(), Box<dyn std::error::Error>> {
    let agent = TestAgent::start({{Agent}}.server()).await?;
    let client: {{Agent}}Client = agent.mcp_client().await?;
    assert_eq!(client.greet("Ada".into(), Some(3)).await?, "Hello, Ada!!!");
    let refused = client.greet("  ".into(), None).await;
    assert!(matches!(&refused, Err(error) if error.to_string().contains("name")), "{refused:?}");
    Ok(())
}
"#;

const CALL_RS: &str = r#"//! Calls the served agent through its typed client: start it with `cargo run`, then
//! `cargo run --example call -- Ada` (or `-- Ada http://host:port/`).

use {{crate}}::{{Agent}}Client;

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "Ada".to_owned());
    let url = args.next().unwrap_or_else(|| "http://127.0.0.1:8080/".to_owned());
    let client = {{Agent}}Client::connect(url).await?;
    println!("{}", client.greet(name, None).await?);
    Ok(())
}
"#;

fn readme(names: &Names, scaffold: &Scaffold) -> String {
    let mut text = names.fill(README_HEAD);
    text.push_str(&names.fill(if scaffold.mcp_only {
        README_MCP
    } else {
        README_A2A
    }));
    if scaffold.with_client {
        text.push_str(&names.fill(README_CLIENT));
    }
    text.push_str(README_TAIL);
    text
}

const README_HEAD: &str = r#"# {{title}}

An agent built with [a2a-runtime](https://crates.io/crates/a2a-runtime): its skills are async
Rust functions in `src/lib.rs`, served to A2A peers and MCP clients from the same definitions.

## Two commands

```sh
cargo run      # serves the agent on http://127.0.0.1:8080 (A2A, and MCP at /mcp)
cargo test     # its tests: the agent served in-process, called through its typed client
```

"#;

const README_A2A: &str = r#"## Calling it

- A2A: the card is at http://127.0.0.1:8080/.well-known/agent-card.json; with the `a2a` CLI,
  `a2a send http://127.0.0.1:8080 --skill greet --data '{"name": "Ada"}'`.
- MCP: point a client at http://127.0.0.1:8080/mcp (streamable HTTP), or run it over stdio with
  `cargo run -- --stdio`.
- The console, to try each skill from a form: http://127.0.0.1:8080/console.
"#;

const README_MCP: &str = r#"## Adding it to an MCP client

Each skill is an MCP tool. Over streamable HTTP, while `cargo run` serves:

```sh
claude mcp add --transport http {{package}} http://127.0.0.1:8080/mcp
```

Over stdio (the client starts the agent itself), for example in `.vscode/mcp.json`:

```json
{"servers": {"{{package}}": {"type": "stdio", "command": "cargo", "args": ["run", "-q", "--manifest-path", "/path/to/{{package}}/Cargo.toml", "--", "--stdio"]}}}
```

The same agent also publishes an A2A card (http://127.0.0.1:8080/.well-known/agent-card.json)
for agents that call it over A2A.
"#;

const README_CLIENT: &str = r#"
## Calling it from Rust

`#[agent]` generates a typed client, `{{Agent}}Client`: `examples/call.rs` calls the served
agent with it (`cargo run --example call -- Ada`).
"#;

const README_TAIL: &str = r#"
## Next

Add a skill: another `#[skill(agent = ...)]` async fn in `src/lib.rs`; its inputs and output
can be any types deriving `Serialize`, `Deserialize` and `JsonSchema`. The runtime's guides
(docs.rs/a2a-runtime) cover streaming, questions, authentication and durable tasks.
"#;
