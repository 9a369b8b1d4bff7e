//! Argument validation: compiled JSON Schema validators with resource bounds.
//!
//! Validators are compiled once at start, each by the dialect its schema declares in
//! `$schema` (2020-12 when it declares none; also 2019-09, draft-07, draft-06 and
//! draft-04). Before a value reaches one, its nesting depth and size are checked, so a
//! hostile argument cannot make validation itself expensive. Nothing is ever fetched: a
//! schema that refers outside itself, or names a dialect outside these, is refused before
//! it is compiled.

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
    /// Where the schema marks a value secret, if it marks any.
    secrets: Option<Secrets>,
}

impl ArgValidator {
    /// Compile `schema` by the dialect its `$schema` names ([`DIALECTS`]; 2020-12 when it
    /// names none), so each keyword means what that dialect says (draft-07's array-form
    /// `items`, its `dependencies`). A schema in another dialect is refused, and so is one
    /// that refers to a document other than itself (a remote `$ref`): it would have to be
    /// fetched.
    pub fn compile(schema: &Value) -> Result<Self, String> {
        let dialect = Dialect::of(schema)?;
        self_contained(schema)?;
        // These constructors are compiled in `jsonschema` itself. Its generic
        // `options().build()` would be compiled again in this crate, which doubled this
        // crate's build time. They differ only in the retriever, and `self_contained` leaves
        // it nothing to do.
        let inner = match dialect {
            Dialect::Draft202012 => jsonschema::draft202012::new(schema),
            Dialect::Draft201909 => jsonschema::draft201909::new(schema),
            Dialect::Draft7 => jsonschema::draft7::new(schema),
            Dialect::Draft6 => jsonschema::draft6::new(schema),
            Dialect::Draft4 => jsonschema::draft4::new(schema),
        }
        .map_err(|e| e.to_string())?;
        Ok(ArgValidator {
            inner,
            secrets: Secrets::of(schema),
        })
    }

    /// Whether the schema marks some value secret (`writeOnly: true`, or `format:
    /// "password"`).
    pub fn has_secrets(&self) -> bool {
        self.secrets.is_some()
    }

    /// `arguments` with every value the schema marks secret replaced by `"[redacted]"`;
    /// as they are when it marks none.
    pub fn redact(&self, arguments: &Map<String, Value>) -> Map<String, Value> {
        let mut copy = arguments.clone();
        if let Some(secrets) = &self.secrets {
            secrets.apply_to_object(&mut copy);
        }
        copy
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
            // A schema with secrets gets no value quoted back: a message names the
            // argument and the problem, never what was sent.
            if self.secrets.is_some() {
                messages.push(format!("{place}: {}", error.masked()));
            } else {
                messages.push(format!("{place}: {error}"));
            }
        }
        if messages.is_empty() {
            Ok(())
        } else {
            Err(messages)
        }
    }
}

/// What replaces a secret value in an audit record.
pub const REDACTED: &str = "[redacted]";

/// Where a schema marks values secret: a tree following the arguments' shape (object
/// properties, additional properties, array items). Built once per schema; `None` for a
/// schema with no secret, so most tools pay nothing.
#[derive(Debug, Default, Clone, PartialEq)]
struct Secrets {
    /// The value here is secret, whole.
    whole: bool,
    properties: std::collections::BTreeMap<String, Secrets>,
    additional: Option<Box<Secrets>>,
    items: Option<Box<Secrets>>,
}

/// Deepest schema nesting followed when looking for secrets (`$ref` cycles end here).
const SECRET_DEPTH: usize = 32;

impl Secrets {
    fn of(schema: &Value) -> Option<Secrets> {
        let mut secrets = Secrets::default();
        secrets.add(schema, schema, 0);
        (secrets != Secrets::default()).then_some(secrets)
    }

