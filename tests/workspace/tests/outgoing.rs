//! What handlers and definitions hand the server is checked before it goes out: content
//! blocks of tool results and prompt messages (embedded resources, links, media), the
//! `_meta` keys of results, blocks and definitions. A handler's mistake fails its own call
//! with an error naming the handler and the block; a definition's stops the server at
//! start. Requirement ids (S-nnn) refer to the server checklist.

use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::protocol::{EmbeddedResource, ResourceContents};
use mcp_runtime::testing::TestClient;
use mcp_runtime::{App, BuildError};
use serde_json::{json, Map, Value};

const TASKS: &str = "io.modelcontextprotocol/tasks";

/// A block a handler could build by mistake, by name; `valid` for one that is right.
fn block(case: &str) -> Content {
    match case {
        "relative_uri" => Content::embedded_text("notes.txt", "text/plain", "the notes"),
        "not_a_mime_type" => Content::embedded_text("file:///notes.txt", "plain text", "the notes"),
        "blob_not_base64" => Content::Resource(EmbeddedResource {
            resource: ResourceContents::Blob {
                uri: "file:///cover.png".into(),
                mime_type: Some("image/png".into()),
                blob: "raw bytes, not base64".into(),
            },
            annotations: None,
        }),
        "relative_link" => Content::link("notes.txt", "notes"),
        "image_of_text" => Content::image(b"hello", "text/plain"),
        "reserved_meta" => Content::Text {
            text: "tagged".into(),
            annotations: None,
            meta: Some(meta("io.modelcontextprotocol/tag")),
        },
        _ => Content::embedded_blob("file:///cover.png", "image/png", [1u8, 2, 3]),
    }
}

/// A `_meta` object with this one key.
fn meta(key: &str) -> Map<String, Value> {
    let mut meta = Map::new();
    meta.insert(key.to_owned(), json!(true));
    meta
}

/// The problem each bad case is refused for, as the error names it.
const REFUSED: [(&str, &str); 6] = [
    (
        "relative_uri",
        "an embedded resource: its uri \"notes.txt\" is not an absolute URI",
    ),
    (
        "not_a_mime_type",
        "an embedded resource: \"plain text\" is not a MIME type",
    ),
    ("blob_not_base64", "an embedded resource: its blob is not base64"),
    (
        "relative_link",
        "a resource link: its uri \"notes.txt\" is not an absolute URI",
    ),
    (
        "image_of_text",
        "an image block: its MIME type \"text/plain\" is not an image/ type",
    ),
    (
        "reserved_meta",
        "a text block: the _meta key \"io.modelcontextprotocol/tag\" is under `io.modelcontextprotocol/`, a prefix the protocol reserves",
    ),
];

/// Returns a text block, then the block `case` names.
#[tool]
async fn attach(case: String) -> Vec<Content> {
    vec![Content::text("see the attachment"), block(&case)]
}

/// Returns a result whose `_meta` has the key `key`.
#[tool]
async fn tagged(key: String) -> CallToolResult {
    let mut result = CallToolResult::success(vec![Content::text("tagged")]);
    result.meta = Some(meta(&key));
    result
}

/// Becomes a task at once, then returns the block `case` names.
#[tool(task)]
async fn attach_later(case: String, ctx: RequestContext) -> Vec<Content> {
    ctx.start_task();
    tokio::time::sleep(Duration::from_millis(20)).await;
    vec![block(&case)]
}

/// A user message, then an assistant message with the block `case` names.
#[prompt]
async fn brief(case: String) -> Vec<PromptMessage> {
    vec![
        PromptMessage::user("Read the attachment."),
        PromptMessage::assistant(block(&case)),
    ]
}

/// Messages written as JSON (say, from a template file), each with the role given.
#[prompt]
async fn templated(role: String) -> Result<Vec<PromptMessage>, RpcError> {
    let message = json!({"role": role, "content": {"type": "text", "text": "Be brief."}});
    serde_json::from_value(json!([message]))
        .map_err(|e| RpcError::internal(format!("the template is not a prompt: {e}")))
}

