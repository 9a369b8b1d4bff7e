//! Arguments a tool mirrors into `Mcp-Param-{Name}` HTTP headers (`x-mcp-header` in its
//! input schema), so gateways can route, rate-limit and audit on them without reading
//! bodies.
//!
//! A rule of the wire, read by three parties: the registry checks every input schema at
//! start (`#[tool]` checks the names it writes at compile time; hand-written and
//! schemars-derived schemas are checked here), with the rules HTTP clients apply (a client
//! drops a tool whose annotations break them, so a server that published one would lose
//! the tool silently); the HTTP transport compares what it finds with each call's headers;
//! and the client writes the headers of the tools it lists.

use std::collections::VecDeque;

use http::HeaderName;
use serde_json::{Map, Value};

/// The annotation's key in a property schema.
pub(crate) const ANNOTATION: &str = "x-mcp-header";

/// The largest integer a mirrored argument may hold (and its negation the smallest):
/// 2^53 - 1, the last integer every JSON reader represents exactly.
pub(crate) const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// The JSON type of a mirrored argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    String,
    Integer,
    Boolean,
}

/// One argument mirrored into a header.
#[derive(Debug, Clone)]
pub(crate) struct Mirrored {
    /// The name as declared (`Region` of `Mcp-Param-Region`), for messages.
    pub(crate) name: String,
    /// `mcp-param-region`: header names compare case-insensitively.
    pub(crate) header: HeaderName,
    /// The keys from the arguments object down to the value (`["location", "region"]`).
    pub(crate) path: Vec<String>,
    pub(crate) kind: Kind,
}

impl Mirrored {
    /// `Mcp-Param-Region`, as a client writes it.
    pub(crate) fn header_name(&self) -> String {
        format!("Mcp-Param-{}", self.name)
    }

    /// `arguments.location.region`, for messages.
    pub(crate) fn argument(&self) -> String {
        format!("arguments.{}", self.path.join("."))
    }
}

/// What is wrong with a header name, or `None` when it is an RFC 9110 token (`1*tchar`).
pub(crate) fn token_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("is empty".to_owned());
    }
    name.chars().find(|c| !is_tchar(*c)).map(|c| {
        if c.is_control() {
            format!("contains the control character {c:?}")
        } else {
            format!("contains {c:?}, which is not allowed in an HTTP header name")
        }
    })
}

/// RFC 9110 section 5.6.2: the characters of a token.
pub(crate) fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// Keywords whose subschemas a mirrored property may not sit under, with what their value
/// holds: one schema, a list of schemas, or a map of names to schemas.
const BLOCKING: &[(&str, Holds)] = &[
    ("items", Holds::SchemaOrList),
    ("prefixItems", Holds::List),
    ("additionalItems", Holds::Schema),
    ("contains", Holds::Schema),
    ("unevaluatedItems", Holds::Schema),
    ("additionalProperties", Holds::Schema),
    ("unevaluatedProperties", Holds::Schema),
    ("propertyNames", Holds::Schema),
    ("patternProperties", Holds::Map),
    ("dependentSchemas", Holds::Map),
    ("dependencies", Holds::Map),
    ("allOf", Holds::List),
    ("anyOf", Holds::List),
    ("oneOf", Holds::List),
    ("not", Holds::Schema),
    ("if", Holds::Schema),
    ("then", Holds::Schema),
    ("else", Holds::Schema),
    ("$defs", Holds::Map),
    ("definitions", Holds::Map),
];

#[derive(Clone, Copy)]
enum Holds {
    Schema,
    List,
    SchemaOrList,
    Map,
}

/// A schema object found during the walk.
struct Node<'a> {
    schema: &'a Map<String, Value>,
    /// JSON pointer into the input schema, for messages.
    pointer: String,
    /// The argument path while every step was a `properties` key; otherwise the keyword
    /// that left the chain.
    reach: Result<Vec<String>, &'static str>,
}

