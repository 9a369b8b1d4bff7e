//! OpenAPI schema objects to JSON Schema 2020-12, the dialect MCP tools publish.
//!
//! A 3.0 document's schemas are OpenAPI's own dialect: `nullable` becomes a `"null"` type,
//! a boolean `exclusiveMinimum` becomes the number form, `example` becomes `examples`, and
//! what JSON Schema has no use for (`xml`, `discriminator`, `externalDocs`, `x-` extensions)
//! is dropped. A 3.1 document's schemas are JSON Schema already and only lose the same
//! extras. In both, a reference to a named schema (`#/components/schemas/Item`) becomes
//! `#/$defs/Item`, converted once and shared, so recursive schemas stay finite; any other
//! reference inside the document is inlined.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::load::Version;
use crate::refs;

/// The prefix of a named schema's reference in a document.
const COMPONENT: &str = "#/components/schemas/";

/// How deep schemas may nest (references inlined included) before the schema is refused:
/// deeper than any real API's, and short of a stack overflow.
const MAX_DEPTH: usize = 64;

/// Converts the schemas of one document, keeping the named ones it met.
pub(crate) struct Schemas<'a> {
    document: &'a Value,
    version: Version,
    /// Named schemas converted, by their `$defs` name.
    defs: BTreeMap<String, Value>,
    /// The `$defs` name of each component name met.
    names: BTreeMap<String, String>,
    /// Named schemas whose conversion failed, with the reason, by `$defs` name.
    failed: BTreeMap<String, String>,
    /// Named schemas met but not converted yet. They are converted one after the other,
    /// not inside the schema that met them, so a long chain of named schemas costs no
    /// stack and each starts at depth 0.
    pending: Vec<(String, &'a Value)>,
    /// Non-component references being inlined, to refuse a cycle through them.
    inlining: Vec<String>,
    /// Whether each `pattern` met compiles in the validator.
    patterns: BTreeMap<String, bool>,
    /// What was changed with a loss.
    warnings: Vec<String>,
}

/// What converting a document's schemas gave, besides each schema converted.
pub(crate) struct Converted {
    /// The named schemas, by `$defs` name.
    pub(crate) defs: BTreeMap<String, Value>,
    /// The named schemas that could not be converted, with the reason.
    pub(crate) failed: BTreeMap<String, String>,
    /// Losses, such as a `pattern` left out.
    pub(crate) warnings: Vec<String>,
}

impl<'a> Schemas<'a> {
    pub(crate) fn new(document: &'a Value, version: Version) -> Self {
        Schemas {
            document,
            version,
            defs: BTreeMap::new(),
            names: BTreeMap::new(),
            failed: BTreeMap::new(),
            pending: Vec::new(),
            inlining: Vec::new(),
            patterns: BTreeMap::new(),
            warnings: Vec::new(),
        }
    }

    /// Convert the named schemas met and not converted yet; everything converted.
    pub(crate) fn finish(mut self) -> Converted {
        while let Some((name, _)) = self.pending.last() {
            let name = name.clone();
            self.complete(&name);
        }
        Converted {
            defs: self.defs,
            failed: self.failed,
            warnings: self.warnings,
        }
    }

    /// Convert the named schema `name` now, if it is pending.
    fn complete(&mut self, name: &str) {
        let Some(at) = self.pending.iter().position(|(n, _)| n == name) else {
            return;
        };
        let (name, source) = self.pending.swap_remove(at);
        let outer = std::mem::take(&mut self.inlining);
        let converted = self.convert_at(source, 0);
        self.inlining = outer;
        match converted {
            Ok(schema) => {
                self.defs.insert(name, schema);
            }
            Err(reason) => {
                self.failed.insert(name, reason);
            }
        }
    }

    /// `schema` as JSON Schema 2020-12.
    pub(crate) fn convert(&mut self, schema: &Value) -> Result<Value, String> {
        self.convert_at(schema, 0)
    }

