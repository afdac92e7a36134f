//! The checker against the keywords one at a time, then against an independent validator (the
//! `jsonschema` crate) on the schemas schemars writes and on hand-written ones, over many
//! generated instances.

use serde_json::{Value, json};

use super::SchemaCheck;

fn check(schema: Value) -> SchemaCheck {
    SchemaCheck::new(&schema).expect("the schema compiles")
}

#[test]
fn a_non_finite_number_fails_at_its_field_as_null() {
    let schema = check(json!({
        "type": "object",
        "properties": {"money": {"$ref": "#/$defs/Money"}},
        "$defs": {"Money": {"type": "object", "properties": {"amount": {"type": "number", "format": "double"}}, "required": ["amount"]}}
    }));
    let violation = schema
        .validate(&json!({"money": {"amount": null}}))
        .unwrap_err();
    assert_eq!(violation.path(), "/money/amount");
    assert!(violation.found_null());
    assert_eq!(violation.message(), "null is not of type \"number\"");
}

#[test]
fn numbers_compare_by_value_and_multiples_are_exact_for_decimals() {
    let schema = check(json!({"multipleOf": 0.1, "minimum": 0, "exclusiveMaximum": 1}));
    assert!(schema.is_valid(&json!(0.3)));
    assert!(schema.is_valid(&json!(0.7)));
    assert!(!schema.is_valid(&json!(0.35)));
    assert!(!schema.is_valid(&json!(1)));
    assert!(!schema.is_valid(&json!(-0.1)));
    assert!(check(json!({"multipleOf": 0.0001})).is_valid(&json!(0.0075)));
    assert!(check(json!({"multipleOf": 1e-8})).is_valid(&json!(1e308)));
    // 1e308 as written is 10^308 (a multiple of 5, not of 3), whatever the nearest f64 is.
    assert!(!check(json!({"multipleOf": 3})).is_valid(&json!(1e308)));
    assert!(check(json!({"multipleOf": 5})).is_valid(&json!(1e308)));
    assert!(check(json!({"const": 1})).is_valid(&json!(1.0)));
    assert!(check(json!({"type": "integer"})).is_valid(&json!(2.0)));
    assert!(!check(json!({"type": "integer"})).is_valid(&json!(2.5)));
    assert!(check(json!({"maximum": u64::MAX})).is_valid(&json!(u64::MAX)));
    assert!(!check(json!({"maximum": i64::MAX})).is_valid(&json!(u64::MAX)));
}

#[test]
fn every_failure_names_its_place_in_the_instance() {
    let schema = check(json!({
        "type": "object",
        "properties": {"items": {"type": "array", "items": {"type": "object", "properties": {"a/b": {"type": "string", "maxLength": 2}}}}},
        "additionalProperties": false
    }));
    let deep = schema
        .validate(&json!({"items": [{}, {"a/b": "héé"}]}))
        .unwrap_err();
    assert_eq!(deep.path(), "/items/1/a~1b");
    assert!(deep.message().contains("3 characters"), "{deep}");
    let extra = schema
        .validate(&json!({"items": [], "other": 1}))
        .unwrap_err();
    assert_eq!(extra.path(), "");
    assert!(extra.message().contains("\"other\""), "{extra}");
}

#[test]
fn recursive_definitions_check_every_level() {
    let schema = check(json!({
        "$ref": "#/$defs/Tree",
        "$defs": {"Tree": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}, "name": {"type": "string"}}, "required": ["name"]}}
    }));
    assert!(schema.is_valid(&json!({"name": "a", "children": [{"name": "b", "children": []}]})));
    let missing = schema
        .validate(&json!({"name": "a", "children": [{"children": []}]}))
        .unwrap_err();
    assert_eq!(missing.path(), "/children/0");
    assert_eq!(missing.message(), "\"name\" is a required property");
}

