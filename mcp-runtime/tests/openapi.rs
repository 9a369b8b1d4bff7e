//! Serving an OpenAPI document without generating code (feature `openapi`): a small API
//! runs in the test and records every request it gets; a document describing it is served
//! with `Server::openapi`, and each tool call is checked twice, by the exact HTTP request
//! the API received and by the exact tool result the caller got.
//!
//! Also a `#[tool]` whose result type's schema is built from such a document's named
//! schemas, as the code `mcp openapi` generates builds it, kept to the server's budget.
//!
//! Runs with `cargo test -p mcp-runtime --features openapi,testing --test openapi` (and in
//! the workspace's `cargo test --workspace`, where the examples turn both features on).

#![cfg(all(feature = "openapi", feature = "testing"))]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, Response};
use mcp_runtime::openapi::{Curation, OpenApiTools, Secret};
use mcp_runtime::policy::api_keys::ApiKeys;
use mcp_runtime::testing::{HttpTestClient, TestClient};
use mcp_runtime::{App, Error, Principal, Server};
use serde_json::{json, Value};

/// The API's document, served from `servers[0]` until the test gives the real address.
const DOCUMENT: &str = r##"
openapi: 3.0.3
info: { title: Shop, version: "1" }
servers: [{ url: "http://shop.invalid/v1" }]
components:
  securitySchemes:
    key: { type: apiKey, in: header, name: X-Api-Key }
    token: { type: http, scheme: bearer }
  schemas:
    Item:
      type: object
      required: [name]
      properties:
        name: { type: string }
        price: { type: integer }
    Problem:
      type: object
      required: [code]
      properties:
        code: { type: string }
security: [{ key: [] }]
paths:
  /stores/{storeId}/items:
    get:
      operationId: listItems
      summary: List items
      description: The store's items.
      parameters:
        - { name: storeId, in: path, required: true, schema: { type: string } }
        - { name: tag, in: query, schema: { type: array, items: { type: string } } }
        - { name: format, in: query, schema: { type: string } }
        - { name: tenant, in: query, schema: { type: string } }
        - { name: X-Request-Id, in: header, schema: { type: string } }
        - { name: X-User, in: header, schema: { type: string } }
        - { name: session, in: cookie, schema: { type: string } }
      responses:
        "200":
          description: A page.
          content:
            application/json:
              schema:
                type: object
                properties:
                  items: { type: array, items: { $ref: "#/components/schemas/Item" } }
        "403": { description: not yours }
  /items:
    post:
      operationId: createItem
      security: [{ token: [] }, { key: [] }]
      parameters:
        - { name: Idempotency-Key, in: header, required: true, schema: { type: string } }
      requestBody:
        required: true
        content:
          application/json:
            schema: { $ref: "#/components/schemas/Item" }
      responses:
        "201":
          description: Created.
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Item" }
        "409":
          description: Taken.
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Problem" }
  /items/{itemId}:
    parameters:
      - { name: itemId, in: path, required: true, schema: { type: integer } }
    get:
      operationId: getItem
      responses:
        "200":
          description: The item.
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Item" }
        "404":
          description: No such item.
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Problem" }
    put:
      operationId: renameItem
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              properties:
                itemId: { type: string }
      responses:
        "200":
          description: The item's names.
          content:
            application/json:
              schema: { type: array, items: { type: string } }
    delete:
      operationId: deleteItem
      responses:
        "204": { description: Deleted. }
  /notes:
    post:
      operationId: addNote
      security: []
      requestBody:
        required: true
        content:
          application/x-www-form-urlencoded:
            schema:
              type: object
              properties:
                title: { type: string }
                tags: { type: array, items: { type: string } }
      responses:
        "200":
          description: The note's text.
          content:
            text/plain:
              schema: { type: string }
  /reports/{id}:
    get:
      operationId: getReport
      parameters:
        - { name: id, in: path, required: true, schema: { type: string } }
      responses:
        "200":
          description: The report.
          content:
            application/pdf:
              schema: { type: string, format: binary }
  /broken:
    get:
      operationId: broken
      responses:
        "200": { description: never }
  /slow:
    get:
      operationId: slow
      responses:
        "204": { description: eventually }
"##;

/// The curation: `format` is always `full`, `tenant` the caller's tenant, `X-User` the
/// caller's subject.
const CURATION: &str = r#"
[operations.listItems.arguments]
format = { fixed = "full" }
tenant = { from = "tenant" }
X-User = { from = "principal" }
"#;

/// One request as the API received it.
#[derive(Debug, Clone, PartialEq)]
struct Received {
    method: String,
    /// The path and query, exactly as sent.
    target: String,
    /// Every header but those the HTTP client always sends (`host`, `accept`,
    /// `content-length`), by name, in order.
    headers: Vec<(String, String)>,
    body: String,
}

type Log = Arc<Mutex<Vec<Received>>>;

