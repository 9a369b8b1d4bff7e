//! Elicitation form schemas: the flat object of primitive properties that
//! `elicitation/create` allows, derived once per Rust type from its JSON Schema.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use schemars::JsonSchema;
use serde_json::{json, Map, Value};

/// The elicitation schema of `T`, derived once per type: a flat object whose properties
/// are strings, numbers, integers, booleans, enums or arrays of enums.
pub(crate) fn form_schema<T: JsonSchema + 'static>() -> Result<Value, String> {
    static CACHE: OnceLock<Mutex<HashMap<TypeId, Result<Value, String>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
    cache
        .entry(TypeId::of::<T>())
        .or_insert_with(|| {
            let schema = crate::registry::spec::generator()
                .into_root_schema_for::<T>()
                .to_value();
            flatten_form(&schema, std::any::type_name::<T>())
        })
        .clone()
}

fn flatten_form(schema: &Value, type_name: &str) -> Result<Value, String> {
    let defs = schema.get("$defs").cloned().unwrap_or(Value::Null);
    let properties = match (schema.get("type"), schema.get("properties")) {
        (Some(t), Some(Value::Object(props))) if t == "object" => props,
        (Some(t), None) if t == "object" => &Map::new(),
        _ => {
            return Err(format!(
            "`{type_name}` is not a struct with named fields; an elicitation form is a flat object"
        ))
        }
    };
    let mut out = Map::new();
    for (name, property) in properties {
        let property = primitive(property, &defs).ok_or_else(|| {
            format!(
                "field `{name}` of `{type_name}` is not a string, number, integer, boolean or enum; elicitation forms cannot nest"
            )
        })?;
        out.insert(name.clone(), property);
    }
    let mut form = Map::new();
    form.insert("type".into(), "object".into());
    form.insert("properties".into(), Value::Object(out));
    if let Some(required) = schema.get("required") {
        form.insert("required".into(), required.clone());
    }
    Ok(Value::Object(form))
}

/// One property as an elicitation primitive, resolving `$ref`s and `T | null`.
fn primitive(property: &Value, defs: &Value) -> Option<Value> {
    let mut property = property.as_object()?.clone();
    if let Some(Value::String(reference)) = property.remove("$ref") {
        let name = reference.strip_prefix("#/$defs/")?;
        let target = defs.get(name)?.as_object()?;
        for (k, v) in target {
            property.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    // Option<T>: `"type": ["string", "null"]`, or `anyOf: [T, {"type": "null"}]`.
    if let Some(Value::Array(types)) = property.get("type") {
        let kept: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
        if kept.len() != 1 {
            return None;
        }
        let only = kept.first().copied()?.clone();
        property.insert("type".into(), only);
    }
    if let Some(Value::Array(options)) = property.remove("anyOf") {
        let kept: Vec<&Value> = options
            .iter()
            .filter(|o| o.get("type") != Some(&json!("null")))
            .collect();
        if kept.len() != 1 {
            return None;
        }
        let inner = primitive(kept.first().copied()?, defs)?;
        for (k, v) in inner.as_object()? {
            property.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    if let Some(Value::Array(options)) = property.get("oneOf").cloned() {
        // A documented unit enum: `oneOf: [{const, description}, ..]` becomes titled options.
        let titled: Option<Vec<Value>> = options
            .iter()
            .map(|o| {
                let value = o
                    .get("const")
                    .or_else(|| o.get("enum").and_then(|e| e.get(0)))?;
                let title = o
                    .get("description")
                    .or_else(|| o.get("title"))
                    .cloned()
                    .unwrap_or_else(|| value.clone());
                Some(json!({"const": value, "title": title}))
            })
            .collect();
        property.insert("oneOf".into(), Value::Array(titled?));
        property.insert("type".into(), "string".into());
    }
    // Elicitation strings allow four formats; others (schemars' "uint32", ..) are dropped.
    if property
        .get("format")
        .is_some_and(|f| !matches!(f.as_str(), Some("date" | "date-time" | "email" | "uri")))
    {
        property.remove("format");
    }
    if property.get("type").and_then(Value::as_str) == Some("array") {
        let items = property
            .get("items")
            .and_then(|items| select_items(items, defs));
        match items {
            Some(items) => {
                property.insert("items".into(), items);
            }
            None => return None,
        }
    }
    let ok = matches!(
        property.get("type").and_then(Value::as_str),
        Some("string" | "number" | "integer" | "boolean" | "array")
    );
    ok.then_some(Value::Object(property))
}

/// The items of a multi-select: a plain enum stays `{type: string, enum}`, a titled one
/// (documented variants) becomes `{anyOf: [{const, title}, ..]}`.
fn select_items(items: &Value, defs: &Value) -> Option<Value> {
    let single = primitive(items, defs)?;
    let single = single.as_object()?;
    if let Some(Value::Array(options)) = single.get("oneOf") {
        return Some(json!({ "anyOf": options }));
    }
    if single.get("enum").is_some() {
        let mut plain = Map::new();
        plain.insert("type".into(), "string".into());
        plain.insert("enum".into(), single.get("enum").cloned()?);
        return Some(Value::Object(plain));
    }
    None
}

#[cfg(test)]
mod tests {
    use schemars::JsonSchema;
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    struct Form {
        /// Your name.
        name: String,
        age: Option<u32>,
        subscribe: bool,
        color: Color,
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    enum Color {
        Red,
        Green,
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    struct Nested {
        inner: Form,
    }

    #[test]
    fn forms_flatten_to_elicitation_primitives() {
        let schema = form_schema::<Form>().unwrap();
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["properties"]["name"]["type"], "string");
        assert_eq!(schema["properties"]["name"]["description"], "Your name.");
        assert_eq!(schema["properties"]["age"]["type"], "integer");
        assert_eq!(schema["properties"]["subscribe"]["type"], "boolean");
        assert_eq!(
            schema["properties"]["color"]["enum"],
            json!(["red", "green"])
        );
        assert_eq!(schema["required"], json!(["name", "subscribe", "color"]));
        assert!(schema.get("$defs").is_none() && schema.get("title").is_none());
    }

    #[test]
    fn nested_forms_are_refused_with_the_field_named() {
        // S-029, S-282: a requestedSchema is a flat object of primitive properties; a
        // nested form is refused, never published.
        let problem = form_schema::<Nested>().unwrap_err();
        assert!(problem.contains("field `inner`"), "{problem}");
        let problem = form_schema::<u32>().unwrap_err();
        assert!(problem.contains("not a struct"), "{problem}");
    }
}
