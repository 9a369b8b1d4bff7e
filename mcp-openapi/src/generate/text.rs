//! Pieces of generated text: items, attributes, literals and doc comments.

use std::fmt::Write as _;

use serde_json::Value;

use crate::names;
/// `use path::item;` or `use path::{a, b};`.
pub(super) fn use_line(path: &str, items: &[&str]) -> String {
    match items {
        [one] => format!("use {path}::{one};"),
        many => format!("use {path}::{{{}}};", many.join(", ")),
    }
}

/// A module name as Rust writes it: a keyword as a raw identifier.
pub(super) fn raw_ident(name: &str) -> String {
    if names::is_keyword(name) {
        format!("r#{name}")
    } else {
        name.to_owned()
    }
}

/// Whether `code` uses the identifier `name` (not merely a longer one containing it).
pub(super) fn uses_ident(code: &str, name: &str) -> bool {
    code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|token| token == name)
}

/// Lints the document's own text can set off in generated items.
pub(super) const LINTS: &str = "// Descriptions are the document's own text, kept as written.\n#![allow(clippy::doc_lazy_continuation, clippy::doc_overindented_list_items, clippy::tabs_in_doc_comments, clippy::empty_docs)]\n";

/// A struct field, with its doc comment, rename and optionality.
pub(super) fn field(
    rust: &str,
    name: &str,
    ty: &str,
    required: bool,
    description: Option<&str>,
) -> String {
    let mut out = String::new();
    for line in doc_lines(description.unwrap_or("")) {
        let _ = writeln!(out, "    ///{line}");
    }
    let rename = if rust != name {
        format!("rename = {name:?}")
    } else {
        String::new()
    };
    let rust = if names::is_keyword(rust) {
        format!("r#{rust}")
    } else {
        rust.to_owned()
    };
    if required {
        if !rename.is_empty() {
            let _ = writeln!(out, "    #[serde({rename})]");
        }
        let _ = writeln!(out, "    pub {rust}: {ty},");
    } else {
        let ty = if ty.starts_with("Option<") {
            ty.to_owned()
        } else {
            format!("Option<{ty}>")
        };
        let attributes = [
            rename.as_str(),
            "default",
            "skip_serializing_if = \"Option::is_none\"",
        ]
        .into_iter()
        .filter(|a| !a.is_empty())
        .collect::<Vec<_>>()
        .join(", ");
        let _ = writeln!(out, "    #[serde({attributes})]\n    pub {rust}: {ty},");
    }
    out
}

/// A `JsonSchema` impl that publishes `schema` as written.
pub(super) fn schema_impl(rust: &str, schema: &Value) -> String {
    let text = serde_json::to_string_pretty(schema).unwrap_or_default();
    format!(
        "impl JsonSchema for {rust} {{\n    fn schema_name() -> std::borrow::Cow<'static, str> {{\n        {rust:?}.into()\n    }}\n\n    fn inline_schema() -> bool {{\n        true\n    }}\n\n    fn json_schema(generator: &mut SchemaGenerator) -> Schema {{\n        schema(generator, {})\n    }}\n}}\n\n",
        raw(&text)
    )
}

/// `schema` without its `$defs`, which the generator adds back from the named schemas.
pub(super) fn without_defs(mut schema: Value) -> Value {
    if let Value::Object(map) = &mut schema {
        map.remove("$defs");
    }
    schema
}

/// `text` as a raw string literal.
pub(super) fn raw(text: &str) -> String {
    let mut hashes = 1;
    while text.contains(&format!("\"{}", "#".repeat(hashes))) {
        hashes += 1;
    }
    let hashes = "#".repeat(hashes);
    format!("r{hashes}\"{text}\"{hashes}")
}

/// The lines of a doc comment, each starting with a space (or empty).
pub(super) fn doc_lines(text: &str) -> Vec<String> {
    let text = text.trim();
    if text.is_empty() {
        return Vec::new();
    }
    text.lines()
        .map(|line| {
            let line = line.trim_end().replace('\t', "    ");
            if line.is_empty() {
                String::new()
            } else {
                format!(" {line}")
            }
        })
        .collect()
}