/// What the API answers each request with.
fn answer(method: &str, path: &str) -> Response<Body> {
    let json = |status: u16, body: Value| {
        Response::builder()
            .status(status)
            .header("content-type", "application/json")
            .body(Body::from(body.to_string()))
            .unwrap()
    };
    match (method, path) {
        ("GET", "/v1/stores/north%2Feast/items") => {
            json(200, json!({"items": [{"name": "bolt", "price": 3}]}))
        }
        ("GET", "/v1/stores/south/items") => json(403, json!({"code": "not_yours"})),
        ("POST", "/v1/items") => json(201, json!({"name": "nut", "price": 2})),
        ("GET", "/v1/items/7") => json(404, json!({"code": "no_such_item"})),
        ("PUT", "/v1/items/7") => json(200, json!(["nut", "bolt"])),
        ("DELETE", "/v1/items/7") => Response::builder().status(204).body(Body::empty()).unwrap(),
        ("POST", "/v1/notes") => Response::builder()
            .status(200)
            .header("content-type", "text/plain; charset=utf-8")
            .body(Body::from("Noted: groceries."))
            .unwrap(),
        ("GET", "/v1/reports/q1") => Response::builder()
            .status(200)
            .header("content-type", "application/pdf")
            .body(Body::from(&b"%PDF-1.7"[..]))
            .unwrap(),
        ("GET", "/v1/reports/huge") => Response::builder()
            .status(200)
            .header("content-type", "application/pdf")
            .body(Body::from(vec![b'x'; 9 << 20]))
            .unwrap(),
        ("GET", "/v1/orders/1") => json(
            200,
            json!({"id": "1", "customer": {"name": "Ann", "address": {"street": "Elm", "country": "FR"}}}),
        ),
        ("GET", "/v1/broken") => Response::builder()
            .status(500)
            .body(Body::from("stack trace: do not show"))
            .unwrap(),
        _ => json(418, json!({"unexpected": path})),
    }
}

/// The API on a local port: it records each request in the log, then answers it
/// (`/v1/slow` after two seconds).
async fn api() -> (String, Log) {
    let log: Log = Arc::default();
    let recorded = log.clone();
    let app = axum::Router::new().fallback(move |request: Request<Body>| {
        let log = recorded.clone();
        async move {
            let (parts, body) = request.into_parts();
            let bytes = axum::body::to_bytes(body, usize::MAX).await.unwrap();
            let headers = parts
                .headers
                .iter()
                .filter(|(name, _)| !matches!(name.as_str(), "host" | "accept" | "content-length"))
                .map(|(name, value)| (name.to_string(), value.to_str().unwrap().to_owned()))
                .collect();
            let target = parts
                .uri
                .path_and_query()
                .map(|p| p.as_str().to_owned())
                .unwrap_or_default();
            log.lock().unwrap().push(Received {
                method: parts.method.to_string(),
                target,
                headers,
                body: String::from_utf8_lossy(&bytes).into_owned(),
            });
            if parts.uri.path() == "/v1/slow" {
                tokio::time::sleep(Duration::from_secs(2)).await;
            }
            answer(parts.method.as_str(), parts.uri.path())
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{address}/v1"), log)
}

/// A server of the document's tools (alone) against the API at `base`.
fn served(base: &str) -> App {
    Server::new("shop", "1.0.0")
        .only([])
        .openapi(tools(base))
        .build()
        .unwrap()
}

/// The document's tools against the API at `base`, with an API key and a bearer token.
fn tools(base: &str) -> OpenApiTools {
    let curation = Curation::from_toml(CURATION).unwrap();
    OpenApiTools::from_document(DOCUMENT, &curation)
        .unwrap()
        .base_url(base)
        .credential("key", Secret::ApiKey("api-key-1".into()))
        .credential("token", Secret::Bearer("api-token-2".into()))
        .timeout(Duration::from_millis(500))
}

/// The one request the API received since the log was last taken.
fn only(log: &Log) -> Received {
    let mut log = log.lock().unwrap();
    assert_eq!(log.len(), 1, "{log:#?}");
    log.remove(0)
}

fn headers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
        .collect()
}

/// A tool result without the envelope every 2026-07-28 result has (`resultType` and the
/// server's `_meta`): what the tool made.
fn made(mut result: Value) -> Value {
    if let Some(members) = result.as_object_mut() {
        members.remove("resultType");
        members.remove("_meta");
    }
    result
}

/// The caller: `alice` of the tenant `acme`.
async fn client() -> (TestClient, Log) {
    let (base, log) = api().await;
    let app = served(&base);
    let client = TestClient::new(app)
        .as_principal(Principal::new("alice").with_tenant("acme"))
        .on_elicit(|_question| async { confirm(true) });
    (client, log)
}

/// The user's answer to a confirmation.
fn confirm(yes: bool) -> Value {
    json!({"action": "accept", "content": {"confirm": yes}})
}

#[tokio::test]
async fn the_tools_are_the_document_s_operations_with_its_schemas_and_hints() {
    let (client, _) = client().await;
    let list = client.request("tools/list", json!({})).await;
    let tools = list["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "add_note",
            "broken",
            "create_item",
            "delete_item",
            "get_item",
            "get_report",
            "list_items",
            "rename_item",
            "slow"
        ]
    );
    let tool = |name: &str| tools.iter().find(|t| t["name"] == name).unwrap();
    let list_items = tool("list_items");
    assert_eq!(list_items["title"], "List items");
    assert_eq!(list_items["description"], "The store's items.");
    // The hidden arguments are not the model's.
    assert_eq!(
        list_items["inputSchema"],
        json!({
            "type": "object",
            "properties": {
                "storeId": {"type": "string"},
                "tag": {"type": "array", "items": {"type": "string"}},
                "X-Request-Id": {"type": "string"},
                "session": {"type": "string"}
            },
            "required": ["storeId"],
            "additionalProperties": false
        })
    );
    assert_eq!(
        list_items["annotations"],
        json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true})
    );
    // The output schema admits the success shape and the framework's error shape.
    let output = &list_items["outputSchema"];
    assert_eq!(output["type"], "object");
    assert_eq!(
        output["anyOf"][0]["properties"]["items"]["items"]["$ref"],
        "#/$defs/Item"
    );
    assert_eq!(output["$defs"]["Item"]["required"], json!(["name"]));
    assert_eq!(output["anyOf"][1]["required"], json!(["error"]));
    // A documented error's body is the errors' detail.
    let create = tool("create_item");
    assert_eq!(
        create["outputSchema"]["anyOf"][1]["properties"]["error"]["properties"]["detail"],
        json!({"$ref": "#/$defs/Problem"})
    );
    assert!(create["outputSchema"]["$defs"]["Problem"].is_object());
    // The retry key is the framework's argument, forwarded in the API's header.
    assert_eq!(
        create["inputSchema"]["properties"]["idempotencyKey"]["type"],
        "string"
    );
    assert_eq!(
        tool("delete_item")["annotations"],
        json!({"readOnlyHint": false, "destructiveHint": true, "idempotentHint": true, "openWorldHint": true})
    );
    // Text and empty answers have no output schema.
    assert!(tool("add_note").get("outputSchema").is_none());
    assert!(tool("delete_item").get("outputSchema").is_none());
}

