//! Large results: paged tool results (`Cursor<S>` / `Page<T>`), artifacts behind
//! `resource_link`s read again under the maker's authorization, and lossless spill-over
//! of results larger than the inline limit. In process, over HTTP and in the handshake
//! era; in memory, SQLite and PostgreSQL (`MCP_TEST_POSTGRES_URL`); across two instances
//! sharing a store and a seal key.

use std::time::Duration;

use base64::Engine as _;
use mcp_runtime::store::{PostgresStore, SqliteStore};
use mcp_runtime::testing::{http_request, http_request_for, TestClient};
use mcp_runtime::{App, Principal, SealKey, Server};
use mcp_workspace_tests::large::{self, export_bytes, ROWS};
use serde_json::{json, Value};
use sha2::Digest as _;
use tower::ServiceExt as _;

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

/// How a test reaches the server: in process, or through the HTTP router.
enum Wire {
    InProcess(TestClient),
    Http(App, Option<Principal>),
}

impl Wire {
    fn in_process(app: &App, principal: Option<Principal>) -> Wire {
        let client = TestClient::new(app.clone());
        Wire::InProcess(match principal {
            Some(p) => client.as_principal(p),
            None => client,
        })
    }

    async fn request(&self, method: &str, mut params: Value) -> Value {
        match self {
            Wire::InProcess(client) => client.request(method, params).await,
            Wire::Http(app, principal) => {
                params["_meta"] = meta();
                let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
                let mut request = if method == "tools/call" {
                    http_request_for(app, &body.to_string()).unwrap()
                } else {
                    http_request(&body.to_string()).unwrap()
                };
                if let Some(p) = principal {
                    request.extensions_mut().insert(p.clone());
                }
                let response = app.router().oneshot(request).await.unwrap();
                let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
                    .await
                    .unwrap();
                serde_json::from_slice(&bytes).unwrap()
            }
        }
    }

    async fn call(&self, name: &str, arguments: Value) -> Value {
        let response = self
            .request("tools/call", json!({"name": name, "arguments": arguments}))
            .await;
        assert!(response.get("result").is_some(), "{response}");
        response["result"].clone()
    }

    async fn read(&self, uri: &str) -> Value {
        self.request("resources/read", json!({"uri": uri})).await
    }
}

/// Page through `search` for `account` to the end; the ids in order.
async fn page_to_the_end(wire: &Wire, account: &str, limit: u64) -> Vec<u64> {
    let mut ids = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..=(ROWS / limit + 1) {
        let mut arguments = json!({"account": account, "limit": limit});
        if let Some(c) = &cursor {
            arguments["cursor"] = json!(c);
        }
        let result = wire.call("search", arguments).await;
        assert_ne!(result["isError"], true, "{result}");
        let page = &result["structuredContent"];
        for row in page["items"].as_array().unwrap() {
            assert_eq!(row["account"], account);
            ids.push(row["id"].as_u64().unwrap());
        }
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return ids,
        }
    }
    panic!("the search never ended");
}

fn all_ids() -> Vec<u64> {
    (1..=ROWS).collect()
}

/// The bytes of every part of an artifact, joined, checked against its link.
async fn read_whole(wire: &Wire, link: &Value) -> Vec<u8> {
    let uri = link["uri"].as_str().unwrap();
    // A `resource_link` block names its parts only in words: the server says how many
    // when the whole is too large for one read.
    let parts = match link["parts"].as_u64() {
        Some(parts) => parts,
        None => wire.read(uri).await["error"]["data"]["parts"]
            .as_u64()
            .unwrap_or(1),
    };
    let mut bytes = Vec::new();
    for n in 0..parts {
        let part_uri = if parts == 1 {
            uri.to_owned()
        } else {
            format!("{uri}/part/{n}")
        };
        let read = wire.read(&part_uri).await;
        let contents = &read["result"]["contents"][0];
        assert_eq!(contents["uri"], part_uri.as_str(), "{read}");
        if let Some(text) = contents["text"].as_str() {
            bytes.extend_from_slice(text.as_bytes());
        } else {
            let blob = contents["blob"].as_str().expect("text or blob");
            bytes.extend(
                base64::engine::general_purpose::STANDARD
                    .decode(blob)
                    .unwrap(),
            );
        }
    }
    assert_eq!(bytes.len() as u64, link["size"].as_u64().unwrap());
    let digest: String = sha2::Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let stated = match link["sha256"].as_str() {
        Some(stated) => stated.to_owned(),
        None => link["description"].as_str().unwrap().to_owned(),
    };
    assert!(stated.contains(&digest), "SHA-256 of the parts");
    bytes
}

