//! The discovery documents a served agent and a host publish (MCP server cards and registry
//! entries, Agent Skills, the AI Catalog and MCP catalog), fetched over a real socket and
//! checked against their published schemas (`fixtures/discovery/`) and the AI Catalog's
//! reference validator; their caching and cross-origin reading; `--print-manifests`.

use a2a_runtime::server::Host;
use a2a_tests::vault::Vault;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// A published schema from the fixtures, compiled with formats asserted.
fn schema(file: &str, root: Option<&str>) -> jsonschema::Validator {
    let path = format!("{}/fixtures/discovery/{file}", env!("CARGO_MANIFEST_DIR"));
    let mut schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    if let Some(root) = root {
        schema["$ref"] = json!(root);
    }
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap()
}

/// `document` has no errors against `validator`.
fn assert_valid(validator: &jsonschema::Validator, document: &Value, what: &str) {
    let errors: Vec<String> = validator
        .iter_errors(document)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:#?}\n{document:#}");
}

/// A GET of `url`: its status, media type and body.
async fn fetch(url: &str, accept: &str) -> (u16, String, String) {
    let response = a2a_tests::http()
        .get(url)
        .header("accept", accept)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let media_type = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (status, media_type, response.text().await.unwrap())
}

/// The JSON document at `url`, which must be served as `media_type`.
async fn document(url: &str, media_type: &str) -> Value {
    let (status, served_as, body) = fetch(url, media_type).await;
    assert_eq!(status, 200, "{url}: {body}");
    assert_eq!(served_as, media_type, "{url}");
    serde_json::from_str(&body).unwrap()
}

