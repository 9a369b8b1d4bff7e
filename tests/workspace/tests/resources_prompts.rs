//! Resources, prompts and completion: what users notice beyond the transcripts.

use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::http::Request;
use mcp_runtime::prelude::*;
use mcp_runtime::testing::{http_request, TestClient};
use mcp_runtime::{BuildError, CompletionTarget};
use mcp_workspace_tests::library;
use serde_json::{json, Value};
use tower::ServiceExt as _;

/// Records what the hook saw, and refuses book 12, long summaries and suggesting book
/// numbers.
#[derive(Clone, Default)]
struct Librarian {
    seen: Arc<Mutex<Vec<String>>>,
}

impl Authorize for Librarian {
    async fn check(&self, ctx: &RequestContext, action: &Action<'_>) -> Result<(), Denied> {
        let entry = match action {
            Action::ReadResource { resource, uri } => {
                format!("{} read {} via {}", ctx.method(), uri, resource.uri)
            }
            Action::GetPrompt { prompt, arguments } => {
                format!(
                    "{} get {} {}",
                    ctx.method(),
                    prompt.name,
                    Value::Object((*arguments).clone())
                )
            }
            Action::Complete { argument, .. } => {
                format!(
                    "{} complete {} of {}",
                    ctx.method(),
                    argument,
                    action.name()
                )
            }
            other => format!("{} {}", ctx.method(), other.name()),
        };
        self.seen.lock().unwrap().push(entry);
        match action {
            Action::ReadResource { uri, .. } if *uri == "library://books/12" => {
                Err(Denied::new("book 12 is reserved"))
            }
            Action::GetPrompt { arguments, .. }
                if arguments.get("style") == Some(&json!("long")) =>
            {
                Err(Denied::new("long summaries are for members"))
            }
            Action::Complete {
                target: CompletionTarget::Resource(resource),
                argument,
            } if resource.name == "book" && *argument == "id" => {
                Err(Denied::new("book numbers are not suggested"))
            }
            _ => Ok(()),
        }
    }
}

/// The fixture server behind a `Librarian`, and the hook to inspect afterwards.
fn guarded_library() -> (Librarian, TestClient) {
    let hook = Librarian::default();
    let client = TestClient::new(
        mcp_workspace_tests::server()
            .authorize(hook.clone())
            .build()
            .unwrap(),
    );
    (hook, client)
}

#[tokio::test]
async fn the_authorize_hook_runs_before_reads_gets_and_completions() {
    let (hook, client) = guarded_library();
    let denied = client
        .request("resources/read", json!({"uri": "library://books/12"}))
        .await;
    assert_eq!(denied["error"]["code"], -31403, "{denied}");
    assert_eq!(denied["error"]["data"]["reason"], "book 12 is reserved");
    let allowed = client
        .request("resources/read", json!({"uri": "library://books/1"}))
        .await;
    assert_eq!(allowed["result"]["contents"][0]["uri"], "library://books/1");

    let refused = client
        .request(
            "prompts/get",
            json!({"name": "summarize_book", "arguments": {"id": "1", "style": "long"}}),
        )
        .await;
    // S-234: the application's hook sees a prompt's inputs before it runs, and refuses.
    assert_eq!(refused["error"]["code"], -31403);
    let fine = client
        .request(
            "prompts/get",
            json!({"name": "summarize_book", "arguments": {"id": "1"}}),
        )
        .await;
    assert_eq!(
        fine["result"]["messages"][1]["content"]["text"],
        "Summarize Dune in one line."
    );
    let refused = client
        .request(
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "library://books/{id}"}, "argument": {"name": "id", "value": ""}}),
        )
        .await;
    // S-263: a refused caller learns no suggestion, only the refusal.
    assert_eq!(refused["error"]["code"], -31403, "S-262: {refused}");
    let suggested = client
        .request(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "summarize_book"}, "argument": {"name": "style", "value": ""}}),
        )
        .await;
    assert_eq!(
        suggested["result"]["completion"]["values"],
        json!(["short", "long"])
    );
    let seen = hook.seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        [
            "resources/read read library://books/12 via library://books/<id>",
            "resources/read read library://books/1 via library://books/<id>",
            r#"prompts/get get summarize_book {"id":"1","style":"long"}"#,
            r#"prompts/get get summarize_book {"id":"1"}"#,
            "completion/complete complete id of library://books/<id>",
            "completion/complete complete style of summarize_book",
        ]
    );
}

