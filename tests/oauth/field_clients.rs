//! The registrations and client ID metadata documents real clients send, as their public
//! sources show them (each fixture names its source; facts only, written here).

use serde_json::{Value, json};

/// How a client introduces itself to the authorization server.
pub(super) enum Introduction {
    /// A dynamic registration (RFC 7591) with this body.
    Registers(Value),
    /// A client ID metadata document, made of the URL it is served at (its `client_id`).
    Documented(fn(&str) -> Value),
}

/// One client as it meets the server: its name, how it introduces itself, and the redirect it
/// completes the flow through.
pub(super) struct FieldClient {
    pub(super) name: &'static str,
    pub(super) introduction: Introduction,
    pub(super) redirect: &'static str,
}

/// Every row of the field table: the hosted assistants, the editors and the tools.
pub(super) fn field_clients() -> Vec<FieldClient> {
    use Introduction::{Documented, Registers};
    vec![
        FieldClient {
            name: "claude-ai-cimd",
            introduction: Documented(claude_ai_document),
            redirect: "https://claude.ai/api/mcp/auth_callback",
        },
        FieldClient {
            name: "vscode-cimd",
            introduction: Documented(vscode_document),
            redirect: "http://127.0.0.1:33418/",
        },
        FieldClient {
            name: "vscode-dcr",
            introduction: Registers(vscode()),
            redirect: "https://vscode.dev/redirect",
        },
        FieldClient {
            name: "cursor-dcr",
            introduction: Registers(cursor()),
            redirect: "https://www.cursor.com/agents/mcp/oauth/callback",
        },
        FieldClient {
            name: "claude-dcr",
            introduction: Registers(claude()),
            redirect: "https://claude.ai/api/mcp/auth_callback",
        },
        FieldClient {
            name: "chatgpt-dcr",
            introduction: Registers(chatgpt()),
            redirect: "https://chatgpt.com/connector/oauth/c-7f3a",
        },
        FieldClient {
            name: "claude-code-dcr",
            introduction: Registers(claude_code()),
            redirect: "http://localhost:52817/callback",
        },
        FieldClient {
            name: "claude-code-cimd",
            introduction: Documented(claude_code_document),
            redirect: "http://localhost:49321/callback",
        },
        FieldClient {
            name: "inspector-dcr",
            introduction: Registers(inspector()),
            redirect: "http://localhost:6274/oauth/callback",
        },
        // Its document names port 33418; it listens and authorizes on another.
        FieldClient {
            name: "copilot-cli-cimd",
            introduction: Documented(copilot_cli_document),
            redirect: "http://127.0.0.1:61876/",
        },
        // Its document names `/callback` with no port; it authorizes on a port and a path of
        // its own.
        FieldClient {
            name: "opencode-cimd",
            introduction: Documented(opencode_document),
            redirect: "http://127.0.0.1:19876/mcp/oauth/callback",
        },
    ]
}

