//! Adding the hub to MCP hosts' configuration files, which people edit by hand: an entry is
//! added beside the others (their order and, in TOML, comments kept); an entry of the same name
//! is replaced only when it runs a `coordination-hub` (an earlier `init`) or with `--force`; a
//! file that does not parse is left alone unless `--force`. A JSON file with comments or
//! trailing commas (VS Code's and Cursor's JSONC) is edited in place ([`super::jsonc`]): its
//! comments and other servers stay, with `--force` too.

use std::path::Path;

use a2a_runtime::serde_json::value::RawValue;
use a2a_runtime::serde_json::{self, Value, json};
use indexmap::IndexMap;

/// How the hub is started: the installed binary, its arguments, its environment.
#[derive(Debug, Clone)]
pub(crate) struct Launch {
    pub(crate) command: String,
    pub(crate) args: Vec<String>,
    pub(crate) env: Vec<(String, String)>,
}

/// A team's hub served over HTTP: its MCP endpoint, and the environment variable each person
/// keeps their bearer token in (the files name the variable, never the secret).
#[derive(Debug, Clone)]
pub(crate) struct Remote {
    pub(crate) url: String,
    pub(crate) token_env: Option<String>,
}

/// What writing one file did.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Written {
    Created,
    Updated,
    Unchanged,
}

/// A JSON object read with its keys in their order, each value as written.
pub(crate) type RawObject = IndexMap<String, Box<RawValue>>;

/// Puts `entry` under `servers_key`.`name` in the JSON file at `path` (`.mcp.json`,
/// `.cursor/mcp.json`, `.vscode/mcp.json`, `.claude/settings.json`'s hooks use [`merge_json`]).
pub(crate) fn put_json_server(
    path: &Path,
    servers_key: &str,
    name: &str,
    entry: &Value,
    force: bool,
) -> Result<Written, String> {
    if let Some(text) = read(path)?
        && serde_json::from_str::<RawObject>(&text).is_err()
        && let Ok(root) = serde_json::from_str::<RawObject>(&super::jsonc::blanked(&text))
    {
        let edit = || {
            let servers = servers_of(&root, servers_key)?;
            if !may_put(&servers, name, entry, force)? {
                return Ok(Written::Unchanged);
            }
            let edited = super::jsonc::with_server(&text, servers_key, name, raw(entry)?.get())
                .ok_or_else(|| format!("`{servers_key}` is not an object"))?;
            write(path, &edited)?;
            Ok(Written::Updated)
        };
        return edit().map_err(|e: String| format!("{}: {e}", path.display()));
    }
    merge_json(path, force, |root| {
        let mut servers = servers_of(root, servers_key)?;
        if !may_put(&servers, name, entry, force)? {
            return Ok(false);
        }
        servers.insert(name.to_owned(), raw(entry)?);
        root.insert(servers_key.to_owned(), raw(&servers)?);
        Ok(true)
    })
}

/// The object `servers_key` of `root` (empty when absent).
fn servers_of(root: &RawObject, servers_key: &str) -> Result<RawObject, String> {
    match root.get(servers_key) {
        Some(raw) => serde_json::from_str(raw.get())
            .map_err(|e| format!("`{servers_key}` is not an object: {e}")),
        None => Ok(RawObject::new()),
    }
}

/// Whether `entry` is to be put as `name` among `servers`: not when it is there already, and
/// over another server of that name only with `force` or when that one runs the hub too.
fn may_put(servers: &RawObject, name: &str, entry: &Value, force: bool) -> Result<bool, String> {
    let Some(existing) = servers.get(name) else {
        return Ok(true);
    };
    let existing: Value = serde_json::from_str(existing.get()).unwrap_or(Value::Null);
    if existing == *entry {
        return Ok(false);
    }
    let same_url = existing.get("url").is_some() && existing.get("url") == entry.get("url");
    if !force && !same_url && !runs_the_hub(existing.get("command").and_then(Value::as_str)) {
        return Err(format!(
            "it already has a server named `{name}` that is not a coordination hub \
             (--force replaces it, --name picks another name)"
        ));
    }
    Ok(true)
}

/// Reads the JSON object at `path` (an empty one if there is none), lets `change` edit it
/// (answering whether it changed anything), and writes it back.
pub(crate) fn merge_json(
    path: &Path,
    force: bool,
    change: impl FnOnce(&mut RawObject) -> Result<bool, String>,
) -> Result<Written, String> {
    let existing = read(path)?;
    let mut root: RawObject = match &existing {
        None => RawObject::new(),
        Some(text) => match serde_json::from_str(text) {
            Ok(root) => root,
            Err(_) if force => RawObject::new(),
            Err(e) => {
                return Err(format!(
                    "{} is not a JSON object ({e}); fix it or pass --force to replace it",
                    path.display()
                ));
            }
        },
    };
    let changed = change(&mut root).map_err(|e| format!("{}: {e}", path.display()))?;
    if !changed {
        return Ok(Written::Unchanged);
    }
    let text = serde_json::to_string_pretty(&root).map_err(|e| e.to_string())?;
    write(path, &format!("{text}\n"))?;
    Ok(if existing.is_some() {
        Written::Updated
    } else {
        Written::Created
    })
}

