//! Tools known only at run time (`Server::tool_from_json`): described by JSON, handled by
//! a closure, and served through the same pipeline as `#[tool]` functions: listed in pages,
//! arguments checked against the given schema, seen by authorization hooks, in both
//! protocol eras; a name clash is a build error.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use mcp_runtime::prelude::*;
use mcp_runtime::testing::TestClient;
use mcp_runtime::BuildError;
use serde_json::{json, Value};

/// A static tool whose name a dynamic one may clash with.
#[tool]
async fn static_echo(text: String) -> String {
    text
}

fn double_json(name: &str) -> Value {
    json!({
        "name": name,
        "title": "Double",
        "description": "Doubles a number.",
        "inputSchema": {
            "type": "object",
            "properties": {"n": {"type": "number"}},
            "required": ["n"],
            "additionalProperties": false
        },
        "outputSchema": {
            "type": "object",
            "properties": {"doubled": {"type": "number"}},
            "required": ["doubled"]
        },
        "annotations": {"readOnlyHint": true}
    })
}

/// A server with `static_echo` and two dynamic tools, `math.double` (counting its runs)
/// and `whoami` (naming the caller), listed one per page.
fn server(runs: Arc<AtomicUsize>) -> Server {
    Server::new("dynamic", "1.0.0")
        .only(tools![static_echo])
        .page_size(1)
        .tool_from_json(double_json("math.double"), move |_ctx, arguments| {
            let runs = runs.clone();
            async move {
                runs.fetch_add(1, Ordering::SeqCst);
                let n = arguments
                    .get("n")
                    .and_then(Value::as_f64)
                    .unwrap_or_default();
                Ok(CallToolResult {
                    content: vec![Content::text((n * 2.0).to_string())],
                    structured_content: Some(json!({"doubled": n * 2.0})),
                    ..Default::default()
                })
            }
        })
        .tool_from_json(
            json!({"name": "whoami", "inputSchema": {"type": "object"}}),
            |ctx, _arguments| async move {
                let who = ctx
                    .principal()
                    .map(|p| p.subject.clone())
                    .unwrap_or_else(|| "nobody".into());
                Ok(CallToolResult::success(vec![Content::text(who)]))
            },
        )
}

/// Every page of `tools/list`, following cursors.
async fn all_tools(client: &TestClient) -> Vec<Value> {
    let mut tools = Vec::new();
    let mut params = json!({});
    loop {
        let response = client.request("tools/list", params).await;
        let result = &response["result"];
        tools.extend(result["tools"].as_array().cloned().unwrap_or_default());
        match result.get("nextCursor").and_then(Value::as_str) {
            Some(cursor) => params = json!({"cursor": cursor}),
            None => return tools,
        }
    }
}

fn clients(app: &mcp_runtime::App) -> Vec<(&'static str, TestClient)> {
    vec![
        ("2026-07-28", TestClient::new(app.clone())),
        #[cfg(feature = "legacy")]
        ("2025-11-25", TestClient::legacy(app.clone(), "2025-11-25")),
    ]
}

#[tokio::test]
async fn dynamic_tools_are_listed_in_pages_with_their_json_in_both_eras() {
    let app = server(Arc::default()).build().unwrap();
    for (era, client) in clients(&app) {
        let tools = all_tools(&client).await;
        let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        assert_eq!(names, ["math.double", "static_echo", "whoami"], "{era}");
        let double = &tools[0];
        assert_eq!(double["title"], "Double", "{era}");
        assert_eq!(double["description"], "Doubles a number.", "{era}");
        assert_eq!(
            double["inputSchema"],
            double_json("x")["inputSchema"],
            "{era}"
        );
        assert_eq!(
            double["outputSchema"],
            double_json("x")["outputSchema"],
            "{era}"
        );
        assert_eq!(double["annotations"]["readOnlyHint"], true, "{era}");
    }
}

#[tokio::test]
async fn a_dynamic_tool_runs_with_checked_arguments_in_both_eras() {
    let runs = Arc::new(AtomicUsize::new(0));
    let app = server(runs.clone()).build().unwrap();
    for (era, client) in clients(&app) {
        let before = runs.load(Ordering::SeqCst);
        let result = client.call_tool("math.double", json!({"n": 21})).await;
        assert_eq!(
            result["structuredContent"]["doubled"], 42.0,
            "{era}: {result}"
        );
        assert_eq!(runs.load(Ordering::SeqCst), before + 1, "{era}");
        // Checked against the given schema: the handler does not run.
        let result = client.call_tool("math.double", json!({"n": "many"})).await;
        assert_eq!(result["isError"], true, "{era}: {result}");
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        assert!(
            text.contains("Invalid arguments for tool `math.double`"),
            "{era}: {text}"
        );
        let result = client
            .call_tool("math.double", json!({"n": 1, "extra": 2}))
            .await;
        assert_eq!(result["isError"], true, "{era}: {result}");
        assert_eq!(runs.load(Ordering::SeqCst), before + 1, "{era}");
    }
}

