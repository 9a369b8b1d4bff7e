use mcp_runtime::prelude::*;

struct Connection;

/// Uses a connection.
#[tool]
async fn connect(conn: Connection) -> String {
    let _ = conn;
    String::new()
}

fn main() {}
