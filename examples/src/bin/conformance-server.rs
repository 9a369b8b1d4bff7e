//! The fixture server of the official MCP conformance suite, written as an ordinary user of
//! the framework. Tool, resource and prompt names and texts are the ones the suite's
//! scenarios expect.
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

/// A static text resource.
#[resource("test://static-text", name = "static-text", mime = "text/plain")]
async fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// A static binary resource: a one-pixel PNG.
#[resource("test://static-binary", name = "static-binary", mime = "image/png")]
async fn static_binary() -> &'static [u8] {
    RED_PIXEL_PNG
}

/// A templated resource: JSON data for any id.
#[resource(
    "test://template/<id>/data",
    name = "template-data",
    mime = "application/json",
    complete(id = complete_ids)
)]
async fn template_data(id: String) -> Json<TemplateData> {
    Json(TemplateData {
        data: format!("Data for ID: {id}"),
        id,
        template_test: true,
    })
}

/// The body of `test://template/<id>/data`.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct TemplateData {
    id: String,
    template_test: bool,
    data: String,
}

/// A resource clients may watch for updates.
#[resource(
    "test://watched-resource",
    name = "watched-resource",
    mime = "text/plain"
)]
async fn watched_resource() -> &'static str {
    "Watched resource content."
}

/// Suggests template ids.
async fn complete_ids(request: Complete) -> Vec<String> {
    request.matching(["123", "456", "789"])
}

/// A simple prompt without arguments.
#[prompt]
async fn test_simple_prompt() -> &'static str {
    "This is a simple prompt for testing."
}

/// A prompt that repeats its two arguments.
#[prompt(complete(arg1 = complete_arg1))]
async fn test_prompt_with_arguments(
    /// First test argument.
    arg1: String,
    /// Second test argument.
    arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// Suggests values for `arg1`.
async fn complete_arg1(request: Complete) -> Vec<String> {
    request.matching(["test", "testing", "tested", "value"])
}

/// A prompt that embeds the resource it is given.
#[prompt]
async fn test_prompt_with_embedded_resource(
    /// URI of the resource to embed.
    #[allow(non_snake_case)]
    resourceUri: String,
) -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(Content::embedded_text(
            resourceUri,
            "text/plain",
            "Embedded resource content for testing.",
        )),
        PromptMessage::user("Please process the embedded resource above."),
    ]
}

/// A prompt that shows an image.
#[prompt]
async fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(Content::image(RED_PIXEL_PNG, "image/png")),
        PromptMessage::user("Please analyze the image above."),
    ]
}

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    Server::new("mcp-conformance-server", env!("CARGO_PKG_VERSION"))
        .serve_from_args()
        .await
}
