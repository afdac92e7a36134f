//! Skills defined at run time are registered, checked and run as compiled ones are.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::*;
use crate::auth::Caller;
use crate::call::{Invocation, SkillOutput, SkillResult};
use crate::context::TaskContext;
use crate::dispatch::{Call, Dispatcher};
use a2a_runtime_types::util::BoxFuture;

/// Answers with its input, as a remote that echoes would.
struct Echo;

impl RunSkill for Echo {
    fn run(&self, mut invocation: Invocation) -> BoxFuture<'static, SkillResult> {
        let input = DefinedSkill::input(&mut invocation);
        Box::pin(async move { input.map(SkillOutput::Data) })
    }
}

fn defined(id: &str, input_schema: Value) -> DefinedSkill {
    DefinedSkill {
        id: id.to_owned(),
        name: format!("The {id} tool"),
        description: "Echoes its input.".to_owned(),
        tags: vec!["echo".to_owned()],
        examples: Vec::new(),
        input_schema,
        output_schema: None,
        input_modes: Vec::new(),
        output_modes: Vec::new(),
        scopes: vec!["echo:call".to_owned()],
        traits: Traits::default(),
        location: format!("remote MCP server test ({id})"),
        run: Arc::new(Echo),
    }
}

fn about() -> crate::about::AgentAbout {
    crate::about::AgentAbout::named("test".into(), "Test".into(), "A remote.".into())
}

fn amount_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"money": {"type": "object", "properties": {"amount": {"type": "number"}}}},
        "required": ["money"]
    })
}

#[test]
fn a_defined_skill_checks_its_input_and_names_the_field() {
    let registry = Registry::defined("remote", vec![defined("convert", amount_schema())]).unwrap();
    let skill = registry.get("convert").unwrap();
    assert_eq!(skill.scopes().as_ref(), ["echo:call"]);
    assert_eq!(skill.tags()[0], "echo");
    let refused = skill
        .decode_input(&json!({"money": {"amount": "five"}}))
        .unwrap_err();
    assert_eq!(refused.field, "money.amount", "{refused}");
    assert!(skill.decode_input(&json!({"money": {"amount": 5}})).is_ok());
}

#[test]
fn defined_skills_with_one_id_or_an_illegal_one_are_refused_naming_what_defined_them() {
    let twice = vec![defined("same", json!({})), defined("same", json!({}))];
    let error = Registry::defined("remote", twice).unwrap_err().to_string();
    assert!(error.contains("share the id `same`"), "{error}");
    let illegal = vec![defined("has space", json!({}))];
    let error = Registry::defined("remote", illegal)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("remote MCP server test (has space)"),
        "{error}"
    );
}

#[test]
fn a_remote_with_no_skills_yet_is_a_registry() {
    let registry = Registry::defined("remote", Vec::new()).unwrap();
    assert!(registry.skills().is_empty());
    assert!(registry.fallback().is_none());
}

#[tokio::test]
async fn the_dispatcher_runs_a_defined_skill_with_its_checked_input() {
    let registry = Registry::defined("remote", vec![defined("convert", amount_schema())]).unwrap();
    let dispatcher = Dispatcher::new(about(), registry, Arc::new(()));
    let registry = dispatcher.registry();
    let skill = registry.get("convert").unwrap();
    let input = json!({"money": {"amount": 5}});
    let decoded = skill.decode_input(&input).unwrap();
    let caller = Caller::anonymous().with_scopes(["echo:call"]);
    let call = Call::new(skill, decoded, Value::Null, None, caller, None).unwrap();
    let context = TaskContext::builder("t".into(), "c".into(), "convert", CancellationToken::new());
    let output = dispatcher.invoke(call, context.build()).await.unwrap();
    assert!(matches!(output, SkillOutput::Data(value) if value == input));
}

#[test]
fn a_changing_dispatcher_serves_the_new_skills_and_a_held_one_keeps_the_old() {
    let first = Registry::defined("remote", vec![defined("convert", amount_schema())]).unwrap();
    let dispatcher = Dispatcher::changing(about(), first, Arc::new(()));
    let mut replacements = dispatcher.registry_replacements().unwrap();
    let held = dispatcher.skill("convert").unwrap();
    let second = Registry::defined("remote", vec![defined("quote", json!({}))]).unwrap();
    assert!(dispatcher.replace(about(), second));
    assert!(replacements.has_changed().unwrap());
    assert_eq!(*replacements.borrow_and_update(), 1);
    assert!(dispatcher.skill("convert").is_none());
    assert!(dispatcher.skill("quote").is_some());
    assert_eq!(held.id(), "convert");

    let none = || Registry::defined("remote", Vec::new()).unwrap();
    let fixed = Dispatcher::new(about(), none(), Arc::new(()));
    assert!(fixed.registry_replacements().is_none());
    assert!(!fixed.replace(about(), none()));
}
