//! An instance checked against compiled nodes. Stops at the first violation, which names where in
//! the instance it is. What each subschema evaluated is gathered only under an
//! `unevaluatedProperties` or `unevaluatedItems`, so the common path allocates nothing.

use serde_json::{Map, Value};

use super::Violation;
use super::compile::{Keywords, Node, types};
use super::json::{self, shown};

/// What passing subschemas evaluated of an instance (JSON Schema's annotations, as far as
/// `unevaluated*` reads them).
#[derive(Debug, Default)]
pub(super) struct Evaluated<'v> {
    properties: Vec<&'v str>,
    items_before: usize,
    all_items: bool,
    items: Vec<usize>,
}

impl<'v> Evaluated<'v> {
    fn merge(&mut self, other: Evaluated<'v>) {
        self.properties.extend(other.properties);
        self.items_before = self.items_before.max(other.items_before);
        self.all_items |= other.all_items;
        self.items.extend(other.items);
    }

    fn has_item(&self, index: usize) -> bool {
        self.all_items || index < self.items_before || self.items.contains(&index)
    }
}

type Outcome<'v> = Result<Evaluated<'v>, Violation>;

/// Checks `instance` against node `at`; with `collect`, reports what it evaluated.
pub(super) fn check<'v>(
    nodes: &[Node],
    at: usize,
    instance: &'v Value,
    collect: bool,
) -> Outcome<'v> {
    match &nodes[at] {
        Node::Bool(true) => Ok(Evaluated::default()),
        Node::Bool(false) => Err(Violation::new(
            instance,
            format!(
                "no value is allowed here, and {} was found",
                shown(instance)
            ),
        )),
        Node::Keywords(keywords) => {
            let collect = collect
                || keywords.unevaluated_properties.is_some()
                || keywords.unevaluated_items.is_some();
            let mut seen = Evaluated::default();
            assertions(keywords, instance)?;
            match instance {
                Value::Array(items) => array(nodes, keywords, instance, items, collect, &mut seen)?,
                Value::Object(map) => object(nodes, keywords, map, collect, &mut seen)?,
                _ => {}
            }
            in_place(nodes, keywords, instance, collect, &mut seen)?;
            unevaluated(nodes, keywords, instance, &mut seen)?;
            Ok(seen)
        }
    }
}

fn type_bits(instance: &Value) -> u8 {
    match instance {
        Value::Null => types::NULL,
        Value::Bool(_) => types::BOOLEAN,
        Value::Object(_) => types::OBJECT,
        Value::Array(_) => types::ARRAY,
        Value::String(_) => types::STRING,
        Value::Number(n) if json::is_integer(n) => types::NUMBER | types::INTEGER,
        Value::Number(_) => types::NUMBER,
    }
}

fn type_names(set: u8) -> String {
    let names: Vec<String> = types::NAMES
        .iter()
        .filter(|(bit, _)| set & bit != 0)
        .map(|(_, name)| format!("\"{name}\""))
        .collect();
    names.join(" or ")
}

/// The keywords that look at the instance alone.
fn assertions(k: &Keywords, instance: &Value) -> Result<(), Violation> {
    let fail = |message: String| Err(Violation::new(instance, message));
    if let Some(set) = k.types
        && set & type_bits(instance) == 0
    {
        return fail(format!(
            "{} is not of type {}",
            shown(instance),
            type_names(set)
        ));
    }
    if let Some(allowed) = &k.enumeration
        && !allowed.iter().any(|v| json::equal(v, instance))
    {
        return fail(format!(
            "{} is not one of {}",
            shown(instance),
            shown(&Value::Array(allowed.clone()))
        ));
    }
    if let Some(expected) = &k.constant
        && !json::equal(expected, instance)
    {
        return fail(format!(
            "{} was expected, not {}",
            shown(expected),
            shown(instance)
        ));
    }
    match instance {
        Value::Number(n) => number(k, n, instance),
        Value::String(s) => string(k, s, instance),
        Value::Array(items) => counts(k.min_items, k.max_items, items.len(), "items", instance)
            .and_then(|()| {
                if k.unique_items && !json::unique(items) {
                    fail(format!("{} has repeated items", shown(instance)))
                } else {
                    Ok(())
                }
            }),
        Value::Object(map) => object_assertions(k, map, instance),
        _ => Ok(()),
    }
}

fn number(k: &Keywords, n: &serde_json::Number, instance: &Value) -> Result<(), Violation> {
    use std::cmp::Ordering::{Greater, Less};
    let fail = |what: &str, limit: &serde_json::Number| {
        Err(Violation::new(instance, format!("{n} is {what} {limit}")))
    };
    if let Some(limit) = &k.minimum
        && json::compare(n, limit) == Less
    {
        return fail("less than the minimum of", limit);
    }
    if let Some(limit) = &k.exclusive_minimum
        && json::compare(n, limit) != Greater
    {
        return fail("not greater than the exclusive minimum of", limit);
    }
    if let Some(limit) = &k.maximum
        && json::compare(n, limit) == Greater
    {
        return fail("greater than the maximum of", limit);
    }
    if let Some(limit) = &k.exclusive_maximum
        && json::compare(n, limit) != Less
    {
        return fail("not less than the exclusive maximum of", limit);
    }
    if let Some(divisor) = &k.multiple_of
        && !json::is_multiple(n, divisor)
    {
        return fail("not a multiple of", divisor);
    }
    Ok(())
}