    /// Add what `schema` (within `root`, for `$ref`s) marks secret. Every branch of
    /// `allOf`, `anyOf` and `oneOf` counts: a value secret in any reading of the schema is
    /// treated as secret.
    fn add(&mut self, schema: &Value, root: &Value, depth: usize) {
        let Some(object) = schema.as_object() else {
            return;
        };
        if depth > SECRET_DEPTH {
            return;
        }
        if object.get("writeOnly") == Some(&Value::Bool(true))
            || object.get("format").and_then(Value::as_str) == Some("password")
        {
            self.whole = true;
            return;
        }
        if let Some(target) = object
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|pointer| root.pointer(pointer))
        {
            self.add(target, root, depth + 1);
        }
        for combined in ["allOf", "anyOf", "oneOf"] {
            for branch in object
                .get(combined)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                self.add(branch, root, depth + 1);
            }
        }
        if let Some(properties) = object.get("properties").and_then(Value::as_object) {
            for (name, property) in properties {
                let mut inner = self.properties.remove(name).unwrap_or_default();
                inner.add(property, root, depth + 1);
                if inner != Secrets::default() {
                    self.properties.insert(name.clone(), inner);
                }
            }
        }
        for (keyword, slot) in [
            ("additionalProperties", &mut self.additional),
            ("items", &mut self.items),
        ] {
            if let Some(sub) = object.get(keyword) {
                let mut inner = slot.take().map(|b| *b).unwrap_or_default();
                inner.add(sub, root, depth + 1);
                if inner != Secrets::default() {
                    *slot = Some(Box::new(inner));
                }
            }
        }
    }

    fn apply(&self, value: &mut Value) {
        if self.whole {
            *value = Value::String(REDACTED.to_owned());
            return;
        }
        match value {
            Value::Object(object) => self.apply_to_object(object),
            Value::Array(items) => {
                if let Some(secrets) = &self.items {
                    for item in items {
                        secrets.apply(item);
                    }
                }
            }
            _ => {}
        }
    }

    fn apply_to_object(&self, object: &mut Map<String, Value>) {
        for (name, value) in object.iter_mut() {
            match self.properties.get(name) {
                Some(secrets) => secrets.apply(value),
                None => {
                    if let Some(secrets) = &self.additional {
                        secrets.apply(value);
                    }
                }
            }
        }
    }
}

/// The JSON Schema dialects a tool's schema may declare in `$schema` (with `http` or
/// `https`, with or without an empty fragment); a schema without `$schema` is 2020-12.
pub const DIALECTS: &[&str] = &[
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft-07/schema",
    "http://json-schema.org/draft-06/schema",
    "http://json-schema.org/draft-04/schema",
];

/// The dialect a schema is validated by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    Draft202012,
    Draft201909,
    Draft7,
    Draft6,
    Draft4,
}

