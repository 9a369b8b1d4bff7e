//! Arguments mirrored into `Mcp-Param-*` headers for gateways (`#[header("..")]`, or
//! `x-mcp-header` in a schema): published in the input schema (S-109), checked at start
//! (S-185..S-189), compared with the body on Streamable HTTP before the tool runs
//! (S-099..S-108), and ignored on stdio, where no gateway reads them.

mod common;

use std::sync::atomic::Ordering;
use std::sync::Arc;

use common::{call, send};
use mcp_runtime::prelude::*;
use mcp_runtime::testing::{http_request_for, TestClient};
use mcp_workspace_tests::gateway::Ledger;
use serde_json::{json, Value};
use tower::ServiceExt as _;

fn app() -> (mcp_runtime::App, Arc<Ledger>) {
    let ledger = Arc::new(Ledger::default());
    let app = mcp_workspace_tests::gateway_server(ledger.clone())
        .build()
        .expect("the gateway fixtures build");
    (app, ledger)
}

fn stock() -> Value {
    json!({"tenant": "acme", "region": "eu", "units": 40})
}

/// The headers a client mirrors for `stock()`.
const STOCK_HEADERS: [(&str, &str); 3] = [
    ("Mcp-Param-Tenant", "acme"),
    ("Mcp-Param-Region", "eu"),
    ("Mcp-Param-Units", "40"),
];

#[tokio::test]
async fn mirrored_arguments_are_published_with_their_header_names() {
    // S-109, S-185..S-188: each annotation is a token on a one-type property.
    let (app, _) = app();
    let list = TestClient::new(app).request("tools/list", json!({})).await;
    let tools = list["result"]["tools"].as_array().unwrap();
    let schema =
        |name: &str| tools.iter().find(|t| t["name"] == name).unwrap()["inputSchema"].clone();
    let stock = schema("move_stock");
    let p = &stock["properties"];
    assert_eq!(
        p["tenant"],
        json!({"type": "string", "description": "Whose stock.", "x-mcp-header": "Tenant"})
    );
    // The enum of documented variants is inlined, with its type on the property.
    assert_eq!(p["region"]["type"], "string", "{stock}");
    assert_eq!(p["region"]["oneOf"][0]["const"], "eu");
    assert_eq!(p["region"]["oneOf"][1]["const"], "us");
    assert_eq!(p["region"]["x-mcp-header"], "Region");
    assert_eq!(p["units"]["minimum"], -9007199254740991_i64);
    assert_eq!(p["units"]["maximum"], 9007199254740991_i64);
    assert_eq!(p["dry_run"]["type"], "boolean");
    assert_eq!(p["dry_run"]["x-mcp-header"], "Dry-Run");
    assert!(p["note"].get("x-mcp-header").is_none());
    assert!(!stock["required"]
        .as_array()
        .unwrap()
        .contains(&json!("dry_run")));
    let shipment = schema("book_shipment");
    let p = &shipment["properties"];
    assert_eq!(p["tenant"]["x-mcp-header"], "Tenant");
    assert_eq!(
        p["destination"]["properties"]["country"]["x-mcp-header"],
        "Country"
    );
    assert_eq!(p["priority"]["type"], "integer");
    assert_eq!(p["priority"]["x-mcp-header"], "Priority");
}

/// What a request must get.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    /// 200 and a tool result; the handler ran.
    Ran,
    /// 400 with -32020; the handler did not run.
    Mismatch,
    /// 200 with a tool error the model can act on; the handler did not run.
    Refused,
}

/// What a row sends (its name, the arguments, the headers) and must get.
type Row = (
    &'static str,
    Value,
    Vec<(&'static str, &'static str)>,
    Expect,
);