#[test]
fn unevaluated_properties_see_through_every_applicator() {
    let schema = check(json!({
        "properties": {"kind": {"type": "string"}},
        "oneOf": [
            {"properties": {"kind": {"const": "a"}, "x": {"type": "number"}}, "required": ["kind"]},
            {"properties": {"kind": {"const": "b"}, "y": {"type": "number"}}, "required": ["kind"]}
        ],
        "unevaluatedProperties": false
    }));
    assert!(schema.is_valid(&json!({"kind": "a", "x": 1})));
    assert!(!schema.is_valid(&json!({"kind": "a", "y": 1})));
    assert!(schema.is_valid(&json!({"kind": "b", "y": 1})));
}

#[test]
fn schemas_it_cannot_check_are_refused_naming_the_place() {
    let remote =
        SchemaCheck::new(&json!({"properties": {"a": {"$ref": "https://example.com/a.json"}}}))
            .unwrap_err();
    assert_eq!(remote.pointer, "/properties/a");
    let lookaround = SchemaCheck::new(&json!({"pattern": "^(?!x)"})).unwrap_err();
    assert_eq!(lookaround.pointer, "/pattern");
    let dangling = SchemaCheck::new(&json!({"$ref": "#/$defs/Nothing"})).unwrap_err();
    assert!(dangling.reason.contains("points to nothing"), "{dangling}");
    assert!(SchemaCheck::new(&json!({"type": "text"})).is_err());
    assert!(SchemaCheck::new(&json!({"multipleOf": 0})).is_err());
}

/// Schemas as schemars writes them for the shapes skills return.
mod shapes {
    use std::collections::{BTreeMap, HashSet};

    use schemars::JsonSchema;
    use serde::Serialize;

    #[derive(Serialize, JsonSchema)]
    pub(super) struct Money {
        pub(super) amount: f64,
        pub(super) currency: String,
        pub(super) cents: Option<u32>,
    }

    #[derive(Serialize, JsonSchema)]
    #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
    pub(super) enum Event {
        Started { at: i64 },
        Moved { from: String, to: String },
        Stopped,
    }

    #[derive(Serialize, JsonSchema)]
    #[serde(untagged)]
    pub(super) enum Either {
        Number(i8),
        Words(Vec<String>),
    }

    #[derive(Serialize, JsonSchema)]
    pub(super) enum Plain {
        One,
        Two(u16),
        Three { x: bool },
    }

    #[derive(Serialize, JsonSchema)]
    pub(super) struct Flattened {
        pub(super) id: String,
        #[serde(flatten)]
        pub(super) money: Money,
        #[serde(flatten)]
        pub(super) extra: BTreeMap<String, u8>,
    }

    #[derive(Serialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub(super) struct Everything {
        pub(super) money: Vec<Money>,
        pub(super) events: Option<Vec<Event>>,
        pub(super) either: Either,
        pub(super) plain: Plain,
        pub(super) tags: HashSet<String>,
        pub(super) pair: (u8, String),
        #[schemars(length(min = 1, max = 4), regex(pattern = r"^[a-z]+$"))]
        pub(super) code: String,
        #[schemars(range(min = -5, max = 5))]
        pub(super) level: i32,
        pub(super) nested: Option<Box<Everything>>,
        pub(super) flat: Option<Flattened>,
    }
}