#[tokio::test]
async fn an_unknown_uri_never_reaches_the_hook() {
    let (hook, client) = guarded_library();
    let missing = client
        .request("resources/read", json!({"uri": "library://nothing/here"}))
        .await;
    assert_eq!(missing["error"]["code"], -32602);
    assert_eq!(missing["error"]["data"]["uri"], "library://nothing/here");
    assert!(hook.seen.lock().unwrap().is_empty());
}

#[tokio::test]
async fn traversal_attempts_are_rejected_before_any_handler() {
    let client = TestClient::new(mcp_workspace_tests::server().build().unwrap());
    for uri in [
        "archive:///../etc/passwd",
        "archive:///notes/../../../etc/passwd",
        "archive:///notes/%2e%2e/%2e%2e/etc/passwd",
        "archive:///notes%2F..%2Fsecret",
        "archive:///notes/..%5C..%5Csecret",
        "archive:///notes//jan.txt",
        "archive:///notes/%00",
        "archive:///notes/%zz",
        "archive:///",
        "ARCHIVE:///notes/2024/jan.txt",
        "library://books/1/../12",
        "library://books/%31%32/extra",
    ] {
        let answer = client.request("resources/read", json!({"uri": uri})).await;
        // S-215, S-219: each is refused as invalid params, naming the URI, before any
        // handler runs.
        assert_eq!(answer["error"]["code"], -32602, "{uri}: {answer}");
        assert_eq!(answer["error"]["data"]["uri"], uri, "{uri}");
    }
    // Percent-encoding of ordinary characters is decoded once and served.
    let encoded = client
        .request("resources/read", json!({"uri": "library://books/%31%32"}))
        .await;
    assert_eq!(
        encoded["result"]["contents"][0]["text"],
        r#"{"id":12,"title":"Ulysses"}"#
    );
}

#[tokio::test]
async fn types_without_from_str_parse_through_their_own_impl() {
    let client = TestClient::new(mcp_workspace_tests::server().build().unwrap());
    let ok = client
        .request(
            "resources/read",
            json!({"uri": "library://isbn/978-0-441-17271-9"}),
        )
        .await;
    assert_eq!(ok["result"]["contents"][0]["text"], "ISBN 9780441172719");
    let bad = client
        .request("resources/read", json!({"uri": "library://isbn/12345"}))
        .await;
    assert_eq!(bad["error"]["code"], -32602);
    assert_eq!(bad["error"]["data"]["parameter"], "isbn");
    assert_eq!(
        bad["error"]["data"]["reason"],
        "`12345` is not an ISBN-13 (13 digits, dashes allowed)"
    );
}

#[tokio::test]
async fn malformed_reads_and_gets_are_invalid_params() {
    let client = TestClient::new(mcp_workspace_tests::server().build().unwrap());
    for (method, params) in [
        // S-215: a read without a URI string.
        ("resources/read", json!({})),
        ("resources/read", json!({"uri": 7})),
        ("prompts/get", json!({})),
        (
            "prompts/get",
            json!({"name": "summarize_book", "arguments": ["1"]}),
        ),
        // S-260: completions without their argument, or without its value.
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "spell"}}),
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "spell"}, "argument": {"name": "word"}}),
        ),
    ] {
        let answer = client.request(method, params.clone()).await;
        // S-234: a prompt's malformed inputs are refused before its handler runs.
        assert_eq!(
            answer["error"]["code"], -32602,
            "{method} {params}: {answer}"
        );
    }
    let long = format!("archive:///{}", "a/".repeat(10_000));
    let answer = client.request("resources/read", json!({"uri": long})).await;
    // S-215: a URI over the limit.
    assert_eq!(answer["error"]["code"], -32602);
    assert_eq!(answer["error"]["data"]["maxBytes"], 16384);
}

