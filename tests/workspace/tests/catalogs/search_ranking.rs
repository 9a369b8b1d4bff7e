//! How `search_tools` ranks, on small catalogs made for one rule each: a deprecated tool
//! ranks below the tool doing the same job, a word made of two of the catalog's words
//! (`worklog`) is found by its parts ("work log"), a value in the request says what kind
//! of thing it is ("dana@acme.com" is an email), and the words people use find the words
//! APIs use ("text" a message, "my" the authenticated user's).

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

/// The cases of `(query, tool)` whose tool `query` does not find first, each saying what
/// came instead (all of them are checked, so one failure shows every case that fails).
async fn not_first(client: &TestClient, cases: &[(&str, &str)]) -> Vec<String> {
    let mut wrong = Vec::new();
    for (query, wanted) in cases {
        let names = found(client, query).await;
        if names.first().map(String::as_str) != Some(*wanted) {
            wrong.push(format!("{query:?}: wanted {wanted} first, got {names:?}"));
        }
    }
    wrong
}

#[tokio::test]
async fn a_value_says_what_kind_of_thing_it_is() {
    let client = searched(&[
        ("users_list", "Lists all users in a workspace."),
        (
            "users_lookup_by_email",
            "Find a user with an email address.",
        ),
        ("users_info", "Gets information about a user."),
        ("files_upload", "Uploads or creates a file."),
        (
            "numbers_purchase",
            "Purchase a phone number for the account.",
        ),
        (
            "conversations_members",
            "Retrieve members of a conversation.",
        ),
        ("conversations_join", "Joins an existing channel."),
    ]);
    let cases = [
        ("Which user is dana@acme.com?", "users_lookup_by_email"),
        ("Send report-q3.pdf over", "files_upload"),
        ("Go ahead and buy +13125550177", "numbers_purchase"),
        ("Hop into #sales", "conversations_join"),
    ];
    let wrong = not_first(&client, &cases).await;
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[tokio::test]
async fn the_words_people_use_find_the_words_apis_use() {
    let client = searched(&[
        ("create_message", "Send a message from the account."),
        (
            "create_call",
            "Create a new outgoing call to phones or SIP-enabled endpoints.",
        ),
        (
            "repos_list_for_user",
            "Lists public repositories for the specified user.",
        ),
        (
            "repos_list_for_authenticated_user",
            "Lists repositories that the authenticated user has explicit permission to access.",
        ),
        ("search_users", "Find users by name or email."),
        (
            "create_webhook",
            "Repositories can have webhooks: a URL called on events.",
        ),
        ("get_rate_limit", "Shows the remaining rate limit."),
    ]);
    let cases = [
        ("Text +15551234567 that the order shipped", "create_message"),
        ("Ring +14155550199 and play the reminder", "create_call"),
        ("Show my repositories", "repos_list_for_authenticated_user"),
        ("Look up Ana Lopez", "search_users"),
        (
            "Ping our server every time someone pushes",
            "create_webhook",
        ),
        ("How many do I have left?", "get_rate_limit"),
    ];
    let wrong = not_first(&client, &cases).await;
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[tokio::test]
async fn a_search_that_finds_nothing_says_what_to_try() {
    let client = searched(&[("create_message", "Send a message from the account.")]);
    let answer = client
        .call_tool(
            "search_tools",
            json!({"query": "Push the offsite back to Friday"}),
        )
        .await;
    assert_ne!(answer["isError"], true, "{answer}");
    assert_eq!(answer["structuredContent"]["tools"], json!([]), "{answer}");
    let note = answer["structuredContent"]["note"]
        .as_str()
        .unwrap_or_default();
    assert!(note.starts_with("No tool matched"), "{answer}");
    // A search that finds something carries no note.
    let answer = client
        .call_tool("search_tools", json!({"query": "send a message"}))
        .await;
    assert!(
        answer["structuredContent"].get("note").is_none(),
        "{answer}"
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
