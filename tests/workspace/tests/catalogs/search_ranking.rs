//! How `search_tools` ranks, on small catalogs made for one rule each: a deprecated tool
//! ranks below the tool doing the same job, and a word made of two of the catalog's words
//! (`worklog`) is found by its parts ("work log").

use mcp_runtime::prelude::*;
use mcp_runtime::testing::TestClient;
use mcp_runtime::ToolSearch;
use serde_json::{json, Value};

/// A tool described by `name` and `description`, answering its name.
fn described(server: Server, name: &str, description: &str) -> Server {
    let answer = name.to_owned();
    server.tool_from_json(
        json!({
            "name": name,
            "description": description,
            "inputSchema": {"type": "object"}
        }),
        move |_ctx, _arguments| {
            let answer = answer.clone();
            async move { Ok(CallToolResult::success(vec![Content::text(answer)])) }
        },
    )
}

/// A catalog of `tools` (name, description), always searched.
fn searched(tools: &[(&str, &str)]) -> TestClient {
    let server = tools.iter().fold(
        Server::new("ranking", "1.0.0")
            .only(tools![])
            .tool_search(ToolSearch::new().threshold(0)),
        |server, (name, description)| described(server, name, description),
    );
    TestClient::new(server.build().expect("the catalog builds"))
}

/// The names `query` finds, best first.
async fn found(client: &TestClient, query: &str) -> Vec<String> {
    let answer = client
        .call_tool("search_tools", json!({"query": query}))
        .await;
    answer["structuredContent"]["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_else(|| panic!("a search answer: {answer}"))
}

#[tokio::test]
async fn a_deprecated_tool_ranks_below_the_one_that_replaces_it() {
    // The deprecated tool's name matches the query better ("member"); it still comes
    // second, and it is still found.
    let client = searched(&[
        (
            "teams_add_member_legacy",
            "Deprecated: use teams_add_membership. Adds a member to a team.",
        ),
        ("teams_add_membership", "Adds a member to a team."),
        ("teams_create", "Creates a team."),
    ]);
    let names = found(&client, "Add a member to the team").await;
    assert_eq!(
        names.first().map(String::as_str),
        Some("teams_add_membership"),
        "{names:?}"
    );
    assert!(
        names.iter().any(|name| name == "teams_add_member_legacy"),
        "{names:?}"
    );
}

#[tokio::test]
async fn a_compound_is_found_by_its_parts() {
    let client = searched(&[
        ("get_issue_worklog", "Returns the worklogs of an issue."),
        ("start_work", "Starts work on an issue."),
        ("get_audit_logs", "Returns the audit log of the site."),
    ]);
    let names = found(&client, "Show the work log of an issue").await;
    assert_eq!(
        names.first().map(String::as_str),
        Some("get_issue_worklog"),
        "{names:?}"
    );
    // And the compound itself still finds it first.
    let names = found(&client, "worklogs").await;
    assert_eq!(
        names.first().map(String::as_str),
        Some("get_issue_worklog"),
        "{names:?}"
    );
}

/// The search answer is the one `search_tools` gives every client; nothing here is
/// special to the test client.
#[tokio::test]
async fn the_answer_names_tools_the_model_can_call() {
    let client = searched(&[("get_issue_worklog", "Returns the worklogs of an issue.")]);
    let names = found(&client, "worklog").await;
    let called: Value = client.call_tool(&names[0], json!({})).await;
    assert_eq!(
        called["content"][0]["text"], "get_issue_worklog",
        "{called}"
    );
}
