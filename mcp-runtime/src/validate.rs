//! Argument validation: compiled JSON Schema (2020-12) validators with resource bounds.
//!
//! Validators are compiled once at start. Before a value reaches one, its nesting depth and
//! size are checked, so a hostile argument cannot make validation itself expensive. Nothing
//! is ever fetched: a schema that refers outside itself is refused before it is compiled.

use std::collections::HashSet;

use serde_json::{Map, Value};

/// Deepest nesting accepted in an arguments object.
pub const MAX_DEPTH: usize = 64;
/// Most JSON nodes (values, keys excluded) accepted in an arguments object.
pub const MAX_NODES: usize = 100_000;
/// Most validation messages reported back to the model.
const MAX_MESSAGES: usize = 8;

/// A compiled validator for one schema.
pub struct ArgValidator {
    inner: jsonschema::Validator,
}

impl ArgValidator {
    /// Compile `schema` as JSON Schema 2020-12. A schema that refers to a document other
    /// than itself (a remote `$ref`, an unknown `$schema`) is refused: it would have to be
    /// fetched.
    pub fn compile(schema: &Value) -> Result<Self, String> {
        self_contained(schema)?;
        // This constructor is compiled in `jsonschema` itself. Its generic `options().build()`
        // would be compiled again in this crate, which doubled this crate's build time.
        // The two differ only in the retriever, and `self_contained` leaves it nothing to do.
        let inner = jsonschema::draft202012::new(schema).map_err(|e| e.to_string())?;
        Ok(ArgValidator { inner })
    }

    /// Check `value`; on failure, messages a model can act on (`/path: problem`).
    pub fn check(&self, value: &Value) -> Result<(), Vec<String>> {
        check_bounds(value)?;
        // The common case, valid arguments, stops at a yes/no and builds no error values.
        if self.inner.is_valid(value) {
            return Ok(());
        }
        let mut messages = Vec::new();
        for error in self.inner.iter_errors(value) {
            if messages.len() == MAX_MESSAGES {
                messages.push("(further problems not shown)".to_owned());
                break;
            }
            let path = error.instance_path().as_str().to_owned();
            let place = if path.is_empty() {
                "arguments".to_owned()
            } else {
                format!("argument {path}")
            };
            messages.push(format!("{place}: {error}"));
        }
        if messages.is_empty() {
            Ok(())
        } else {
            Err(messages)
        }
    }
}

/// The meta-schemas every validator knows without fetching them (`$schema`, with or without
/// an empty fragment).
const KNOWN_META_SCHEMAS: &[&str] = &[
    "https://json-schema.org/draft/2020-12/schema",
    "http://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft/2019-09/schema",
    "https://json-schema.org/draft-07/schema",
    "http://json-schema.org/draft-07/schema",
    "https://json-schema.org/draft-06/schema",
    "http://json-schema.org/draft-06/schema",
    "https://json-schema.org/draft-04/schema",
    "http://json-schema.org/draft-04/schema",
];

/// Keywords whose value is an instance, not a schema: a `$ref` inside one is data.
const INSTANCE_KEYWORDS: &[&str] = &["const", "enum", "default", "examples"];

/// Refuse a schema that refers to another document. References within the schema stay:
/// fragments (`#/$defs/Order`, `#anchor`) and references to a resource embedded under its
/// absolute `$id`. With the features this crate turns on, `jsonschema` fetches nothing
/// anyway; this check keeps that true when another crate in the build turns its fetching
/// on, and says what is wrong in words a schema's author can act on.
fn self_contained(schema: &Value) -> Result<(), String> {
    let mut ids = HashSet::new();
    let mut refs = Vec::new();
    let mut stack = vec![schema];
    while let Some(value) = stack.pop() {
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => {
                collect(map, &mut ids, &mut refs)?;
                stack.extend(
                    map.iter()
                        .filter(|(key, _)| !INSTANCE_KEYWORDS.contains(&key.as_str()))
                        .map(|(_, value)| value),
                );
            }
            _ => {}
        }
    }
    for reference in refs {
        let document = reference.split('#').next().unwrap_or_default();
        if !document.is_empty() && !ids.contains(document) {
            return Err(format!(
                "remote $ref {reference} is not fetched: schemas must be self-contained (refer to `#/$defs/...` instead)"
            ));
        }
    }
    Ok(())
}

