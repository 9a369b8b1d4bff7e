//! A catalog snapshot: what a server offers, as one canonical JSON document a repository
//! can keep and a diff can read. Tools, resources, resource templates and prompts (views
//! are resources) are keyed by their name, URI or template, each entry as the server lists
//! it without that key; object members are sorted, so the same catalog always prints the
//! same text. What changes with every release without changing what callers rely on (the
//! server's version, a listing's cache hints) is left out, and so is the server's name:
//! the snapshot is the contract, wherever it is served.
//!
//! The client ([`Client::catalog`](crate::client::Client::catalog)) and the test kit
//! ([`assert_catalog`](crate::testing::assert_catalog)) both make snapshots here.

use serde_json::{Map, Value};

/// The snapshot format's version, its `catalog` member.
const FORMAT: u64 = 1;

/// The snapshot of a server listing these entries (each section's entries as the list
/// results hold them).
pub(crate) fn snapshot(
    tools: Vec<Value>,
    resources: Vec<Value>,
    templates: Vec<Value>,
    prompts: Vec<Value>,
) -> Value {
    let mut catalog = Map::new();
    catalog.insert("catalog".into(), Value::from(FORMAT));
    for (section, key, entries) in [
        ("tools", "name", tools),
        ("resources", "uri", resources),
        ("resourceTemplates", "uriTemplate", templates),
        ("prompts", "name", prompts),
    ] {
        let mut keyed = Map::new();
        for entry in entries {
            let Value::Object(mut entry) = entry else {
                continue;
            };
            let Some(Value::String(id)) = entry.remove(key) else {
                continue;
            };
            keyed.insert(id, Value::Object(entry));
        }
        catalog.insert(section.into(), Value::Object(keyed));
    }
    canonical(Value::Object(catalog))
}

/// `value` with every object's members in sorted order.
fn canonical(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut members: Vec<(String, Value)> = map.into_iter().collect();
            members.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(
                members
                    .into_iter()
                    .map(|(key, value)| (key, canonical(value)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(canonical).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn entries_are_keyed_and_members_sorted() {
        let snapshot = snapshot(
            vec![
                json!({"name": "b", "inputSchema": {"type": "object"}, "description": "B"}),
                json!({"name": "a", "inputSchema": {"type": "object", "properties": {"z": {}, "y": {}}}}),
                json!({"description": "no name"}),
            ],
            vec![json!({"uri": "shop://x", "name": "x"})],
            vec![json!({"uriTemplate": "shop://{id}", "name": "item"})],
            vec![json!({"name": "p", "arguments": [{"name": "q"}]})],
        );
        let text = |value: &Value| serde_json::to_string_pretty(value).unwrap();
        let printed = text(&snapshot);
        assert_eq!(
            printed,
            text(&serde_json::from_str(&printed).unwrap()),
            "printing is stable"
        );
        let order: Vec<&str> = snapshot
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            order,
            [
                "catalog",
                "prompts",
                "resourceTemplates",
                "resources",
                "tools"
            ]
        );
        let keys =
            |value: &Value| -> Vec<String> { value.as_object().unwrap().keys().cloned().collect() };
        assert_eq!(keys(&snapshot["tools"]), ["a", "b"]);
        assert_eq!(
            keys(&snapshot["tools"]["a"]["inputSchema"]["properties"]),
            ["y", "z"]
        );
        assert!(snapshot["tools"]["a"].get("name").is_none());
        assert_eq!(snapshot["resources"]["shop://x"]["name"], "x");
        assert_eq!(snapshot["resourceTemplates"]["shop://{id}"]["name"], "item");
    }
}
