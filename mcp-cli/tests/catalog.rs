//! The catalog diff's schema comparison against random schemas: each a random change of
//! another, compared both ways round, and checked against the runtime's own validator on
//! random values. Whatever the diff calls compatible, informational or unchanged must
//! hold for every value tried; a breaking or unknown answer promises nothing, so it is
//! never wrong here (the corpus in `src/catalog/cases.json` pins those).
//!
//! `CATALOG_ROUNDS` sets how many changes are tried (default 1500); the generator is
//! seeded, so a failure repeats.

// The module is compiled into this test as it is into `mcp`, with the one it uses (its
// unit tests come along and run here too).
#[path = "../src/catalog/mod.rs"]
mod catalog;
#[allow(dead_code)]
#[path = "../src/safe.rs"]
mod safe;
#[allow(dead_code)]
#[path = "support/terminal.rs"]
mod terminal;

use mcp_runtime::validate::ArgValidator;
use serde_json::{json, Map, Value};

use catalog::{diff, Class, Report};

/// A small deterministic generator (xorshift): no dependency, and the same run every time.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

fn rounds() -> usize {
    std::env::var("CATALOG_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1500)
}

/// The most severe class of a report, or `none`.
fn severity(report: &Report) -> &'static str {
    report
        .changes
        .iter()
        .map(|c| c.class)
        .min()
        .map_or("none", Class::as_str)
}

/// A one-tool snapshot around a schema, as its input or its output.
fn wrap(schema: &Value, place: &str) -> Value {
    match place {
        "input" => json!({"catalog": 1, "tools": {"t": {"inputSchema": schema}}}),
        _ => json!({
            "catalog": 1,
            "tools": {"t": {"inputSchema": {"type": "object"}, "outputSchema": schema}}
        }),
    }
}

/// A random schema `depth` levels deep at most, of the keywords the diff compares.
fn random_schema(rng: &mut Rng, depth: usize) -> Value {
    let types = [
        "string", "integer", "number", "boolean", "null", "object", "array",
    ];
    match rng.below(if depth == 0 { 9 } else { 14 }) {
        0 => json!({"type": rng.pick(&types)}),
        1 => json!({"type": [rng.pick(&types), "null"]}),
        2 => {
            let values = &["a", "b", "c"][..1 + rng.below(3)];
            json!({"enum": values})
        }
        3 => json!({"const": rng.pick(&["a", "b"])}),
        4 => json!({"type": "integer", "minimum": rng.below(3), "maximum": 5 + rng.below(3)}),
        5 => {
            json!({"type": "string", "maxLength": 1 + rng.below(4), "pattern": rng.pick(&["^a", "b"])})
        }
        6 => json!(rng.below(2) == 0),
        7 => json!({"$ref": "#/$defs/D"}),
        8 => {
            json!({"type": "number", "multipleOf": rng.pick(&["2", "3"]).parse::<u64>().unwrap_or(2)})
        }
        9 => {
            let mut props = Map::new();
            let mut required = Vec::new();
            for name in ["a", "b", "c"] {
                if rng.below(2) == 0 {
                    props.insert(name.to_owned(), random_schema(rng, depth - 1));
                    if rng.below(2) == 0 {
                        required.push(name);
                    }
                }
            }
            let mut schema = json!({"type": "object", "properties": props, "required": required});
            match rng.below(4) {
                0 => schema["additionalProperties"] = json!(false),
                1 => schema["additionalProperties"] = random_schema(rng, 0),
                _ => {}
            }
            schema
        }
        10 => {
            json!({"type": "array", "items": random_schema(rng, depth - 1), "maxItems": 1 + rng.below(3)})
        }
        11 => {
            json!({"anyOf": (0..1 + rng.below(3)).map(|_| random_schema(rng, depth - 1)).collect::<Vec<_>>()})
        }
        12 => {
            json!({"oneOf": (0..1 + rng.below(3)).map(|_| random_schema(rng, depth - 1)).collect::<Vec<_>>()})
        }
        _ => {
            json!({"allOf": (0..1 + rng.below(2)).map(|_| random_schema(rng, depth - 1)).collect::<Vec<_>>()})
        }
    }
}

/// A random schema with a definition `D` its `$ref`s may name.
fn random_root(rng: &mut Rng) -> Value {
    let defs = json!({"D": random_schema(rng, 2)});
    match random_schema(rng, 3) {
        Value::Object(mut map) => {
            map.insert("$defs".to_owned(), defs);
            Value::Object(map)
        }
        other => json!({"allOf": [other], "$defs": defs}),
    }
}