/// One schema object's `$id`, its references, and a refused `$schema`.
fn collect<'a>(
    map: &'a Map<String, Value>,
    ids: &mut HashSet<&'a str>,
    refs: &mut Vec<&'a str>,
) -> Result<(), String> {
    if let Some(Value::String(id)) = map.get("$id") {
        ids.insert(id.split('#').next().unwrap_or_default());
    }
    for keyword in ["$ref", "$dynamicRef", "$recursiveRef"] {
        if let Some(Value::String(reference)) = map.get(keyword) {
            refs.push(reference);
        }
    }
    if let Some(Value::String(meta)) = map.get("$schema") {
        let meta = meta.strip_suffix('#').unwrap_or(meta);
        if !KNOWN_META_SCHEMAS.contains(&meta) {
            return Err(format!(
                "the meta-schema {meta} is not fetched: use JSON Schema 2020-12 (https://json-schema.org/draft/2020-12/schema) or leave out $schema"
            ));
        }
    }
    Ok(())
}

/// Reject values nested deeper than [`MAX_DEPTH`] or larger than [`MAX_NODES`].
pub fn check_bounds(value: &Value) -> Result<(), Vec<String>> {
    let mut nodes = 0usize;
    // Iterative walk: a recursive one would itself be the stack overflow we guard against.
    let mut stack = vec![(value, 1usize)];
    while let Some((v, depth)) = stack.pop() {
        nodes += 1;
        if depth > MAX_DEPTH {
            return Err(vec![format!(
                "arguments are nested deeper than {MAX_DEPTH} levels"
            )]);
        }
        if nodes > MAX_NODES {
            return Err(vec![format!("arguments have more than {MAX_NODES} values")]);
        }
        match v {
            Value::Array(items) => stack.extend(items.iter().map(|i| (i, depth + 1))),
            Value::Object(map) => stack.extend(map.values().map(|i| (i, depth + 1))),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn messages_name_the_argument_and_the_problem() {
        let v = ArgValidator::compile(&json!({"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":false})).unwrap();
        assert!(v.check(&json!({"a": 1})).is_ok());
        let errs = v.check(&json!({"a": "x"})).unwrap_err();
        assert!(errs[0].starts_with("argument /a:"), "{errs:?}");
        let errs = v.check(&json!({})).unwrap_err();
        assert!(errs[0].contains("\"a\" is a required property"), "{errs:?}");
        let errs = v.check(&json!({"a": 1, "zz": 2})).unwrap_err();
        assert!(errs[0].contains("zz"), "{errs:?}");
    }

    #[test]
    fn deep_nesting_is_refused_before_validation() {
        let mut deep = json!(1);
        for _ in 0..(MAX_DEPTH + 5) {
            deep = json!([deep]);
        }
        let v = ArgValidator::compile(&json!({"type":"object"})).unwrap();
        let errs = v.check(&json!({ "x": deep })).unwrap_err();
        assert!(errs[0].contains("nested deeper"));
    }

    #[test]
    fn remote_refs_are_not_fetched() {
        let refused = [
            json!({"$ref": "http://127.0.0.1:9/schema.json"}),
            json!({"$ref": "file:///etc/passwd"}),
            json!({"$ref": "other.json#/$defs/a"}),
            json!({"properties": {"a": {"items": [{"$dynamicRef": "https://x.example/s#n"}]}}}),
            json!({"$defs": {"d": {"$id": "https://x.example/d", "$ref": "e"}}}),
            json!({"$schema": "https://x.example/my-meta-schema"}),
        ];
        for schema in refused {
            let err = ArgValidator::compile(&schema).err().unwrap();
            assert!(err.contains("is not fetched"), "{schema}: {err}");
        }
    }

    #[test]
    fn references_within_the_schema_compile() {
        let order = json!({"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]});
        let fragment = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema#",
            "type": "object",
            "properties": {"order": {"$ref": "#/$defs/Order"}},
            "$defs": {"Order": order}
        });
        let embedded = json!({
            "type": "object",
            "properties": {"order": {"$ref": "https://shop.example/order#"}},
            "$defs": {"Order": {
                "$id": "https://shop.example/order",
                "type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]
            }}
        });
        for schema in [fragment, embedded] {
            let v = ArgValidator::compile(&schema).unwrap();
            assert!(v.check(&json!({"order": {"id": 1}})).is_ok(), "{schema}");
            assert!(v.check(&json!({"order": {}})).is_err(), "{schema}");
        }
        // A `$ref` inside a value is data, not a reference.
        let data = json!({"type": "object", "const": {"$ref": "https://x.example/s"}});
        let v = ArgValidator::compile(&data).unwrap();
        assert!(v.check(&json!({"$ref": "https://x.example/s"})).is_ok());
    }
}