#[tokio::test]
async fn path_query_header_cookie_and_hidden_arguments_make_the_request() {
    let (client, log) = client().await;
    let result = client
        .call_tool(
            "list_items",
            json!({
                "storeId": "north/east",
                "tag": ["red", "big blue"],
                "X-Request-Id": "r-1",
                "session": "s=1"
            }),
        )
        .await;
    assert_eq!(
        only(&log),
        Received {
            method: "GET".into(),
            target: "/v1/stores/north%2Feast/items?tag=red&tag=big%20blue&format=full&tenant=acme"
                .into(),
            headers: headers(&[
                ("x-request-id", "r-1"),
                ("x-user", "alice"),
                ("x-api-key", "api-key-1"),
                ("cookie", "session=s%3D1"),
            ]),
            body: String::new(),
        }
    );
    assert_eq!(
        made(result),
        json!({
            "content": [{"type": "text", "text": r#"{"items":[{"name":"bolt","price":3}]}"#}],
            "structuredContent": {"items": [{"name": "bolt", "price": 3}]}
        })
    );
}

#[tokio::test]
async fn a_flattened_json_body_goes_with_the_retry_key_and_the_first_configured_credential() {
    let (client, log) = client().await;
    let result = client
        .call_tool(
            "create_item",
            json!({"name": "nut", "price": 2, "idempotencyKey": "k-42"}),
        )
        .await;
    assert_eq!(
        only(&log),
        Received {
            method: "POST".into(),
            target: "/v1/items".into(),
            headers: headers(&[
                ("idempotency-key", "k-42"),
                ("authorization", "Bearer api-token-2"),
                ("content-type", "application/json"),
            ]),
            body: r#"{"name":"nut","price":2}"#.into(),
        }
    );
    assert_eq!(
        made(result),
        json!({
            "content": [{"type": "text", "text": r#"{"name":"nut","price":2}"#}],
            "structuredContent": {"name": "nut", "price": 2}
        })
    );
    // Without a key, the API still gets one: a fresh one per call.
    client
        .call_tool("create_item", json!({"name": "nut"}))
        .await;
    let received = only(&log);
    let key = &received
        .headers
        .iter()
        .find(|(n, _)| n == "idempotency-key")
        .unwrap()
        .1;
    assert_eq!(key.len(), 32, "{key}");
    assert_eq!(received.body, r#"{"name":"nut"}"#);
}

#[tokio::test]
async fn a_body_argument_goes_whole_and_a_result_that_is_no_object_is_wrapped() {
    let (client, log) = client().await;
    let result = client
        .call_tool(
            "rename_item",
            json!({"itemId": 7, "body": {"itemId": "nut-7"}}),
        )
        .await;
    assert_eq!(
        only(&log),
        Received {
            method: "PUT".into(),
            target: "/v1/items/7".into(),
            headers: headers(&[
                ("x-api-key", "api-key-1"),
                ("content-type", "application/json"),
            ]),
            body: r#"{"itemId":"nut-7"}"#.into(),
        }
    );
    assert_eq!(
        made(result),
        json!({
            "content": [{"type": "text", "text": r#"{"result":["nut","bolt"]}"#}],
            "structuredContent": {"result": ["nut", "bolt"]}
        })
    );
}

#[tokio::test]
async fn a_form_body_is_sent_as_a_form_and_a_text_answer_is_text() {
    let (client, log) = client().await;
    let result = client
        .call_tool(
            "add_note",
            json!({"title": "groceries & more", "tags": ["food", "weekly"]}),
        )
        .await;
    // `security: []`: no credential at all.
    assert_eq!(
        only(&log),
        Received {
            method: "POST".into(),
            target: "/v1/notes".into(),
            headers: headers(&[("content-type", "application/x-www-form-urlencoded")]),
            body: "tags=food&tags=weekly&title=groceries+%26+more".into(),
        }
    );
    assert_eq!(
        made(result),
        json!({"content": [{"type": "text", "text": "Noted: groceries."}]})
    );
}

#[tokio::test]
async fn no_body_is_done_and_a_binary_answer_is_an_embedded_resource() {
    let (client, log) = client().await;
    let result = client.call_tool("delete_item", json!({"itemId": 7})).await;
    assert_eq!(only(&log).target, "/v1/items/7");
    assert_eq!(
        made(result),
        json!({"content": [{"type": "text", "text": "Done (HTTP 204)."}]})
    );

    let result = client.call_tool("get_report", json!({"id": "q1"})).await;
    assert_eq!(only(&log).target, "/v1/reports/q1");
    let resource = &result["content"][0]["resource"];
    assert_eq!(result["content"][0]["type"], "resource");
    assert_eq!(resource["mimeType"], "application/pdf");
    // `%PDF-1.7` in base64.
    assert_eq!(resource["blob"], "JVBERi0xLjc=");
    assert!(
        resource["uri"]
            .as_str()
            .unwrap()
            .ends_with("/v1/reports/q1"),
        "{resource}"
    );
    assert!(result.get("isError").is_none(), "{result}");

    // Larger than 8 MiB: refused, not held.
    let result = client.call_tool("get_report", json!({"id": "huge"})).await;
    only(&log);
    assert_eq!(result["isError"], true);
    assert_eq!(
        result["structuredContent"]["error"]["code"],
        "answer_too_large"
    );
}

#[tokio::test]
async fn a_documented_4xx_carries_its_body_as_detail_an_undocumented_one_does_not() {
    let (client, log) = client().await;
    let result = client.call_tool("get_item", json!({"itemId": 7})).await;
    only(&log);
    assert_eq!(
        made(result),
        json!({
            "content": [{"type": "text", "text": "The API refused the call: 404 Not Found."}],
            "structuredContent": {"error": {
                "code": "http_404",
                "message": "The API refused the call: 404 Not Found.",
                "detail": {"code": "no_such_item"}
            }},
            "isError": true
        })
    );
    let result = client
        .call_tool("list_items", json!({"storeId": "south"}))
        .await;
    only(&log);
    assert_eq!(
        made(result),
        json!({
            "content": [{"type": "text", "text": "The API refused the call: 403 Forbidden."}],
            "structuredContent": {"error": {
                "code": "http_403",
                "message": "The API refused the call: 403 Forbidden."
            }},
            "isError": true
        })
    );
}

#[tokio::test]
async fn a_5xx_a_timeout_and_no_server_are_error_results_saying_a_retry_may_work() {
    let (client, log) = client().await;
    let result = client.call_tool("broken", json!({})).await;
    only(&log);
    let failed = "The API failed (500 Internal Server Error); trying again later may work.";
    assert_eq!(
        made(result),
        json!({
            "content": [{"type": "text", "text": failed}],
            "structuredContent": {"error": {"code": "api_failed", "message": failed}},
            "isError": true
        })
    );

    let result = client.call_tool("slow", json!({})).await;
    let late = "The API did not answer within 500ms; trying again later may work.";
    assert_eq!(
        made(result),
        json!({
            "content": [{"type": "text", "text": late}],
            "structuredContent": {"error": {"code": "api_unavailable", "message": late}},
            "isError": true
        })
    );

    // Nothing listens there.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed = format!("http://{}/v1", listener.local_addr().unwrap());
    drop(listener);
    let app = Server::new("shop", "1.0.0")
        .only([])
        .openapi(tools(&closed))
        .build()
        .unwrap();
    let result = TestClient::new(app).call_tool("broken", json!({})).await;
    assert_eq!(result["isError"], true);
    assert_eq!(
        result["structuredContent"]["error"],
        json!({"code": "api_unavailable", "message": "The API could not be reached; trying again later may work."})
    );
}

#[tokio::test]
async fn the_mcp_caller_s_token_never_reaches_the_api() {
    let (base, log) = api().await;
    let caller = "mcp-caller-token-0123456789";
    let app = Server::new("shop", "1.0.0")
        .only([])
        .openapi(tools(&base))
        .verify_tokens(
            ApiKeys::new()
                .key(caller, Principal::new("alice").with_tenant("acme"))
                .unwrap(),
        )
        .build()
        .unwrap();
    // A tool whose operation uses the key, one using a bearer token of the deployment's,
    // and one with no credential at all.
    let http = HttpTestClient::new(&app).bearer(caller);
    for (tool, arguments) in [
        ("list_items", json!({"storeId": "north/east"})),
        ("create_item", json!({"name": "nut"})),
        ("add_note", json!({"title": "t"})),
    ] {
        let response = http.call_tool(tool, arguments).await;
        assert_eq!(response.status, 200);
        assert!(response.result().get("isError").is_none(), "{tool}");
        let received = only(&log);
        for (name, value) in &received.headers {
            assert!(!value.contains(caller), "{tool}: {name}: {value}");
        }
        assert!(!received.target.contains(caller), "{tool}");
        let authorization: Vec<&str> = received
            .headers
            .iter()
            .filter(|(n, _)| n == "authorization")
            .map(|(_, v)| v.as_str())
            .collect();
        let expected: &[&str] = match tool {
            "create_item" => &["Bearer api-token-2"],
            _ => &[],
        };
        assert_eq!(authorization, expected, "{tool}");
    }
}

#[tokio::test]
async fn a_hidden_tenant_needs_a_caller_with_one() {
    let (base, log) = api().await;
    let app = served(&base);
    let response = TestClient::new(app)
        .as_principal(Principal::new("bob"))
        .request(
            "tools/call",
            json!({"name": "list_items", "arguments": {"storeId": "north/east"}}),
        )
        .await;
    assert_eq!(response["error"]["code"], -31403, "{response}");
    assert!(log.lock().unwrap().is_empty(), "nothing reached the API");
}

#[tokio::test]
async fn without_a_base_url_the_server_does_not_build() {
    let document = DOCUMENT.replace(r#"servers: [{ url: "http://shop.invalid/v1" }]"#, "");
    let tools = OpenApiTools::from_document(&document, &Curation::default()).unwrap();
    let Err(Error::Build(errors)) = Server::new("shop", "1.0.0").only([]).openapi(tools).build()
    else {
        panic!("the server built without a base URL");
    };
    let message = errors[0].to_string();
    assert!(message.contains("OpenAPI document `Shop`"), "{message}");
    assert!(message.contains("no base URL"), "{message}");
    // A server URL relative to a document read from a file is no base URL either.
    let document = DOCUMENT.replace("http://shop.invalid/v1", "/v1");
    let tools = OpenApiTools::from_document(&document, &Curation::default()).unwrap();
    let Err(Error::Build(errors)) = Server::new("shop", "1.0.0").only([]).openapi(tools).build()
    else {
        panic!("the server built with a relative base URL");
    };
    let message = errors[0].to_string();
    assert!(
        message.contains("the base URL `/v1` is not an absolute http(s) URL"),
        "{message}"
    );
}

#[tokio::test]
async fn a_prefix_names_the_tools_as_the_gateway_names_an_upstream_s() {
    let (base, log) = api().await;
    let app = Server::new("gateway", "1.0.0")
        .only([])
        .openapi(tools(&base).prefix("shop"))
        .build()
        .unwrap();
    let client = TestClient::new(app).on_elicit(|_question| async { confirm(true) });
    let result = client
        .call_tool("shop.delete_item", json!({"itemId": 7}))
        .await;
    assert_eq!(result["content"][0]["text"], "Done (HTTP 204).");
    assert_eq!(only(&log).method, "DELETE");
}

#[tokio::test]
async fn a_document_is_loaded_from_a_file_or_a_url() {
    let dir = std::env::temp_dir().join(format!("mcp-openapi-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("shop.yaml");
    std::fs::write(&file, DOCUMENT).unwrap();
    let tools = OpenApiTools::load(file.to_str().unwrap(), &Curation::default())
        .await
        .unwrap();
    assert_eq!(tools.api().operations.len(), 9);
    std::fs::remove_dir_all(&dir).unwrap();

    let missing = OpenApiTools::load("/nonexistent/shop.yaml", &Curation::default())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        missing.starts_with("/nonexistent/shop.yaml: cannot be read"),
        "{missing}"
    );

    // Over HTTP, a relative server URL is the document's own.
    let relative = DOCUMENT.replace("http://shop.invalid/v1", "/v1");
    let app = axum::Router::new().fallback(move || {
        let relative = relative.clone();
        async move { relative }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let tools = OpenApiTools::load(
        &format!("http://{address}/docs/openapi.yaml"),
        &Curation::default(),
    )
    .await
    .unwrap();
    assert_eq!(
        tools.api().base_url.as_deref(),
        Some(format!("http://{address}/v1").as_str())
    );
}

/// The params of a `tools/call`, with `extra` beside the name and arguments.
fn call_params(name: &str, arguments: Value, extra: Value) -> Value {
    let mut params = json!({"name": name, "arguments": arguments});
    if let (Value::Object(params), Value::Object(extra)) = (&mut params, extra) {
        params.extend(extra);
    }
    params
}

#[tokio::test]
async fn a_delete_asks_the_user_first_and_a_confirmation_is_good_for_one_call() {
    let (base, log) = api().await;
    let app = served(&base);
    // A client that answers no question itself: each round is the test's.
    let client =
        TestClient::new(app.clone()).with_capabilities(json!({"elicitation": {"form": {}}}));
    // Asked before anything reaches the API, naming the request.
    let asked = client
        .request(
            "tools/call",
            call_params("delete_item", json!({"itemId": 7}), json!({})),
        )
        .await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let question = &asked["result"]["inputRequests"]["confirm"];
    assert_eq!(question["method"], "elicitation/create", "{asked}");
    assert_eq!(
        question["params"]["message"],
        "delete_item: DELETE /items/7. Go ahead?"
    );
    assert!(log.lock().unwrap().is_empty());

    // Confirmed: sent once.
    let state = asked["result"]["requestState"].clone();
    let answered = call_params(
        "delete_item",
        json!({"itemId": 7}),
        json!({"inputResponses": {"confirm": confirm(true)}, "requestState": state}),
    );
    let done = client.request("tools/call", answered.clone()).await;
    assert_eq!(
        done["result"]["content"][0]["text"], "Done (HTTP 204).",
        "{done}"
    );
    assert_eq!(only(&log).method, "DELETE");
    // The same confirmation again is refused before any request (S-130).
    let replayed = client.request("tools/call", answered).await;
    assert_eq!(replayed["error"]["code"], -32602, "{replayed}");
    assert_eq!(replayed["error"]["data"]["reason"], "it was already used");
    assert!(log.lock().unwrap().is_empty());

    // Declined: nothing sent, and the model is told why.
    let unasked = client
        .request(
            "tools/call",
            call_params(
                "delete_item",
                json!({"itemId": 7}),
                json!({"inputResponses": {"confirm": confirm(true)}}),
            ),
        )
        .await;
    // Without the state that asked, an answer counts for nothing: asked again (S-135).
    assert_eq!(unasked["result"]["resultType"], "input_required");
    assert!(log.lock().unwrap().is_empty());
    let refusing = TestClient::new(app).on_elicit(|_question| async { confirm(false) });
    let refused = refusing
        .call_tool("delete_item", json!({"itemId": 7}))
        .await;
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(
        refused["structuredContent"]["error"]["code"],
        "not_confirmed"
    );
    assert!(log.lock().unwrap().is_empty());
}

/// The document served with `curation` (a curation file's text) in front of a new API,
/// with an API key, and the API's log.
async fn curated(curation: &str) -> (App, Log) {
    let curation = Curation::from_toml(curation).unwrap();
    let (base, log) = api().await;
    let tools = OpenApiTools::from_document(DOCUMENT, &curation)
        .unwrap()
        .base_url(base)
        .credential("key", Secret::ApiKey("api-key-1".into()));
    let app = Server::new("shop", "1.0.0")
        .only([])
        .openapi(tools)
        .build()
        .unwrap();
    (app, log)
}

#[tokio::test]
async fn the_curation_turns_a_confirmation_off_or_on() {
    let (app, log) = curated(
        r#"
[operations.deleteItem]
confirm = false
[operations.renameItem]
confirm = true
"#,
    )
    .await;
    // A client that cannot answer questions.
    let client = TestClient::new(app);
    let deleted = client.call_tool("delete_item", json!({"itemId": 7})).await;
    assert_eq!(deleted["content"][0]["text"], "Done (HTTP 204).");
    assert_eq!(only(&log).method, "DELETE");
    let renamed = client
        .call_tool("rename_item", json!({"itemId": 7, "body": {}}))
        .await;
    assert_eq!(renamed["error"]["code"], -32021, "{renamed}");
    assert!(log.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_call_retried_under_its_key_reaches_the_api_once() {
    let (client, log) = client().await;
    let arguments = json!({"name": "nut", "price": 2, "idempotencyKey": "k-7"});
    let first = client.call_tool("create_item", arguments.clone()).await;
    let retried = client.call_tool("create_item", arguments).await;
    assert_eq!(
        made(first.clone())["structuredContent"],
        json!({"name": "nut", "price": 2})
    );
    assert_eq!(made(retried), made(first));
    let received = only(&log);
    assert!(received
        .headers
        .contains(&("idempotency-key".into(), "k-7".into())));
    // The same key with other arguments is refused, not run.
    let other = client
        .call_tool(
            "create_item",
            json!({"name": "bolt", "idempotencyKey": "k-7"}),
        )
        .await;
    assert_eq!(
        other["structuredContent"]["error"]["code"],
        "idempotency_conflict"
    );
    assert!(log.lock().unwrap().is_empty());
}

#[tokio::test]
async fn the_document_s_or_the_curation_s_scopes_are_checked_before_any_request() {
    let (app, log) = curated(
        r#"
[operations.getItem]
scopes = ["items:read"]
"#,
    )
    .await;
    let without = TestClient::new(app.clone()).as_principal(Principal::new("alice"));
    let refused = without.call_tool("get_item", json!({"itemId": 7})).await;
    assert_eq!(
        refused["error"]["data"]["requiredScopes"],
        json!(["items:read"]),
        "{refused}"
    );
    assert!(log.lock().unwrap().is_empty());
    let with =
        TestClient::new(app).as_principal(Principal::new("alice").with_scopes(["items:read"]));
    let answered = with.call_tool("get_item", json!({"itemId": 7})).await;
    assert_eq!(answered["structuredContent"]["error"]["code"], "http_404");
    assert_eq!(only(&log).target, "/v1/items/7");
}

/// What a test's log subscriber wrote.
#[derive(Clone, Default)]
struct Logs(Arc<Mutex<Vec<u8>>>);

impl Logs {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

impl std::io::Write for Logs {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A document whose one result reaches a chain of named schemas, each a reference deeper.
const ORDERS: &str = r##"
openapi: 3.0.3
info: { title: Orders, version: "1" }
paths:
  /orders/{id}:
    get:
      operationId: getOrder
      parameters:
        - { name: id, in: path, required: true, schema: { type: string } }
      responses:
        "200":
          description: The order.
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Order" }
components:
  schemas:
    Order:
      type: object
      properties:
        id: { type: string }
        customer: { $ref: "#/components/schemas/Customer" }
    Customer:
      type: object
      description: Who ordered.
      properties:
        name: { type: string }
        address: { $ref: "#/components/schemas/Address" }
    Address:
      type: object
      description: Where it goes.
      properties:
        street: { type: string }
        country: { $ref: "#/components/schemas/Country" }
    Country: { type: string, enum: [FR, DE], description: ISO code. }
"##;

#[tokio::test]
async fn an_output_schema_past_the_budget_is_published_shortened_and_accepts_the_api_s_answers() {
    let (base, _log) = api().await;
    let serve = |budget: Option<usize>| {
        let tools = OpenApiTools::from_document(ORDERS, &Curation::default())
            .unwrap()
            .base_url(&base);
        let tools = match budget {
            Some(bytes) => tools.max_output_schema_bytes(bytes),
            None => tools,
        };
        TestClient::new(
            Server::new("orders", "1.0.0")
                .only([])
                .openapi(tools)
                .build()
                .unwrap(),
        )
    };
    async fn published(client: &TestClient) -> Value {
        let list = client.request("tools/list", json!({})).await;
        list["result"]["tools"][0]["outputSchema"].clone()
    }
    let size = |schema: &Value| serde_json::to_vec(schema).unwrap().len();

    // Within the default budget (32 KiB): whole.
    let whole = published(&serve(None)).await;
    let defs = whole["$defs"].as_object().unwrap();
    assert!(
        ["Customer", "Address", "Country"]
            .iter()
            .all(|d| defs.contains_key(*d)),
        "{whole:#}"
    );

    // One byte less than whole: the farthest named schema (Country) is left out, its
    // references replaced by its type and description; the rest stays. A start-up line
    // says how many tools were shortened; at debug level, which, with the sizes.
    let budget = size(&whole) - 1;
    let logs = Logs::default();
    let client = {
        let writer = logs.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_max_level(tracing::Level::DEBUG)
            .with_ansi(false)
            .finish();
        let _guard = tracing::subscriber::set_default(subscriber);
        serve(Some(budget))
    };
    let logged = logs.text();
    assert!(
        logged.contains("output schemas over the budget published shortened")
            && logged.contains("tools=1 first=get_order"),
        "{logged}"
    );
    assert!(
        logged.contains(&format!("tool=get_order whole={} published=", size(&whole)))
            && logged.contains("left_out=1 of=3")
            && logged.contains("output schema shortened document=Orders"),
        "{logged}"
    );
    let shortened = published(&client).await;
    assert!(size(&shortened) <= budget);
    let defs = shortened["$defs"].as_object().unwrap();
    assert!(
        !defs.contains_key("Country") && defs.contains_key("Address"),
        "{shortened:#}"
    );
    assert_eq!(
        defs["Address"]["properties"]["country"],
        json!({"type": "string", "description": "ISO code."})
    );

    // What the API answers conforms to both, as a client validating results checks it
    // (S-184: structured content conforms to the output schema published).
    let result = client.call_tool("get_order", json!({"id": "1"})).await;
    let content = &result["structuredContent"];
    assert_eq!(
        content["customer"]["address"]["country"], "FR",
        "{result:#}"
    );
    for schema in [&whole, &shortened] {
        let validator = jsonschema::validator_for(schema).unwrap();
        assert!(validator.is_valid(content), "{schema:#}");
    }

    // Smaller budgets leave out more, nearest last: the first without any named schema
    // has the result's own members, a reference replaced by the customer's type and
    // first sentence.
    let mut budget = size(&shortened);
    let root_only = loop {
        budget -= 10;
        let schema = published(&serve(Some(budget))).await;
        assert!(size(&schema) <= budget, "{schema:#}");
        if schema.get("$defs").is_none() {
            break schema;
        }
    };
    assert_eq!(
        root_only["anyOf"][0]["properties"]["customer"],
        json!({"type": "object", "description": "Who ordered."}),
        "{root_only:#}"
    );
}

/// The result of `get_shelf`: its schema is built as the code `mcp openapi` generates
/// builds a result's, from named schemas (here a chain of boxes, each documented at
/// length, so the whole is larger than the default budget).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
struct Shelf(Value);

/// How many named schemas `Shelf`'s schema reaches, each about 1.3 KB.
const BOXES: usize = 40;

impl schemars::JsonSchema for Shelf {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Shelf".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        for level in 0..BOXES {
            let mut properties = json!({"label": {"type": "string"}});
            if level + 1 < BOXES {
                properties["inner"] = json!({"$ref": format!("#/$defs/Box{}", level + 1)});
            }
            generator.definitions_mut().insert(
                format!("Box{level}"),
                json!({
                    "type": "object",
                    "description": format!("Box {level}. {}", "It holds the next box. ".repeat(55)),
                    "properties": properties,
                    "required": ["label"]
                }),
            );
        }
        schemars::json_schema!({
            "type": "object",
            "properties": {"top": {"$ref": "#/$defs/Box0"}},
            "required": ["top"]
        })
    }
}

/// The shelf, `depth` boxes deep.
#[mcp_runtime::tool(read_only)]
async fn get_shelf(depth: u32) -> mcp_runtime::Json<Shelf> {
    let mut inner = json!({"label": format!("box {depth}")});
    for level in (0..depth).rev() {
        inner = json!({"label": format!("box {level}"), "inner": inner});
    }
    mcp_runtime::Json(Shelf(json!({ "top": inner })))
}

#[tokio::test]
async fn a_tool_s_output_schema_past_the_server_s_budget_is_published_shortened() {
    let serve = |server: Server| {
        TestClient::new(server.only(mcp_runtime::tools![get_shelf]).build().unwrap())
    };
    async fn published(client: &TestClient) -> Value {
        let list = client.request("tools/list", json!({})).await;
        list["result"]["tools"][0]["outputSchema"].clone()
    }
    let size = |schema: &Value| serde_json::to_vec(schema).unwrap().len();
    let budget = 32 << 10;

    // By default: shortened to the budget, with the boxes nearest the result kept.
    let logs = Logs::default();
    let subscriber = tracing_subscriber::fmt()
        .with_writer({
            let logs = logs.clone();
            move || logs.clone()
        })
        .with_ansi(false)
        .with_max_level(tracing::Level::DEBUG)
        .finish();
    let shortened = {
        let _guard = tracing::subscriber::set_default(subscriber);
        published(&serve(Server::new("shelves", "1.0.0"))).await
    };
    let whole = published(&serve(
        Server::new("shelves", "1.0.0").max_output_schema_bytes(usize::MAX),
    ))
    .await;
    assert!(size(&whole) > budget, "{}", size(&whole));
    assert!(size(&shortened) <= budget, "{}", size(&shortened));
    let kept = shortened["$defs"].as_object().unwrap();
    assert!(kept.contains_key("Box0") && !kept.contains_key(&format!("Box{}", BOXES - 1)));
    assert_eq!(whole["$defs"].as_object().unwrap().len(), BOXES);
    let text = logs.text();
    assert!(
        text.contains("output schemas over the budget published shortened")
            && text.contains("tools=1")
            && text.contains("first=get_shelf"),
        "{text}"
    );
    assert!(
        text.contains("output schema shortened") && text.contains("tool=get_shelf"),
        "{text}"
    );

    // What the tool answers conforms to both, as a client validating results checks it
    // (S-184), however deep.
    let client = serve(Server::new("shelves", "1.0.0"));
    let result = client
        .call_tool("get_shelf", json!({"depth": BOXES - 1}))
        .await;
    let content = &result["structuredContent"];
    assert_eq!(content["top"]["label"], "box 0", "{result:#}");
    for schema in [&whole, &shortened] {
        let validator = jsonschema::validator_for(schema).unwrap();
        assert!(validator.is_valid(content), "{schema:#}");
    }

    // A schema within the budget is published whole, as it was.
    let roomy = published(&serve(
        Server::new("shelves", "1.0.0").max_output_schema_bytes(size(&whole)),
    ))
    .await;
    assert_eq!(roomy, whole);
}
