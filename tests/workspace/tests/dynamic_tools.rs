//! Tools and prompts known only at run time (`Server::tool_from_json`,
//! `Server::prompt_from_json`): described by JSON, handled by a closure, and served through
//! the same pipeline as `#[tool]` and `#[prompt]` functions: listed in pages, arguments
//! checked against the given schema or argument list, seen by authorization hooks, in both
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
                    structured_content: Some(json!({"doubled": n * 2.0}).into()),
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
    // S-183: a tool's inputSchema is there, valid, and of `type: "object"`, or the server
    // does not start.
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

/// A server with one dynamic prompt, `review`, taking a required `code` and an optional
/// `focus`.
fn prompt_server() -> Server {
    Server::new("dynamic", "1.0.0")
        .only(tools![static_echo])
        .prompt_from_json(
            json!({
                "name": "review",
                "title": "Code review",
                "description": "Reviews a piece of code.",
                "arguments": [
                    {"name": "code", "description": "The code.", "required": true},
                    {"name": "focus"}
                ]
            }),
            |ctx, arguments| async move {
                let code = arguments
                    .get("code")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let who = ctx
                    .principal()
                    .map(|p| p.subject.clone())
                    .unwrap_or_else(|| "nobody".into());
                Ok(GetPromptResult {
                    description: Some(format!("for {who}")),
                    messages: vec![PromptMessage::user(format!("Review this: {code}"))],
                })
            },
        )
}

#[tokio::test]
async fn a_dynamic_prompt_is_listed_and_answers_in_both_eras() {
    let app = prompt_server().build().unwrap();
    for (era, client) in clients(&app) {
        let response = client.request("prompts/list", json!({})).await;
        let prompts = &response["result"]["prompts"];
        assert_eq!(prompts[0]["name"], "review", "{era}: {response}");
        assert_eq!(prompts[0]["title"], "Code review", "{era}");
        assert_eq!(prompts[0]["arguments"][0]["required"], true, "{era}");
        let result = client
            .get_prompt("review", json!({"code": "fn main() {}"}))
            .await;
        assert_eq!(
            result["messages"][0]["content"]["text"], "Review this: fn main() {}",
            "{era}: {result}"
        );
        // The required argument is checked before the handler runs.
        let response = client
            .request(
                "prompts/get",
                json!({"name": "review", "arguments": {"focus": "x"}}),
            )
            .await;
        assert_eq!(response["error"]["code"], -32602, "{era}: {response}");
    }
    let client = TestClient::new(app).as_principal(Principal::new("bob"));
    let result = client.get_prompt("review", json!({"code": "x"})).await;
    assert_eq!(result["description"], "for bob", "{result}");
}

/// Refuses the prompt `review`.
struct NoReviews;

impl Authorize for NoReviews {
    async fn check(&self, _ctx: &RequestContext, action: &Action<'_>) -> Result<(), Denied> {
        match action {
            Action::GetPrompt { prompt, .. } if prompt.name == "review" => {
                Err(Denied::new("no reviews today"))
            }
            _ => Ok(()),
        }
    }
}

#[tokio::test]
async fn authorization_hooks_see_dynamic_prompts() {
    let app = prompt_server().authorize(NoReviews).build().unwrap();
    let response = TestClient::new(app)
        .request(
            "prompts/get",
            json!({"name": "review", "arguments": {"code": "x"}}),
        )
        .await;
    assert_eq!(response["error"]["code"], -31403, "{response}");
}

#[test]
fn a_dynamic_prompt_named_twice_or_without_a_name_stops_the_build() {
    let get = |_: RequestContext, _| async { Ok(GetPromptResult::default()) };
    let errors = build_errors(prompt_server().prompt_from_json(json!({"name": "review"}), get));
    match errors.as_slice() {
        [BuildError::DuplicatePrompt { name, places }] => {
            assert_eq!(name, "review");
            assert_eq!(
                places,
                &["Server::prompt_from_json", "Server::prompt_from_json"]
            );
        }
        other => panic!("{other:?}"),
    }
    let errors = build_errors(prompt_server().prompt_from_json(json!({"title": "x"}), get));
    let text = errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ");
    assert!(text.contains("is not a prompt"), "{text}");
}

/// A server with a dynamic resource `notes://today` and a dynamic template
/// `notes://days/{day}`, whose reads say which URI they read and for whom.
fn resource_server() -> Server {
    let read = |ctx: RequestContext, uri: String| async move {
        let who = ctx
            .principal()
            .map(|p| p.subject.clone())
            .unwrap_or_else(|| "nobody".into());
        Ok(vec![ResourceContents::text(
            &uri,
            "text/plain",
            format!("{uri} for {who}"),
        )])
    };
    Server::new("dynamic", "1.0.0")
        .only(tools![static_echo])
        .resource_from_json(
            json!({"uri": "notes://today", "name": "today", "mimeType": "text/plain"}),
            read,
        )
        .resource_from_json(
            json!({"uriTemplate": "notes://days/{day}", "name": "day", "title": "A day's notes"}),
            read,
        )
}