/// Every argument `schema` mirrors into a header, or each way an `x-mcp-header` in it
/// breaks the rules (with the JSON pointer of the property).
pub(crate) fn scan(schema: &Value) -> Result<Vec<Mirrored>, Vec<String>> {
    let mut found: Vec<(Mirrored, String)> = Vec::new();
    let mut problems = Vec::new();
    let Value::Object(root) = schema else {
        return Ok(Vec::new());
    };
    // Breadth first, so the first of two clashing names is the one declared first.
    let mut queue = VecDeque::from([Node {
        schema: root,
        pointer: String::new(),
        reach: Ok(Vec::new()),
    }]);
    while let Some(node) = queue.pop_front() {
        if let Some(value) = node.schema.get(ANNOTATION) {
            match annotation(&node, value) {
                Ok(mirrored) => {
                    let lower = mirrored.name.to_ascii_lowercase();
                    match found
                        .iter()
                        .find(|(m, _)| m.name.to_ascii_lowercase() == lower)
                    {
                        Some((first, at)) => problems.push(format!(
                            "x-mcp-header {:?} at {} repeats {:?} of {at}: header names compare case-insensitively, so each mirrored argument needs its own",
                            mirrored.name,
                            pointer_text(&node.pointer),
                            first.name
                        )),
                        None => found.push((mirrored, node.pointer.clone())),
                    }
                }
                Err(problem) => problems.push(problem),
            }
        }
        push_children(&node, &mut queue);
    }
    if problems.is_empty() {
        Ok(found.into_iter().map(|(m, _)| m).collect())
    } else {
        Err(problems)
    }
}

fn pointer_text(pointer: &str) -> &str {
    if pointer.is_empty() {
        "the root"
    } else {
        pointer
    }
}

/// One annotation, checked.
fn annotation(node: &Node<'_>, value: &Value) -> Result<Mirrored, String> {
    let at = pointer_text(&node.pointer);
    let path = match &node.reach {
        Ok(path) if path.is_empty() => {
            return Err(format!(
                "x-mcp-header at {at} annotates the arguments object itself; put it on one of its properties"
            ))
        }
        Ok(path) => path.clone(),
        Err(keyword) => {
            let hint = if matches!(*keyword, "$defs" | "definitions") {
                ", which is reached through `$ref`; inline the type (for a schemars type, `#[schemars(inline)]`) or make the argument a property of the arguments object"
            } else {
                "; a mirrored argument must be reachable from the root through `properties` alone (objects nested in objects are fine)"
            };
            return Err(format!(
                "x-mcp-header at {at} is under `{keyword}`{hint}"
            ));
        }
    };
    let Value::String(name) = value else {
        return Err(format!(
            "x-mcp-header at {at} is {value}, not a string naming the header"
        ));
    };
    if let Some(problem) = token_problem(name) {
        return Err(format!(
            "x-mcp-header {name:?} at {at} {problem}; a header name is letters, digits and !#$%&'*+-.^_`|~ (such as \"Region\")"
        ));
    }
    let kind = match node.schema.get("type") {
        Some(Value::String(t)) if t == "string" => Kind::String,
        Some(Value::String(t)) if t == "integer" => Kind::Integer,
        Some(Value::String(t)) if t == "boolean" => Kind::Boolean,
        Some(Value::String(t)) if t == "number" => {
            return Err(format!(
                "x-mcp-header {name:?} at {at} annotates a `number`; only string, integer and boolean arguments can be mirrored (a fraction has no single text form): make it an integer or a string"
            ))
        }
        Some(Value::Array(types)) => {
            return Err(format!(
                "x-mcp-header {name:?} at {at} annotates a property of types {}; a mirrored argument has exactly one type, \"string\", \"integer\" or \"boolean\" (to make it optional, leave it out of `required` rather than allowing null)",
                Value::Array(types.clone())
            ))
        }
        Some(other) => {
            return Err(format!(
                "x-mcp-header {name:?} at {at} annotates a property of type {other}; only string, integer and boolean arguments can be mirrored"
            ))
        }
        None => {
            let why = if node.schema.contains_key("$ref") {
                " (it has `$ref`: write the type on the property itself)"
            } else {
                ""
            };
            return Err(format!(
                "x-mcp-header {name:?} at {at} annotates a property without a `type`{why}; it must say \"string\", \"integer\" or \"boolean\""
            ));
        }
    };
    let header =
        HeaderName::from_bytes(format!("mcp-param-{}", name.to_ascii_lowercase()).as_bytes())
            .map_err(|e| {
                format!("x-mcp-header {name:?} at {at} does not make a header name: {e}")
            })?;
    Ok(Mirrored {
        name: name.clone(),
        header,
        path,
        kind,
    })
}

