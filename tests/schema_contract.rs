//! The published input schema accepts exactly what the skill's deserializer accepts: each sample
//! is validated against the schema from the agent card and sent to the server; both must agree.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use a2a_tests::lab::Lab;
use a2a_tests::{TestServer, start};
use currency::Currency;
use serde_json::{Value, json};

async fn check(server: &TestServer, skill: &str, samples: &[(Value, bool)]) {
    let card = server.card().await;
    let schema =
        card["capabilities"]["extensions"][0]["params"]["skills"][skill]["inputSchema"].clone();
    let validator = jsonschema::validator_for(&schema).expect("the published schema compiles");
    for (sample, expected) in samples {
        let schema_accepts = validator.is_valid(sample);
        let response = server
            .send(
                json!([{"data": sample}]),
                json!({"skill": skill}),
                json!({"returnImmediately": true}),
            )
            .await;
        let server_accepts = response.get("result").is_some();
        assert_eq!(schema_accepts, *expected, "schema on {skill} {sample}");
        assert_eq!(
            server_accepts, *expected,
            "server on {skill} {sample}: {response}"
        );
    }
}

#[tokio::test]
async fn currency_convert_schema_matches_its_deserializer() {
    let server = start(Currency::with_reference_rates().server()).await;
    let valid = json!({"money": {"amount": 1.5, "currency": "USD"}, "to": "EUR"});
    check(
        &server,
        "convert",
        &[
            (valid.clone(), true),
            (
                json!({"money": {"amount": 2, "currency": "GBP"}, "to": "JPY", "whole": true}),
                true,
            ),
            (
                json!({"money": {"amount": 2, "currency": "GBP"}, "to": "JPY", "whole": null}),
                true,
            ),
            // number field
            (
                json!({"money": {"amount": "1.5", "currency": "USD"}, "to": "EUR"}),
                false,
            ),
            // enum field
            (
                json!({"money": {"amount": 1, "currency": "XYZ"}, "to": "EUR"}),
                false,
            ),
            (
                json!({"money": {"amount": 1, "currency": "USD"}, "to": "eur"}),
                false,
            ),
            // nested struct
            (json!({"money": {"amount": 1}, "to": "EUR"}), false),
            (json!({"money": 5, "to": "EUR"}), false),
            // optional bool
            (
                json!({"money": {"amount": 1, "currency": "USD"}, "to": "EUR", "whole": "yes"}),
                false,
            ),
            // required and unknown properties
            (json!({"to": "EUR"}), false),
            (
                json!({"money": {"amount": 1, "currency": "USD"}, "to": "EUR", "extra": 1}),
                false,
            ),
        ],
    )
    .await;
}

#[tokio::test]
async fn integer_and_string_schemas_match_their_deserializers() {
    let server = start(Lab.server()).await;
    check(
        &server,
        "add",
        &[
            (json!({"a": 1, "b": -2}), true),
            (json!({"a": 3.0, "b": 1}), true),
            (json!({"a": 1.5, "b": 1}), false),
            (json!({"a": "1", "b": 1}), false),
            (json!({"a": 1}), false),
        ],
    )
    .await;
    check(
        &server,
        "wait",
        &[(json!({"millis": 0}), true), (json!({"millis": -1}), false)],
    )
    .await;
    check(
        &server,
        "echo",
        &[
            (json!({"text": "x"}), true),
            (json!({"text": 1}), false),
            (json!({"text": null}), false),
        ],
    )
    .await;
}
