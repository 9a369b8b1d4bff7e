use mcp_runtime::prelude::*;

#[derive(serde::Serialize)]
struct Account {
    id: u64,
}

/// Returns a value that has no schema to publish.
#[tool]
async fn account() -> Account {
    Account { id: 1 }
}

/// The same, inside a `Result`.
#[tool]
async fn maybe_account() -> Result<Account, String> {
    Ok(Account { id: 1 })
}

fn main() {}
