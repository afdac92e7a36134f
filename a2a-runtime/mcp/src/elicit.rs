//! A skill's question as an MCP elicitation form, and the client's elicitation result as an
//! answer. Forms are flat objects of primitive properties, so an answer type that is not such an
//! object is asked for as one `answer` property: typed when it is a primitive or an enum, as
//! JSON text otherwise. Questions for the client's model or roots become those input requests.
#![allow(deprecated)] // rmcp marks sampling deprecated (SEP-2577); see `asking.rs`.

use rmcp::model::{
    ClientCapabilities, CreateMessageRequest, CreateMessageResult, ElicitRequest,
    ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema, InputRequest,
    InputRequests, JsonObject, ListRootsRequest, ListRootsResult, PrimitiveSchemaDefinition,
};
use serde_json::{Value, json};

use a2a_runtime_core::ask::{Answer, ClientRequest, Question};

/// The property that carries an answer that is not itself an object.
const ANSWER: &str = "answer";

/// A question as an elicitation form, and how to read the form's content back.
pub struct Form {
    pub params: ElicitRequestParams,
    wrapped: bool,
}

impl Form {
    pub fn new(question: &Question) -> Self {
        let schema = question
            .schema
            .clone()
            .unwrap_or_else(|| json!({ "type": "string" }));
        let (requested_schema, wrapped) = match object_form(&schema) {
            Some(form) => (form, false),
            None => (wrapped_form(&schema, &question.prompt), true),
        };
        Self {
            params: ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: question.text(),
                requested_schema,
            },
            wrapped,
        }
    }

    /// The answer in an elicitation result: accepted content (unwrapped), or a refusal.
    pub fn answer(&self, result: ElicitResult) -> Answer {
        match result.action {
            ElicitationAction::Accept => {
                let content = result.content.unwrap_or(Value::Null);
                if self.wrapped {
                    Answer::Value(content.get(ANSWER).cloned().unwrap_or(Value::Null))
                } else {
                    Answer::Value(content)
                }
            }
            _ => Answer::Declined,
        }
    }

    /// The answer in a raw input response (MRTR, tasks/update); `None` if it is not an
    /// elicitation result.
    pub fn answer_value(&self, response: Value) -> Option<Answer> {
        serde_json::from_value::<ElicitResult>(response)
            .ok()
            .map(|result| self.answer(result))
    }
}

/// The questions as the input requests of an input-required result or task, each keyed by its
/// name, else its id.
pub fn input_requests<'a>(questions: impl IntoIterator<Item = &'a Question>) -> InputRequests {
    // A grouped question (`ctx.ask_all` over a task) is one request per part.
    questions
        .into_iter()
        .flat_map(|question| match question.parts.as_slice() {
            [] => std::slice::from_ref(question),
            parts => parts,
        })
        .map(|question| (question.key().to_owned(), input_request(question)))
        .collect()
}

fn input_request(question: &Question) -> InputRequest {
    match &question.request {
        ClientRequest::Answer => {
            InputRequest::Elicitation(ElicitRequest::new(Form::new(question).params))
        }
        ClientRequest::Sampling(params) => match serde_json::from_value(params.clone()) {
            Ok(params) => InputRequest::CreateMessage(CreateMessageRequest::new(params)),
            // Made from typed params by this server; unreachable in practice.
            Err(_) => InputRequest::ListRoots(ListRootsRequest::default()),
        },
        ClientRequest::Roots => InputRequest::ListRoots(ListRootsRequest::default()),
    }
}

/// The client's response to `question`'s input request as an answer; `None` if it is not one
/// (a form result, a model completion, a roots list, as the question asked).
pub fn answer_of(question: &Question, response: Value) -> Option<Answer> {
    match &question.request {
        ClientRequest::Answer => Form::new(question).answer_value(response),
        ClientRequest::Sampling(_) => {
            serde_json::from_value::<CreateMessageResult>(response.clone())
                .ok()
                .map(|_| Answer::Value(response))
        }
        ClientRequest::Roots => serde_json::from_value::<ListRootsResult>(response.clone())
            .ok()
            .map(|_| Answer::Value(response)),
    }
}

