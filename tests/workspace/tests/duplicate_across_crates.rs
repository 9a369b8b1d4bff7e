//! Two crates defining the same tool name, resource URI or prompt name is a clear error at
//! server start.

// ANCHOR: uses
use mcp_runtime::prelude::*;

// Nothing here names the crate `extra_tools`; without this line the linker would drop it,
// and its tools would never register.
use extra_tools as _;
// ANCHOR_END: uses

/// Echoes, again: same name as the tool in `extra_tools`.
#[tool(name = "echo")]
async fn my_echo(text: String) -> String {
    text
}

/// The message of the day, again: same URI as the resource in `extra_tools`.
#[resource("extra://motd")]
async fn my_motd() -> &'static str {
    "mine"
}

/// Same name as the prompt in `extra_tools`.
#[prompt(name = "haiku")]
async fn my_haiku() -> &'static str {
    "Write a haiku."
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
    assert!(
        error.contains("resource URI `extra://motd` is defined more than once: extra_tools ("),
        "{error}"
    );
    assert!(
        error.contains("prompt name `haiku` is defined more than once: "),
        "{error}"
    );
}
