//! `a2a manifest`: the discovery documents written out, and nothing else.

use super::*;

/// Every file below `dir`, by its path from `dir` (with `/` first).
fn files_below(dir: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else {
                let relative = path.strip_prefix(dir).unwrap().to_str().unwrap();
                found.push(format!("/{relative}"));
            }
        }
    }
    found.sort();
    found
}

#[tokio::test]
async fn manifest_writes_every_document_as_the_server_serves_it() {
    let server = start(Lab.server()).await;
    let out = config_dir("manifest");
    let said = stdout(&a2a(&["manifest", &server.base, "--out", out.to_str().unwrap()]).await);
    assert!(
        said.contains("put this line in the crate's README: mcp-name: "),
        "{said}"
    );
    let written = files_below(&out);
    for path in [
        "/.well-known/agent-card.json",
        "/.well-known/ai-catalog.json",
        "/.well-known/mcp/catalog.json",
        "/.well-known/agent-skills/index.json",
        "/.well-known/agent-skills/lab/SKILL.md",
        "/mcp/server-card",
        "/mcp/server.json",
    ] {
        assert!(written.iter().any(|w| w == path), "{path} in {written:?}");
    }
    for path in &written {
        let on_disk = std::fs::read_to_string(out.join(&path[1..])).unwrap();
        let url = format!("{}{}", server.base.trim_end_matches('/'), path);
        let served = a2a_tests::get(&url).await.unwrap().text().await.unwrap();
        assert_eq!(on_disk, served, "{path}");
    }
}

#[tokio::test]
async fn manifest_of_an_unreachable_server_fails_and_writes_nothing() {
    let out = config_dir("manifest-unreachable");
    let output = a2a(&[
        "manifest",
        "http://127.0.0.1:9/",
        "--out",
        out.to_str().unwrap(),
        "--timeout",
        "2s",
    ])
    .await;
    assert_eq!(output.status.code(), Some(1));
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.starts_with("a2a manifest: "), "{said}");
    assert!(!out.exists() || files_below(&out).is_empty());
}

#[tokio::test]
async fn manifest_writes_only_discovery_documents_whatever_a_catalog_names() {
    let hostile = a2a_tests::hostile::catalog_naming_repository_files().await;
    // Run in a repository: its hook, README and source must come out as they went in.
    let repository = config_dir("manifest-hostile");
    let files = [".git/hooks/pre-commit", "README.md", "src/main.rs"];
    for file in files {
        let path = repository.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "original\n").unwrap();
    }
    let out = repository.to_str().unwrap();
    let output = a2a(&["manifest", &hostile, "--out", out, "--force"]).await;
    assert_eq!(output.status.code(), Some(1));
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("refusing to write") && said.contains("not a discovery document"),
        "{said}"
    );
    for file in files {
        let text = std::fs::read_to_string(repository.join(file)).unwrap();
        assert_eq!(text, "original\n", "{file} was overwritten");
    }
}

#[tokio::test]
async fn manifest_replaces_no_existing_file_without_force() {
    let server = start(Lab.server()).await;
    let out = config_dir("manifest-again");
    let dir = out.to_str().unwrap();
    stdout(&a2a(&["manifest", &server.base, "--out", dir]).await);
    let card = out.join(".well-known").join("agent-card.json");
    std::fs::write(&card, "edited by hand\n").unwrap();
    let again = a2a(&["manifest", &server.base, "--out", dir]).await;
    assert_eq!(again.status.code(), Some(1));
    let said = String::from_utf8_lossy(&again.stderr);
    assert!(said.contains("--force"), "{said}");
    assert_eq!(std::fs::read_to_string(&card).unwrap(), "edited by hand\n");
    stdout(&a2a(&["manifest", &server.base, "--out", dir, "--force"]).await);
    assert_ne!(std::fs::read_to_string(&card).unwrap(), "edited by hand\n");
}