/// Whether the client can answer form elicitations.
pub fn supports_forms(capabilities: Option<&ClientCapabilities>) -> bool {
    capabilities
        .and_then(|c| c.elicitation.as_ref())
        .is_some_and(|e| e.form.is_some() || e.url.is_none())
}

/// `schema` itself, when it is an object whose properties a form can hold.
fn object_form(schema: &Value) -> Option<ElicitationSchema> {
    let mut object = schema.as_object()?.clone();
    if object.get("type").and_then(Value::as_str) != Some("object") {
        return None;
    }
    object.remove("$schema");
    let properties = object.get_mut("properties")?.as_object_mut()?;
    for property in properties.values_mut() {
        *property = Value::Object(primitive(property)?);
    }
    ElicitationSchema::from_json_schema(object).ok()
}

/// A form with one `answer` property for a non-object answer.
fn wrapped_form(schema: &Value, prompt: &str) -> ElicitationSchema {
    let mut property = primitive(schema).unwrap_or_else(|| {
        let mut text = JsonObject::new();
        text.insert("type".into(), json!("string"));
        text.insert(
            "description".into(),
            json!(format!(
                "{prompt} Answer with JSON matching this schema: {schema}"
            )),
        );
        text
    });
    property
        .entry("description")
        .or_insert_with(|| json!(prompt));
    let form = json!({
        "type": "object",
        "properties": { ANSWER: property },
        "required": [ANSWER],
    });
    serde_json::from_value(form).unwrap_or_else(|_| ElicitationSchema::builder().build_unchecked())
}

/// `schema` as a form property, if it is a primitive: a string (with its format), number,
/// integer, boolean, or a string enum (including schemars' `oneOf` of `const`s).
fn primitive(schema: &Value) -> Option<JsonObject> {
    let mut object = schema.as_object()?.clone();
    object.remove("$schema");
    object.remove("title");
    if let Some(Value::Array(variants)) = object.remove("oneOf") {
        object.insert("type".into(), json!("string"));
        match choices(&variants)? {
            Choices::Plain(values) => object.insert("enum".into(), values),
            Choices::Titled(options) => object.insert("oneOf".into(), options),
        };
    }
    // A list of choices (SEP-1330 multi-select): the items' choices, titled or not.
    if object.get("type").and_then(Value::as_str) == Some("array") {
        let items = object.get_mut("items")?.as_object_mut()?;
        if let Some(Value::Array(variants)) =
            items.remove("oneOf").or_else(|| items.remove("anyOf"))
        {
            items.clear();
            match choices(&variants)? {
                Choices::Plain(values) => {
                    items.insert("type".into(), json!("string"));
                    items.insert("enum".into(), values);
                }
                Choices::Titled(options) => {
                    items.insert("anyOf".into(), options);
                }
            }
        }
    }
    serde_json::from_value::<PrimitiveSchemaDefinition>(Value::Object(object.clone())).ok()?;
    Some(object)
}

/// The choices of an enum's `oneOf` variants (string constants): plain values, or values with
/// titles when any variant has a title or a doc comment (shown instead of the raw value).
enum Choices {
    Plain(Value),
    Titled(Value),
}

