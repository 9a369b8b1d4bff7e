//! The fixture server of the official MCP conformance suite, written as an ordinary user of
//! the framework. Tool names and texts are the ones the suite's scenarios expect.
//!
//! `cargo run -p mcp-examples --bin conformance-server -- --http 127.0.0.1:PORT`

use mcp_runtime::prelude::*;

const RED_PIXEL_PNG: &[u8] = include_bytes!("../../assets/red-pixel.png");
const SILENCE_WAV: &[u8] = include_bytes!("../../assets/silence.wav");

/// Returns a simple text response.
#[tool]
async fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Returns one PNG image.
#[tool]
async fn test_image_content() -> Content {
    Content::image(RED_PIXEL_PNG, "image/png")
}

/// Returns one WAV audio clip.
#[tool]
async fn test_audio_content() -> Content {
    Content::audio(SILENCE_WAV, "audio/wav")
}

/// Returns an embedded text resource.
#[tool]
async fn test_embedded_resource() -> Content {
    Content::embedded_text(
        "test://embedded-resource",
        "text/plain",
        "This is an embedded resource content.",
    )
}

/// Returns text, an image and an embedded resource together.
#[tool]
async fn test_multiple_content_types() -> Vec<Content> {
    vec![
        Content::text("Multiple content types test:"),
        Content::image(RED_PIXEL_PNG, "image/png"),
        Content::embedded_text(
            "test://mixed-content-resource",
            "application/json",
            r#"{"test":"data","value":123}"#,
        ),
    ]
}

/// Always fails, as a tool execution error the model can read.
#[tool]
async fn test_error_handling() -> Result<String, String> {
    Err("This tool intentionally returns an error for testing".to_owned())
}

/// Needs the client's sampling capability; without it the call is refused with -32021.
#[tool]
async fn test_missing_capability(ctx: RequestContext) -> Result<String, RpcError> {
    ctx.client_capabilities().require("sampling")?;
    Ok("The client declared the sampling capability.".to_owned())
}

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    Server::new("mcp-conformance-server", env!("CARGO_PKG_VERSION"))
        .serve_from_args()
        .await
}