fn schema_of<T: schemars::JsonSchema>() -> Value {
    crate::schema::generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// A reproducible stream of values, biased towards the edges schemas draw.
struct Values(u64);

impl Values {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn pick<'a>(&mut self, from: &'a [&'a str]) -> &'a str {
        from[(self.next() % from.len() as u64) as usize]
    }

    /// A value of any kind, `depth` levels deep at most, using the names schemas mention.
    fn value(&mut self, depth: u32) -> Value {
        const NAMES: [&str; 16] = [
            "amount", "currency", "cents", "kind", "at", "from", "to", "money", "events", "either",
            "plain", "tags", "pair", "code", "level", "id",
        ];
        const WORDS: [&str; 10] = [
            "", "a", "abc", "abcde", "A1", "started", "moved", "stopped", "One", "Two",
        ];
        match self.next() % if depth == 0 { 6 } else { 8 } {
            0 => Value::Null,
            1 => Value::Bool(self.next().is_multiple_of(2)),
            2 => json!((self.next() % 600) as i64 - 300),
            // Whole floats stay below 2^53: above it the oracle divides the binary value, and the
            // checker the decimal one written in the JSON (see the multiples test).
            3 => json!([0.5, -1.5, 1e15, 70000.0, 2.0, -6.0, 0.3][(self.next() % 7) as usize]),
            4 | 5 => Value::String(self.pick(&WORDS).to_owned()),
            6 => Value::Array(
                (0..self.next() % 4)
                    .map(|_| self.value(depth - 1))
                    .collect(),
            ),
            _ => Value::Object(
                (0..self.next() % 5)
                    .map(|_| (self.pick(&NAMES).to_owned(), self.value(depth - 1)))
                    .collect(),
            ),
        }
    }
}

/// Each schema against many instances: the two validators agree on every one.
fn agrees_with_the_oracle(schema: &Value, instances: impl IntoIterator<Item = Value>) -> usize {
    let ours = check(schema.clone());
    let oracle = jsonschema::validator_for(schema).expect("the oracle compiles it");
    let mut valid = 0;
    for instance in instances {
        let expected = oracle.is_valid(&instance);
        assert_eq!(
            ours.is_valid(&instance),
            expected,
            "schema {schema}\ninstance {instance}"
        );
        valid += usize::from(expected);
    }
    valid
}

/// Two outputs of the `Everything` shape, between them using every variant.
fn everything_samples() -> Vec<Value> {
    use shapes::*;
    use std::collections::HashSet;
    vec![
        serde_json::to_value(Everything {
            money: vec![Money {
                amount: 1.5,
                currency: "EUR".into(),
                cents: Some(3),
            }],
            events: Some(vec![
                Event::Started { at: -4 },
                Event::Moved {
                    from: "a".into(),
                    to: "b".into(),
                },
                Event::Stopped,
            ]),
            either: Either::Words(vec!["x".into()]),
            plain: Plain::Three { x: true },
            tags: ["a".to_owned(), "b".to_owned()].into(),
            pair: (7, "p".into()),
            code: "ab".into(),
            level: -5,
            nested: None,
            flat: Some(Flattened {
                id: "i".into(),
                money: Money {
                    amount: 2.0,
                    currency: "USD".into(),
                    cents: None,
                },
                extra: [("n".to_owned(), 9)].into(),
            }),
        })
        .unwrap(),
        serde_json::to_value(Everything {
            money: Vec::new(),
            events: None,
            either: Either::Number(-3),
            plain: Plain::Two(9),
            tags: HashSet::new(),
            pair: (0, String::new()),
            code: "z".into(),
            level: 5,
            nested: Some(Box::new(Everything {
                money: Vec::new(),
                events: Some(Vec::new()),
                either: Either::Number(1),
                plain: Plain::One,
                tags: HashSet::new(),
                pair: (1, "q".into()),
                code: "abcd".into(),
                level: 0,
                nested: None,
                flat: None,
            })),
            flat: None,
        })
        .unwrap(),
    ]
}

#[test]
fn schemars_schemas_are_judged_as_an_independent_validator_judges_them() {
    use shapes::*;
    let samples = everything_samples();
    let everything = schema_of::<Everything>();
    assert_eq!(agrees_with_the_oracle(&everything, samples.clone()), 2);
    // Every sample mutated at every place, and random values for each subschema.
    let mut values = Values(0x9E37_79B9_7F4A_7C15);
    let mut mutated = Vec::new();
    for sample in &samples {
        let mut paths = Vec::new();
        places(sample, &mut Vec::new(), &mut paths);
        for path in &paths {
            for _ in 0..8 {
                mutated.push(with(sample, path, Some(values.value(2))));
            }
            mutated.push(with(sample, path, None));
        }
    }
    let accepted = agrees_with_the_oracle(&everything, mutated.clone());
    assert!(
        accepted > 0 && accepted < mutated.len(),
        "{accepted} of {}",
        mutated.len()
    );
    for schema in [
        schema_of::<Money>(),
        schema_of::<Event>(),
        schema_of::<Either>(),
        schema_of::<Plain>(),
        schema_of::<Flattened>(),
    ] {
        agrees_with_the_oracle(&schema, (0..3000).map(|_| values.value(3)));
    }
}

/// Schemas using each keyword, written by hand.
fn keyword_schemas() -> Vec<Value> {
    vec![
        json!({"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "items": {"type": "boolean"}, "minItems": 1, "maxItems": 3}),
        json!({"type": "array", "contains": {"type": "string"}, "minContains": 2, "maxContains": 3, "uniqueItems": true}),
        json!({"contains": {"const": null}, "minContains": 0, "prefixItems": [true], "unevaluatedItems": {"type": "integer"}}),
        json!({"type": "object", "propertyNames": {"maxLength": 3, "pattern": "^[a-e]"}, "minProperties": 1, "maxProperties": 3}),
        json!({"patternProperties": {"^c": {"type": "string"}, "o": {"type": "integer"}}, "additionalProperties": {"type": "array"}}),
        json!({"dependentRequired": {"amount": ["currency"]}, "dependentSchemas": {"kind": {"required": ["at"], "properties": {"at": {"type": "integer"}}}}}),
        json!({"if": {"properties": {"kind": {"const": "moved"}}, "required": ["kind"]}, "then": {"required": ["from", "to"]}, "else": {"not": {"required": ["from"]}}}),
        json!({"anyOf": [{"type": "integer", "minimum": 0, "exclusiveMaximum": 200}, {"type": "string", "minLength": 3}, {"enum": [null, [], 0.5, {"a": 1}]}]}),
        json!({"oneOf": [{"multipleOf": 3}, {"multipleOf": 5}, {"type": "array", "items": {"const": 2}}]}),
        json!({"allOf": [{"properties": {"id": {"type": "string"}}}, {"properties": {"code": {"maxLength": 4}}}], "unevaluatedProperties": {"type": ["integer", "null"]}}),
        json!({"anyOf": [{"properties": {"id": true}}, {"patternProperties": {"^a": true}}], "unevaluatedProperties": false}),
        json!({"$ref": "#/$defs/list", "$defs": {"list": {"type": ["array", "null"], "items": {"$ref": "#/$defs/list"}, "maxItems": 2}}}),
        json!({"not": {"type": ["object", "array"]}, "exclusiveMinimum": -6, "maximum": 70000.0}),
    ]
}

#[test]
fn every_keyword_is_judged_as_an_independent_validator_judges_it() {
    let mut values = Values(0x2545_F491_4F6C_DD1D);
    for schema in keyword_schemas() {
        let accepted = agrees_with_the_oracle(&schema, (0..4000).map(|_| values.value(3)));
        assert!(
            accepted > 0 && accepted < 4000,
            "{accepted} of 4000 accepted by {schema}"
        );
    }
}

/// Every place in `value`, as paths of keys and indices.
fn places(value: &Value, at: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    out.push(at.clone());
    let children: Vec<(String, &Value)> = match value {
        Value::Object(map) => map.iter().map(|(k, v)| (k.clone(), v)).collect(),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| (i.to_string(), v))
            .collect(),
        _ => Vec::new(),
    };
    for (segment, child) in children {
        at.push(segment);
        places(child, at, out);
        at.pop();
    }
}

/// `value` with the place at `path` replaced (or, with `None`, removed; the root is nulled).
fn with(value: &Value, path: &[String], replacement: Option<Value>) -> Value {
    let mut copy = value.clone();
    let Some((last, parents)) = path.split_last() else {
        return replacement.unwrap_or(Value::Null);
    };
    let mut parent = &mut copy;
    for segment in parents {
        parent = match parent {
            Value::Object(map) => map.get_mut(segment).unwrap(),
            Value::Array(items) => &mut items[segment.parse::<usize>().unwrap()],
            _ => unreachable!("paths run through containers"),
        };
    }
    match (parent, replacement) {
        (Value::Object(map), Some(v)) => {
            map.insert(last.clone(), v);
        }
        (Value::Object(map), None) => {
            map.remove(last);
        }
        (Value::Array(items), Some(v)) => items[last.parse::<usize>().unwrap()] = v,
        (Value::Array(items), None) => {
            items.remove(last.parse::<usize>().unwrap());
        }
        _ => unreachable!("paths run through containers"),
    }
    copy
}
