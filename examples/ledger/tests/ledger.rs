//! The ledger end to end through the in-process client: confirmed transfers that run once,
//! idempotent retries, typed business errors, tenancy and scopes; on an SQLite file, and
//! on PostgreSQL when `MCP_TEST_POSTGRES_URL` names one (the test command starts it).

// ANCHOR: uses
use mcp_runtime::testing::TestClient;
use mcp_runtime::Principal;
use serde_json::{json, Value};
// ANCHOR_END: uses

// ANCHOR: principal
fn alice() -> Principal {
    Principal::new("alice")
        .with_tenant("acme")
        .with_scopes(["ledger:read", "ledger:write"])
}
// ANCHOR_END: principal

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
    })
}

/// `tools/call` as a client that confirms every question: the whole response of the
/// final round.
async fn confirmed(client: &TestClient, name: &str, arguments: Value) -> Value {
    let params = json!({"name": name, "arguments": arguments, "_meta": meta()});
    let first = client.request("tools/call", params.clone()).await;
    if first["result"]["resultType"] != "input_required" {
        return first;
    }
    let mut retry = params;
    retry["requestState"] = first["result"]["requestState"].clone();
    retry["inputResponses"] =
        json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    client.request("tools/call", retry).await
}

async fn balance(client: &TestClient, account: &str) -> i64 {
    let listed = client.call_tool("accounts", json!({})).await;
    listed["structuredContent"]["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == account)
        .unwrap_or_else(|| panic!("{account} in {listed}"))["balance_cents"]
        .as_i64()
        .unwrap()
}

/// Everything the ledger promises, against one database.
async fn exercise(ledger: ledger::Ledger) {
    let app = ledger::server(ledger.clone()).build().unwrap();
    let client = TestClient::new(app.clone()).as_principal(alice());
    let (operating, payroll) = (
        balance(&client, "acme-operating").await,
        balance(&client, "acme-payroll").await,
    );

    // A transfer asks first; the confirmed round books it.
    let args = json!({"from": "acme-operating", "to": "acme-payroll", "amount_cents": 1250,
                      "memo": "March salaries", "idempotencyKey": "march-1"});
    let asked = client
        .request(
            "tools/call",
            json!({"name": "transfer", "arguments": args, "_meta": meta()}),
        )
        .await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    assert_eq!(
        asked["result"]["inputRequests"]["confirm"]["params"]["message"],
        "Transfer 12.50 from acme-operating to acme-payroll (March salaries)?"
    );
    let answer = json!({"name": "transfer", "arguments": args, "_meta": meta(),
        "requestState": asked["result"]["requestState"],
        "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}});
    let booked = client.request("tools/call", answer.clone()).await;
    let transfer = &booked["result"]["structuredContent"];
    assert_eq!(transfer["amount_cents"], 1250, "{booked}");
    assert_eq!(transfer["made_by"], "alice");
    assert_eq!(balance(&client, "acme-operating").await, operating - 1250);
    assert_eq!(balance(&client, "acme-payroll").await, payroll + 1250);

    // The same round again, as a client whose answer was lost: the key returns the
    // transfer already booked.
    let retried = client.request("tools/call", answer.clone()).await;
    assert_eq!(retried["result"], booked["result"]);
    // Without the key, the replayed confirmation is refused (S-130).
    let mut replay = answer.clone();
    replay["arguments"]
        .as_object_mut()
        .unwrap()
        .remove("idempotencyKey");
    let refused = client.request("tools/call", replay).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let history = client
        .call_tool("history", json!({"account": "acme-payroll"}))
        .await;
    let memos: Vec<&Value> = history["structuredContent"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["memo"] == "March salaries")
        .collect();
    assert_eq!(memos.len(), 1, "one transfer in the database: {history}");
    assert_eq!(balance(&client, "acme-operating").await, operating - 1250);

    // Too little money: a typed business error, before anyone is asked.
    let short = confirmed(
        &client,
        "transfer",
        json!({"from": "acme-payroll", "to": "acme-operating", "amount_cents": 99_999_999, "memo": "too much"}),
    )
    .await;
    let result = &short["result"];
    assert_eq!(result["isError"], true, "{short}");
    let error = &result["structuredContent"]["error"];
    assert_eq!(error["code"], "insufficient_funds");
    assert_eq!(error["detail"]["account"], "acme-payroll");
    assert_eq!(error["detail"]["requested_cents"], 99_999_999);
    assert_eq!(
        error["detail"]["balance_cents"],
        balance(&client, "acme-payroll").await
    );
    assert!(result["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("nothing was moved"));
    // S-184: the error fits the published output schema, as the transfer does.
    let listed = client.request("tools/list", json!({})).await;
    let schema = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "transfer")
        .unwrap()["outputSchema"]
        .clone();
    let validator = mcp_runtime::validate::ArgValidator::compile(&schema).unwrap();
    validator.check(&result["structuredContent"]).unwrap();
    validator.check(transfer).unwrap();

    // A declined confirmation moves nothing.
    let params = json!({"name": "transfer", "_meta": meta(), "arguments":
        {"from": "acme-operating", "to": "acme-payroll", "amount_cents": 5, "memo": "declined"}});
    let asked = client.request("tools/call", params.clone()).await;
    let mut declined = params;
    declined["requestState"] = asked["result"]["requestState"].clone();
    declined["inputResponses"] = json!({"confirm": {"action": "decline"}});
    let declined = client.request("tools/call", declined).await;
    assert_eq!(
        declined["result"]["structuredContent"]["error"]["code"],
        "not_confirmed"
    );
    assert_eq!(balance(&client, "acme-operating").await, operating - 1250);

    // Another tenant sees none of it, and cannot move acme's money.
    let hank = TestClient::new(app.clone()).as_principal(
        Principal::new("hank")
            .with_tenant("globex")
            .with_scopes(["ledger:read", "ledger:write"]),
    );
    let theirs = hank.call_tool("accounts", json!({})).await;
    assert_eq!(
        theirs["structuredContent"]["accounts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["id"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["globex-main"]
    );
    let stolen = confirmed(
        &hank,
        "transfer",
        json!({"from": "acme-operating", "to": "globex-main", "amount_cents": 1, "memo": "x"}),
    )
    .await;
    assert_eq!(
        stolen["result"]["structuredContent"]["error"]["code"],
        "unknown_account"
    );
    let read = hank
        .request(
            "resources/read",
            json!({"uri": "ledger://accounts/acme-operating", "_meta": meta()}),
        )
        .await;
    assert!(read.get("error").is_some(), "{read}");
    let own = client
        .request(
            "resources/read",
            json!({"uri": "ledger://accounts/acme-operating", "_meta": meta()}),
        )
        .await;
    assert!(own["result"]["contents"][0]["text"]
        .as_str()
        .unwrap()
        .contains("Operating"));

    // Reading needs ledger:read only; writing needs ledger:write.
    let reader = TestClient::new(app).as_principal(
        Principal::new("rita")
            .with_tenant("acme")
            .with_scopes(["ledger:read"]),
    );
    assert!(reader.call_tool("accounts", json!({})).await["isError"].is_null());
    let denied = reader
        .request(
            "tools/call",
            json!({"name": "transfer", "_meta": meta(), "arguments":
                {"from": "acme-operating", "to": "acme-payroll", "amount_cents": 1, "memo": "x"}}),
        )
        .await;
    assert_eq!(denied["error"]["code"], -31403, "{denied}");
    assert!(denied["error"]["data"]["requiredScopes"]
        .to_string()
        .contains("ledger:write"));

    // Two transfers racing for the same money: one is booked, the other refused.
    let available = balance(&client, "acme-payroll").await;
    let share = available * 6 / 10;
    let (a, b) = tokio::join!(
        ledger.transfer(
            "acme",
            "alice",
            ("acme-payroll", "acme-operating"),
            share,
            "race a"
        ),
        ledger.transfer(
            "acme",
            "alice",
            ("acme-payroll", "acme-operating"),
            share,
            "race b"
        ),
    );
    let booked = [&a, &b].iter().filter(|r| r.is_ok()).count();
    assert_eq!(booked, 1, "{a:?} {b:?}");
    assert_eq!(balance(&client, "acme-payroll").await, available - share);
}

/// A long history, paged to the end and exported as a statement behind a link.
async fn long_history(ledger: ledger::Ledger) {
    const MORE: usize = 1_230;
    for n in 0..MORE {
        ledger
            .transfer(
                "acme",
                "alice",
                ("acme-operating", "acme-payroll"),
                1,
                &format!("bulk {n}"),
            )
            .await
            .unwrap();
    }
    let total = ledger.history_len("acme", "acme-payroll").await.unwrap();
    assert!(total >= MORE as u64);
    let app = ledger::server(ledger).build().unwrap();
    let client = TestClient::new(app.clone()).as_principal(alice());

    // Every transfer once, newest first, 200 a page.
    let mut ids: Vec<i64> = Vec::new();
    let mut cursor = Value::Null;
    let mut pages = 0;
    loop {
        let mut arguments = json!({"account": "acme-payroll", "limit": 200});
        if !cursor.is_null() {
            arguments["cursor"] = cursor.clone();
        }
        let page = client.call_tool("history", arguments).await;
        pages += 1;
        let content = &page["structuredContent"];
        assert_eq!(content["total"], total, "{page}");
        ids.extend(
            content["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["id"].as_i64().unwrap()),
        );
        cursor = content["nextCursor"].clone();
        if cursor.is_null() {
            break;
        }
    }
    assert_eq!(ids.len() as u64, total);
    assert!(
        ids.windows(2).all(|w| w[0] > w[1]),
        "newest first, none twice"
    );
    assert_eq!(pages, total.div_ceil(200));
    // A cursor of another account's walk is refused.
    let first = client
        .call_tool("history", json!({"account": "acme-payroll", "limit": 10}))
        .await;
    let other = client
        .call_tool(
            "history",
            json!({"account": "acme-operating", "cursor": first["structuredContent"]["nextCursor"]}),
        )
        .await;
    assert_eq!(other["isError"], true, "{other}");

    // The statement is a link, read back whole: one header line and a line per transfer.
    let exported = client
        .call_tool("export_statement", json!({"account": "acme-payroll"}))
        .await;
    let link = &exported["structuredContent"];
    assert_eq!(link["mimeType"], "text/csv", "{exported}");
    assert!(exported["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with(&format!("Statement of acme-payroll: {total} transfers")));
    let read = client
        .request("resources/read", json!({"uri": link["uri"]}))
        .await;
    let csv = read["result"]["contents"][0]["text"].as_str().unwrap();
    assert_eq!(csv.len() as u64, link["size"].as_u64().unwrap());
    assert_eq!(csv.lines().count() as u64, total + 1);
    assert!(csv.starts_with("id,from,to,amount_cents,memo,made_by,made_at_ms\n"));
    // Another organisation's caller is told it does not exist.
    let stranger = TestClient::new(app).as_principal(
        Principal::new("eve")
            .with_tenant("globex")
            .with_scopes(["ledger:read"]),
    );
    let refused = stranger
        .request("resources/read", json!({"uri": link["uri"]}))
        .await;
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("Resource not found"), "{refused}");
}

#[tokio::test]
async fn a_long_history_pages_and_exports_on_sqlite() {
    let dir = std::env::temp_dir().join(format!("ledger-long-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("ledger.db");
    long_history(ledger::Ledger::open(file.to_str().unwrap()).await.unwrap()).await;
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn database_errors_are_not_shown_to_the_model() {
    let dir = std::env::temp_dir().join(format!("ledger-broken-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("ledger.db");
    let ledger = ledger::Ledger::open(file.to_str().unwrap()).await.unwrap();
    let client = TestClient::new(ledger::server(ledger).build().unwrap()).as_principal(alice());
    rusqlite::Connection::open(&file)
        .unwrap()
        .execute_batch("DROP TABLE transfers")
        .unwrap();
    let failed = client
        .request(
            "tools/call",
            json!({"name": "history", "arguments": {"account": "acme-payroll"}, "_meta": meta()}),
        )
        .await;
    assert_eq!(failed["error"]["code"], -32603, "{failed}");
    let message = failed["error"]["message"].as_str().unwrap();
    assert_eq!(
        message,
        "The ledger is unavailable right now; try again in a minute"
    );
    assert!(!failed.to_string().contains("transfers"), "{failed}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn the_ledger_on_sqlite() {
    let dir = std::env::temp_dir().join(format!("ledger-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("ledger.db");
    let ledger = ledger::Ledger::open(file.to_str().unwrap()).await.unwrap();
    exercise(ledger).await;
    // The schema is migrated once: opening the file again keeps the data.
    let again = ledger::Ledger::open(file.to_str().unwrap()).await.unwrap();
    assert_eq!(
        again.transfer_count().await.unwrap(),
        2,
        "the transfer and the race's winner"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
#[ignore = "needs PostgreSQL: MCP_TEST_POSTGRES_URL=postgres://… (scripts/test-all.sh starts one)"]
async fn the_ledger_on_postgres() {
    let url = std::env::var("MCP_TEST_POSTGRES_URL").expect("MCP_TEST_POSTGRES_URL");
    // A database of its own, so a rerun starts from the demo accounts.
    let name = format!("ledger_{}", std::process::id());
    let (admin, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    for statement in [
        format!("DROP DATABASE IF EXISTS {name}"),
        format!("CREATE DATABASE {name}"),
    ] {
        admin.batch_execute(&statement).await.unwrap();
    }
    let base = url.rsplit_once('/').map_or(url.as_str(), |(base, _)| base);
    let database = format!("{base}/{name}");
    let ledger = ledger::Ledger::open(&database).await.unwrap();
    exercise(ledger.clone()).await;
    assert_eq!(ledger.transfer_count().await.unwrap(), 2);
    long_history(ledger.clone()).await;
    // Two instances open it at once: the migrations run once, the demo accounts go in once.
    let (a, b) = tokio::join!(
        ledger::Ledger::open(&database),
        ledger::Ledger::open(&database)
    );
    let (a, _b) = (a.unwrap(), b.unwrap());
    assert_eq!(a.accounts("acme").await.unwrap().len(), 2);
}

// ANCHOR: host
/// What a host that renders views declares (the MCP Apps extension).
fn ui() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}})
}

/// A host pages a statement on with `statement_more`; a client without views may not.
async fn load_more(app: mcp_runtime::App) {
    let host = TestClient::new(app.clone())
        .as_principal(alice())
        .with_capabilities(ui());
    let first = host
        .call_tool("statement", json!({"account": "acme-payroll"}))
        .await;
    let cursor = &first["structuredContent"]["nextCursor"];
    let more = host
        .call_tool(
            "statement_more",
            json!({"account": "acme-payroll", "cursor": cursor}),
        )
        .await;
    assert_eq!(
        more["structuredContent"]["transfers"]
            .as_array()
            .unwrap()
            .len(),
        20
    );

    let plain = TestClient::new(app).as_principal(alice());
    let refused = plain
        .request(
            "tools/call",
            json!({"name": "statement_more", "arguments": {"account": "acme-payroll"}}),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32021);
}
// ANCHOR_END: host

/// The statement view end to end, for one client era: the extension announced, the view
/// listed and read with `_meta.ui`, `statement` naming it, and `statement_more` paging on
/// for a host with views while a client without them gets the plain result and is refused.
async fn statement_view(ledger: ledger::Ledger, era: Option<&str>) {
    for n in 0..45 {
        ledger
            .transfer(
                "acme",
                "alice",
                ("acme-operating", "acme-payroll"),
                100 + n,
                &format!("invoice {n}"),
            )
            .await
            .unwrap();
    }
    let app = ledger::server(ledger).build().unwrap();
    let client = |caps: Option<Value>| {
        let client = match era {
            #[cfg(feature = "legacy")]
            Some(version) => TestClient::legacy(app.clone(), version),
            _ => TestClient::new(app.clone()),
        };
        let client = client.as_principal(alice());
        match caps {
            Some(caps) => client.with_capabilities(caps),
            None => client,
        }
    };
    if era.is_none() {
        load_more(app.clone()).await;
    }
    let host = client(Some(ui()));
    let plain = client(None);

    // Announced in server/discover (or initialize), whoever asks.
    for who in [&host, &plain] {
        let discovered = who.discover().await;
        assert_eq!(
            discovered["capabilities"]["extensions"]["io.modelcontextprotocol/ui"],
            json!({"mimeTypes": ["text/html;profile=mcp-app"]}),
            "{discovered}"
        );
    }

    // ANCHOR: listing
    // The view is an ordinary resource, with its MIME type and `_meta.ui`.
    let listed = host.request("resources/list", json!({})).await;
    let view = listed["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["uri"] == "ui://ledger/statement")
        .unwrap_or_else(|| panic!("{listed}"))
        .clone();
    assert_eq!(view["mimeType"], "text/html;profile=mcp-app");
    let ui_meta =
        json!({"csp": {"connectDomains": ["https://api.ledger.example"]}, "prefersBorder": true});
    assert_eq!(view["_meta"]["ui"], ui_meta);
    for who in [&host, &plain] {
        let read = who
            .request("resources/read", json!({"uri": "ui://ledger/statement"}))
            .await;
        let contents = &read["result"]["contents"][0];
        assert_eq!(contents["mimeType"], "text/html;profile=mcp-app", "{read}");
        assert_eq!(contents["_meta"]["ui"], ui_meta);
        assert!(contents["text"]
            .as_str()
            .unwrap()
            .starts_with("<!DOCTYPE html>"));
    }

    // `statement` names the view; `statement_more` is for views only, and listed only to
    // a client that takes views.
    let tools =
        |listed: &Value| -> Vec<Value> { listed["result"]["tools"].as_array().unwrap().clone() };
    let host_tools = tools(&host.request("tools/list", json!({})).await);
    let named = |tools: &[Value], name: &str| tools.iter().find(|t| t["name"] == name).cloned();
    assert_eq!(
        named(&host_tools, "statement").unwrap()["_meta"]["ui"],
        json!({"resourceUri": "ui://ledger/statement"})
    );
    assert_eq!(
        named(&host_tools, "statement_more").unwrap()["_meta"]["ui"],
        json!({"visibility": ["app"]})
    );
    let plain_tools = tools(&plain.request("tools/list", json!({})).await);
    assert!(named(&plain_tools, "statement").is_some());
    assert!(named(&plain_tools, "statement_more").is_none());
    assert!(named(&plain_tools, "history").is_some());
    // ANCHOR_END: listing

    // The first page: the same result for both, text first.
    let first = plain
        .call_tool("statement", json!({"account": "acme-payroll"}))
        .await;
    let page = &first["structuredContent"];
    assert_eq!(page["account"], "acme-payroll", "{first}");
    let transfers = page["transfers"].as_array().unwrap();
    assert_eq!(transfers.len(), 20);
    assert!(transfers
        .windows(2)
        .all(|w| w[0]["id"].as_i64() > w[1]["id"].as_i64()));
    assert_eq!(
        first["content"][0]["text"],
        "20 transfer(s) of acme-payroll, newest first; older ones follow."
    );
    let hosted = host
        .call_tool("statement", json!({"account": "acme-payroll"}))
        .await;
    assert_eq!(hosted["structuredContent"]["transfers"], page["transfers"]);

    // The view pages on with `statement_more` and the cursor `statement` gave it.
    let cursor = page["nextCursor"].clone();
    assert!(cursor.is_string(), "{first}");
    let more = host
        .call_tool(
            "statement_more",
            json!({"account": "acme-payroll", "cursor": hosted["structuredContent"]["nextCursor"]}),
        )
        .await;
    let next = more["structuredContent"]["transfers"].as_array().unwrap();
    assert_eq!(next.len(), 20, "{more}");
    assert!(next[0]["id"].as_i64() < transfers[19]["id"].as_i64());

    // A client without views is refused, naming the extension it would need.
    let refused = plain
        .request(
            "tools/call",
            json!({"name": "statement_more", "arguments": {"account": "acme-payroll", "cursor": cursor}}),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert_eq!(
        refused["error"]["data"]["requiredCapabilities"]["extensions"]
            ["io.modelcontextprotocol/ui"],
        json!({"mimeTypes": ["text/html;profile=mcp-app"]})
    );
}

#[tokio::test]
async fn the_statement_view_for_modern_clients() {
    let dir = std::env::temp_dir().join(format!("ledger-view-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("ledger.db");
    statement_view(
        ledger::Ledger::open(file.to_str().unwrap()).await.unwrap(),
        None,
    )
    .await;
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(feature = "legacy")]
#[tokio::test]
async fn the_statement_view_for_handshake_clients() {
    let dir = std::env::temp_dir().join(format!("ledger-view-legacy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("ledger.db");
    statement_view(
        ledger::Ledger::open(file.to_str().unwrap()).await.unwrap(),
        Some("2025-11-25"),
    )
    .await;
    std::fs::remove_dir_all(&dir).unwrap();
}

/// What the ledger offers its callers is pinned (`catalog.json`): a change to a tool's
/// name, arguments, output, annotations or scopes fails here until the file is written
/// anew (`MCP_CATALOG=overwrite`) and the change reviewed with `mcp catalog diff`.
#[tokio::test]
async fn the_catalog_is_pinned() {
    let dir = std::env::temp_dir().join(format!("ledger-catalog-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ledger = ledger::Ledger::open(dir.join("ledger.db").to_str().unwrap())
        .await
        .unwrap();
    let app = ledger::server(ledger).build().unwrap();
    // As a caller with both scopes sees it, and as a host that shows views.
    TestClient::new(app)
        .as_principal(alice())
        .with_capabilities(ui())
        .assert_catalog("catalog.json")
        .await;
    std::fs::remove_dir_all(&dir).unwrap();
}
