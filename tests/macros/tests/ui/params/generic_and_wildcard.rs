use mcp_runtime::prelude::*;

/// Echoes.
#[tool]
async fn echo<T: serde::de::DeserializeOwned>(_: String) -> String {
    String::new()
}

fn main() {}