/// Queue the subschemas of `node`: `properties` keep the chain, everything else breaks it.
fn push_children<'a>(node: &Node<'a>, queue: &mut VecDeque<Node<'a>>) {
    if let Some(Value::Object(properties)) = node.schema.get("properties") {
        for (key, child) in properties {
            if let Value::Object(child) = child {
                queue.push_back(Node {
                    schema: child,
                    pointer: format!("{}/properties/{}", node.pointer, escape(key)),
                    reach: node.reach.clone().map(|mut path| {
                        path.push(key.clone());
                        path
                    }),
                });
            }
        }
    }
    for (keyword, holds) in BLOCKING {
        let Some(value) = node.schema.get(*keyword) else {
            continue;
        };
        let reach = Err(node.reach.as_ref().err().copied().unwrap_or(keyword));
        let base = format!("{}/{}", node.pointer, escape(keyword));
        let mut push = |pointer: String, child: &'a Value| {
            if let Value::Object(child) = child {
                queue.push_back(Node {
                    schema: child,
                    pointer,
                    reach: reach.clone(),
                });
            }
        };
        match (holds, value) {
            (Holds::Schema | Holds::SchemaOrList, Value::Object(_)) => push(base, value),
            (Holds::List | Holds::SchemaOrList, Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    push(format!("{base}/{i}"), item);
                }
            }
            (Holds::Map, Value::Object(map)) => {
                for (key, item) in map {
                    push(format!("{base}/{}", escape(key)), item);
                }
            }
            _ => {}
        }
    }
}

