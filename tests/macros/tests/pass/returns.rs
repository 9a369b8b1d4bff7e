//! Every kind of return value a tool, resource or prompt accepts keeps compiling, with and
//! without `Result`, through aliases too.

use mcp_runtime::prelude::*;
use mcp_runtime::{ArtifactLink, Page};

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Sum {
    sum: i64,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Shortfall {
    missing: u64,
}

#[derive(Debug)]
struct Failure;

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("failed")
    }
}

type Outcome<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// Text.
#[tool]
async fn text() -> String {
    String::new()
}

/// Static text.
#[tool]
fn static_text() -> &'static str {
    ""
}

/// Nothing.
#[tool]
async fn nothing() {}

/// One block.
#[tool]
async fn block() -> Content {
    Content::text("a")
}

/// Blocks.
#[tool]
async fn blocks() -> Vec<Content> {
    Vec::new()
}

/// A whole result.
#[tool]
async fn whole() -> CallToolResult {
    CallToolResult::default()
}

/// Structured, explicitly.
#[tool]
async fn json() -> Json<Sum> {
    Json(Sum { sum: 1 })
}

/// Structured.
#[tool]
async fn structured() -> Sum {
    Sum { sum: 1 }
}

/// Any JSON.
#[tool]
async fn any_json() -> serde_json::Value {
    serde_json::json!({"a": 1})
}

/// A number, a list, an option.
#[tool]
async fn number() -> (i64, Vec<Sum>, Option<u8>) {
    (1, Vec::new(), None)
}

/// A page.
#[tool]
async fn page() -> Page<Sum> {
    Page::all(Vec::new())
}

/// A link.
#[tool]
async fn link(ctx: RequestContext) -> Result<ArtifactLink, ToolError> {
    let _ = ctx;
    Err(ToolError::new("nothing stored"))
}

/// Errors with a message.
#[tool]
async fn failing() -> Result<Sum, Failure> {
    Err(Failure)
}

/// Errors through an alias.
#[tool]
async fn aliased() -> Outcome<String> {
    Ok(String::new())
}

/// Errors with detail.
#[tool]
async fn rejected() -> Result<Sum, Rejected<Shortfall>> {
    Err(Rejected::new("short", "Not enough.").with_detail(Shortfall { missing: 1 }))
}

/// Protocol errors.
#[tool]
async fn protocol() -> Result<String, RpcError> {
    Err(RpcError::invalid_params("no"))
}

/// A resource that may fail.
#[resource("sums://one")]
async fn one() -> Result<String, Failure> {
    Err(Failure)
}

/// A prompt that may fail.
#[prompt]
async fn ask() -> Result<String, RpcError> {
    Ok(String::new())
}

fn main() {}