/// `value` as a raw JSON value, pretty-printed to sit one level deep in a pretty-printed
/// object or list (the printer copies raw values as they are, so their lines are indented
/// here; a raw value inside `value` is indented again with it).
pub(crate) fn raw<T: serde::Serialize>(value: &T) -> Result<Box<RawValue>, String> {
    let text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
    let text = text.replace('\n', "\n  ");
    RawValue::from_string(text).map_err(|e| e.to_string())
}

/// Codex's table for a stdio hub: `command`, `args`, `env`.
pub(crate) fn codex_stdio(launch: &Launch) -> toml_edit::Table {
    use toml_edit::{Array, Item, Table, value};
    let mut server = Table::new();
    server.insert("command", value(&launch.command));
    server.insert("args", value(launch.args.iter().collect::<Array>()));
    let mut env = Table::new();
    for (key, val) in &launch.env {
        env.insert(key, value(val));
    }
    server.insert("env", Item::Table(env));
    server
}

/// Codex's table for an HTTP hub: `url`, and `bearer_token_env_var` naming the token's
/// variable.
pub(crate) fn codex_http(remote: &Remote) -> toml_edit::Table {
    use toml_edit::{Table, value};
    let mut server = Table::new();
    server.insert("url", value(&remote.url));
    if let Some(var) = &remote.token_env {
        server.insert("bearer_token_env_var", value(var));
    }
    server
}

/// Puts `server` as `[mcp_servers.NAME]` in Codex's `.codex/config.toml` at `path`.
pub(crate) fn put_codex_server(
    path: &Path,
    name: &str,
    server: toml_edit::Table,
    force: bool,
) -> Result<Written, String> {
    use toml_edit::{DocumentMut, Item, Table};
    let existing = read(path)?;
    let mut document: DocumentMut = match existing.as_deref().map(str::parse) {
        None => DocumentMut::new(),
        Some(Ok(document)) => document,
        Some(Err(_)) if force => DocumentMut::new(),
        Some(Err(e)) => {
            return Err(format!(
                "{} is not TOML ({e}); fix it or pass --force to replace it",
                path.display()
            ));
        }
    };
    let servers = document
        .entry("mcp_servers")
        .or_insert_with(|| {
            let mut table = Table::new();
            table.set_implicit(true);
            Item::Table(table)
        })
        .as_table_mut()
        .ok_or_else(|| format!("{}: `mcp_servers` is not a table", path.display()))?;
    if let Some(current) = servers.get(name) {
        if current.to_string() == Item::Table(server.clone()).to_string() {
            return Ok(Written::Unchanged);
        }
        let command = current.get("command").and_then(Item::as_str);
        let url = current.get("url").and_then(Item::as_str);
        if !force && !runs_the_hub(command) && url != server.get("url").and_then(Item::as_str) {
            return Err(format!(
                "{}: it already has a server named `{name}` that is not a coordination hub \
                 (--force replaces it, --name picks another name)",
                path.display()
            ));
        }
    }
    servers.insert(name, Item::Table(server));
    write(path, &document.to_string())?;
    Ok(if existing.is_some() {
        Written::Updated
    } else {
        Written::Created
    })
}

/// The entry of `.mcp.json` and `.cursor/mcp.json` (`mcpServers`), or with `stdio_type`,
/// of `.vscode/mcp.json` (`servers`, which names the transport).
pub(crate) fn json_entry(launch: &Launch, stdio_type: bool) -> Value {
    let env: serde_json::Map<String, Value> = launch
        .env
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    let mut entry = json!({
        "command": launch.command,
        "args": launch.args,
        "env": env,
    });
    if stdio_type && let Some(map) = entry.as_object_mut() {
        map.insert("type".into(), json!("stdio"));
    }
    entry
}

/// The JSON hosts' entry for an HTTP hub: `url`, and the bearer token as the host expands an
/// environment variable (`expand` writes `${VAR}` its way); with `typed`, `"type": "http"`
/// (Claude Code's and VS Code's files name the transport; Cursor's tells it by the `url`).
pub(crate) fn http_entry(remote: &Remote, expand: fn(&str) -> String, typed: bool) -> Value {
    let mut entry = serde_json::Map::new();
    if typed {
        entry.insert("type".into(), json!("http"));
    }
    entry.insert("url".into(), json!(remote.url));
    if let Some(var) = &remote.token_env {
        let bearer = format!("Bearer {}", expand(var));
        entry.insert("headers".into(), json!({ "Authorization": bearer }));
    }
    Value::Object(entry)
}

/// Whether an entry's command runs a coordination hub (an earlier `init` wrote it).
fn runs_the_hub(command: Option<&str>) -> bool {
    command.is_some_and(|c| {
        Path::new(c)
            .file_stem()
            .is_some_and(|stem| stem == "coordination-hub")
    })
}

fn read(path: &Path) -> Result<Option<String>, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
