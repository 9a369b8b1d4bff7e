//! Rust types for the schemas arguments use, and the table of the document's named schemas.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use heck::ToShoutySnakeCase;
use serde_json::Value;

use super::text::{doc_lines, field, raw, uses_ident, LINTS};
use super::Writer;
use crate::names;
use crate::schema::def_name;
impl Writer<'_> {
    /// A named schema's definition, when `schema` refers to one, else `schema`.
    pub(super) fn resolved(&self, schema: &Value) -> Value {
        def_name(schema)
            .and_then(|name| self.api.schemas.get(name))
            .cloned()
            .unwrap_or_else(|| schema.clone())
    }

    /// The Rust type of a value of `schema`.
    pub(super) fn rust_type(&mut self, schema: &Value) -> String {
        if let Some(name) = def_name(schema) {
            if let Some(rust) = self.typed.get(name).cloned() {
                if !self.wanted.contains(&name.to_owned()) {
                    self.wanted.push(name.to_owned());
                }
                self.used_now.insert(rust.clone());
                return rust;
            }
            return "Value".into();
        }
        let (kind, nullable) = kind_of(schema);
        let base = match kind.as_deref() {
            Some("string") if schema.get("enum").is_none() => "String".to_owned(),
            Some("integer") => "i64".to_owned(),
            Some("number") => "f64".to_owned(),
            Some("boolean") => "bool".to_owned(),
            Some("array") => {
                let items = schema.get("items").cloned().unwrap_or(Value::Bool(true));
                format!("Vec<{}>", self.rust_type(&items))
            }
            Some("object") | None
                if schema.get("properties").is_none()
                    && schema
                        .get("additionalProperties")
                        .is_some_and(Value::is_object)
                    && is_plain(schema) =>
            {
                let values = schema
                    .get("additionalProperties")
                    .cloned()
                    .unwrap_or(Value::Bool(true));
                format!(
                    "std::collections::BTreeMap<String, {}>",
                    self.rust_type(&values)
                )
            }
            _ => "Value".to_owned(),
        };
        if nullable && base != "Value" {
            format!("Option<{base}>")
        } else {
            base
        }
    }

    /// The Rust types of the named schemas the arguments use, and the table of every named
    /// schema's JSON Schema.
    pub(super) fn types(&mut self) -> String {
        let mut out = self.header(&format!("The named schemas of {}: their JSON Schema, and Rust types for those the tools' arguments use.", self.api.title.replace('\n', " ")));
        out.push_str(LINTS);
        let mut written = BTreeSet::new();
        let mut items = String::new();
        while let Some(name) = self.wanted.pop() {
            if !written.insert(name.clone()) {
                continue;
            }
            let schema = self
                .api
                .schemas
                .get(&name)
                .cloned()
                .unwrap_or(Value::Bool(true));
            let rust = self.typed.get(&name).cloned().unwrap_or_default();
            items.push_str(&self.named_type(&name, &rust, &schema));
        }
        // The table the tools' schemas are completed from.
        out.push_str(
            "/// The JSON Schema of the document's named schema `name` (as `$defs/name`).\n",
        );
        if self.api.schemas.is_empty() {
            out.push_str(
                "pub(crate) fn named_schema(_name: &str) -> Option<&'static str> {\n    None\n}\n",
            );
            return out;
        }
        out.push_str(
            "pub(crate) fn named_schema(name: &str) -> Option<&'static str> {\n    match name {\n",
        );
        let mut consts = String::new();
        let mut const_names = BTreeSet::new();
        for (name, schema) in &self.api.schemas {
            let constant = unique_const(
                &format!("{}_SCHEMA", name.to_shouty_snake_case()),
                &const_names,
            );
            const_names.insert(constant.clone());
            let _ = writeln!(out, "        {name:?} => Some({constant}),");
            let text = serde_json::to_string_pretty(schema).unwrap_or_default();
            let _ = writeln!(consts, "const {constant}: &str = {};\n", raw(&text));
        }
        out.push_str("        _ => None,\n    }\n}\n\n");
        out.push_str(&consts);
        // Imports for what the types use: only aliases of `Value` need no derive.
        if uses_ident(&items, "Serialize") {
            out.push_str("use serde::{Deserialize, Serialize};\n");
        }
        if self.types_use_value {
            out.push_str("use serde_json::Value;\n");
        }
        if !items.is_empty() {
            out.push('\n');
        }
        out.push_str(&items);
        out
    }

    pub(super) fn named_type(&mut self, name: &str, rust: &str, schema: &Value) -> String {
        let mut out = String::new();
        let description = schema
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("");
        let docs = if description.is_empty() {
            format!(" The document's `{name}`.")
        } else {
            String::new()
        };
        for line in doc_lines(if description.is_empty() {
            &docs
        } else {
            description
        }) {
            let _ = writeln!(out, "///{line}");
        }
        // A string enumeration.
        if let Some(Value::Array(values)) = schema.get("enum") {
            let strings: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
            if strings.len() == values.len() && !strings.is_empty() {
                out.push_str(
                    "#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]\n",
                );
                let _ = writeln!(out, "pub enum {rust} {{");
                let mut used = BTreeSet::new();
                for (i, value) in strings.iter().enumerate() {
                    let mut variant = names::type_name(value);
                    if variant.ends_with('_')
                        || variant.starts_with('T')
                            && value.starts_with(|c: char| c.is_ascii_digit())
                    {
                        variant =
                            format!("V{}", variant.trim_start_matches('T').trim_end_matches('_'));
                    }
                    if !used.insert(variant.clone()) {
                        variant = format!("V{i}");
                        used.insert(variant.clone());
                    }
                    let _ = writeln!(out, "    #[serde(rename = {value:?})]\n    {variant},");
                }
                out.push_str("}\n\n");
                return out;
            }
        }
        let properties = schema.get("properties").and_then(Value::as_object);
        let struct_like = properties.is_some_and(|p| !p.is_empty())
            && kind_of(schema).0.as_deref().is_none_or(|k| k == "object")
            && !kind_of(schema).1
            && is_plain(schema);
        let Some(properties) = properties.filter(|_| struct_like) else {
            self.types_use_value = true;
            out.push_str("pub type ");
            let _ = writeln!(out, "{rust} = Value;\n");
            return out;
        };
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut fields = String::new();
        let mut used = BTreeSet::new();
        for (property, property_schema) in properties {
            let rust_field =
                names::unique(&names::field(property), usize::MAX, |f| used.contains(f));
            used.insert(rust_field.clone());
            let mut ty = self.rust_type(property_schema);
            // A struct that contains itself (directly or through others) needs a box.
            if self.contains(&ty, rust) {
                ty = format!("Box<{ty}>");
            }
            self.types_use_value |= uses_ident(&ty, "Value");
            let description = property_schema.get("description").and_then(Value::as_str);
            fields.push_str(&field(
                &rust_field,
                property,
                &ty,
                required.contains(&property.as_str()),
                description,
            ));
        }
        let extra = schema.get("additionalProperties") != Some(&Value::Bool(false));
        if extra {
            self.types_use_value = true;
            fields.push_str("    /// Members the document does not name.\n    #[serde(flatten)]\n    pub other: serde_json::Map<String, Value>,\n");
        }
        out.push_str("#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]\n");
        let _ = writeln!(out, "pub struct {rust} {{\n{fields}}}\n");
        out
    }

    /// Whether a field of type `ty` inside the struct `of` makes `of` contain itself
    /// without indirection: `ty` is `of`, or a struct whose own fields reach `of` so.
    pub(super) fn contains(&self, ty: &str, of: &str) -> bool {
        let mut seen = BTreeSet::new();
        let mut pending = vec![ty
            .trim_start_matches("Option<")
            .trim_end_matches('>')
            .to_owned()];
        while let Some(current) = pending.pop() {
            if current == of {
                return true;
            }
            if !seen.insert(current.clone()) {
                continue;
            }
            let Some((name, _)) = self.typed.iter().find(|(_, rust)| **rust == current) else {
                continue;
            };
            let Some(properties) = self
                .api
                .schemas
                .get(name)
                .and_then(|s| s.get("properties"))
                .and_then(Value::as_object)
            else {
                continue;
            };
            // Only a direct reference (or a nullable one) holds the other inline; arrays
            // and maps hold theirs on the heap already.
            for schema in properties.values() {
                let named = def_name(schema).or_else(|| {
                    schema
                        .get("anyOf")
                        .and_then(Value::as_array)
                        .and_then(|any| any.iter().find_map(def_name))
                });
                if let Some(inner) = named.and_then(|n| self.typed.get(n)) {
                    pending.push(inner.clone());
                }
            }
        }
        false
    }
}

