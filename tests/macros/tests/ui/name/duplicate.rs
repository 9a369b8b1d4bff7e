use mcp_runtime::prelude::*;

/// The first search.
#[tool]
async fn search() -> &'static str {
    "one"
}

mod other {
    use super::*;

    /// The second search, with the same wire name.
    #[tool(name = "search")]
    async fn find() -> &'static str {
        "two"
    }
}

fn main() {}
