use mcp_runtime::prelude::*;

struct Opaque;

/// Returns something that cannot be sent.
#[tool]
async fn opaque() -> Opaque {
    Opaque
}

fn main() {}
