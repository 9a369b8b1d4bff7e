// S-188: only strings, integers and booleans are mirrored; a fractional number, a list
// or an extractor is refused at its type.
use mcp_runtime::prelude::*;

struct Db;

/// Charges an amount.
#[tool]
async fn charge(
    #[header("Amount")] amount: f64,
    #[header("Tags")] tags: Vec<String>,
    #[header("Db")] db: State<Db>,
) -> String {
    let _ = (tags, db);
    format!("{amount}")
}

fn main() {}