/// `schema` with one thing changed somewhere in it: a subschema replaced, or a keyword
/// added, removed or changed, or a branch or a property added or removed.
fn mutate(rng: &mut Rng, schema: &Value) -> Value {
    let mut out = schema.clone();
    let mut at = &mut out;
    loop {
        let mut children: Vec<(String, Option<usize>)> = Vec::new();
        if let Value::Object(map) = &*at {
            for (k, v) in map {
                match (k.as_str(), v) {
                    ("items" | "additionalProperties" | "not", Value::Object(_)) => {
                        children.push((k.clone(), None))
                    }
                    ("anyOf" | "oneOf" | "allOf", Value::Array(items)) => {
                        children.extend((0..items.len()).map(|i| (k.clone(), Some(i))))
                    }
                    ("properties" | "$defs", Value::Object(members)) => {
                        children.extend(members.keys().map(|m| (format!("{k}/{m}"), None)))
                    }
                    _ => {}
                }
            }
        }
        if children.is_empty() || rng.below(3) == 0 {
            break;
        }
        let (key, index) = children[rng.below(children.len())].clone();
        let map = at.as_object_mut().unwrap();
        at = match (key.split_once('/'), index) {
            (Some((k, m)), _) => map.get_mut(k).unwrap().get_mut(m).unwrap(),
            (None, Some(i)) => &mut map.get_mut(&key).unwrap()[i],
            (None, None) => map.get_mut(&key).unwrap(),
        };
    }
    let keywords = [
        ("minLength", json!(1)),
        ("maxLength", json!(2)),
        ("minimum", json!(1)),
        ("exclusiveMinimum", json!(1)),
        ("maximum", json!(4)),
        ("multipleOf", json!(4)),
        ("pattern", json!("^a")),
        ("enum", json!(["a", "b"])),
        ("enum", json!(["a", 1, null])),
        ("const", json!("a")),
        ("type", json!(["string", "null"])),
        ("type", json!("integer")),
        ("type", json!("number")),
        ("type", json!(["object", "array"])),
        ("required", json!(["a"])),
        ("required", json!(["a", "b"])),
        ("additionalProperties", json!(false)),
        ("additionalProperties", json!({"type": "string"})),
        ("uniqueItems", json!(true)),
        ("minItems", json!(1)),
        ("description", json!("changed")),
        ("default", json!(3)),
        ("items", json!({"type": "string"})),
        ("not", json!({"type": "null"})),
        ("anyOf", json!([{"type": "string"}, {"type": "null"}])),
    ];
    match rng.below(4) {
        0 => *at = random_schema(rng, 1),
        1 => {
            if let Value::Object(map) = at {
                let keys: Vec<String> = map.keys().filter(|k| *k != "$defs").cloned().collect();
                if !keys.is_empty() {
                    map.remove(&keys[rng.below(keys.len())]);
                }
            }
        }
        2 => {
            let (keyword, value) = keywords[rng.below(keywords.len())].clone();
            if let Value::Object(map) = at {
                map.insert(keyword.to_owned(), value);
            }
        }
        _ => {
            if let Value::Object(map) = at {
                for k in ["anyOf", "oneOf", "allOf"] {
                    if let Some(Value::Array(items)) = map.get_mut(k) {
                        if rng.below(2) == 0 && items.len() > 1 {
                            items.remove(rng.below(items.len()));
                        } else {
                            items.push(random_schema(rng, 1));
                        }
                        break;
                    }
                }
                if let Some(Value::Object(props)) = map.get_mut("properties") {
                    if rng.below(2) == 0 && !props.is_empty() {
                        let keys: Vec<String> = props.keys().cloned().collect();
                        props.remove(&keys[rng.below(keys.len())]);
                    } else {
                        props.insert("d".to_owned(), random_schema(rng, 1));
                    }
                }
            }
        }
    }
    out
}

/// A value likely to be valid (or nearly) for `schema`: its `enum` or `const`, one of its
/// types with members and items drawn from its subschemas, now and then a plain random
/// value instead.
fn sample(rng: &mut Rng, schema: &Value, root: &Value, depth: usize) -> Value {
    let plain = [
        json!(null),
        json!(true),
        json!(0),
        json!(1),
        json!(2),
        json!(3),
        json!(4),
        json!(5),
        json!(6),
        json!(8),
        json!(-1),
        json!(2.5),
        json!(""),
        json!("a"),
        json!("b"),
        json!("ab"),
        json!("ba"),
        json!("abcd"),
        json!([]),
        json!({}),
    ];
    let Value::Object(map) = schema else {
        let value = rng.below(plain.len());
        return plain[value].clone();
    };
    if depth > 4 || rng.below(8) == 0 {
        let value = rng.below(plain.len());
        return plain[value].clone();
    }
    if let Some(Value::String(r)) = map.get("$ref") {
        if let Some(target) = r.strip_prefix('#').and_then(|p| root.pointer(p)) {
            return sample(rng, target, root, depth + 1);
        }
    }
    for k in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(branches)) = map.get(k) {
            if !branches.is_empty() && rng.below(2) == 0 {
                let branch = rng.below(branches.len());
                return sample(rng, &branches[branch], root, depth + 1);
            }
        }
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        if !values.is_empty() && rng.below(4) != 0 {
            let value = rng.below(values.len());
            return values[value].clone();
        }
    }
    if let Some(c) = map.get("const") {
        if rng.below(4) != 0 {
            return c.clone();
        }
    }
    let types: Vec<&str> = match map.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec!["object", "array", "string", "integer", "null"],
    };
    match types.get(rng.below(types.len())).copied().unwrap_or("null") {
        "object" => {
            let mut out = Map::new();
            let props = map.get("properties").and_then(Value::as_object);
            for name in ["a", "b", "c", "d"] {
                if rng.below(3) == 0 {
                    continue;
                }
                let sub = props.and_then(|p| p.get(name)).unwrap_or(&Value::Null);
                let sub = if sub.is_null() {
                    map.get("additionalProperties").unwrap_or(&Value::Null)
                } else {
                    sub
                };
                out.insert(name.to_owned(), sample(rng, sub, root, depth + 1));
            }
            Value::Object(out)
        }
        "array" => {
            let items = map.get("items").unwrap_or(&Value::Null);
            Value::Array(
                (0..rng.below(3))
                    .map(|_| sample(rng, items, root, depth + 1))
                    .collect(),
            )
        }
        "string" => json!(rng.pick(&["", "a", "b", "ab", "ba", "abcd", "bbb"])),
        "integer" | "number" => plain[1 + rng.below(11)].clone(),
        "boolean" => json!(rng.below(2) == 0),
        _ => Value::Null,
    }
}