#[tokio::test]
async fn lists_page_with_their_own_cursors() {
    // S-245..S-248 for resources, templates and prompts
    let client = TestClient::new(mcp_workspace_tests::server().page_size(2).build().unwrap());
    let mut uris = Vec::new();
    let mut cursor = Value::Null;
    loop {
        let page = client
            .request("resources/list", json!({"cursor": cursor}))
            .await;
        assert_eq!(page["result"]["cacheScope"], "public");
        for r in page["result"]["resources"].as_array().unwrap() {
            uris.push(r["uri"].as_str().unwrap().to_owned());
        }
        cursor = page["result"]["nextCursor"].clone();
        if cursor.is_null() {
            break;
        }
    }
    // S-202: the pages together list every resource the server has.
    assert_eq!(
        uris,
        [
            "library://broken",
            "library://flaky",
            "library://notes",
            "library://readme"
        ]
    );
    let templates = client.request("resources/templates/list", json!({})).await;
    let tools = client.request("tools/list", json!({})).await;
    let tool_cursor = tools["result"]["nextCursor"].clone();
    let prompts = client
        .request("prompts/list", json!({"cursor": tool_cursor}))
        .await;
    assert_eq!(
        prompts["error"]["code"], -32602,
        "a tools/list cursor is not a prompts/list cursor"
    );
    let template_cursor = templates["result"]["nextCursor"].clone();
    let second = client
        .request(
            "resources/templates/list",
            json!({"cursor": template_cursor}),
        )
        .await;
    let names: Vec<&str> = second["result"]["resourceTemplates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["cover", "by_isbn"]);
}

#[tokio::test]
async fn explicit_lists_pick_resources_and_prompts() {
    let app = Server::new("t", "1")
        .only_resources(resources![library::readme, library::book])
        .only_prompts(prompts![library::media])
        .build()
        .unwrap();
    let client = TestClient::new(app);
    let discover = client.request("server/discover", json!({})).await;
    assert_eq!(
        discover["result"]["capabilities"],
        json!({
            "resources": {"listChanged": true, "subscribe": true},
            "prompts": {"listChanged": true},
            "completions": {}
        }),
        "no tools were picked, so none are declared"
    );
    let list = client.request("resources/list", json!({})).await;
    assert_eq!(list["result"]["resources"].as_array().unwrap().len(), 1);
    let prompts = client.request("prompts/list", json!({})).await;
    assert_eq!(prompts["result"]["prompts"][0]["name"], "cover_story");
    let tools = client.request("tools/list", json!({})).await;
    assert_eq!(
        tools["error"]["code"], -32601,
        "S-017: not advertised, not served"
    );
}

#[tokio::test]
async fn methods_of_absent_primitives_are_not_found() {
    // S-017, S-233, S-252
    let client = TestClient::new(
        Server::new("t", "1")
            .only_module("mcp_workspace_tests::fixtures")
            .build()
            .unwrap(),
    );
    for method in ["prompts/list", "prompts/get", "completion/complete"] {
        let answer = client.request(method, json!({})).await;
        assert_eq!(answer["error"]["code"], -32601, "{method}");
    }
    // Tools may hand out artifacts (`resource_link`s read with resources/read), so a
    // server with tools serves, and announces, resources even without any of its own.
    let discovered = client.request("server/discover", json!({})).await;
    assert!(discovered["result"]["capabilities"]["resources"].is_object());
    let listed = client.request("resources/list", json!({})).await;
    assert_eq!(listed["result"]["resources"], json!([]));
    // A server with nothing to serve has no resource methods.
    let empty = TestClient::new(
        Server::new("t", "1")
            .only_module("mcp_workspace_tests::nothing_here")
            .build()
            .unwrap(),
    );
    for method in [
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "prompts/list",
        "completion/complete",
    ] {
        let answer = empty.request(method, json!({})).await;
        assert_eq!(answer["error"]["code"], -32601, "{method}");
    }
}

#[test]
fn overlapping_templates_stop_the_server_at_start_naming_both() {
    let error = Server::new("t", "1")
        .only_module("mcp_workspace_tests::overlapping")
        .build()
        .err()
        .expect("build fails");
    let mcp_runtime::Error::Build(errors) = &error else {
        panic!("{error}")
    };
    assert!(
        matches!(&errors[..], [BuildError::OverlappingTemplates { templates, .. }]
            if templates.contains(&"shop://items/<id>".to_owned())
            && templates.contains(&"shop://<section>/new".to_owned())),
        "{error}"
    );
    let text = error.to_string();
    assert!(
        text.contains("mcp_workspace_tests::overlapping ("),
        "{text}"
    );
}

#[test]
fn a_resource_or_prompt_needing_missing_state_stops_the_server_at_start() {
    let error = Server::new("t", "1")
        .only_resources(resources![library::notes])
        .build()
        .err()
        .expect("build fails");
    let text = error.to_string();
    assert!(
        text.contains("resource `library://notes` takes State<"),
        "{text}"
    );
}

#[tokio::test]
async fn http_reads_check_mcp_name_against_the_uri() {
    // Mcp-Name carries params.uri for resources/read
    let app = mcp_workspace_tests::server().build().unwrap();
    let read = r#"{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"library://readme","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let send = |request: Request<Body>| {
        let router = app.router();
        async move {
            let response = router.oneshot(request).await.unwrap();
            let status = response.status().as_u16();
            let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
                .await
                .unwrap();
            (status, serde_json::from_slice::<Value>(&bytes).unwrap())
        }
    };
    let (status, body) = send(http_request(read).unwrap()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["ttlMs"], 300000);
    let mut wrong = http_request(read).unwrap();
    wrong
        .headers_mut()
        .insert("mcp-name", "library://books/1".parse().unwrap());
    let (status, body) = send(wrong).await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (400, json!(-32020))
    );
    // S-098: a read without Mcp-Name is refused: 400 and -32020.
    let mut missing = http_request(read).unwrap();
    missing.headers_mut().remove("mcp-name");
    let (status, body) = send(missing).await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (400, json!(-32020))
    );
}

