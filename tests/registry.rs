//! The registry is built once at startup and refuses invalid agents with a fix-it message.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use a2a_runtime::Error;
use a2a_tests::registry_agents::{Clash, Empty, Listed};
use a2a_tests::start;

#[test]
fn an_agent_without_skills_does_not_start() {
    let error = Empty.server().router().unwrap_err();
    assert!(matches!(error, Error::NoSkills { .. }), "{error}");
    let message = error.to_string();
    assert!(
        message.contains("#[skill(agent = Empty)]") && message.contains("use that_crate as _"),
        "{message}"
    );
}

#[test]
fn duplicate_skill_ids_name_both_definitions() {
    let error = Clash.server().router().unwrap_err();
    let message = error.to_string();
    assert!(matches!(error, Error::DuplicateSkill { .. }), "{message}");
    assert!(
        message.contains("registry_agents::first")
            && message.contains("registry_agents::other::second"),
        "{message}"
    );
    assert!(
        message.contains("registry_agents.rs:"),
        "locations include file and line: {message}"
    );
}

#[tokio::test]
async fn explicitly_listed_skills_are_served_once() {
    let server = start(Listed.server()).await;
    let card = server.card().await;
    let ids = a2a_tests::skill_ids(&card);
    assert_eq!(ids, ["listed_a", "listed_b"]);
}