    /// The schema a `$ref` at the top of `schema` points at, converted, when it is a
    /// named one; else `schema` itself, converted. For looking inside (properties of a body).
    pub(crate) fn resolved(&mut self, converted: &Value) -> Value {
        match def_name(converted) {
            Some(name) => {
                self.complete(name);
                self.defs.get(name).cloned().unwrap_or(Value::Bool(true))
            }
            None => converted.clone(),
        }
    }

    fn convert_at(&mut self, schema: &Value, depth: usize) -> Result<Value, String> {
        if depth > MAX_DEPTH {
            return Err(format!("schemas nest more than {MAX_DEPTH} deep"));
        }
        let object = match schema {
            Value::Bool(_) => return Ok(schema.clone()),
            Value::Object(object) => object,
            other => return Err(format!("a schema is `{other}`, not an object")),
        };
        if let Some(reference) = object.get("$ref") {
            let Some(reference) = reference.as_str() else {
                return Err("a `$ref` is not a string".into());
            };
            let target = self.reference(reference, depth)?;
            // 3.0 ignores a reference's siblings; 3.1 keeps them beside it.
            if self.version == Version::V3_0 || object.len() == 1 {
                return Ok(target);
            }
            let mut rest = object.clone();
            rest.remove("$ref");
            let Value::Object(siblings) = self.convert_members(&rest, depth)? else {
                return Ok(target);
            };
            if !siblings.keys().all(|k| is_annotation(k)) {
                return Ok(serde_json::json!({"allOf": [target, Value::Object(siblings)]}));
            }
            // Annotations go beside the reference, or over the members of an inlined target.
            let Value::Object(mut merged) = target else {
                return Ok(target);
            };
            merged.extend(siblings);
            return Ok(Value::Object(merged));
        }
        self.convert_members(object, depth)
    }

    /// A `$ref`: a named schema by reference, anything else inlined.
    fn reference(&mut self, reference: &str, depth: usize) -> Result<Value, String> {
        let document = self.document;
        if let Some(component) = reference.strip_prefix(COMPONENT) {
            if !component.contains('/') {
                let source = refs::resolve(document, reference)?;
                let name = self.component(component, source);
                return Ok(serde_json::json!({ "$ref": format!("#/$defs/{name}") }));
            }
        }
        if self.inlining.iter().any(|r| r == reference) {
            return Err(format!(
                "`{reference}` refers to itself through schemas that are not named"
            ));
        }
        let target = refs::resolve(document, reference)?;
        self.inlining.push(reference.to_owned());
        let converted = self.convert_at(target, depth + 1);
        self.inlining.pop();
        converted
    }

    /// Convert a named schema once; its `$defs` name.
    /// A named schema's `$defs` name; it is converted later (see `pending`).
    fn component(&mut self, component: &str, source: &'a Value) -> String {
        if let Some(name) = self.names.get(component) {
            return name.clone();
        }
        let name = self.def_name_for(&decode(component));
        self.names.insert(component.to_owned(), name.clone());
        self.pending.push((name.clone(), source));
        name
    }

    /// A `$defs` name for a component: its own name when that needs no escaping in a
    /// reference, else one with the other characters replaced, kept unique.
    fn def_name_for(&self, component: &str) -> String {
        let base: String = component
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let taken = |name: &str| self.names.values().any(|n| n == name);
        if !taken(&base) {
            return base;
        }
        (2..)
            .map(|i| format!("{base}_{i}"))
            .find(|name| !taken(name))
            .unwrap_or(base)
    }