/// Random changes and their reverse: a change claimed compatible must not read as
/// compatible backwards too (one of the two directions narrows what is accepted), and one
/// claimed informational, or none, reads the same both ways. Outputs have no exception;
/// inputs one, by design: an argument removed where additionalProperties stays open is
/// compatible, and so is the argument added back.
#[test]
fn a_change_and_its_reverse_agree() {
    let mut rng = Rng(0x5eed_cafe_f00d_1234);
    let mut failures = Vec::new();
    for round in 0..rounds() {
        let a = random_root(&mut rng);
        let b = mutate(&mut rng, &a);
        let place = if round % 2 == 0 { "input" } else { "output" };
        let forward = diff(&wrap(&a, place), &wrap(&b, place));
        let backward = diff(&wrap(&b, place), &wrap(&a, place));
        let (f, r) = (severity(&forward), severity(&backward));
        let removal = |report: &Report| {
            report
                .changes
                .iter()
                .any(|c| c.message.contains(" removed: calls that still send it"))
        };
        let wrong = match (f, r) {
            ("compatible", "compatible") => !(removal(&forward) || removal(&backward)),
            ("informational", other) | (other, "informational") => other != "informational",
            ("none", other) | (other, "none") => other != "none",
            _ => false,
        };
        if wrong {
            failures.push(format!(
                "{place}: {f} forward, {r} backward\n    a: {a}\n    b: {b}\n    forward: {:?}\n    backward: {:?}",
                forward.changes, backward.changes
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} pairs disagree, the first:\n  {}",
        failures.len(),
        failures
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n  ")
    );
}

/// What the diff claims, tried on values: for an input called compatible, every value
/// the old schema accepts the new one accepts; for an output called compatible, every
/// value the new schema accepts the old one did; for no change or informational ones,
/// both accept the same. The declared-interface exceptions (an optional argument added,
/// an output field added where the old schema refused undeclared members) are left out.
#[test]
fn what_the_diff_claims_holds_for_values() {
    let mut rng = Rng(0x0dd_ba11_5eed_0042);
    let mut failures = Vec::new();
    let mut checked = 0;
    for round in 0..rounds() {
        let a = random_root(&mut rng);
        let b = mutate(&mut rng, &a);
        let place = if round % 2 == 0 { "input" } else { "output" };
        let (Ok(va), Ok(vb)) = (ArgValidator::compile(&a), ArgValidator::compile(&b)) else {
            continue;
        };
        let report = diff(&wrap(&a, place), &wrap(&b, place));
        let claim = severity(&report);
        let declared = report.changes.iter().any(|c| {
            c.class == Class::Compatible
                && c.message.contains("` added")
                && (place == "input" || a.to_string().contains("\"additionalProperties\":false"))
        });
        if claim == "breaking" || claim == "unknown" || declared {
            continue;
        }
        for i in 0..200 {
            let value = if i % 2 == 0 {
                sample(&mut rng, &a, &a, 0)
            } else {
                sample(&mut rng, &b, &b, 0)
            };
            let (old_ok, new_ok) = (va.check(&value).is_ok(), vb.check(&value).is_ok());
            checked += 1;
            let wrong = match (claim, place) {
                ("compatible", "input") => old_ok && !new_ok,
                ("compatible", _) => new_ok && !old_ok,
                _ => old_ok != new_ok,
            };
            if wrong {
                failures.push(format!(
                    "{place} called {claim}, yet {value} is {} by the old schema and {} by the new\n    a: {a}\n    b: {b}\n    changes: {:?}",
                    if old_ok { "accepted" } else { "refused" },
                    if new_ok { "accepted" } else { "refused" },
                    report.changes
                ));
                break;
            }
        }
    }
    assert!(checked > 0);
    assert!(
        failures.is_empty(),
        "{} claims do not hold, the first:\n  {}",
        failures.len(),
        failures
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n  ")
    );
}
