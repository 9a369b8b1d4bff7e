//! Two crates defining the same tool name is a clear error at server start.

use mcp_runtime::prelude::*;

use extra_tools as _;

/// Echoes, again: same name as the tool in `extra_tools`.
#[tool(name = "echo")]
async fn my_echo(text: String) -> String {
    text
}

#[test]
fn the_same_name_in_two_crates_is_refused_at_start() {
    let error = Server::new("t", "1")
        .build()
        .err()
        .expect("duplicate names refuse to start")
        .to_string();
    assert!(
        error.contains("tool name `echo` is defined more than once"),
        "{error}"
    );
    assert!(
        error.contains("extra_tools"),
        "names the first place: {error}"
    );
    assert!(
        error.contains("duplicate_across_crates"),
        "names the second place: {error}"
    );
}
