//! The committed `openapi.json` is the document the handlers produce, and that document
//! says what a generator needs on every operation.

use serde_json::Value;

const REFRESH: &str = "cargo run -p inventory-api -- openapi > examples/inventory-api/openapi.json";

fn produced() -> String {
    let json = inventory_api::openapi()
        .to_pretty_json()
        .expect("the document serializes");
    // What `inventory-api openapi` prints: the document and a newline.
    format!("{json}\n")
}

#[test]
fn the_committed_document_is_the_one_the_handlers_produce() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/openapi.json");
    let committed = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{path}: {e}; create it with `{REFRESH}`"));
    let produced = produced();
    if committed != produced {
        let line = committed
            .lines()
            .zip(produced.lines())
            .position(|(a, b)| a != b)
            .map_or_else(
                || "one is longer".to_owned(),
                |n| format!("first difference at line {}", n + 1),
            );
        panic!(
            "examples/inventory-api/openapi.json is not what the handlers produce ({line}); \
             refresh it with `{REFRESH}`"
        );
    }
}

fn document() -> Value {
    serde_json::from_str(&produced()).expect("the document is JSON")
}

fn operations(document: &Value) -> Vec<(String, &Value)> {
    let mut operations = Vec::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("a path item") {
            operations.push((format!("{method} {path}"), operation));
        }
    }
    operations
}

#[test]
fn the_document_is_openapi_3_1_with_the_api_key_scheme() {
    let document = document();
    assert_eq!(document["openapi"], "3.1.0");
    let scheme = &document["components"]["securitySchemes"]["api_key"];
    assert_eq!(
        (&scheme["type"], &scheme["in"], &scheme["name"]),
        (
            &Value::from("apiKey"),
            &Value::from("header"),
            &Value::from("X-Api-Key")
        )
    );
}

#[test]
fn every_operation_is_named_described_tagged_secured_and_documents_its_answers() {
    let document = document();
    let operations = operations(&document);
    let mut ids: Vec<&str> = operations
        .iter()
        .map(|(_, operation)| operation["operationId"].as_str().unwrap_or(""))
        .collect();
    ids.sort_unstable();
    assert_eq!(
        ids,
        [
            "create_item",
            "delete_item",
            "get_item",
            "item_label",
            "list_items",
            "reserve_item"
        ]
    );
    for (name, operation) in &operations {
        for field in ["summary", "description"] {
            let text = operation[field].as_str().unwrap_or("");
            assert!(!text.is_empty(), "{name} has no {field}");
        }
        assert_eq!(operation["tags"], serde_json::json!(["items"]), "{name}");
        assert_eq!(
            operation["security"],
            serde_json::json!([{ "api_key": [] }]),
            "{name}"
        );
        let responses = operation["responses"].as_object().expect("responses");
        assert!(
            responses.contains_key("401"),
            "{name} does not document 401"
        );
        for (status, response) in responses {
            let Some(content) = response.get("content") else {
                assert_eq!(status, "204", "{name} {status} has no body schema");
                continue;
            };
            // The label is a file; every other answer is JSON of a named schema.
            if name == "get /items/{itemId}/label" && status == "200" {
                assert_eq!(content["image/svg+xml"]["schema"]["type"], "string");
                continue;
            }
            let schema = &content["application/json"]["schema"]["$ref"];
            assert!(
                schema
                    .as_str()
                    .is_some_and(|r| r.starts_with("#/components/schemas/")),
                "{name} {status} has no component schema"
            );
        }
    }
}

#[test]
fn the_create_requires_an_idempotency_key_header_and_documents_its_refusals() {
    let document = document();
    let create = &document["paths"]["/items"]["post"];
    let parameters = create["parameters"].as_array().expect("parameters");
    let key = parameters
        .iter()
        .find(|p| p["name"] == "Idempotency-Key")
        .expect("an Idempotency-Key parameter");
    assert_eq!(
        (&key["in"], &key["required"]),
        (&Value::from("header"), &Value::from(true))
    );
    let schema = |status: &str| {
        create["responses"][status]["content"]["application/json"]["schema"]["$ref"].clone()
    };
    assert_eq!(schema("409"), "#/components/schemas/DuplicateSku");
    assert_eq!(schema("422"), "#/components/schemas/Error");
    let reserve = &document["paths"]["/items/{itemId}/reserve"]["post"];
    assert_eq!(
        reserve["responses"]["409"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/InsufficientStock"
    );
    let list = &document["paths"]["/items"]["get"];
    assert!(list["responses"]["200"]["headers"]["Link"].is_object());
    let names: Vec<&str> = list["parameters"]
        .as_array()
        .expect("parameters")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert_eq!(names, ["page", "perPage"], "camelCase on the wire");
}