impl Dialect {
    /// The dialect the root's `$schema` names, or why it cannot be applied.
    fn of(schema: &Value) -> Result<Dialect, String> {
        let Some(declared) = schema.get("$schema") else {
            return Ok(Dialect::Draft202012);
        };
        let Some(uri) = declared.as_str() else {
            return Err(format!("`$schema` is {declared}, not the URI of a dialect"));
        };
        let bare = uri.strip_suffix('#').unwrap_or(uri);
        let bare = bare
            .strip_prefix("https://")
            .or_else(|| bare.strip_prefix("http://"))
            .unwrap_or("");
        Ok(match bare {
            "json-schema.org/draft/2020-12/schema" => Dialect::Draft202012,
            "json-schema.org/draft/2019-09/schema" => Dialect::Draft201909,
            "json-schema.org/draft-07/schema" => Dialect::Draft7,
            "json-schema.org/draft-06/schema" => Dialect::Draft6,
            "json-schema.org/draft-04/schema" => Dialect::Draft4,
            _ => {
                return Err(format!(
                    "the JSON Schema dialect {uri} is not supported: declare one of {} in `$schema`, or leave it out for 2020-12",
                    DIALECTS.join(", ")
                ))
            }
        })
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
    within_bounds(value, 1, &mut nodes).map_err(|problem| vec![problem])
}

/// The walk behind [`check_bounds`]. It recurses, but a level is refused before its
/// children are visited, so it never goes more than [`MAX_DEPTH`] + 1 calls deep however
/// deep the value is; and it allocates nothing, as it runs on every call.
fn within_bounds(value: &Value, depth: usize, nodes: &mut usize) -> Result<(), String> {
    *nodes += 1;
    if depth > MAX_DEPTH {
        return Err(format!(
            "arguments are nested deeper than {MAX_DEPTH} levels"
        ));
    }
    if *nodes > MAX_NODES {
        return Err(format!("arguments have more than {MAX_NODES} values"));
    }
    match value {
        Value::Array(items) => items
            .iter()
            .try_for_each(|item| within_bounds(item, depth + 1, nodes)),
        Value::Object(map) => map
            .values()
            .try_for_each(|item| within_bounds(item, depth + 1, nodes)),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_the_schema_marks_secret_are_redacted_wherever_they_are() {
        let schema = json!({
            "type": "object",
            "$defs": {
                "Login": {"type": "object", "properties": {
                    "user": {"type": "string"},
                    "password": {"type": "string", "writeOnly": true}
                }},
                "Node": {"type": "object", "properties": {
                    "next": {"$ref": "#/$defs/Node"},
                    "pin": {"type": "string", "format": "password"}
                }}
            },
            "properties": {
                "token": {"type": "string", "writeOnly": true},
                "login": {"$ref": "#/$defs/Login"},
                "logins": {"type": "array", "items": {"$ref": "#/$defs/Login"}},
                "either": {"anyOf": [{"type": "integer"}, {"type": "string", "writeOnly": true}]},
                "headers": {"type": "object", "additionalProperties": {"type": "string", "writeOnly": true}},
                "chain": {"$ref": "#/$defs/Node"},
                "note": {"type": "string"}
            }
        });
        let validator = ArgValidator::compile(&schema).unwrap();
        assert!(validator.has_secrets());
        let arguments = json!({
            "token": "t0ken", "note": "plain",
            "login": {"user": "ann", "password": "hunter2"},
            "logins": [{"user": "bob", "password": "s3cret"}],
            "either": 5,
            "headers": {"x-api-key": "k3y"},
            "chain": {"pin": "1234", "next": {"pin": "5678"}}
        });
        let redacted = Value::Object(validator.redact(arguments.as_object().unwrap()));
        assert_eq!(
            redacted,
            json!({
                "token": REDACTED, "note": "plain",
                "login": {"user": "ann", "password": REDACTED},
                "logins": [{"user": "bob", "password": REDACTED}],
                "either": REDACTED,
                "headers": {"x-api-key": REDACTED},
                "chain": {"pin": REDACTED, "next": {"pin": REDACTED}}
            })
        );
        // No value is quoted back in a message once the schema has a secret.
        let problems = validator
            .check(&json!({"token": 987654321, "note": "plain"}))
            .unwrap_err();
        assert!(
            problems.iter().all(|p| !p.contains("987654321")),
            "{problems:?}"
        );
        assert!(problems[0].starts_with("argument /token:"), "{problems:?}");

        let plain = ArgValidator::compile(&json!({"type": "object"})).unwrap();
        assert!(!plain.has_secrets());
    }

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
    fn the_bounds_walk_stops_at_the_depth_limit_not_at_the_bottom() {
        // Built (and dropped) on this thread; walked on one whose 64 KiB stack holds the
        // walk's few dozen levels but not one level per nesting of this value.
        let mut deep = json!(1);
        for _ in 0..1_000 {
            deep = json!([deep]);
        }
        let verdict = std::thread::scope(|scope| {
            std::thread::Builder::new()
                .stack_size(64 * 1024)
                .spawn_scoped(scope, || check_bounds(&deep))
                .unwrap()
                .join()
                .unwrap()
        });
        let errs = verdict.unwrap_err();
        assert!(errs[0].contains("nested deeper"), "{errs:?}");
        assert!(check_bounds(&json!({"a": [1, {"b": null}], "c": "x"})).is_ok());
    }

    #[test]
    fn too_many_values_are_refused() {
        let many = Value::Array(vec![json!(0); MAX_NODES]);
        let errs = check_bounds(&json!({ "x": many })).unwrap_err();
        assert!(errs[0].contains("more than"), "{errs:?}");
    }

    #[test]
    fn remote_refs_are_not_fetched() {
        let refused = [
            json!({"$ref": "http://127.0.0.1:9/schema.json"}),
            json!({"$ref": "file:///etc/passwd"}),
            json!({"$ref": "other.json#/$defs/a"}),
            json!({"properties": {"a": {"items": [{"$dynamicRef": "https://x.example/s#n"}]}}}),
            json!({"$defs": {"d": {"$id": "https://x.example/d", "$ref": "e"}}}),
            json!({"$defs": {"d": {"$schema": "https://x.example/my-meta-schema"}}}),
        ];
        for schema in refused {
            let err = ArgValidator::compile(&schema).err().unwrap();
            // S-030, S-031: a schema that refers outside itself is refused, never fetched;
            // there is no setting that fetches.
            assert!(err.contains("is not fetched"), "{schema}: {err}");
        }
    }

    #[test]
    fn each_schema_is_validated_by_its_declared_dialect() {
        // S-025, S-026: draft-07's array-form `items` is a tuple (2020-12 spells that
        // `prefixItems`, and its `items` takes one schema) and its `dependencies` requires
        // properties (2020-12: `dependentRequired`).
        let body = json!({
            "type": "object",
            "properties": {"pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}},
            "dependencies": {"card": ["billing_address"]}
        });
        let mut draft7 = body.clone();
        draft7["$schema"] = json!("http://json-schema.org/draft-07/schema#");
        let v = ArgValidator::compile(&draft7).unwrap();
        assert!(v.check(&json!({"pair": ["a", 1]})).is_ok());
        let errs = v.check(&json!({"pair": [1, "a"]})).unwrap_err();
        assert!(errs[0].starts_with("argument /pair/0:"), "{errs:?}");
        let errs = v.check(&json!({"card": "4111"})).unwrap_err();
        assert!(errs[0].contains("billing_address"), "{errs:?}");
        assert!(v
            .check(&json!({"card": "4111", "billing_address": "x"}))
            .is_ok());
        // Without `$schema` the schema is read as 2020-12, where array-form `items` is no
        // schema at all.
        let err = ArgValidator::compile(&body).err().unwrap();
        assert!(
            err.contains("is not of types \"boolean\", \"object\""),
            "{err}"
        );
        // 2019-09, draft-06 and draft-04 are applied too (draft-04's boolean
        // `exclusiveMaximum` exists in no later dialect).
        for uri in [
            "https://json-schema.org/draft/2019-09/schema",
            "http://json-schema.org/draft-06/schema#",
        ] {
            let v = ArgValidator::compile(
                &json!({"$schema": uri, "type": "object", "required": ["a"]}),
            )
            .unwrap();
            assert!(v.check(&json!({})).is_err(), "{uri}");
        }
        let draft4 = json!({"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
            "properties": {"n": {"type": "integer", "maximum": 5, "exclusiveMaximum": true}}});
        let v = ArgValidator::compile(&draft4).unwrap();
        assert!(v.check(&json!({"n": 4})).is_ok());
        assert!(v.check(&json!({"n": 5})).is_err());
    }

    #[test]
    fn a_dialect_the_validator_cannot_apply_is_refused() {
        // S-027: a dialect the validator cannot apply is refused, saying it is not supported.
        for schema in [
            json!({"$schema": "https://x.example/my-meta-schema", "type": "object"}),
            json!({"$schema": "https://json-schema.org/draft/2030-01/schema", "type": "object"}),
            json!({"$schema": "http://json-schema.org/schema#", "type": "object"}),
        ] {
            let err = ArgValidator::compile(&schema).err().unwrap();
            assert!(err.contains("is not supported"), "{schema}: {err}");
            assert!(err.contains("draft-07"), "{err}");
        }
        let err = ArgValidator::compile(&json!({"$schema": 7})).err().unwrap();
        assert!(err.contains("not the URI of a dialect"), "{err}");
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