#[tokio::test]
async fn http_calls_carry_headers_that_match_their_arguments() {
    let (app, ledger) = app();
    let addr = common::serve(app).await;
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut headers: Vec<(&str, &str)> = STOCK_HEADERS.to_vec();
        for (name, value) in extra {
            headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
            headers.push((name, value));
        }
        headers
    };
    let without = |name: &str| -> Vec<(&str, &str)> {
        STOCK_HEADERS
            .iter()
            .copied()
            .filter(|(n, _)| *n != name)
            .collect()
    };
    let with_args = |changes: Value| {
        let mut arguments = stock();
        for (k, v) in changes.as_object().unwrap() {
            arguments[k] = v.clone();
        }
        arguments
    };
    let rows: Vec<Row> = vec![
        ("every header matches", stock(), with(&[]), Expect::Ran),
        // S-105: names in any case; S-099: Base64 values decoded first.
        (
            "header names in another case",
            stock(),
            vec![
                ("mcp-param-tenant", "acme"),
                ("MCP-PARAM-REGION", "eu"),
                ("mCp-PaRaM-uNiTs", "40"),
            ],
            Expect::Ran,
        ),
        (
            "a Base64 value",
            with_args(json!({"tenant": "Zürich AG"})),
            with(&[("Mcp-Param-Tenant", "=?base64?WsO8cmljaCBBRw==?=")]),
            Expect::Ran,
        ),
        (
            "an integer written with a fraction (S-107)",
            stock(),
            with(&[("Mcp-Param-Units", "40.0")]),
            Expect::Ran,
        ),
        // S-103: absent or null arguments need no header; S-102: present ones do.
        (
            "the optional argument given",
            with_args(json!({"dry_run": true})),
            with(&[("Mcp-Param-Dry-Run", "true")]),
            Expect::Ran,
        ),
        // Null needs no header either, but a mirrored argument has the one type a header
        // carries: the argument check refuses null (leave the argument out instead).
        (
            "the optional argument null",
            with_args(json!({"dry_run": null})),
            with(&[]),
            Expect::Refused,
        ),
        (
            "a header no argument of the tool names",
            stock(),
            with(&[("Mcp-Param-Shard", "7")]),
            Expect::Ran,
        ),
        (
            "S-102, S-104: a header left out",
            stock(),
            without("Mcp-Param-Region"),
            Expect::Mismatch,
        ),
        (
            "the optional argument given without its header",
            with_args(json!({"dry_run": false})),
            with(&[]),
            Expect::Mismatch,
        ),
        (
            "a header for an argument that is absent",
            stock(),
            with(&[("Mcp-Param-Dry-Run", "true")]),
            Expect::Mismatch,
        ),
        (
            "S-101, S-106: a header that says something else",
            stock(),
            with(&[("Mcp-Param-Region", "us")]),
            Expect::Mismatch,
        ),
        (
            "S-105: values compare case-sensitively",
            stock(),
            with(&[("Mcp-Param-Region", "EU")]),
            Expect::Mismatch,
        ),
        (
            "S-100: Base64 without its padding",
            stock(),
            with(&[("Mcp-Param-Tenant", "=?base64?YWNtZQ?=")]),
            Expect::Mismatch,
        ),
        (
            "S-100: bytes that are no visible ASCII",
            with_args(json!({"tenant": "Zürich"})),
            with(&[("Mcp-Param-Tenant", "Zürich")]),
            Expect::Mismatch,
        ),
        (
            "S-188: an integer beyond ±(2^53 - 1)",
            with_args(json!({"units": 9007199254740993_u64})),
            with(&[("Mcp-Param-Units", "9007199254740993")]),
            Expect::Mismatch,
        ),
    ];
    for (what, arguments, headers, expect) in rows {
        let before = ledger.calls.load(Ordering::SeqCst);
        let reply = send(addr, &call("move_stock", arguments, &headers)).await;
        let ran = ledger.calls.load(Ordering::SeqCst) - before;
        match expect {
            Expect::Ran => {
                assert_eq!(reply.status, 200, "{what}: {:?}", reply.json());
                assert!(reply.json()["result"]["content"].is_array(), "{what}");
                assert_eq!(ran, 1, "{what}");
            }
            Expect::Refused => {
                assert_eq!(reply.status, 200, "{what}: {:?}", reply.json());
                assert_eq!(reply.json()["result"]["isError"], true, "{what}");
                assert_eq!(ran, 0, "{what}");
            }
            Expect::Mismatch => {
                // S-108: 400 and -32020, before the tool had any effect.
                assert_eq!(reply.status, 400, "{what}: {:?}", reply.json());
                assert_eq!(reply.code(), Some(-32020), "{what}");
                assert_eq!(reply.json()["id"], 7, "{what}");
                assert!(
                    reply.json()["error"]["data"]["header"]
                        .as_str()
                        .is_some_and(|h| h.starts_with("Mcp-Param-")),
                    "{what}: {:?}",
                    reply.json()
                );
                assert_eq!(ran, 0, "{what}: the tool must not run");
            }
        }
    }
}