/// A key as a JSON pointer segment (RFC 6901).
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn problems(schema: Value) -> Vec<String> {
        scan(&schema).expect_err("refused")
    }

    #[test]
    fn mirrored_properties_are_found_with_their_paths() {
        let schema = json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "limit": {"type": "integer", "x-mcp-header": "Limit"},
                "location": {"type": "object", "properties": {
                    "zone": {"type": "boolean", "x-mcp-header": "Zone"}
                }},
                "query": {"type": "string"}
            }
        });
        let found = scan(&schema).unwrap();
        let mut described: Vec<(String, Vec<String>, Kind, String)> = found
            .iter()
            .map(|m| (m.name.clone(), m.path.clone(), m.kind, m.header.to_string()))
            .collect();
        described.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            described,
            vec![
                (
                    "Limit".into(),
                    vec!["limit".into()],
                    Kind::Integer,
                    "mcp-param-limit".into()
                ),
                (
                    "Region".into(),
                    vec!["region".into()],
                    Kind::String,
                    "mcp-param-region".into()
                ),
                (
                    "Zone".into(),
                    vec!["location".into(), "zone".into()],
                    Kind::Boolean,
                    "mcp-param-zone".into()
                ),
            ]
        );
    }

    #[test]
    fn empty_and_non_token_names_are_refused() {
        // S-185: an empty name is refused; S-186: so is one that is not an RFC 9110 token
        // or holds a control character.
        for (name, words) in [
            ("", "is empty"),
            ("Region Code", "' '"),
            ("Region:1", "':'"),
            ("Régión", "'é'"),
            ("Region\r\nX-Evil", "control character"),
            ("Tab\tbed", "control character"),
        ] {
            let schema = json!({"type": "object", "properties": {
                "a": {"type": "string", "x-mcp-header": name}
            }});
            let found = problems(schema);
            assert!(found[0].contains(words), "{name:?}: {found:?}");
            assert!(found[0].contains("/properties/a"), "{found:?}");
        }
        let found = problems(json!({"type": "object", "properties": {
            "a": {"type": "string", "x-mcp-header": 7}
        }}));
        assert!(found[0].contains("not a string"), "{found:?}");
    }

    #[test]
    fn names_must_differ_ignoring_case() {
        // S-187: two names that differ only in case are refused.
        let found = problems(json!({"type": "object", "properties": {
            "a": {"type": "string", "x-mcp-header": "Region"},
            "b": {"type": "string", "x-mcp-header": "REGION"}
        }}));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("case-insensitively"), "{found:?}");
        assert!(found[0].contains("/properties/a") && found[0].contains("/properties/b"));
    }

    #[test]
    fn only_strings_integers_and_booleans_are_mirrored() {
        // S-188: `number`, and every type a header cannot carry alone, is refused.
        for (schema, words) in [
            (json!({"type": "number"}), "`number`"),
            (json!({"type": "object"}), "type \"object\""),
            (
                json!({"type": "array", "items": {"type": "string"}}),
                "type \"array\"",
            ),
            (json!({"type": ["string", "null"]}), "exactly one type"),
            (
                json!({"$ref": "#/$defs/Region"}),
                "write the type on the property",
            ),
            (json!({"enum": ["eu", "us"]}), "without a `type`"),
        ] {
            let mut property = schema.clone();
            property["x-mcp-header"] = json!("Region");
            let found = problems(json!({
                "type": "object",
                "properties": {"region": property},
                "$defs": {"Region": {"type": "string"}}
            }));
            assert!(found[0].contains(words), "{schema}: {found:?}");
        }
    }

    #[test]
    fn mirrored_properties_are_reached_through_properties_only() {
        // S-189: an annotation off the `properties` chain is refused, naming the keyword.
        let under = |keyword: &str, schema: Value| {
            let found = problems(schema);
            assert_eq!(found.len(), 1, "{found:?}");
            assert!(
                found[0].contains(&format!("under `{keyword}`")),
                "{found:?}"
            );
        };
        let leaf = json!({"type": "string", "x-mcp-header": "Region"});
        under(
            "items",
            json!({"type": "object", "properties": {
                "list": {"type": "array", "items": leaf.clone()}
            }}),
        );
        under(
            "prefixItems",
            json!({"type": "object", "properties": {
                "pair": {"type": "array", "prefixItems": [{"type": "string"}, leaf.clone()]}
            }}),
        );
        under(
            "anyOf",
            json!({"type": "object", "anyOf": [
                {"properties": {"a": leaf.clone()}}
            ]}),
        );
        under(
            "allOf",
            json!({"type": "object", "allOf": [
                {"properties": {"a": leaf.clone()}}
            ]}),
        );
        under(
            "oneOf",
            json!({"type": "object", "properties": {
                "a": {"oneOf": [leaf.clone(), {"type": "integer"}]}
            }}),
        );
        under(
            "not",
            json!({"type": "object", "not": {"properties": {"a": leaf.clone()}}}),
        );
        under(
            "then",
            json!({"type": "object", "if": {"required": ["a"]},
            "then": {"properties": {"a": leaf.clone()}}}),
        );
        under(
            "additionalProperties",
            json!({"type": "object",
            "additionalProperties": leaf.clone()}),
        );
        under(
            "patternProperties",
            json!({"type": "object",
            "patternProperties": {"^r": leaf.clone()}}),
        );
        // A nested struct behind `$ref`: its annotation sits in `$defs`.
        let found = problems(json!({"type": "object",
            "properties": {"location": {"$ref": "#/$defs/Location"}},
            "$defs": {"Location": {"type": "object", "properties": {"region": leaf.clone()}}}
        }));
        assert!(
            found[0].contains("under `$defs`") && found[0].contains("#[schemars(inline)]"),
            "{found:?}"
        );
        assert!(
            found[0].contains("/$defs/Location/properties/region"),
            "{found:?}"
        );
        // The root itself cannot be mirrored.
        let found = problems(json!({"type": "object", "x-mcp-header": "Args"}));
        assert!(found[0].contains("arguments object itself"), "{found:?}");
    }

    #[test]
    fn a_schema_without_annotations_mirrors_nothing() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "string"}},
            "const": {"x-mcp-header": "Data"}});
        assert!(scan(&schema).unwrap().is_empty());
    }
}