/// A schema's single type (`null` aside) and whether it admits `null`.
pub(super) fn kind_of(schema: &Value) -> (Option<String>, bool) {
    match schema.get("type") {
        Some(Value::String(kind)) => (Some(kind.clone()), false),
        Some(Value::Array(kinds)) => {
            let nullable = kinds.iter().any(|k| k == "null");
            let others: Vec<&str> = kinds
                .iter()
                .filter_map(Value::as_str)
                .filter(|k| *k != "null")
                .collect();
            match others.as_slice() {
                [one] => (Some((*one).to_owned()), nullable),
                _ => (Some("any".into()), nullable),
            }
        }
        _ => (None, false),
    }
}

/// No combinators or conditions: the schema's own keywords say what it is.
pub(super) fn is_plain(schema: &Value) -> bool {
    [
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "$ref",
        "patternProperties",
    ]
    .iter()
    .all(|k| schema.get(k).is_none())
}

pub(super) fn unique_type(name: &str, taken: &BTreeSet<String>) -> String {
    if !taken.contains(name) {
        return name.to_owned();
    }
    (2..)
        .map(|i| format!("{name}{i}"))
        .find(|n| !taken.contains(n))
        .unwrap_or_default()
}

pub(super) fn unique_const(name: &str, taken: &BTreeSet<String>) -> String {
    let name = if name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("S_{name}")
    } else {
        name.to_owned()
    };
    if !taken.contains(&name) {
        return name;
    }
    (2..)
        .map(|i| format!("{name}_{i}"))
        .find(|n| !taken.contains(n))
        .unwrap_or_default()
}