fn choices(variants: &[Value]) -> Option<Choices> {
    let values: Option<Vec<(&Value, Option<&Value>)>> = variants
        .iter()
        .map(|v| {
            let value = v.get("const").filter(|c| c.is_string())?;
            Some((value, v.get("title").or_else(|| v.get("description"))))
        })
        .collect();
    let values = values?;
    if values.iter().all(|(_, title)| title.is_none()) {
        return Some(Choices::Plain(Value::Array(
            values.into_iter().map(|(v, _)| v.clone()).collect(),
        )));
    }
    Some(Choices::Titled(Value::Array(
        values
            .into_iter()
            .map(|(value, title)| json!({ "const": value, "title": title.unwrap_or(value) }))
            .collect(),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(form: &Form) -> Value {
        serde_json::to_value(&form.params).unwrap()
    }

    #[test]
    fn a_date_is_asked_for_as_one_typed_property() {
        let question = Question::input(
            "Which day?".into(),
            json!({"$schema": "x", "title": "NaiveDate", "type": "string", "format": "date"}),
        );
        let form = Form::new(&question);
        let schema = &params(&form)["requestedSchema"];
        assert_eq!(schema["properties"]["answer"]["format"], "date");
        assert_eq!(schema["properties"]["answer"]["description"], "Which day?");
        assert_eq!(schema["required"], json!(["answer"]));
        let answer = form.answer(
            ElicitResult::new(ElicitationAction::Accept)
                .with_content(json!({"answer": "2030-01-01"})),
        );
        assert!(matches!(answer, Answer::Value(Value::String(s)) if s == "2030-01-01"));
    }

    #[test]
    fn a_schemars_enum_becomes_a_string_enum() {
        let question = Question::input(
            "Sure?".into(),
            json!({"oneOf": [{"const": "yes", "type": "string"}, {"const": "no", "type": "string"}]}),
        );
        let schema = params(&Form::new(&question))["requestedSchema"].clone();
        assert_eq!(schema["properties"]["answer"]["enum"], json!(["yes", "no"]));
    }

    #[test]
    fn documented_variants_become_titled_choices_and_lists_of_them_multi_selects() {
        let question = Question::input(
            "Pick".into(),
            json!({"type": "object", "properties": {
                "one": {"oneOf": [{"const": "a", "description": "First."}, {"const": "b", "type": "string"}]},
                "many": {"type": "array", "items": {"oneOf": [{"const": "x", "type": "string"}, {"const": "y", "type": "string"}]}},
            }}),
        );
        let schema = params(&Form::new(&question))["requestedSchema"].clone();
        assert_eq!(
            schema["properties"]["one"]["oneOf"],
            json!([{"const": "a", "title": "First."}, {"const": "b", "title": "b"}])
        );
        assert_eq!(
            schema["properties"]["many"]["items"],
            json!({"type": "string", "enum": ["x", "y"]})
        );
    }

    #[test]
    fn a_flat_object_is_the_form_itself() {
        let question = Question::input(
            "Who?".into(),
            json!({"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}, "required": ["name"]}),
        );
        let form = Form::new(&question);
        let schema = &params(&form)["requestedSchema"];
        assert_eq!(schema["properties"]["age"]["type"], "integer");
        let content = json!({"name": "Ada", "age": 36});
        let answer =
            form.answer(ElicitResult::new(ElicitationAction::Accept).with_content(content.clone()));
        assert!(matches!(answer, Answer::Value(v) if v == content));
    }

    #[test]
    fn a_nested_type_is_asked_for_as_json_text() {
        let question = Question::input(
            "Which items?".into(),
            json!({"type": "array", "items": {"type": "integer"}}),
        );
        let schema = params(&Form::new(&question))["requestedSchema"].clone();
        assert_eq!(schema["properties"]["answer"]["type"], "string");
        let description = schema["properties"]["answer"]["description"]
            .as_str()
            .unwrap();
        assert!(description.contains("Answer with JSON"), "{description}");
    }

    #[test]
    fn declining_is_a_refusal() {
        let form = Form::new(&Question::input("?".into(), json!({"type": "string"})));
        assert!(matches!(
            form.answer(ElicitResult::new(ElicitationAction::Decline)),
            Answer::Declined
        ));
        assert!(form.answer_value(json!({"nonsense": true})).is_none());
    }
}