    fn convert_members(
        &mut self,
        object: &Map<String, Value>,
        depth: usize,
    ) -> Result<Value, String> {
        let mut out = Map::new();
        for (key, value) in object {
            match key.as_str() {
                "properties" | "patternProperties" | "$defs" | "definitions"
                | "dependentSchemas" => {
                    let Value::Object(members) = value else {
                        return Err(format!("`{key}` is not an object"));
                    };
                    let mut converted = Map::new();
                    for (name, schema) in members {
                        converted.insert(name.clone(), self.convert_at(schema, depth + 1)?);
                    }
                    out.insert(key.clone(), Value::Object(converted));
                }
                "items" if value.is_array() => {
                    // An array of schemas is a tuple in older dialects: 2020-12 says it
                    // with `prefixItems`.
                    out.insert("prefixItems".into(), self.convert_list(value, depth)?);
                }
                "items"
                | "additionalProperties"
                | "additionalItems"
                | "not"
                | "if"
                | "then"
                | "else"
                | "contains"
                | "propertyNames"
                | "unevaluatedItems"
                | "unevaluatedProperties"
                | "contentSchema" => {
                    out.insert(key.clone(), self.convert_at(value, depth + 1)?);
                }
                "allOf" | "anyOf" | "oneOf" | "prefixItems" => {
                    out.insert(key.clone(), self.convert_list(value, depth)?);
                }
                "type" if value == "file" => {
                    out.insert("type".into(), "string".into());
                    out.insert("format".into(), "binary".into());
                }
                "required" => {
                    // `required: true` on a property is a common slip; JSON Schema wants a
                    // list of names on the object.
                    if let Value::Array(names) = value {
                        let names: Vec<Value> =
                            names.iter().filter(|n| n.is_string()).cloned().collect();
                        out.insert(key.clone(), Value::Array(names));
                    }
                }
                "example" => {
                    out.entry("examples")
                        .or_insert_with(|| Value::Array(vec![value.clone()]));
                }
                "exclusiveMinimum" | "exclusiveMaximum" if value.is_boolean() => {}
                "pattern" => {
                    if let Some(pattern) = value.as_str().filter(|p| self.pattern_compiles(p)) {
                        out.insert(key.clone(), pattern.into());
                    }
                }
                "minimum" | "maximum" => {
                    let exclusive = if key == "minimum" {
                        "exclusiveMinimum"
                    } else {
                        "exclusiveMaximum"
                    };
                    if object.get(exclusive) == Some(&Value::Bool(true)) {
                        out.insert(exclusive.into(), value.clone());
                    } else {
                        out.insert(key.clone(), value.clone());
                    }
                }
                "nullable" | "xml" | "externalDocs" | "discriminator" => {}
                key if key.starts_with("x-") => {}
                _ => {
                    out.insert(key.clone(), value.clone());
                }
            }
        }
        // A property that is only read (or only written) is not required both ways.
        if let (Some(Value::Object(properties)), Some(Value::Array(required))) =
            (out.get("properties"), out.get("required"))
        {
            let one_way = |name: &Value| {
                name.as_str()
                    .and_then(|n| properties.get(n))
                    .is_some_and(|p| {
                        p.get("readOnly") == Some(&Value::Bool(true))
                            || p.get("writeOnly") == Some(&Value::Bool(true))
                    })
            };
            let kept: Vec<Value> = required.iter().filter(|n| !one_way(n)).cloned().collect();
            out.insert("required".into(), Value::Array(kept));
        }
        if object.get("nullable") == Some(&Value::Bool(true)) && self.version == Version::V3_0 {
            return Ok(nullable(out));
        }
        Ok(Value::Object(out))
    }

    /// Whether the validator reads `pattern` (ECMA 262 regular expressions; documents
    /// written for Java or .NET use `\\p{XDigit}`, `\\A` and the like). One it cannot read
    /// is left out, with a warning, rather than costing the operation.
    fn pattern_compiles(&mut self, pattern: &str) -> bool {
        if let Some(known) = self.patterns.get(pattern) {
            return *known;
        }
        let compiles =
            jsonschema::draft202012::new(&serde_json::json!({ "pattern": pattern })).is_ok();
        if !compiles {
            self.warnings.push(format!(
                "the pattern `{pattern}` is not a regular expression the validator reads; it is left out"
            ));
        }
        self.patterns.insert(pattern.to_owned(), compiles);
        compiles
    }