#[tokio::test]
async fn arguments_nested_in_objects_are_mirrored_by_their_path() {
    // S-189: `destination.country` is reached through `properties` alone.
    let (app, ledger) = app();
    let addr = common::serve(app).await;
    let shipment = json!({"tenant": "acme", "destination": {"country": "CH", "city": "Bern"}});
    let reply = send(
        addr,
        &call(
            "book_shipment",
            shipment.clone(),
            &[("Mcp-Param-Tenant", "acme"), ("Mcp-Param-Country", "CH")],
        ),
    )
    .await;
    assert_eq!(reply.status, 200, "{:?}", reply.json());
    assert_eq!(
        reply.json()["result"]["content"][0]["text"],
        "Shipping for acme to Bern, CH (priority 5)"
    );
    for headers in [
        vec![("Mcp-Param-Tenant", "acme")],
        vec![("Mcp-Param-Tenant", "acme"), ("Mcp-Param-Country", "DE")],
    ] {
        let reply = send(addr, &call("book_shipment", shipment.clone(), &headers)).await;
        // S-101: a nested argument's header, missing or saying otherwise, is refused.
        assert_eq!(reply.status, 400, "{headers:?}");
        assert_eq!(
            reply.json()["error"]["data"]["argument"],
            "arguments.destination.country"
        );
    }
    assert_eq!(ledger.calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn the_testing_client_mirrors_arguments_as_a_client_does() {
    let (app, ledger) = app();
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "move_stock",
        "arguments": {"tenant": " spaced ", "region": "us", "units": -3, "dry_run": true},
        "_meta": mcp_runtime::testing::default_meta()
    }})
    .to_string();
    let request = http_request_for(&app, &body).unwrap();
    assert_eq!(
        request.headers()["mcp-param-tenant"],
        "=?base64?IHNwYWNlZCA=?="
    );
    assert_eq!(request.headers()["mcp-param-units"], "-3");
    assert_eq!(request.headers()["mcp-param-dry-run"], "true");
    let response = app.router().oneshot(request).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(ledger.calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn stdio_ignores_mirrored_headers() {
    let (app, ledger) = app();
    let (mut lines, mut writer) = common::stdio(app);
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "move_stock", "arguments": stock(), "_meta": mcp_runtime::testing::default_meta()
    }});
    tokio::io::AsyncWriteExt::write_all(&mut writer, format!("{message}\n").as_bytes())
        .await
        .unwrap();
    let answer = common::next_line(&mut lines).await;
    assert_eq!(
        answer["result"]["content"][0]["text"],
        "40 units for acme in Eu (dry run: false, note: none)"
    );
    assert_eq!(ledger.calls.load(Ordering::SeqCst), 1);
}

/// The text of the error a server that cannot start gives.
fn start_error(server: Server) -> String {
    server
        .build()
        .err()
        .expect("the server refuses to start")
        .to_string()
}

#[test]
fn a_mirrored_field_behind_a_reference_stops_the_server_at_start() {
    // S-189: a nested struct is a `$ref` to `$defs`, which is off the `properties` chain.
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Place {
        #[schemars(extend("x-mcp-header" = "Region"))]
        region: String,
    }
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Trip {
        place: Place,
    }
    /// Plans a trip.
    #[tool]
    async fn plan_trip(Args(trip): Args<Trip>) -> String {
        trip.place.region
    }
    let text = start_error(Server::new("t", "1").only(tools![plan_trip]));
    assert!(text.contains("tool `plan_trip` cannot be served"), "{text}");
    assert!(text.contains("/$defs/Place/properties/region"), "{text}");
    assert!(text.contains("#[schemars(inline)]"), "{text}");
}

#[test]
fn hand_written_schemas_are_held_to_the_same_rules_at_start() {
    // The rules of x-mcp-header for schemas no macro wrote: every problem is listed with
    // its path.
    mcp_workspace_tests::schema_type!(
        Query,
        {
            "type": "object",
            "properties": {
                "price": {"type": "number", "x-mcp-header": "Price"},
                "region": {"type": "string", "x-mcp-header": "Region"},
                "zone": {"type": "string", "x-mcp-header": "REGION"},
                "note": {"type": ["string", "null"], "x-mcp-header": "Note"},
                "blank": {"type": "string", "x-mcp-header": ""},
                "spaced": {"type": "string", "x-mcp-header": "Two Words"},
                "tags": {"type": "array", "items": {"type": "string", "x-mcp-header": "Tag"}}
            }
        }
    );
    /// Searches.
    #[tool]
    async fn search(Args(_query): Args<Query>) -> &'static str {
        "found"
    }
    let text = start_error(Server::new("t", "1").only(tools![search]));
    assert!(text.contains("tool `search` cannot be served"), "{text}");
    for expected in [
        // S-188: only integers, strings and booleans, one type each.
        "x-mcp-header \"Price\" at /properties/price annotates a `number`",
        // S-187: names differ ignoring case.
        "x-mcp-header \"REGION\" at /properties/zone repeats \"Region\" of /properties/region",
        "x-mcp-header \"Note\" at /properties/note annotates a property of types [\"string\",\"null\"]",
        // S-185: never empty.
        "x-mcp-header \"\" at /properties/blank is empty",
        // S-186: an RFC 9110 token.
        "x-mcp-header \"Two Words\" at /properties/spaced contains ' '",
        // S-189: reached through `properties` alone.
        "x-mcp-header at /properties/tags/items is under `items`",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in {text}");
    }
}
