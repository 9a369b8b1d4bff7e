use mcp_runtime::prelude::*;

struct Opaque;

/// Returns something that cannot be sent.
#[tool]
async fn opaque() -> Opaque {
    Opaque
}

/// The same, inside a `Result`: the message points at the success type.
#[tool]
async fn maybe_opaque() -> Result<Opaque, String> {
    Ok(Opaque)
}

fn main() {}