fn string(k: &Keywords, s: &str, instance: &Value) -> Result<(), Violation> {
    if k.min_length.is_some() || k.max_length.is_some() {
        // Lengths count Unicode code points, not bytes.
        counts(
            k.min_length,
            k.max_length,
            s.chars().count(),
            "characters",
            instance,
        )?;
    }
    match &k.pattern {
        Some((source, regex)) if !regex.is_match(s) => Err(Violation::new(
            instance,
            format!(
                "{} does not match the pattern \"{source}\"",
                shown(instance)
            ),
        )),
        _ => Ok(()),
    }
}

/// `min*`/`max*` on a count of `what`.
fn counts(
    min: Option<u64>,
    max: Option<u64>,
    count: usize,
    what: &str,
    instance: &Value,
) -> Result<(), Violation> {
    let count = count as u64;
    if let Some(min) = min
        && count < min
    {
        return Err(Violation::new(
            instance,
            format!(
                "{} has {count} {what}, fewer than the minimum of {min}",
                shown(instance)
            ),
        ));
    }
    if let Some(max) = max
        && count > max
    {
        return Err(Violation::new(
            instance,
            format!(
                "{} has {count} {what}, more than the maximum of {max}",
                shown(instance)
            ),
        ));
    }
    Ok(())
}

fn object_assertions(
    k: &Keywords,
    map: &Map<String, Value>,
    instance: &Value,
) -> Result<(), Violation> {
    counts(
        k.min_properties,
        k.max_properties,
        map.len(),
        "properties",
        instance,
    )?;
    if let Some(missing) = k
        .required
        .iter()
        .find(|name| !map.contains_key(name.as_str()))
    {
        return Err(Violation::new(
            instance,
            format!("\"{missing}\" is a required property"),
        ));
    }
    for (present, needs) in &k.dependent_required {
        if map.contains_key(present)
            && let Some(missing) = needs.iter().find(|name| !map.contains_key(name.as_str()))
        {
            return Err(Violation::new(
                instance,
                format!("\"{missing}\" is a required property when \"{present}\" is present"),
            ));
        }
    }
    Ok(())
}

fn array<'v>(
    nodes: &[Node],
    k: &Keywords,
    instance: &Value,
    items: &'v [Value],
    collect: bool,
    seen: &mut Evaluated<'v>,
) -> Result<(), Violation> {
    for (index, (item, node)) in items.iter().zip(&k.prefix_items).enumerate() {
        check(nodes, *node, item, false).map_err(|v| v.within(index.to_string()))?;
    }
    seen.items_before = items.len().min(k.prefix_items.len());
    if let Some(node) = k.items {
        for (index, item) in items.iter().enumerate().skip(k.prefix_items.len()) {
            check(nodes, node, item, false).map_err(|v| v.within(index.to_string()))?;
        }
        seen.all_items = true;
    }
    let Some(node) = k.contains else {
        return Ok(());
    };
    let matching: Vec<usize> = (0..items.len())
        .filter(|&i| check(nodes, node, &items[i], false).is_ok())
        .collect();
    let found = matching.len() as u64;
    let min = k.min_contains.unwrap_or(1);
    if found < min {
        return Err(Violation::new(
            instance,
            format!(
                "{} has {found} items matching `contains`, fewer than {min}",
                shown(instance)
            ),
        ));
    }
    if let Some(max) = k.max_contains
        && found > max
    {
        return Err(Violation::new(
            instance,
            format!(
                "{} has {found} items matching `contains`, more than {max}",
                shown(instance)
            ),
        ));
    }
    if collect {
        seen.items.extend(matching);
    }
    Ok(())
}

fn object<'v>(
    nodes: &[Node],
    k: &Keywords,
    map: &'v Map<String, Value>,
    collect: bool,
    seen: &mut Evaluated<'v>,
) -> Result<(), Violation> {
    for (name, node) in &k.properties {
        if let Some((key, value)) = map.get_key_value(name) {
            check(nodes, *node, value, false).map_err(|v| v.within(name.clone()))?;
            if collect {
                seen.properties.push(key);
            }
        }
    }
    let dispatches_by_key = !k.pattern_properties.is_empty()
        || k.additional_properties.is_some()
        || k.property_names.is_some();
    if dispatches_by_key {
        for (key, value) in map {
            property(nodes, k, key, value, collect, seen)?;
        }
    }
    Ok(())
}

