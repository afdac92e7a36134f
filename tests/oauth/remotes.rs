//! A remote agent behind the host's authorization server: a token issued for its MCP endpoint
//! works there within the scopes its skills need (declared by the host for the remote), and is
//! refused by every other agent; the remote never sees the caller's token.

use std::collections::BTreeMap;

use a2a_runtime::oauth::OAuthServer;
use a2a_runtime::remote::RemoteA2aSettings;
use a2a_runtime::server::Host;
use a2a_tests::library::Library;
use a2a_tests::start_host;
use serde_json::json;

use super::super::{call, mcp};
use super::signed_in;

#[tokio::test]
async fn a_token_for_a_remote_agent_works_there_within_its_scopes_and_nowhere_else() {
    let remote = a2a_tests::start(currency::Currency::with_reference_rates().server()).await;
    let settings = RemoteA2aSettings {
        scopes: BTreeMap::from([("convert".to_owned(), vec!["fx:convert".to_owned()])]),
        ..RemoteA2aSettings::default()
    };
    let host = Host::new()
        .remote_agent_with("fx", remote.base.clone(), settings)
        .server("library", Library.server())
        .authorization_server(OAuthServer::dev_user("alice"));
    let server = start_host(host).await;
    let convert = call(
        "convert",
        json!({"money": {"amount": 10, "currency": "USD"}, "to": "EUR"}),
    );
    let (status, _, _) = mcp(&server, "fx/mcp", None, "tools/call", convert.clone()).await;
    assert_eq!(
        status, 401,
        "a remote's tools need a token like any agent's"
    );
    let resource = format!("{}fx/mcp", server.base);
    let (_, tokens) = signed_in(&server, &resource, "fx:convert").await;
    let access = tokens["access_token"].as_str().unwrap();
    let (status, _, called) = mcp(
        &server,
        "fx/mcp",
        Some(access),
        "tools/call",
        convert.clone(),
    )
    .await;
    assert_eq!(status, 200, "{called}");
    assert_eq!(called["result"]["isError"], false, "{called}");
    assert!(called.to_string().contains("EUR"), "{called}");
    // Another agent's endpoint, and the shared one, refuse the remote's token.
    let borrow = call("borrow", json!({"title": "Emma"}));
    let (status, challenges, answered) =
        mcp(&server, "library/mcp", Some(access), "tools/call", borrow).await;
    assert_eq!(status, 401, "{answered}");
    assert!(
        challenges.iter().any(|c| c.contains("aud")),
        "{challenges:?}"
    );
    let shared = call(
        "fx_convert",
        json!({"money": {"amount": 1, "currency": "USD"}, "to": "EUR"}),
    );
    let (status, _, _) = mcp(&server, "mcp", Some(access), "tools/call", shared).await;
    assert_eq!(status, 401);
    // A token for the remote without the skill's scope does not call it.
    let (_, narrow) = signed_in(&server, &resource, "").await;
    let narrow = narrow["access_token"].as_str().unwrap();
    let (status, challenges, refused) =
        mcp(&server, "fx/mcp", Some(narrow), "tools/call", convert).await;
    let insufficient = status == 403 && challenges.iter().any(|c| c.contains("fx:convert"));
    assert!(
        insufficient || refused.to_string().contains("fx:convert"),
        "{status} {challenges:?} {refused}"
    );
}