fn app() -> App {
    Server::new("outgoing", "1.0.0")
        .only_module(module_path!())
        .task_after(Duration::from_secs(5))
        .build()
        .expect("the fixtures build")
}

/// A failed call's error: its code and message.
fn error_of(response: &Value) -> (i64, &str) {
    let error = &response["error"];
    (
        error["code"].as_i64().unwrap_or_default(),
        error["message"].as_str().unwrap_or_default(),
    )
}

#[tokio::test]
async fn a_tool_result_with_a_block_the_protocol_does_not_allow_fails_that_call() {
    let client = TestClient::new(app());
    let valid = client.call_tool("attach", json!({"case": "valid"})).await;
    assert_eq!(valid["content"][1]["resource"]["blob"], "AQID", "{valid}");
    for (case, problem) in REFUSED {
        let response = client
            .request(
                "tools/call",
                json!({"name": "attach", "arguments": {"case": case}}),
            )
            .await;
        let (code, message) = error_of(&response);
        // S-228: the handler's block is never sent: -32603 naming the tool and the block.
        assert_eq!(code, -32603, "{case}: {response}");
        assert!(
            message.starts_with(
                "Internal error: tool attach returned a result the protocol does not allow: content[1], "
            ) && message.contains(problem),
            "{case}: {message}"
        );
        assert!(response.get("result").is_none(), "{case}");
    }
    // The server goes on serving.
    let again = client.call_tool("attach", json!({"case": "valid"})).await;
    assert_eq!(again["content"][0]["text"], "see the attachment");
    #[cfg(feature = "legacy")]
    {
        let legacy = TestClient::legacy(app(), "2025-11-25");
        let response = legacy
            .request(
                "tools/call",
                json!({"name": "attach", "arguments": {"case": "relative_uri"}}),
            )
            .await;
        // S-228: the handshake era checks the same.
        assert_eq!(error_of(&response).0, -32603, "{response}");
    }
}