/// `patternProperties`, `additionalProperties` and `propertyNames` for one member.
fn property<'v>(
    nodes: &[Node],
    k: &Keywords,
    key: &'v String,
    value: &'v Value,
    collect: bool,
    seen: &mut Evaluated<'v>,
) -> Result<(), Violation> {
    if let Some(node) = k.property_names {
        let name = Value::String(key.clone());
        check(nodes, node, &name, false).map_err(|v| v.named_property(key))?;
    }
    let mut matched = k.properties.iter().any(|(name, _)| name == key);
    for (regex, node) in &k.pattern_properties {
        if regex.is_match(key) {
            check(nodes, *node, value, false).map_err(|v| v.within(key.clone()))?;
            matched = true;
        }
    }
    if !matched && let Some(node) = k.additional_properties {
        if matches!(nodes[node], Node::Bool(false)) {
            return Err(Violation::plain(format!(
                "\"{key}\" is not a property this object may have"
            )));
        }
        check(nodes, node, value, false).map_err(|v| v.within(key.clone()))?;
        matched = true;
    }
    if collect && matched {
        seen.properties.push(key);
    }
    Ok(())
}

/// The keywords that apply subschemas to the instance itself.
fn in_place<'v>(
    nodes: &[Node],
    k: &Keywords,
    instance: &'v Value,
    collect: bool,
    seen: &mut Evaluated<'v>,
) -> Result<(), Violation> {
    if let Some(node) = k.reference {
        seen.merge(check(nodes, node, instance, collect)?);
    }
    if let Value::Object(map) = instance {
        for (name, node) in &k.dependent_schemas {
            if map.contains_key(name) {
                seen.merge(check(nodes, *node, instance, collect)?);
            }
        }
    }
    for node in &k.all_of {
        seen.merge(check(nodes, *node, instance, collect)?);
    }
    if !k.any_of.is_empty() {
        any_of(nodes, &k.any_of, instance, collect, seen)?;
    }
    if !k.one_of.is_empty() {
        one_of(nodes, &k.one_of, instance, collect, seen)?;
    }
    if let Some(node) = k.not
        && check(nodes, node, instance, false).is_ok()
    {
        return Err(Violation::new(
            instance,
            format!("{} matches the schema under `not`", shown(instance)),
        ));
    }
    if let Some((condition, then, otherwise)) = k.if_then_else {
        let branch = match check(nodes, condition, instance, collect) {
            Ok(evaluated) => {
                seen.merge(evaluated);
                then
            }
            Err(_) => otherwise,
        };
        if let Some(node) = branch {
            seen.merge(check(nodes, node, instance, collect)?);
        }
    }
    Ok(())
}

fn any_of<'v>(
    nodes: &[Node],
    options: &[usize],
    instance: &'v Value,
    collect: bool,
    seen: &mut Evaluated<'v>,
) -> Result<(), Violation> {
    let mut passed = false;
    let mut first_failure = None;
    for node in options {
        match check(nodes, *node, instance, collect) {
            Ok(evaluated) => {
                passed = true;
                seen.merge(evaluated);
                // Every passing option's annotations count, so all are tried when gathering.
                if !collect {
                    break;
                }
            }
            Err(violation) => {
                first_failure.get_or_insert(violation);
            }
        }
    }
    if passed {
        return Ok(());
    }
    Err(Violation::alternatives(instance, "`anyOf`", first_failure))
}

fn one_of<'v>(
    nodes: &[Node],
    options: &[usize],
    instance: &'v Value,
    collect: bool,
    seen: &mut Evaluated<'v>,
) -> Result<(), Violation> {
    let mut passing = None;
    let mut first_failure = None;
    for (index, node) in options.iter().enumerate() {
        match check(nodes, *node, instance, collect) {
            Ok(evaluated) => {
                if let Some((earlier, _)) = passing {
                    return Err(Violation::new(
                        instance,
                        format!(
                            "{} matches options {earlier} and {index} of `oneOf`, and must match exactly one",
                            shown(instance)
                        ),
                    ));
                }
                passing = Some((index, evaluated));
            }
            Err(violation) => {
                first_failure.get_or_insert(violation);
            }
        }
    }
    match passing {
        Some((_, evaluated)) => {
            seen.merge(evaluated);
            Ok(())
        }
        None => Err(Violation::alternatives(instance, "`oneOf`", first_failure)),
    }
}

/// `unevaluatedProperties` and `unevaluatedItems`: what no other keyword here evaluated.
fn unevaluated<'v>(
    nodes: &[Node],
    k: &Keywords,
    instance: &'v Value,
    seen: &mut Evaluated<'v>,
) -> Result<(), Violation> {
    match instance {
        Value::Object(map) => {
            let Some(node) = k.unevaluated_properties else {
                return Ok(());
            };
            for (key, value) in map {
                if seen.properties.contains(&key.as_str()) {
                    continue;
                }
                if matches!(nodes[node], Node::Bool(false)) {
                    return Err(Violation::plain(format!(
                        "\"{key}\" is not a property this object may have"
                    )));
                }
                check(nodes, node, value, false).map_err(|v| v.within(key.clone()))?;
                seen.properties.push(key);
            }
        }
        Value::Array(items) => {
            let Some(node) = k.unevaluated_items else {
                return Ok(());
            };
            for (index, item) in items.iter().enumerate() {
                if !seen.has_item(index) {
                    check(nodes, node, item, false).map_err(|v| v.within(index.to_string()))?;
                }
            }
            seen.all_items = true;
        }
        _ => {}
    }
    Ok(())
}