#[tokio::test]
async fn completions_are_bounded_and_see_filled_arguments() {
    let client = TestClient::new(mcp_workspace_tests::server().build().unwrap());
    let many = client
        .request(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "spell"}, "argument": {"name": "word", "value": ""}}),
        )
        .await;
    let completion = &many["result"]["completion"];
    // S-251: at most 100 values, with the total and hasMore.
    assert_eq!(completion["values"].as_array().unwrap().len(), 100);
    assert_eq!(completion["total"], 1000);
    assert_eq!(completion["hasMore"], true);
    let by_template = client
        .request(
            "completion/complete",
            json!({
                "ref": {"type": "ref/resource", "uri": "library://books/<id>"},
                "argument": {"name": "id", "value": "2"},
                "context": {"arguments": {"other": "x"}}
            }),
        )
        .await;
    assert_eq!(by_template["result"]["completion"]["values"], json!(["2"]));
    let with_context = client
        .request(
            "completion/complete",
            json!({
                "ref": {"type": "ref/prompt", "name": "summarize_book"},
                "argument": {"name": "style", "value": ""},
                "context": {"arguments": {"id": "12"}}
            }),
        )
        .await;
    assert_eq!(
        with_context["result"]["completion"]["values"],
        json!(["long"])
    );
}

#[tokio::test]
async fn completions_count_against_the_callers_rate_limit() {
    // S-261: completion runs the application's completer, so it is rate-limited like a call.
    let app = mcp_workspace_tests::server()
        .rate_limit(mcp_runtime::policy::limits::RateLimit::per_second(1).burst(2))
        .build()
        .unwrap();
    let client = TestClient::new(app);
    let complete = || {
        client.request(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "spell"}, "argument": {"name": "word", "value": "a"}}),
        )
    };
    for _ in 0..2 {
        assert!(complete().await["result"]["completion"]["values"].is_array());
    }
    let limited = complete().await;
    assert_eq!(limited["error"]["code"], -31429, "{limited}");
    assert_eq!(limited["error"]["data"]["reason"], "rate");
    let read = client
        .request("resources/read", json!({"uri": "library://readme"}))
        .await;
    assert_eq!(
        read["error"]["code"], -31429,
        "one budget for every call of a caller"
    );
}