    fn convert_list(&mut self, value: &Value, depth: usize) -> Result<Value, String> {
        let Value::Array(items) = value else {
            return Err("a list of schemas is not an array".into());
        };
        items
            .iter()
            .map(|item| self.convert_at(item, depth + 1))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array)
    }
}

/// A schema that also admits `null`.
fn nullable(mut schema: Map<String, Value>) -> Value {
    if let Some(Value::Array(values)) = schema.get_mut("enum") {
        if !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
    }
    match schema.get_mut("type") {
        Some(Value::String(single)) => {
            let single = std::mem::take(single);
            schema.insert("type".into(), serde_json::json!([single, "null"]));
            Value::Object(schema)
        }
        Some(Value::Array(types)) => {
            if !types.contains(&Value::from("null")) {
                types.push("null".into());
            }
            Value::Object(schema)
        }
        _ => serde_json::json!({"anyOf": [Value::Object(schema), {"type": "null"}]}),
    }
}

/// A keyword that describes without constraining, kept beside a `$ref` as it is.
fn is_annotation(key: &str) -> bool {
    matches!(
        key,
        "description" | "title" | "default" | "examples" | "deprecated" | "readOnly" | "writeOnly"
    )
}

/// The `$defs` name a converted schema refers to, when it is only a reference.
pub(crate) fn def_name(schema: &Value) -> Option<&str> {
    schema.get("$ref")?.as_str()?.strip_prefix("#/$defs/")
}