/// claude.ai's client ID metadata document: a public client that also asks for the JWT bearer
/// grant, which this server does not issue (anthropics/claude-ai-mcp#487; PostHog/posthog#48397).
fn claude_ai_document(client_id: &str) -> Value {
    json!({
        "client_id": client_id,
        "client_name": "Claude",
        "client_uri": "https://claude.ai",
        "redirect_uris": ["https://claude.ai/api/mcp/auth_callback"],
        "grant_types": ["authorization_code", "refresh_token",
                        "urn:ietf:params:oauth:grant-type:jwt-bearer"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    })
}

/// VS Code's client ID metadata document: its web and loopback redirects, and the device code
/// grant besides (microsoft/vscode `src/vs/base/common/oauth.ts`; microsoft/vscode#278512).
fn vscode_document(client_id: &str) -> Value {
    let mut document = vscode();
    document["client_id"] = client_id.into();
    document["grant_types"] = json!([
        "authorization_code",
        "refresh_token",
        "urn:ietf:params:oauth:grant-type:device_code"
    ]);
    document
        .as_object_mut()
        .map(|fields| fields.remove("scope"));
    document
}

/// Claude Code's client ID metadata document: port-less loopback callbacks (it listens on any
/// port, `--callback-port`), a public native client (elmohq/elmo#684).
fn claude_code_document(client_id: &str) -> Value {
    json!({
        "client_id": client_id,
        "client_name": "Claude Code",
        "redirect_uris": ["http://localhost/callback", "http://127.0.0.1/callback"],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        "application_type": "native",
    })
}

/// Cursor's dynamic registration: its app's private scheme, its web callback and a loopback
/// one in one request, as a public client (erp-mafia/accounted PR #2225; laravel/mcp #173;
/// soflyy/agent-connector-for-wp#111).
pub(super) fn cursor() -> Value {
    json!({
        "client_name": "Cursor",
        "redirect_uris": [
            "cursor://anysphere.cursor-mcp/oauth/callback",
            "https://www.cursor.com/agents/mcp/oauth/callback",
            "http://localhost:8787/callback",
        ],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    })
}

/// VS Code's dynamic registration (microsoft/vscode `src/vs/base/common/oauth.ts`;
/// microsoft/vscode#278512): its web redirects and two loopback ones, a native public client
/// asking for the protected resource's scopes joined (empty here).
pub(super) fn vscode() -> Value {
    json!({
        "client_name": "Visual Studio Code",
        "client_uri": "https://code.visualstudio.com/",
        "redirect_uris": [
            "https://insiders.vscode.dev/redirect",
            "https://vscode.dev/redirect",
            "http://127.0.0.1/",
            "http://127.0.0.1:33418/",
        ],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        "application_type": "native",
        "scope": "",
    })
}

/// Claude's hosted connector registering dynamically: a confidential client posting its
/// secret, sent from Anthropic's backend (anthropics/claude-ai-mcp#1043).
fn claude() -> Value {
    json!({
        "client_name": "Claude",
        "redirect_uris": ["https://claude.ai/api/mcp/auth_callback"],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "client_secret_post",
    })
}

/// A ChatGPT connector: one callback per connector and a public PKCE client (OpenAI's
/// connector docs; makeplane/plane-mcp-server PR #165; garrytan/gbrain#894 for `none`).
fn chatgpt() -> Value {
    json!({
        "client_name": "ChatGPT",
        "redirect_uris": ["https://chatgpt.com/connector/oauth/c-7f3a"],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    })
}

/// Claude Code registering dynamically: "Claude Code (<server>)", a loopback callback on the
/// port it listens on (elmohq/elmo#684).
fn claude_code() -> Value {
    json!({
        "client_name": "Claude Code (library)",
        "redirect_uris": ["http://localhost:52817/callback"],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    })
}

/// MCP Inspector's registration: its local callback, its home page and an empty scope
/// (modelcontextprotocol/inspector).
fn inspector() -> Value {
    json!({
        "client_name": "MCP Inspector",
        "client_uri": "https://github.com/modelcontextprotocol/inspector",
        "redirect_uris": ["http://localhost:6274/oauth/callback"],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        "scope": "",
    })
}

/// GitHub Copilot CLI's client ID metadata document: one loopback callback on port 33418, while
/// the CLI listens (and authorizes) on an ephemeral port (github/copilot-cli#1951, #4793,
/// #4901, which quotes the document).
fn copilot_cli_document(client_id: &str) -> Value {
    json!({
        "client_id": client_id,
        "client_name": "GitHub Copilot CLI",
        "application_type": "native",
        "token_endpoint_auth_method": "none",
        "redirect_uris": ["http://127.0.0.1:33418/"],
    })
}

/// opencode's client ID metadata document: a port-less loopback `/callback`, while it authorizes
/// with `http://127.0.0.1:19876/mcp/oauth/callback` (anomalyco/opencode#50510).
fn opencode_document(client_id: &str) -> Value {
    json!({
        "client_id": client_id,
        "client_name": "opencode",
        "redirect_uris": ["http://127.0.0.1/callback"],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    })
}
