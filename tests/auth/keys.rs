//! Idempotency keys belong to the caller that sent them: another caller sending the same key
//! gets a task of its own, reads nothing of the first caller's, and learns nothing of it (not
//! even that the key was used).

use serde_json::{Value, json};

use super::{ALICE_KEY, Auth, BOB_KEY, rpc_with, secured};
use a2a_tests::start;

fn whoami(note: &str) -> Value {
    json!({"message": {"messageId": format!("who-{note}"), "role": "ROLE_USER",
        "parts": [{"text": note}], "metadata": {"skill": "whoami"}}})
}

#[tokio::test]
async fn a_key_is_the_callers_own_and_another_caller_using_it_learns_nothing() {
    let server = start(secured()).await;
    let alice = Auth::Key(ALICE_KEY);
    let bob = Auth::Key(BOB_KEY);
    let keyed = |key: &'static str| [("A2A-Version", "1.0"), ("Idempotency-Key", key)];
    let (_, _, first) =
        rpc_with(&server, alice, &keyed("shared"), "SendMessage", whoami("a")).await;
    let alices = first["result"]["task"]["id"].as_str().unwrap().to_owned();
    // Bob's request under Alice's key: a task of his own, run for him.
    let (_, _, his) = rpc_with(&server, bob, &keyed("shared"), "SendMessage", whoami("a")).await;
    let bobs = his["result"]["task"]["id"].as_str().unwrap().to_owned();
    assert_ne!(bobs, alices, "{his}");
    let text = his["result"]["task"]["artifacts"][0]["parts"][0]["text"]
        .as_str()
        .unwrap();
    assert!(text.starts_with("bob"), "{his}");
    // A different request under a key Alice used is no refusal for Bob: nothing hints at hers.
    let (_, _, other) =
        rpc_with(&server, bob, &keyed("shared-2"), "SendMessage", whoami("b")).await;
    assert!(other.get("error").is_none(), "{other}");
    let (_, _, hers) = rpc_with(
        &server,
        alice,
        &keyed("shared-2"),
        "SendMessage",
        whoami("c"),
    )
    .await;
    assert!(
        hers.get("error").is_none(),
        "Bob's use of a key is nothing to Alice: {hers}"
    );
    // Alice's repeat still finds her task; Bob cannot read it.
    let (_, _, again) =
        rpc_with(&server, alice, &keyed("shared"), "SendMessage", whoami("a")).await;
    assert_eq!(again["result"]["task"]["id"], alices.as_str(), "{again}");
    let v1 = [("A2A-Version", "1.0")];
    let (_, _, read) = rpc_with(&server, bob, &v1, "GetTask", json!({"id": alices})).await;
    assert_eq!(read["error"]["code"], -32001, "{read}");
}