#[tokio::test]
async fn dynamic_resources_and_templates_are_listed_and_read_in_both_eras() {
    let app = resource_server().build().unwrap();
    for (era, client) in clients(&app) {
        let response = client.request("resources/list", json!({})).await;
        let listed = &response["result"]["resources"];
        assert!(
            listed.as_array().is_some_and(|all| all
                .iter()
                .any(|r| r["uri"] == "notes://today" && r["mimeType"] == "text/plain")),
            "{era}: {response}"
        );
        let response = client.request("resources/templates/list", json!({})).await;
        let templates = &response["result"]["resourceTemplates"];
        assert_eq!(
            templates[0]["uriTemplate"], "notes://days/{day}",
            "{era}: {response}"
        );
        assert_eq!(templates[0]["title"], "A day's notes", "{era}");
        let result = client.read_resource("notes://today").await;
        assert_eq!(
            result["contents"][0]["text"], "notes://today for nobody",
            "{era}: {result}"
        );
        let result = client.read_resource("notes://days/monday").await;
        assert_eq!(
            result["contents"][0]["text"], "notes://days/monday for nobody",
            "{era}: {result}"
        );
        // One segment only, as for a `#[resource]` template.
        let response = client
            .request("resources/read", json!({"uri": "notes://days/a/b"}))
            .await;
        assert!(response.get("error").is_some(), "{era}: {response}");
    }
    // What the handler reads may depend on the caller: reads are never shared.
    let response = TestClient::new(app)
        .as_principal(Principal::new("carol"))
        .request("resources/read", json!({"uri": "notes://today"}))
        .await;
    assert_eq!(
        response["result"]["contents"][0]["text"], "notes://today for carol",
        "{response}"
    );
    assert_eq!(response["result"]["cacheScope"], "private", "{response}");
}

#[test]
fn a_dynamic_resource_served_twice_or_of_an_unmatched_form_stops_the_build() {
    let read = |_: RequestContext, _: String| async { Ok(Vec::new()) };
    let errors = build_errors(
        resource_server()
            .resource_from_json(json!({"uri": "notes://today", "name": "again"}), read),
    );
    match errors.as_slice() {
        [BuildError::DuplicateResource { uri, places }] => {
            assert_eq!(uri, "notes://today");
            assert_eq!(
                places,
                &["Server::resource_from_json", "Server::resource_from_json"]
            );
        }
        other => panic!("{other:?}"),
    }
    let errors = build_errors(resource_server().resource_from_json(
        json!({"uriTemplate": "notes://days/{date}", "name": "date"}),
        read,
    ));
    assert!(
        matches!(errors.as_slice(), [BuildError::OverlappingTemplates { .. }]),
        "{errors:?}"
    );
    for template in ["notes://search{?q}", "notes://{+all}/tail", "notes://plain"] {
        let errors = build_errors(
            resource_server()
                .resource_from_json(json!({"uriTemplate": template, "name": "odd"}), read),
        );
        let text = errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ");
        assert!(text.contains(template), "{template}: {text}");
    }
}

/// Names added out of order, with shared prefixes, dots, dashes and both cases: the
/// catalog looks tools and prompts up by name in its sorted list.
const SCRAMBLED: &[&str] = &[
    "zeta", "a", "m.n", "m", "m.n.o", "b-2", "b-10", "Z", "mm", "a.b", "_", "B",
];

#[tokio::test]
async fn every_tool_and_prompt_is_found_by_name_whatever_order_it_was_added_in() {
    let mut server = Server::new("many", "1.0.0").only(tools![static_echo]);
    for name in SCRAMBLED {
        let named = name.to_string();
        server = server.tool_from_json(
            json!({"name": name, "inputSchema": {"type": "object"}}),
            move |_ctx, _arguments| {
                let named = named.clone();
                async move { Ok(CallToolResult::success(vec![Content::text(named)])) }
            },
        );
        let named = name.to_string();
        server = server.prompt_from_json(json!({"name": name}), move |_ctx, _arguments| {
            let named = named.clone();
            async move {
                Ok(GetPromptResult {
                    description: None,
                    messages: vec![PromptMessage::user(named)],
                })
            }
        });
    }
    let app = server.build().unwrap();
    for (era, client) in clients(&app) {
        for name in SCRAMBLED {
            let result = client.call_tool(name, json!({})).await;
            assert_eq!(result["content"][0]["text"], *name, "{era}: {result}");
            let result = client.get_prompt(name, json!({})).await;
            assert_eq!(
                result["messages"][0]["content"]["text"], *name,
                "{era}: {result}"
            );
        }
        // Before the first name, between two, after the last, and a prefix of one.
        for unknown in ["", "0", "b-1", "m.", "zz", "b", "m.n.o.p"] {
            let response = client
                .request("tools/call", json!({"name": unknown, "arguments": {}}))
                .await;
            assert_eq!(response["error"]["code"], -32602, "{era}: {response}");
            assert_eq!(response["error"]["data"]["name"], unknown, "{era}");
            let response = client
                .request("prompts/get", json!({"name": unknown, "arguments": {}}))
                .await;
            assert_eq!(response["error"]["code"], -32602, "{era}: {response}");
        }
    }
}