/// A component name as a reference writes it, unescaped.
fn decode(component: &str) -> String {
    component
        .replace("~1", "/")
        .replace("~0", "~")
        .replace("%20", " ")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn convert(
        version: Version,
        document: &Value,
        schema: Value,
    ) -> (Value, BTreeMap<String, Value>) {
        let mut schemas = Schemas::new(document, version);
        let converted = schemas.convert(&schema).unwrap();
        (converted, schemas.finish().defs)
    }

    #[test]
    fn the_3_0_dialect_becomes_json_schema() {
        let doc = json!({});
        let (converted, _) = convert(
            Version::V3_0,
            &doc,
            json!({
                "type": "object",
                "required": ["id", "name"],
                "properties": {
                    "id": {"type": "integer", "readOnly": true},
                    "name": {"type": "string", "nullable": true, "example": "bolt", "x-internal": 1},
                    "size": {"type": "number", "minimum": 0, "exclusiveMinimum": true},
                    "kind": {"type": "string", "enum": ["a", "b"], "nullable": true},
                    "blob": {"type": "file"}
                },
                "xml": {"name": "item"},
                "discriminator": {"propertyName": "kind"}
            }),
        );
        assert_eq!(
            converted,
            json!({
                "type": "object",
                "required": ["name"],
                "properties": {
                    "id": {"type": "integer", "readOnly": true},
                    "name": {"type": ["string", "null"], "examples": ["bolt"]},
                    "size": {"type": "number", "exclusiveMinimum": 0},
                    "kind": {"type": ["string", "null"], "enum": ["a", "b", null]},
                    "blob": {"type": "string", "format": "binary"}
                }
            })
        );
    }

    #[test]
    fn named_schemas_are_shared_and_may_recurse() {
        let doc = json!({"components": {"schemas": {
            "Node": {"type": "object", "properties": {
                "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}},
                "label": {"$ref": "#/components/schemas/Label"}
            }},
            "Label": {"type": "string", "nullable": true}
        }}});
        let (converted, defs) = convert(
            Version::V3_0,
            &doc,
            json!({"$ref": "#/components/schemas/Node"}),
        );
        assert_eq!(converted, json!({"$ref": "#/$defs/Node"}));
        assert_eq!(
            defs["Node"]["properties"]["children"]["items"],
            json!({"$ref": "#/$defs/Node"})
        );
        assert_eq!(defs["Label"], json!({"type": ["string", "null"]}));
    }

    #[test]
    fn other_references_are_inlined_but_may_not_loop() {
        let doc = json!({
            "paths": {"/a": {"x": {"type": "string"}}},
            "loop": {"type": "object", "properties": {"again": {"$ref": "#/loop"}}}
        });
        let (converted, defs) = convert(
            Version::V3_1,
            &doc,
            json!({"$ref": "#/paths/~1a/x", "description": "d"}),
        );
        assert_eq!(converted, json!({"type": "string", "description": "d"}));
        assert!(defs.is_empty());
        let mut schemas = Schemas::new(&doc, Version::V3_1);
        let error = schemas.convert(&json!({"$ref": "#/loop"})).unwrap_err();
        assert!(error.contains("refers to itself"), "{error}");
    }

    #[test]
    fn a_broken_named_schema_is_reported_by_name() {
        let doc = json!({"components": {"schemas": {"Bad": {"properties": 3}}}});
        let mut schemas = Schemas::new(&doc, Version::V3_0);
        let converted = schemas
            .convert(&json!({"$ref": "#/components/schemas/Bad"}))
            .unwrap();
        assert_eq!(converted, json!({"$ref": "#/$defs/Bad"}));
        let done = schemas.finish();
        assert!(done.defs.is_empty());
        assert!(
            done.failed["Bad"].contains("`properties` is not an object"),
            "{:?}",
            done.failed
        );
        let mut schemas = Schemas::new(&doc, Version::V3_0);
        let error = schemas
            .convert(&json!({"$ref": "#/components/schemas/Missing"}))
            .unwrap_err();
        assert!(error.contains("points at nothing"), "{error}");
    }

    #[test]
    fn a_3_1_reference_keeps_its_siblings() {
        let doc = json!({"components": {"schemas": {"Id": {"type": "string"}}}});
        let (converted, _) = convert(
            Version::V3_1,
            &doc,
            json!({"$ref": "#/components/schemas/Id", "description": "the id", "minLength": 3}),
        );
        assert_eq!(
            converted,
            json!({"allOf": [{"$ref": "#/$defs/Id"}, {"description": "the id", "minLength": 3}]})
        );
        let (converted, _) = convert(
            Version::V3_1,
            &doc,
            json!({"$ref": "#/components/schemas/Id", "description": "the id"}),
        );
        assert_eq!(
            converted,
            json!({"$ref": "#/$defs/Id", "description": "the id"})
        );
    }

    #[test]
    fn a_pattern_the_validator_cannot_read_is_left_out_with_a_warning() {
        let doc = json!({});
        let mut schemas = Schemas::new(&doc, Version::V3_0);
        let converted = schemas
            .convert(&json!({"type": "string", "pattern": "\\p{XDigit}{8}", "maxLength": 8}))
            .unwrap();
        assert_eq!(converted, json!({"type": "string", "maxLength": 8}));
        let kept = schemas.convert(&json!({"pattern": "^[a-z]+$"})).unwrap();
        assert_eq!(kept, json!({"pattern": "^[a-z]+$"}));
        let warnings = schemas.finish().warnings;
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("XDigit"), "{warnings:?}");
    }

    #[test]
    fn a_long_chain_of_named_schemas_costs_no_depth() {
        let mut components = serde_json::Map::new();
        for i in 0..500 {
            components.insert(format!("S{i}"), json!({"type": "object", "properties": {"next": {"$ref": format!("#/components/schemas/S{}", i + 1)}}}));
        }
        components.insert("S500".into(), json!({"type": "string"}));
        let doc = json!({"components": {"schemas": components}});
        let (converted, defs) = convert(
            Version::V3_0,
            &doc,
            json!({"$ref": "#/components/schemas/S0"}),
        );
        assert_eq!(converted, json!({"$ref": "#/$defs/S0"}));
        assert_eq!(defs.len(), 501);
    }

    #[test]
    fn nesting_too_deep_is_refused() {
        let mut schema = json!({"type": "string"});
        for _ in 0..100 {
            schema = json!({"type": "array", "items": schema});
        }
        let doc = json!({});
        let error = Schemas::new(&doc, Version::V3_0)
            .convert(&schema)
            .unwrap_err();
        assert!(error.contains("nest"), "{error}");
    }
}