#[tokio::test]
async fn a_dynamic_tool_sees_the_caller() {
    let app = server(Arc::default()).build().unwrap();
    let client = TestClient::new(app).as_principal(Principal::new("alice"));
    let result = client.call_tool("whoami", json!({})).await;
    assert_eq!(result["content"][0]["text"], "alice", "{result}");
}

/// Refuses `math.double`; sees dynamic tools as `Action::CallTool` like any other.
struct NoDoubling;

impl Authorize for NoDoubling {
    async fn check(&self, _ctx: &RequestContext, action: &Action<'_>) -> Result<(), Denied> {
        match action {
            Action::CallTool { tool, .. } if tool.name == "math.double" => {
                Err(Denied::new("no doubling today"))
            }
            _ => Ok(()),
        }
    }
}

#[tokio::test]
async fn authorization_hooks_see_dynamic_tools() {
    let runs = Arc::new(AtomicUsize::new(0));
    let app = server(runs.clone()).authorize(NoDoubling).build().unwrap();
    let client = TestClient::new(app);
    let response = client
        .request(
            "tools/call",
            json!({"name": "math.double", "arguments": {"n": 1}}),
        )
        .await;
    assert_eq!(response["error"]["code"], -31403, "{response}");
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    let result = client.call_tool("whoami", json!({})).await;
    assert_eq!(result["content"][0]["text"], "nobody", "{result}");
}

fn build_errors(server: Server) -> Vec<BuildError> {
    match server.build() {
        Err(mcp_runtime::Error::Build(errors)) => errors,
        Err(other) => panic!("not a build error: {other}"),
        Ok(_) => panic!("the server built"),
    }
}

#[test]
fn a_dynamic_tool_named_as_a_static_one_stops_the_build() {
    let errors = build_errors(
        Server::new("dynamic", "1.0.0")
            .only(tools![static_echo])
            .tool_from_json(double_json("static_echo"), |_, _| async {
                Ok(CallToolResult::default())
            }),
    );
    match errors.as_slice() {
        [BuildError::DuplicateTool { name, places }] => {
            assert_eq!(name, "static_echo");
            assert!(
                places.iter().any(|p| p == "Server::tool_from_json"),
                "{places:?}"
            );
            assert!(
                places.iter().any(|p| p.contains("dynamic_tools")),
                "{places:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    // Two dynamic tools of one name, too.
    let errors = build_errors(
        Server::new("dynamic", "1.0.0")
            .only(tools![static_echo])
            .tool_from_json(double_json("twice"), |_, _| async {
                Ok(CallToolResult::default())
            })
            .tool_from_json(double_json("twice"), |_, _| async {
                Ok(CallToolResult::default())
            }),
    );
    assert!(
        matches!(errors.as_slice(), [BuildError::DuplicateTool { name, .. }] if name == "twice"),
        "{errors:?}"
    );
}

#[test]
fn json_that_is_not_a_servable_tool_stops_the_build() {
    let cases = [
        (json!({"name": "no_schema"}), "is not a tool"),
        (
            json!({"name": "has space", "inputSchema": {"type": "object"}}),
            "1 to 128 characters",
        ),
        (
            json!({"name": "array_input", "inputSchema": {"type": "array"}}),
            "inputSchema must be",
        ),
        (
            json!({"name": "bad_schema", "inputSchema": {"type": "object", "properties": {"n": {"type": 12}}}}),
            "does not compile",
        ),
    ];
    for (json, expected) in cases {
        let errors = build_errors(
            Server::new("dynamic", "1.0.0")
                .only(tools![static_echo])
                .tool_from_json(json.clone(), |_, _| async { Ok(CallToolResult::default()) }),
        );
        let text = errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ");
        assert!(text.contains(expected), "{json}: {text}");
    }
}

#[tokio::test]
async fn a_removed_dynamic_tool_is_no_longer_served() {
    let app = server(Arc::default()).build().unwrap();
    let handle = app.handle();
    assert!(handle.serves_tool("whoami"));
    assert!(handle.remove_tool("whoami"));
    assert!(!handle.serves_tool("whoami"));
    let client = TestClient::new(app);
    let names: Vec<String> = all_tools(&client)
        .await
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(names, ["math.double", "static_echo"]);
}
