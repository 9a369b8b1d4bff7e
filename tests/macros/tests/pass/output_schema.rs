//! `output_schema = false`: a `Serialize` value without a schema is sent as structured
//! content, alone or in a `Result`; other return types are unaffected by it.

use mcp_runtime::prelude::*;

#[derive(serde::Serialize)]
struct Account {
    id: u64,
}

/// Returns an account without publishing a schema for it.
#[tool(output_schema = false)]
async fn account() -> Account {
    Account { id: 1 }
}

/// The same, inside a `Result`.
#[tool(output_schema = false)]
async fn maybe_account() -> Result<Account, String> {
    Ok(Account { id: 1 })
}

/// Text is text, with or without the option.
#[tool(output_schema = false)]
async fn text() -> String {
    "text".into()
}

fn main() {}