fn sha256(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// Checks every document reachable from the AI Catalog at `base`: the catalog itself with the
/// reference validator, each server card and registry entry against its schema, each
/// `SKILL.md` against the index's digest and the Agent Skills rules. Returns the catalog.
async fn check_discovery(base: &str) -> Value {
    let catalog = document(
        &format!("{base}.well-known/ai-catalog.json"),
        "application/ai-catalog+json",
    )
    .await;
    let parsed: ai_catalog::AiCatalog = serde_json::from_value(catalog.clone()).unwrap();
    let verdict = ai_catalog_validate::validate(&parsed);
    assert!(verdict.is_valid, "{:#?}", verdict.errors);
    assert!(verdict.warnings.is_empty(), "{:#?}", verdict.warnings);
    assert_eq!(
        verdict.conformance_level,
        ai_catalog_validate::ConformanceLevel::Discoverable
    );
    let cards = schema("server-card.schema.json", Some("#/$defs/ServerCard"));
    let registry = schema("server.schema.json", None);
    for entry in catalog["entries"].as_array().unwrap() {
        let url = entry["url"].as_str().unwrap();
        match entry["type"].as_str().unwrap() {
            "application/mcp-server-card+json" => {
                let card = document(url, "application/mcp-server-card+json").await;
                assert_valid(&cards, &card, url);
                let sibling = url.replace("/server-card", "/server.json");
                let entry = document(&sibling, "application/json").await;
                assert_valid(&registry, &entry, &sibling);
                assert_eq!(entry["name"], card["name"], "{sibling}");
                // Every example crate is `publish = false`: no package crates.io lacks.
                assert_eq!(entry.get("packages"), None, "{sibling}: {entry}");
            }
            "application/a2a-agent-card+json" => {
                let card = document(url, "application/json").await;
                assert_eq!(card["name"], entry["displayName"], "{url}");
            }
            "application/agent-skills+md" => {
                let (status, media_type, _) = fetch(url, "text/markdown").await;
                assert_eq!(
                    (status, media_type.as_str()),
                    (200, "text/markdown; charset=utf-8")
                );
            }
            other => panic!("an entry of unexpected type {other}: {entry}"),
        }
    }
    check_skills(base).await;
    catalog
}

/// The Agent Skills index at `base`: valid, and each `SKILL.md` it names has its digest, its
/// name and its description.
async fn check_skills(base: &str) {
    let index = document(
        &format!("{base}.well-known/agent-skills/index.json"),
        "application/json",
    )
    .await;
    assert_valid(
        &schema("agent-skills-index.schema.json", None),
        &index,
        "skills index",
    );
    for skill in index["skills"].as_array().unwrap() {
        let url = skill["url"].as_str().unwrap();
        let bytes = a2a_tests::get(url).await.unwrap().bytes().await.unwrap();
        assert_eq!(skill["digest"], sha256(&bytes), "{url}");
        let text = String::from_utf8(bytes.to_vec()).unwrap();
        let front = text
            .strip_prefix("---\n")
            .and_then(|rest| rest.split_once("\n---\n"))
            .map(|(front, _)| front)
            .unwrap_or_else(|| panic!("front matter in {url}"));
        assert!(front.contains(&format!("name: {}\n", skill["name"].as_str().unwrap())));
        let description = front
            .lines()
            .find_map(|line| line.strip_prefix("description: "))
            .unwrap();
        let description: String = serde_json::from_str(description).unwrap();
        assert_eq!(skill["description"], description, "{url}");
        assert!(text.contains("\"method\":\"SendMessage\""), "{url}");
        assert!(text.contains("\"method\":\"tools/call\""), "{url}");
    }
}

#[tokio::test]
async fn an_agents_documents_are_valid_against_their_published_schemas() {
    let server = a2a_tests::start(currency::Currency::with_reference_rates().server()).await;
    let catalog = check_discovery(&server.base).await;
    let kinds: Vec<&str> = catalog["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "application/a2a-agent-card+json",
            "application/mcp-server-card+json",
            "application/agent-skills+md"
        ]
    );
    let card = server.get_json("mcp/server-card").await;
    let remote = &card["remotes"][0];
    assert_eq!(remote["url"], format!("{}mcp", server.base));
    let versions = remote["supportedProtocolVersions"].as_array().unwrap();
    assert!(versions.contains(&json!("2026-07-28")) && versions.contains(&json!("2025-11-25")));
    let mcp = server.get_json(".well-known/mcp/catalog.json").await;
    assert_eq!(
        mcp["entries"][0]["url"],
        format!("{}mcp/server-card", server.base)
    );
}

/// The currency and booking examples on one host with its shared MCP endpoint.
fn two_agents() -> Host {
    Host::new()
        .name("Travel desk")
        .agent("currency", currency::Currency::with_reference_rates())
        .agent("booking", booking::Booking::default())
        .primary("booking")
        .shared_mcp(true)
}

