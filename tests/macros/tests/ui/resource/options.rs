use mcp_runtime::prelude::*;

/// Mistyped and unknown options.
#[resource(
    "reports://<name>",
    mime_type = "text/csv",
    mime = "csv",
    ttl = "30 parsecs",
    priority = 2.5,
    cache = shared,
    audience = [robots],
    complete(title = complete_names)
)]
async fn report(name: String) -> String {
    name
}

async fn complete_names(_request: CompletionRequest) -> Vec<String> {
    Vec::new()
}

fn main() {}