/// The `resource_link` block of a result.
fn link_block(result: &Value) -> &Value {
    result["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|block| block["type"] == "resource_link")
        .unwrap_or_else(|| panic!("no resource_link in {result}"))
}

fn alice() -> Principal {
    Principal::new("alice").with_tenant("acme")
}

// ---- pages ------------------------------------------------------------------------------

#[tokio::test]
async fn a_search_of_ten_thousand_rows_pages_to_the_end_with_no_row_lost_or_repeated() {
    let app = large::server().build().unwrap();
    for wire in [
        Wire::in_process(&app, None),
        Wire::Http(app.clone(), None),
        Wire::in_process(&app, Some(alice())),
    ] {
        assert_eq!(page_to_the_end(&wire, "acme", 500).await, all_ids());
    }
    // The default page size too: 200 calls.
    let wire = Wire::in_process(&app, None);
    assert_eq!(page_to_the_end(&wire, "acme", 50).await, all_ids());
}

#[tokio::test]
async fn a_page_tells_the_model_where_it_is_and_how_to_go_on() {
    let app = large::server().build().unwrap();
    let wire = Wire::in_process(&app, None);
    let first = wire.call("search", json!({"account": "acme"})).await;
    let summary = first["content"][0]["text"].as_str().unwrap();
    let cursor = first["structuredContent"]["nextCursor"].as_str().unwrap();
    assert!(
        summary.starts_with("Items 1-50 of about 10,000. More follow: call `search` again"),
        "{summary}"
    );
    assert!(
        summary.contains(cursor),
        "the cursor is where the model reads: {summary}"
    );
    assert_eq!(first["structuredContent"]["total"], 10_000);
    assert_eq!(first["structuredContent"]["totalIsEstimate"], true);
    // The text carries the page's JSON as well, for clients that show only text.
    let json_text: Value =
        serde_json::from_str(first["content"][1]["text"].as_str().unwrap()).unwrap();
    assert_eq!(json_text, first["structuredContent"]);
    let second = wire
        .call("search", json!({"account": "acme", "cursor": cursor}))
        .await;
    assert!(second["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("Items 51-100 of about 10,000"));

    // The published schemas: an optional `cursor` string, and the page's shape.
    let listed = wire.request("tools/list", json!({})).await;
    let search = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "search")
        .unwrap()
        .clone();
    let input = &search["inputSchema"];
    assert_eq!(input["properties"]["cursor"]["type"], "string");
    assert!(input["properties"]["cursor"]["description"]
        .as_str()
        .unwrap()
        .contains("nextCursor"));
    assert_eq!(input["required"], json!(["account"]));
    let output = &search["outputSchema"];
    let page_shape = &output["anyOf"][0];
    assert_eq!(page_shape["required"], json!(["items"]));
    assert!(page_shape["properties"]["nextCursor"].is_object());
    // Every page conforms to the published output schema (S-184).
    let validator = mcp_runtime::validate::ArgValidator::compile(output).unwrap();
    validator.check(&first["structuredContent"]).unwrap();
}

// S-200: cross-call state behind opaque, authorization-checked handles passed as tool
// arguments; an expired one is reported as a tool execution error.
#[tokio::test]
async fn a_cursor_is_refused_for_another_caller_other_arguments_when_tampered_or_expired() {
    let app = large::server()
        .page_cursor_ttl(Duration::from_millis(400))
        .build()
        .unwrap();
    let wire = Wire::in_process(&app, Some(alice()));
    let first = wire.call("search", json!({"account": "acme"})).await;
    let cursor = first["structuredContent"]["nextCursor"]
        .as_str()
        .unwrap()
        .to_owned();
    let refused = |result: &Value| {
        assert_eq!(result["isError"], true, "{result}");
        let text = result["content"][0]["text"].as_str().unwrap().to_owned();
        assert!(text.contains("Invalid argument `cursor`"), "{text}");
        assert!(text.contains("without `cursor`"), "{text}");
        text
    };
    // Another principal, another tenant, anonymous.
    for other in [
        Some(Principal::new("bob").with_tenant("acme")),
        Some(Principal::new("alice").with_tenant("globex")),
        None,
    ] {
        let result = Wire::in_process(&app, other)
            .call("search", json!({"account": "acme", "cursor": cursor}))
            .await;
        refused(&result);
    }
    // Other arguments.
    for arguments in [
        json!({"account": "globex", "cursor": cursor}),
        json!({"account": "acme", "limit": 10, "cursor": cursor}),
    ] {
        refused(&wire.call("search", arguments).await);
    }
    // Tampered: each character changed in turn, at a few places; junk; too long.
    let mut tampered = Vec::new();
    for at in [3, cursor.len() / 2, cursor.len() - 1] {
        let mut bytes = cursor.clone().into_bytes();
        bytes[at] = if bytes[at] == b'A' { b'B' } else { b'A' };
        tampered.push(String::from_utf8(bytes).unwrap());
    }
    tampered.extend([
        "".to_owned(),
        "v1.".to_owned(),
        "x".repeat(5000),
        "null".to_owned(),
    ]);
    for bad in tampered {
        let result = wire
            .call("search", json!({"account": "acme", "cursor": bad}))
            .await;
        assert_eq!(result["isError"], true, "{result}");
    }
    // Issued by another server process (each makes its own key when none is set, as
    // `mcp call -- ./server` starts one per call): said so, with what to set.
    let elsewhere = large::server().build().unwrap();
    let text = refused(
        &Wire::in_process(&elsewhere, Some(alice()))
            .call("search", json!({"account": "acme", "cursor": cursor}))
            .await,
    );
    assert!(
        text.contains("sealed with another key") && text.contains("set MCP_SEAL_KEY"),
        "{text}"
    );
    // Not a string: the schema refuses it before anyone opens it.
    let result = wire
        .call("search", json!({"account": "acme", "cursor": 7}))
        .await;
    assert_eq!(result["isError"], true);
    // A cursor of another paged tool is refused the same way (bound to the tool).
    refused(
        &wire
            .call(
                "search_archive",
                json!({"account": "acme", "cursor": cursor}),
            )
            .await,
    );
    // Expired.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let text = refused(
        &wire
            .call("search", json!({"account": "acme", "cursor": cursor}))
            .await,
    );
    assert!(text.contains("expired"), "{text}");
    // The handler still serves a first page after all that.
    let again = wire.call("search", json!({"account": "acme"})).await;
    assert_ne!(again["isError"], true);
}

// ---- artifacts --------------------------------------------------------------------------

// S-195: `resource_link` blocks that do not appear in `resources/list`; S-200: the handle
// is checked against its maker on every read.
#[tokio::test]
async fn an_artifact_is_read_by_its_maker_and_not_found_by_anyone_else() {
    let app = large::server().build().unwrap();
    let maker = Wire::in_process(&app, Some(alice()));
    let result = maker
        .call("export", json!({"size": 1000, "csv": true}))
        .await;
    let link = &result["structuredContent"];
    let uri = link["uri"].as_str().unwrap();
    assert!(uri.starts_with("artifact://"));
    let block = link_block(&result);
    assert_eq!(block["uri"], uri);
    assert_eq!(block["mimeType"], "text/csv");
    assert_eq!(block["size"], link["size"]);
    assert!(result["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains(link["sha256"].as_str().unwrap()));
    let bytes = read_whole(&maker, link).await;
    assert!(String::from_utf8(bytes)
        .unwrap()
        .starts_with("id,amount\n1,7\n"));
    // The same caller over HTTP reads it too.
    let over_http = Wire::Http(app.clone(), Some(alice()));
    assert!(over_http.read(uri).await["result"].is_object());
    // Anyone else: another subject, the same subject in another tenant, no principal,
    // over either wire. The answer is the one for a URI that does not exist.
    let absent = maker.read("artifact://AAAAAAAAAAAAAAAAAAAAAAAA").await["error"].clone();
    for other in [
        Wire::in_process(&app, Some(Principal::new("bob").with_tenant("acme"))),
        Wire::in_process(&app, Some(Principal::new("alice").with_tenant("globex"))),
        Wire::in_process(&app, None),
        Wire::Http(app.clone(), Some(Principal::new("bob").with_tenant("acme"))),
    ] {
        let error = other.read(uri).await["error"].clone();
        assert_eq!(error["code"], absent["code"], "{error}");
        assert_eq!(error["message"], absent["message"]);
        assert_eq!(error["data"]["uri"], uri);
    }
    // Another server process (`mcp call -- ./server` starts one per call) keeping its
    // artifacts in memory has none of this one's, and says where they are kept and what
    // to set, since no store is named (MCP_STORE).
    let elsewhere = large::server().build().unwrap();
    let error = Wire::in_process(&elsewhere, Some(alice())).read(uri).await["error"].clone();
    assert_eq!(error["code"], absent["code"], "{error}");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("by another server process") && message.contains("set MCP_STORE"),
        "{message}"
    );
    // Artifacts are never listed.
    let listed = maker.request("resources/list", json!({})).await;
    assert_eq!(listed["result"]["resources"], json!([]));
    let templates = maker.request("resources/templates/list", json!({})).await;
    assert_eq!(templates["result"]["resourceTemplates"], json!([]));
}

#[tokio::test]
async fn reading_an_artifact_needs_what_calling_its_tool_needs() {
    let app = large::server().build().unwrap();
    let with_scope = Principal::new("alice").with_scopes(["reports:read"]);
    let maker = Wire::in_process(&app, Some(with_scope));
    let result = maker.call("secret_report", json!({})).await;
    let uri = result["structuredContent"]["uri"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        maker.read(&uri).await["result"]["contents"][0]["text"],
        "the secret report"
    );
    // The same caller whose token lost the scope is refused, as a call would be.
    let without = Wire::in_process(&app, Some(Principal::new("alice")));
    let refused = without.read(&uri).await;
    assert_eq!(refused["error"]["code"], -31403, "{refused}");
    assert_eq!(
        refused["error"]["data"]["requiredScopes"],
        json!(["reports:read"])
    );
}

/// An artifact read as the hook saw it: the tool that made it, the URI, the tool's scopes.
type Seen = (String, String, Vec<String>);

/// An `Authorize` hook that records artifact reads and refuses them once closed.
#[derive(Clone, Default)]
struct Gate {
    closed: std::sync::Arc<std::sync::atomic::AtomicBool>,
    seen: std::sync::Arc<std::sync::Mutex<Vec<Seen>>>,
}

impl mcp_runtime::Authorize for Gate {
    async fn check(
        &self,
        _ctx: &mcp_runtime::RequestContext,
        action: &mcp_runtime::Action<'_>,
    ) -> Result<(), mcp_runtime::Denied> {
        if let mcp_runtime::Action::ReadArtifact { tool, uri } = action {
            let scopes = action
                .required_scopes()
                .iter()
                .map(|s| s.to_string())
                .collect();
            self.seen
                .lock()
                .unwrap()
                .push((tool.name.to_owned(), uri.to_string(), scopes));
            if self.closed.load(std::sync::atomic::Ordering::SeqCst) {
                return Err(mcp_runtime::Denied::new("reports are closed for the night"));
            }
        }
        Ok(())
    }
}

#[tokio::test]
async fn the_authorize_hook_is_asked_again_for_every_artifact_read() {
    let gate = Gate::default();
    let app = large::server().authorize(gate.clone()).build().unwrap();
    let maker = Wire::in_process(
        &app,
        Some(Principal::new("alice").with_scopes(["reports:read"])),
    );
    let result = maker.call("secret_report", json!({})).await;
    let uri = result["structuredContent"]["uri"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(maker.read(&uri).await["result"].is_object());
    assert_eq!(
        gate.seen.lock().unwrap().clone(),
        vec![(
            "secret_report".to_owned(),
            uri.clone(),
            vec!["reports:read".to_owned()]
        )]
    );
    gate.closed.store(true, std::sync::atomic::Ordering::SeqCst);
    let refused = maker.read(&uri).await;
    assert_eq!(refused["error"]["code"], -31403, "{refused}");
    assert_eq!(
        refused["error"]["data"]["reason"],
        "reports are closed for the night"
    );
    // A caller the scope check refuses never reaches the hook.
    let before = gate.seen.lock().unwrap().len();
    let without = Wire::in_process(&app, Some(Principal::new("alice")));
    assert_eq!(without.read(&uri).await["error"]["code"], -31403);
    assert_eq!(gate.seen.lock().unwrap().len(), before);
}

#[tokio::test]
async fn an_expired_artifact_is_not_found() {
    let app = large::server()
        .artifact_ttl(Duration::from_millis(300))
        .build()
        .unwrap();
    let wire = Wire::in_process(&app, None);
    let result = wire.call("export", json!({"size": 100})).await;
    let uri = result["structuredContent"]["uri"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(wire.read(&uri).await["result"].is_object());
    tokio::time::sleep(Duration::from_millis(400)).await;
    let error = wire.read(&uri).await["error"].clone();
    let message = error["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("Resource not found"), "{error}");
}

#[tokio::test]
async fn parts_reassemble_to_the_stored_bytes_and_match_the_sha256() {
    let app = large::server()
        .artifact_part_size(64 * 1024)
        .build()
        .unwrap();
    let wire = Wire::in_process(&app, None);
    let size = 300_000;
    for tool in ["export", "export_stream"] {
        let result = wire.call(tool, json!({"size": size})).await;
        let link = result["structuredContent"].clone();
        assert_eq!(link["parts"], 5, "{link}");
        assert_eq!(link["size"], size);
        // The whole URI is too large for one read: the error says how to read it.
        let whole = wire.read(link["uri"].as_str().unwrap()).await;
        assert_eq!(whole["error"]["code"], -32602, "{whole}");
        assert_eq!(whole["error"]["data"]["parts"], 5);
        assert!(whole["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/part/0"));
        // The link's description names the parts too.
        assert!(link_block(&result)["description"]
            .as_str()
            .unwrap()
            .contains("in 5 parts"));
        assert_eq!(read_whole(&wire, &link).await, export_bytes(size));
        // No part past the last.
        let past = wire
            .read(&format!("{}/part/5", link["uri"].as_str().unwrap()))
            .await;
        assert_eq!(past["error"]["message"], "Resource not found");
    }
    // Text parts end on character boundaries and are each valid text.
    let result = wire
        .call("export", json!({"size": 200_000, "csv": true}))
        .await;
    let link = result["structuredContent"].clone();
    let text = String::from_utf8(read_whole(&wire, &link).await).unwrap();
    assert!(text.ends_with('\n'));
}

#[tokio::test]
async fn an_artifact_larger_than_the_cap_fails_its_call_and_leaves_nothing_readable() {
    let app = large::server().artifact_max_size(100_000).build().unwrap();
    let wire = Wire::in_process(&app, None);
    for tool in ["export", "export_stream"] {
        let result = wire.call(tool, json!({"size": 200_000})).await;
        assert_eq!(result["isError"], true, "{result}");
        assert!(result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("larger than this server stores"));
    }
}

// ---- spill-over -------------------------------------------------------------------------

#[tokio::test]
async fn an_oversized_result_is_spilled_whole_not_truncated() {
    let app = large::server().build().unwrap();
    for wire in [Wire::in_process(&app, None), Wire::Http(app.clone(), None)] {
        // 5,000 lines of text, about 150 KiB: over the default 64 KiB.
        let whole: String = (1..=5000)
            .map(|n| format!("line {n}: something happened\n"))
            .collect();
        let result = wire.call("log_lines", json!({"lines": 5000})).await;
        assert_ne!(result["isError"], true);
        let link = link_block(&result).clone();
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains("It begins:\nline 1: something happened\n"),
            "{text}"
        );
        assert!(text.len() < 4096, "the model gets a summary, not the body");
        assert_eq!(link["size"], whole.len());
        let read = wire.read(link["uri"].as_str().unwrap()).await;
        assert_eq!(
            read["error"]["data"]["parts"],
            json!(null),
            "one part: {read}"
        );
        assert!(
            read["result"]["contents"][0]["text"] == whole.as_str(),
            "the read gives the whole text back"
        );
        assert_eq!(read["result"]["contents"][0]["mimeType"], "text/plain");

        // Structured output: the result keeps a shape its output schema allows.
        let result = wire.call("all_rows", json!({"count": 3000})).await;
        let spilled = &result["structuredContent"]["artifact"];
        assert!(spilled["uri"].as_str().unwrap().starts_with("artifact://"));
        let listed = wire.request("tools/list", json!({})).await;
        let schema = listed["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "all_rows")
            .unwrap()["outputSchema"]
            .clone();
        let validator = mcp_runtime::validate::ArgValidator::compile(&schema).unwrap();
        validator.check(&result["structuredContent"]).unwrap();
        // A small result of the same tool also conforms, unspilled.
        let small = wire.call("all_rows", json!({"count": 2})).await;
        validator.check(&small["structuredContent"]).unwrap();
        assert_eq!(small["structuredContent"][1]["id"], 2);
        // The stored body is the structured content, every row.
        let body = read_whole(&wire, spilled).await;
        let rows: Vec<large::Row> = serde_json::from_slice(&body).unwrap();
        assert_eq!(rows.len(), 3000);
        assert_eq!(rows[2999].id, 3000);
    }
}

#[tokio::test]
async fn the_inline_limit_is_the_servers_unless_a_tool_sets_its_own() {
    let wire = Wire::in_process(&large::server().build().unwrap(), None);
    // Under the server's limit: whole.
    let result = wire.call("log_lines", json!({"lines": 10})).await;
    assert_eq!(result["content"].as_array().unwrap().len(), 1);
    // `inline_limit = 1024`: spilled past 1 KiB.
    let result = wire.call("log_lines_small", json!({"lines": 100})).await;
    link_block(&result);
    // `inline_limit = unlimited`: whole, however large.
    let result = wire.call("log_lines_whole", json!({"lines": 5000})).await;
    assert_eq!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .lines()
            .count(),
        5000
    );
    // The server's limit off: everything whole, and plain output schemas.
    let app = large::server().inline_result_limit(None).build().unwrap();
    let wire = Wire::in_process(&app, None);
    let result = wire.call("log_lines", json!({"lines": 5000})).await;
    assert_eq!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .lines()
            .count(),
        5000
    );
    let listed = wire.request("tools/list", json!({})).await;
    let all_rows = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "all_rows")
        .unwrap()
        .clone();
    assert!(
        all_rows["outputSchema"].get("anyOf").is_none(),
        "{all_rows}"
    );
}

#[tokio::test]
async fn the_result_of_a_task_is_spilled_when_it_ends() {
    let app = large::server().build().unwrap();
    let client = TestClient::new(app.clone())
        .with_capabilities(json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}));
    let started = client
        .call_tool("log_lines_later", json!({"lines": 5000}))
        .await;
    assert_eq!(started["resultType"], "task", "{started}");
    let id = started["taskId"].as_str().unwrap().to_owned();
    let mut done = Value::Null;
    for _ in 0..500 {
        let reply = client.request("tasks/get", json!({"taskId": id})).await;
        if reply["result"]["status"] == "completed" {
            done = reply["result"].clone();
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let link = link_block(&done["result"]).clone();
    let wire = Wire::InProcess(client);
    let read = wire.read(link["uri"].as_str().unwrap()).await;
    let text = read["result"]["contents"][0]["text"].as_str().unwrap();
    assert_eq!(text.lines().count(), 5000);
}

// ---- stores and instances ---------------------------------------------------------------

/// Pages and artifacts on two instances built by `instance`, which share a store and a
/// seal key: what one hands out, the other continues and serves.
async fn two_instances(instance: impl Fn() -> Server) {
    let a = instance().artifact_part_size(64 * 1024).build().unwrap();
    let b = instance().artifact_part_size(64 * 1024).build().unwrap();
    let (a, b) = (
        Wire::in_process(&a, Some(alice())),
        Wire::in_process(&b, Some(alice())),
    );
    // Alternate instances page by page.
    let mut ids = Vec::new();
    let mut cursor: Option<String> = None;
    for page in 0.. {
        let wire = if page % 2 == 0 { &a } else { &b };
        let mut arguments = json!({"account": "acme", "limit": 500});
        if let Some(c) = &cursor {
            arguments["cursor"] = json!(c);
        }
        let result = wire.call("search", arguments).await;
        for row in result["structuredContent"]["items"].as_array().unwrap() {
            ids.push(row["id"].as_u64().unwrap());
        }
        match result["structuredContent"]["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    assert_eq!(ids, all_ids());
    // An artifact made on one instance is read, part by part, on the other.
    let result = a.call("export", json!({"size": 200_000})).await;
    let link = result["structuredContent"].clone();
    assert_eq!(read_whole(&b, &link).await, export_bytes(200_000));
    // A spilled result too.
    let result = b.call("log_lines", json!({"lines": 5000})).await;
    let spilled = link_block(&result).clone();
    assert_eq!(
        read_whole(&a, &spilled).await.len() as u64,
        spilled["size"].as_u64().unwrap()
    );
    // And only for its maker there as well.
    let stranger = Wire::in_process(
        &instance().build().unwrap(),
        Some(Principal::new("bob").with_tenant("acme")),
    );
    let error = stranger.read(link["uri"].as_str().unwrap()).await;
    assert_eq!(error["error"]["message"], "Resource not found");
}

#[tokio::test]
async fn pages_and_artifacts_work_across_two_instances_sharing_an_sqlite_store() {
    let dir = std::env::temp_dir().join(format!("mcp-large-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("records.db");
    let key = SealKey::random().unwrap();
    two_instances(|| {
        large::server()
            .store(SqliteStore::open(&file).unwrap())
            .seal_key(key.clone())
    })
    .await;
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
#[ignore = "needs PostgreSQL: MCP_TEST_POSTGRES_URL=postgres://… (scripts/test-all.sh starts one)"]
async fn pages_and_artifacts_work_across_two_instances_sharing_a_postgres_store() {
    let url = std::env::var("MCP_TEST_POSTGRES_URL").expect("MCP_TEST_POSTGRES_URL");
    let key = SealKey::random().unwrap();
    two_instances(|| {
        large::server()
            .store(PostgresStore::new(url.clone()))
            .seal_key(key.clone())
    })
    .await;
}

// ---- the handshake era ------------------------------------------------------------------

#[cfg(feature = "legacy")]
#[tokio::test]
async fn handshake_era_sessions_get_the_same_pages_links_and_reads() {
    let app = large::server()
        .artifact_part_size(64 * 1024)
        .build()
        .unwrap();
    for version in ["2025-11-25", "2025-06-18", "2025-03-26"] {
        let client = TestClient::legacy(app.clone(), version);
        // Paging to the end.
        let mut ids = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut arguments = json!({"account": "acme", "limit": 500});
            if let Some(c) = &cursor {
                arguments["cursor"] = json!(c);
            }
            let result = client.call_tool("search", arguments).await;
            // Before 2025-06-18 there is no structured content: the text has the page.
            let page: Value = match result.get("structuredContent") {
                Some(page) => page.clone(),
                None => {
                    serde_json::from_str(result["content"][1]["text"].as_str().unwrap()).unwrap()
                }
            };
            for row in page["items"].as_array().unwrap() {
                ids.push(row["id"].as_u64().unwrap());
            }
            match page["nextCursor"].as_str() {
                Some(next) => cursor = Some(next.to_owned()),
                None => break,
            }
        }
        assert_eq!(ids, all_ids(), "{version}");
        // A link (as text before 2025-06-18) and its parts read back.
        let result = client.call_tool("export", json!({"size": 150_000})).await;
        let uri = if version == "2025-03-26" {
            assert!(result["content"]
                .as_array()
                .unwrap()
                .iter()
                .all(|b| b["type"] == "text"));
            let text = result["content"][1]["text"].as_str().unwrap();
            assert!(text.starts_with("Resource artifact://"), "{text}");
            text.split_whitespace().nth(1).unwrap().to_owned()
        } else {
            link_block(&result)["uri"].as_str().unwrap().to_owned()
        };
        let mut bytes = Vec::new();
        for n in 0..3 {
            let read = client
                .request("resources/read", json!({"uri": format!("{uri}/part/{n}")}))
                .await;
            let blob = read["result"]["contents"][0]["blob"].as_str().unwrap();
            bytes.extend(
                base64::engine::general_purpose::STANDARD
                    .decode(blob)
                    .unwrap(),
            );
        }
        assert_eq!(bytes, export_bytes(150_000), "{version}");
        // Not found has the handshake revisions' code there.
        let missing = client
            .request("resources/read", json!({"uri": format!("{uri}/part/3")}))
            .await;
        assert_eq!(missing["error"]["code"], -32002, "{missing}");
    }
}

#[test]
fn a_resource_cannot_take_the_artifact_scheme() {
    let error = Server::new("clash", "1.0.0")
        .only_module("mcp_workspace_tests::artifact_clash")
        .build()
        .err()
        .expect("the artifact scheme is refused");
    assert!(
        error
            .to_string()
            .contains("the `artifact://` scheme is the server's own"),
        "{error}"
    );
}

/// The numbers from `from` up to `upto`, four at a time: a paged tool whose other
/// arguments are one struct. It takes no field it does not know, so the cursor reaching it
/// would fail the call.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Span {
    /// The first number.
    from: u64,
    /// The last number.
    upto: u64,
}

#[mcp_runtime::tool(description = "Counts, a page at a time.")]
async fn count_span(
    after: mcp_runtime::Cursor<u64>,
    mcp_runtime::Args(span): mcp_runtime::Args<Span>,
) -> mcp_runtime::Page<u64> {
    let start = after.position().map_or(span.from, |last| last + 1);
    let items: Vec<u64> = (start..=span.upto).take(4).collect();
    let next = items.last().copied().filter(|last| *last < span.upto);
    after.page(items, next)
}

/// A struct of arguments that has a field of the cursor's name.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Clashing {
    cursor: String,
}

#[mcp_runtime::tool(description = "Cannot be served.")]
async fn clashing_span(
    after: mcp_runtime::Cursor<u64>,
    mcp_runtime::Args(clashing): mcp_runtime::Args<Clashing>,
) -> mcp_runtime::Page<String> {
    after.page(vec![clashing.cursor], None)
}

#[tokio::test]
async fn a_paged_tool_takes_its_other_arguments_as_one_struct() {
    use mcp_runtime::tools;
    let app = Server::new("span", "1.0.0")
        .only(tools![count_span])
        .build()
        .unwrap();
    let client = TestClient::new(app);
    let listed = client.request("tools/list", json!({})).await;
    let input = &listed["result"]["tools"][0]["inputSchema"];
    // The cursor is published beside the struct's fields, optional.
    assert_eq!(input["properties"]["cursor"]["type"], "string", "{input}");
    assert_eq!(input["properties"]["from"]["type"], "integer", "{input}");
    assert_eq!(input["required"], json!(["from", "upto"]), "{input}");
    let mut arguments = json!({"from": 3, "upto": 12});
    let mut seen = Vec::new();
    loop {
        let page = client.call_tool("count_span", arguments.clone()).await;
        let content = &page["structuredContent"];
        seen.extend(
            content["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_u64().unwrap()),
        );
        match content["nextCursor"].as_str() {
            Some(cursor) => arguments["cursor"] = json!(cursor),
            None => break,
        }
    }
    assert_eq!(seen, (3..=12).collect::<Vec<_>>());

    // A field of the cursor's name is refused when the server starts.
    let refused = Server::new("span", "1.0.0")
        .only(tools![clashing_span])
        .build()
        .err()
        .unwrap()
        .to_string();
    assert!(
        refused.contains("has a field `cursor`, which `Cursor<S>` adds itself"),
        "{refused}"
    );
}
