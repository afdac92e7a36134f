//! What the cards say of security: each scheme and each skill's requirements on the public card,
//! the extended card for authenticated callers only.

use super::*;

#[tokio::test]
async fn the_card_publishes_the_schemes_and_each_skills_requirements() {
    let server = start(secured()).await;
    let card = server.card().await;
    assert_eq!(
        card["securitySchemes"]["apiKey"]["apiKeySecurityScheme"],
        json!({"location": "header", "name": "X-API-Key"}),
        "{card}"
    );
    assert_eq!(
        card["securitySchemes"]["bearer"]["httpAuthSecurityScheme"],
        json!({"scheme": "Bearer", "bearerFormat": "JWT"}),
        "{card}"
    );
    assert_eq!(
        card["securityRequirements"],
        json!([{"schemes": {"apiKey": {"list": []}}}, {"schemes": {"bearer": {"list": []}}}]),
        "{card}"
    );
    let open = card["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "open")
        .unwrap();
    assert_eq!(
        open["securityRequirements"],
        json!([{"schemes": {"bearer": {"list": ["vault:open"]}}}]),
        "{open}"
    );
    // The v0.3 view of the same data.
    assert_eq!(
        card["securitySchemes"]["apiKey"]["type"], "apiKey",
        "{card}"
    );
    assert_eq!(
        open["security"],
        json!([{"bearer": ["vault:open"]}]),
        "{open}"
    );
    assert_eq!(
        card["security"],
        json!([{"apiKey": []}, {"bearer": []}]),
        "{card}"
    );
}

#[tokio::test]
async fn authenticated_callers_read_the_extended_card_with_its_extended_only_skills() {
    let server = start(secured()).await;
    let card = server.card().await;
    assert_eq!(card["capabilities"]["extendedAgentCard"], true, "{card}");
    assert_eq!(card["supportsAuthenticatedExtendedCard"], true, "{card}");
    let ids = |card: &Value| -> Vec<String> {
        card["skills"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_str().unwrap().to_owned())
            .collect()
    };
    assert!(!ids(&card).contains(&"audit".to_owned()), "{card}");
    let schemas = &card["capabilities"]["extensions"][0]["params"]["skills"];
    assert!(schemas.get("audit").is_none(), "{schemas}");

    let alice = Auth::Key(ALICE_KEY);
    let (status, _, body) = rpc(&server, alice, "GetExtendedAgentCard", json!({})).await;
    assert_eq!(status, 200, "{body}");
    assert!(ids(&body["result"]).contains(&"audit".to_owned()), "{body}");
    // The 0.3 method and both HTTP+JSON forms answer the same card.
    let (_, _, body) = rpc_with(
        &server,
        alice,
        &[],
        "agent/getAuthenticatedExtendedCard",
        json!({}),
    )
    .await;
    assert!(ids(&body["result"]).contains(&"audit".to_owned()), "{body}");
    for path in ["extendedAgentCard", "v1/card"] {
        let request = server.http.get(format!("{}{path}", server.base));
        let (status, _, body) = answer(with(request, alice).send().await.unwrap()).await;
        assert_eq!(status, 200, "{path}: {body}");
        assert!(ids(&body).contains(&"audit".to_owned()), "{path}: {body}");
        let request = server.http.get(format!("{}{path}", server.base));
        let (status, challenges, _) = answer(with(request, Auth::None).send().await.unwrap()).await;
        assert_eq!(status, 401, "{path}");
        assert!(!challenges.is_empty(), "{path}");
    }
    // Hidden from the public card, not from callers: it is called like any skill.
    let (_, _, body) = rpc(&server, alice, "SendMessage", message("audit", json!({}))).await;
    assert_eq!(text_of(&body["result"]["task"]), "3 items", "{body}");
}

#[tokio::test]
async fn an_agent_without_security_has_no_extended_card() {
    let server = start(a2a_tests::talker::Talker::default().server()).await;
    let card = server.card().await;
    assert_eq!(card["capabilities"]["extendedAgentCard"], false, "{card}");
    let (_, _, body) = rpc(&server, Auth::None, "GetExtendedAgentCard", json!({})).await;
    assert_eq!(body["error"]["code"], -32004, "{body}");
}

#[tokio::test]
async fn a_declared_scheme_with_nothing_to_verify_it_is_a_startup_error() {
    // `security(api_key, bearer)` in code, keys configured, no JWT secret or JWKS.
    let error = Vault
        .server()
        .api_keys(keys())
        .router()
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("`bearer`") && error.contains("A2A_JWT_SECRET"),
        "{error}"
    );
    // Nothing configured: the first declared scheme says what to set.
    let error = Vault.server().router().unwrap_err().to_string();
    assert!(
        error.contains("`apiKey`") && error.contains("A2A_API_KEYS"),
        "{error}"
    );
}