#[tokio::test]
async fn a_task_whose_result_the_protocol_does_not_allow_fails() {
    let client = TestClient::new(app()).with_capabilities(json!({"extensions": {TASKS: {}}}));
    let made = client
        .call_tool("attach_later", json!({"case": "relative_uri"}))
        .await;
    assert_eq!(made["resultType"], "task", "{made}");
    let id = made["taskId"].as_str().unwrap();
    let mut task = Value::Null;
    for _ in 0..500 {
        task = client.request("tasks/get", json!({"taskId": id})).await["result"].clone();
        if task["status"] != "working" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // S-228: the task fails with the same error; its result is never stored to be read.
    assert_eq!(task["status"], "failed", "{task}");
    assert_eq!(task["error"]["code"], -32603);
    assert!(task["error"]["message"]
        .as_str()
        .unwrap()
        .contains("tool attach_later returned a result the protocol does not allow: content[0], an embedded resource: its uri \"notes.txt\" is not an absolute URI"));
    assert!(task.get("result").is_none());
}

#[tokio::test]
async fn a_prompt_whose_messages_the_protocol_does_not_allow_fails_that_get() {
    let client = TestClient::new(app());
    let valid = client.get_prompt("brief", json!({"case": "valid"})).await;
    assert_eq!(valid["messages"][1]["role"], "assistant", "{valid}");
    assert_eq!(valid["messages"][1]["content"]["type"], "resource");
    for (case, problem) in REFUSED {
        let response = client
            .request(
                "prompts/get",
                json!({"name": "brief", "arguments": {"case": case}}),
            )
            .await;
        let (code, message) = error_of(&response);
        // S-234, S-228: each block the protocol does not allow in a message is refused,
        // naming the prompt and the message; nothing of it is sent.
        assert_eq!(code, -32603, "{case}: {response}");
        assert!(
            message.starts_with(
                "Internal error: prompt brief returned a result the protocol does not allow: messages[1].content, "
            ) && message.contains(problem),
            "{case}: {message}"
        );
        assert!(response.get("result").is_none(), "{case}");
    }
    // S-234: the roles are `user` and `assistant`; a message in another role cannot be
    // built, so it never reaches the client either.
    let assistant = client
        .get_prompt("templated", json!({"role": "assistant"}))
        .await;
    assert_eq!(assistant["messages"][0]["role"], "assistant");
    let system = client
        .request(
            "prompts/get",
            json!({"name": "templated", "arguments": {"role": "system"}}),
        )
        .await;
    let (code, message) = error_of(&system);
    assert_eq!(code, -32603, "{system}");
    assert!(message.contains("unknown variant `system`"), "{message}");
}

#[tokio::test]
async fn a_result_meta_key_off_the_grammar_or_under_a_reserved_prefix_fails_that_call() {
    let client = TestClient::new(app());
    for good in ["com.example/trace-id", "note", "com.example.mcp/x", ""] {
        let result = client.call_tool("tagged", json!({"key": good})).await;
        assert_eq!(result["_meta"][good], true, "{good}: {result}");
    }
    for (bad, says) in [
        ("com.example/-x", "has a name that is neither empty"),
        (
            "1com.example/x",
            "has a prefix that is not dot-separated labels",
        ),
        (
            "com..example/x",
            "has a prefix that is not dot-separated labels",
        ),
        (
            "io.modelcontextprotocol/serverInfo",
            "a prefix the protocol reserves",
        ),
        ("dev.mcp/x", "a prefix the protocol reserves"),
    ] {
        let response = client
            .request(
                "tools/call",
                json!({"name": "tagged", "arguments": {"key": bad}}),
            )
            .await;
        let (code, message) = error_of(&response);
        // S-035 (grammar), S-037 (reserved prefixes): the key is never published; the call
        // fails naming it.
        assert_eq!(code, -32603, "{bad}: {response}");
        assert!(
            message.starts_with("Internal error: tool tagged returned a result")
                && message.contains(&format!("the _meta key {bad:?}"))
                && message.contains(says),
            "{bad}: {message}"
        );
    }
}

#[test]
fn a_definition_meta_key_off_the_grammar_stops_the_server_at_start() {
    let tool =
        |meta: Value| json!({"name": "lookup", "inputSchema": {"type": "object"}, "_meta": meta});
    let answer = |_ctx, _arguments| async { Ok(CallToolResult::success(vec![])) };
    let good = Server::new("t", "1")
        .only_module("no::tools")
        .tool_from_json(tool(json!({"com.example/owner": "search"})), answer)
        .build();
    assert!(good.is_ok());
    for (meta, says) in [
        (
            json!({"com.example/ owner": 1}),
            "has a name that is neither empty",
        ),
        (json!({"io.mcp/x": 1}), "a prefix the protocol reserves"),
    ] {
        let refused = Server::new("t", "1")
            .only_module("no::tools")
            .tool_from_json(tool(meta.clone()), answer)
            .build();
        let Err(mcp_runtime::Error::Build(errors)) = refused else {
            panic!("{meta} was served");
        };
        // S-035, S-037: a tool definition with such a key stops the server, naming it.
        assert!(
            matches!(&errors[..], [BuildError::InvalidTool { name, problems }]
                if name == "lookup" && problems.iter().any(|p| p.contains(says))),
            "{meta}: {errors:?}"
        );
    }
    let read = |_ctx, _uri| async { Ok(vec![]) };
    let refused = Server::new("t", "1")
        .only_module("no::tools")
        .resource_from_json(
            json!({"uri": "docs://readme", "name": "readme", "_meta": {"org.modelcontextprotocol.api/x": 1}}),
            read,
        )
        .build();
    let Err(mcp_runtime::Error::Build(errors)) = refused else {
        panic!("the resource was served");
    };
    // S-035: a resource definition's keys too.
    let text = format!("{errors:?}");
    assert!(
        text.contains("resource `docs://readme`")
            && text.contains("a prefix the protocol reserves"),
        "{text}"
    );
}