#[tokio::test]
async fn a_host_lists_every_agent_and_serves_each_ones_documents() {
    let server = a2a_tests::start_host(two_agents()).await;
    let base = &server.base;
    let catalog = check_discovery(base).await;
    let urls: Vec<&str> = catalog["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["url"].as_str().unwrap())
        .collect();
    for id in ["currency", "booking"] {
        assert!(
            urls.contains(&format!("{base}{id}/mcp/server-card").as_str()),
            "{urls:?}"
        );
        // Each agent's own documents, under its path.
        check_discovery(&format!("{base}{id}/")).await;
    }
    let shared = format!("{base}mcp/server-card");
    assert!(urls.contains(&shared.as_str()), "{urls:?}");
    // The host's registry entry: its agents' endpoints as one URL template.
    let entry = server.get_json("mcp/server.json").await;
    let remote = &entry["remotes"][0];
    assert_eq!(remote["url"], format!("{base}{{agent}}/mcp"));
    assert_eq!(
        remote["variables"]["agent"]["choices"],
        json!(["booking", "currency"])
    );
    assert_eq!(remote["variables"]["agent"]["default"], "booking");
    assert_valid(
        &schema("server.schema.json", None),
        &entry,
        "host server.json",
    );
    // The shared endpoint serves every agent's SKILL.md through the skills extension.
    let asking = json!({"extensions": {"io.modelcontextprotocol/skills": {}}});
    let listed = modern(&server, "skills/list", json!({}), asking).await;
    let names: Vec<&str> = listed["result"]["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|skill| skill["frontmatter"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["currency", "booking"], "{listed}");
}

#[tokio::test]
async fn documents_revalidate_with_their_etag_and_are_readable_from_any_page() {
    let server = a2a_tests::start(currency::Currency::with_reference_rates().server()).await;
    for path in [
        "mcp/server-card",
        ".well-known/ai-catalog.json",
        ".well-known/agent-skills/index.json",
    ] {
        let url = format!("{}{path}", server.base);
        let first = a2a_tests::http()
            .get(&url)
            .header("origin", "https://registry.example")
            .send()
            .await
            .unwrap();
        assert_eq!(first.status(), 200, "{path}");
        let headers = first.headers();
        assert_eq!(headers["access-control-allow-origin"], "*", "{path}");
        assert_eq!(headers["cache-control"], "public, max-age=3600", "{path}");
        let etag = headers["etag"].to_str().unwrap().to_owned();
        assert!(etag.starts_with('"') && !etag.starts_with("W/"), "{etag}");
        let again = a2a_tests::http()
            .get(&url)
            .header("if-none-match", &etag)
            .send()
            .await
            .unwrap();
        assert_eq!(again.status(), 304, "{path}");
        assert_eq!(again.headers()["etag"], etag.as_str());
        // A page revalidating sends If-None-Match, which needs a preflight.
        let preflight = a2a_tests::http()
            .request(reqwest::Method::OPTIONS, &url)
            .header("origin", "https://registry.example")
            .header("access-control-request-method", "GET")
            .header("access-control-request-headers", "if-none-match")
            .send()
            .await
            .unwrap();
        assert_eq!(preflight.status(), 200, "{path}");
        let allowed = preflight.headers()["access-control-allow-headers"]
            .to_str()
            .unwrap()
            .to_ascii_lowercase();
        assert!(allowed.contains("if-none-match"), "{allowed}");
    }
}

#[tokio::test]
async fn server_cards_name_the_crate_and_the_credentials_a_connection_needs() {
    let keys = a2a_runtime::auth::ApiKeys::parse("alice=alice-key-0123456789").unwrap();
    let jwt = a2a_runtime::auth::JwtConfig::hs256(a2a_tests::tokens::SECRET);
    let server = a2a_tests::start(Vault.server().api_keys(keys).jwt(jwt)).await;
    let card = server.get_json("mcp/server-card").await;
    assert_valid(
        &schema("server-card.schema.json", Some("#/$defs/ServerCard")),
        &card,
        "vault's card",
    );
    let headers = card["remotes"][0]["headers"].as_array().unwrap();
    let named = |name: &str| headers.iter().find(|h| h["name"] == name).unwrap().clone();
    let key = named("X-API-Key");
    // Either credential will do: neither header alone is required.
    assert_eq!(
        (key["isSecret"].clone(), key["isRequired"].clone()),
        (json!(true), json!(false))
    );
    let bearer = named("Authorization");
    assert_eq!(bearer["value"], "Bearer {token}");
    assert_eq!(bearer["variables"]["token"]["isSecret"], true);
    let entry = server.get_json("mcp/server.json").await;
    assert_valid(
        &schema("server.schema.json", None),
        &entry,
        "vault's server.json",
    );
    // The vault's crate (this one) is `publish = false`: nobody can `cargo install` it, so the
    // entry lists the remote alone.
    assert_eq!(entry.get("packages"), None, "{entry}");
    assert_eq!(entry["remotes"][0]["type"], "streamable-http", "{entry}");
    let index = server.get_json(".well-known/agent-skills/index.json").await;
    let url = index["skills"][0]["url"].as_str().unwrap();
    let text = a2a_tests::get(url).await.unwrap().text().await.unwrap();
    assert!(
        text.contains("Calls need one of: an API key in the `X-API-Key` header; `Authorization: Bearer <JWT>`."),
        "{text}"
    );
    assert!(text.contains("Needs the scopes: `vault:open`."), "{text}");
}

/// An MCP request of the stateless revision from a client declaring `capabilities`: the
/// JSON-RPC response.
async fn modern(
    server: &a2a_tests::TestServer,
    method: &str,
    params: Value,
    capabilities: Value,
) -> Value {
    // SEP-2243: a resource read names its URI in `Mcp-Name`.
    let uri = params.get("uri").and_then(Value::as_str).map(str::to_owned);
    let headers: Vec<(&str, &str)> = match (method, uri.as_deref()) {
        ("resources/read", Some(uri)) => vec![("mcp-name", uri)],
        _ => Vec::new(),
    };
    let (status, body) = server
        .mcp_modern_with(method, params, capabilities, &headers)
        .await;
    let body = a2a_tests::response_from(&body);
    assert!(
        status == 200 || body["error"]["code"] == -32602,
        "{method}: {status} {body}"
    );
    body
}

#[tokio::test]
async fn the_skills_extension_serves_each_skill_md_to_clients_that_ask_for_it() {
    const EXTENSION: &str = "io.modelcontextprotocol/skills";
    let server = a2a_tests::start(currency::Currency::with_reference_rates().server()).await;
    let asking = json!({"extensions": {EXTENSION: {}}});
    let discovered = modern(&server, "server/discover", json!({}), asking.clone()).await;
    let declared = &discovered["result"]["capabilities"]["extensions"][EXTENSION];
    assert!(declared.is_object(), "{discovered}");

    let index = server.get_json(".well-known/agent-skills/index.json").await;
    let served = &index["skills"][0];
    let listed = modern(&server, "skills/list", json!({}), asking.clone()).await;
    let entry = &listed["result"]["skills"][0];
    let uri = "skill://currency-agent/SKILL.md";
    assert_eq!(entry["uri"], uri, "{listed}");
    assert_eq!(entry["frontmatter"]["name"], served["name"]);
    assert_eq!(entry["frontmatter"]["description"], served["description"]);
    let url = served["url"].as_str().unwrap();
    let size = a2a_tests::get(url)
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap()
        .len();
    assert_eq!(
        entry["resources"],
        json!([{"uri": uri, "digest": served["digest"], "size": size}])
    );
    assert!(listed["result"]["ttlMs"].is_u64(), "{listed}");

    let read = modern(
        &server,
        "resources/read",
        json!({"uri": uri}),
        asking.clone(),
    )
    .await;
    let text = read["result"]["contents"][0]["text"].as_str().unwrap();
    assert_eq!(
        sha256(text.as_bytes()),
        served["digest"],
        "the digest of what is read"
    );
    assert_eq!(read["result"]["contents"][0]["mimeType"], "text/markdown");

    let got = modern(&server, "skills/get", json!({"uri": uri}), asking.clone()).await;
    assert_eq!(got["result"]["skill"], *entry);
    let unknown = modern(
        &server,
        "skills/get",
        json!({"uri": "skill://nope/SKILL.md"}),
        asking.clone(),
    )
    .await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");

    let uris = |listed: &Value| -> Vec<String> {
        let resources = listed["result"]["resources"].as_array().unwrap();
        resources
            .iter()
            .map(|r| r["uri"].as_str().unwrap().to_owned())
            .collect()
    };
    let with = modern(&server, "resources/list", json!({}), asking).await;
    assert!(uris(&with).contains(&uri.to_owned()), "{with}");
    let without = modern(&server, "resources/list", json!({}), json!({})).await;
    assert!(!uris(&without).contains(&uri.to_owned()), "{without}");
}
