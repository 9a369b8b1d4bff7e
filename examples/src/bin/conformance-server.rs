//! The fixture server of the official MCP conformance suite, written as an ordinary user of
//! the framework. Tool, resource and prompt names and texts are the ones the suite's
//! scenarios expect.
//!
//! `cargo run -p mcp-examples --bin conformance-server -- --http 127.0.0.1:PORT`

// ANCHOR: uses
use mcp_runtime::prelude::*;
// ANCHOR_END: uses

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

/// Runs a query in a region. The region, the row limit and the dry-run flag travel in
/// `Mcp-Param-Region`, `Mcp-Param-Limit` and `Mcp-Param-Dry-Run` too, so a gateway can
/// route and rate-limit on them without reading the body.
#[tool(read_only)]
async fn test_custom_headers(
    /// Where the query runs.
    #[header("Region")]
    region: String,
    /// The most rows to return.
    #[header("Limit")]
    limit: u32,
    /// Plan the query without running it.
    #[header("Dry-Run")]
    dry_run: bool,
    /// The query.
    query: Option<String>,
) -> String {
    let mode = if dry_run { "Planned" } else { "Ran" };
    let query = query.as_deref().unwrap_or("(no query)");
    format!("{mode} {query} in {region}, at most {limit} rows.")
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
async fn complete_ids(request: CompletionRequest) -> Vec<String> {
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
async fn complete_arg1(request: CompletionRequest) -> Vec<String> {
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

// ---- interactivity: progress, logging ---------------------------------------------------

/// Reports progress 0, 50 and 100 of 100, about 50 ms apart.
#[tool]
async fn test_tool_with_progress(progress: Progress) -> &'static str {
    for step in [0.0, 50.0, 100.0] {
        progress.report(step, Some(100.0));
        if step < 100.0 {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }
    "Progress reporting completed."
}

/// Logs three info messages when the client asked for log messages on this request.
#[tool]
async fn test_logging_tool(log: Log) -> &'static str {
    log.info("Tool execution started");
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    log.info("Tool processing data");
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    log.info("Tool execution completed");
    "Logging completed."
}

// ---- interactivity: multi round-trip requests -------------------------------------------

/// The name form.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct UserName {
    name: String,
}

/// The confirmation form.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirmation {
    ok: bool,
}

/// The colour form.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct FavoriteColor {
    color: String,
}

/// The prompt-context form.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct PromptContext {
    context: String,
}

fn greeting(answer: Elicitation<UserName>) -> String {
    match answer {
        Elicitation::Accepted(UserName { name }) => format!("Hello, {name}!"),
        Elicitation::Declined => "The user declined to give a name.".to_owned(),
        Elicitation::Cancelled => "The user cancelled.".to_owned(),
    }
}

/// Asks the user's name, then greets them.
#[tool]
async fn test_input_required_result_elicitation(ctx: RequestContext) -> Result<String, ToolError> {
    Ok(greeting(ctx.elicit("user_name", "What is your name?")?))
}

/// Asks the client's model a question and returns its answer.
#[tool]
async fn test_input_required_result_sampling(ctx: RequestContext) -> Result<String, ToolError> {
    let question = SamplingRequest::new(100).user("What is the capital of France?");
    let answer = ctx.sample("capital_question", question)?;
    Ok(format!(
        "The model ({}) answered: {}",
        answer.model,
        answer.text()
    ))
}

/// Lists the client's roots.
#[tool]
async fn test_input_required_result_list_roots(ctx: RequestContext) -> Result<String, ToolError> {
    let roots = ctx.roots("client_roots")?;
    let uris: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
    Ok(format!(
        "The client has {} root(s): {}",
        roots.len(),
        uris.join(", ")
    ))
}

/// Keeps a marker in the request state on the first round and checks it on the retry.
#[tool]
async fn test_input_required_result_request_state(
    ctx: RequestContext,
) -> Result<String, ToolError> {
    const MARKER: &str = "issued-on-round-0";
    let carried = ctx.kept::<String>("marker");
    if carried.is_none() {
        ctx.keep("marker", &MARKER);
    }
    let answer = ctx.elicit::<Confirmation>("confirm", "Please confirm")?;
    match carried.as_deref() {
        Some(MARKER) => Ok(format!(
            "state-ok: the request state came back intact; confirmed: {}",
            answer.accepted().is_some_and(|c| c.ok)
        )),
        _ => Err(ToolError::new("the request state did not carry the marker")),
    }
}

/// Asks for a name, a model-written greeting and the roots at once.
#[tool]
async fn test_input_required_result_multiple_inputs(
    ctx: RequestContext,
) -> Result<String, ToolError> {
    // Ask all three before stopping, so they go out in one round.
    let name = ctx.elicit::<UserName>("user_name", "What is your name?");
    let greeting_text = ctx.sample(
        "greeting",
        SamplingRequest::new(50).user("Generate a greeting"),
    );
    let roots = ctx.roots("client_roots");
    let (name, greeting_text, roots) = (name?, greeting_text?, roots?);
    Ok(format!(
        "{} The model says: {}. Roots: {}.",
        greeting(name),
        greeting_text.text(),
        roots.len()
    ))
}

/// Asks for a name, then (in a second round) a favourite colour.
#[tool]
async fn test_input_required_result_multi_round(ctx: RequestContext) -> Result<String, ToolError> {
    let name = ctx.elicit::<UserName>("step1", "Step 1: What is your name?")?;
    let color = ctx.elicit::<FavoriteColor>("step2", "Step 2: What is your favorite color?")?;
    let name = name.accepted().map_or("stranger".to_owned(), |n| n.name);
    let color = color.accepted().map_or("unknown".to_owned(), |c| c.color);
    Ok(format!("Hello, {name}! Your favorite color is {color}."))
}

/// Asks for a confirmation; a tampered request state on the retry is refused.
#[tool]
async fn test_input_required_result_tampered_state(
    ctx: RequestContext,
) -> Result<String, ToolError> {
    let answer = ctx.elicit::<Confirmation>("confirm", "Please confirm")?;
    Ok(format!(
        "Confirmed: {}",
        answer.accepted().is_some_and(|c| c.ok)
    ))
}

/// Asks only for what the client declared it can answer.
#[tool]
async fn test_input_required_result_capabilities(ctx: RequestContext) -> Result<String, ToolError> {
    let caps = ctx.client_capabilities();
    let mut answers = Vec::new();
    let name = caps
        .has("elicitation")
        .then(|| ctx.elicit::<UserName>("user_name", "What is your name?"));
    let sample = caps.has("sampling").then(|| {
        ctx.sample(
            "capital_question",
            SamplingRequest::new(100).user("What is the capital of France?"),
        )
    });
    let roots = caps.has("roots").then(|| ctx.roots("client_roots"));
    if let Some(name) = name {
        answers.push(greeting(name?));
    }
    if let Some(sample) = sample {
        answers.push(format!("The model answered: {}", sample?.text()));
    }
    if let Some(roots) = roots {
        answers.push(format!("{} root(s)", roots?.len()));
    }
    if answers.is_empty() {
        return Ok("The client declared no capability to answer with.".to_owned());
    }
    Ok(answers.join(" "))
}

/// Asks for a name through an elicitation; never sends a request on the response stream.
#[tool]
async fn test_streaming_elicitation(ctx: RequestContext) -> Result<String, ToolError> {
    Ok(greeting(ctx.elicit("user_name", "What is your name?")?))
}

/// A prompt that asks the user for its context first.
#[prompt]
async fn test_input_required_result_prompt(
    ctx: RequestContext,
) -> Result<Vec<PromptMessage>, RpcError> {
    let context =
        ctx.elicit::<PromptContext>("user_context", "What context should the prompt use?")?;
    let context = context
        .accepted()
        .map_or("none given".to_owned(), |c| c.context);
    Ok(vec![PromptMessage::user(format!(
        "Answer with this context in mind: {context}"
    ))])
}

// ---- interactivity: list changes ---------------------------------------------------------

/// Comes and goes with `test_trigger_tool_change`.
#[tool]
async fn test_dynamic_tool() -> &'static str {
    "The dynamic tool is here."
}

/// Comes and goes with `test_trigger_prompt_change`.
#[prompt]
async fn test_dynamic_prompt() -> &'static str {
    "The dynamic prompt is here."
}

/// Adds `test_dynamic_tool` when absent and removes it when present, which notifies
/// listeners that the tool list changed.
#[tool]
async fn test_trigger_tool_change(ctx: RequestContext) -> Result<String, ToolError> {
    let server = ctx.server();
    if server.remove_tool("test_dynamic_tool") {
        return Ok("test_dynamic_tool removed".to_owned());
    }
    server
        .add_tools(tools![test_dynamic_tool])
        .map_err(|e| ToolError::new(e.to_string()))?;
    Ok("test_dynamic_tool added".to_owned())
}

/// Adds `test_dynamic_prompt` when absent and removes it when present, which notifies
/// listeners that the prompt list changed.
#[tool]
async fn test_trigger_prompt_change(ctx: RequestContext) -> Result<String, ToolError> {
    let server = ctx.server();
    if server.remove_prompt("test_dynamic_prompt") {
        return Ok("test_dynamic_prompt removed".to_owned());
    }
    server
        .add_prompts(prompts![test_dynamic_prompt])
        .map_err(|e| ToolError::new(e.to_string()))?;
    Ok("test_dynamic_prompt added".to_owned())
}

// ---- handshake-era fixtures (the same handlers serve both eras) ---------------------------

/// Logs three info messages about 50 ms apart at the session's (or request's) log level.
#[tool]
async fn test_tool_with_logging(log: Log) -> &'static str {
    log.info("Tool execution started");
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    log.info("Tool processing data");
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    log.info("Tool execution completed");
    "Logging test completed."
}

/// Asks the client's model to complete `prompt`.
#[tool]
async fn test_sampling(
    /// The prompt to send to the model.
    prompt: String,
    ctx: RequestContext,
) -> Result<String, ToolError> {
    let answer = ctx.sample("prompt", SamplingRequest::new(100).user(prompt))?;
    Ok(format!("LLM response: {}", answer.text()))
}

/// The user's details.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct UserDetails {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

fn outcome<T: serde::Serialize>(answer: &Elicitation<T>) -> (&'static str, serde_json::Value) {
    match answer {
        Elicitation::Accepted(content) => (
            "accept",
            serde_json::to_value(content).unwrap_or(serde_json::Value::Null),
        ),
        Elicitation::Declined => ("decline", serde_json::json!({})),
        Elicitation::Cancelled => ("cancel", serde_json::json!({})),
    }
}

/// Asks the user for their details with `message`.
#[tool]
async fn test_elicitation(
    /// The message to show the user.
    message: String,
    ctx: RequestContext,
) -> Result<String, ToolError> {
    let answer = ctx.elicit::<UserDetails>("details", &message)?;
    let (action, content) = outcome(&answer);
    Ok(format!(
        "User response: <action: {action}, content: {content}>"
    ))
}

fn default_name() -> String {
    "John Doe".to_owned()
}
fn default_age() -> i64 {
    30
}
fn default_score() -> f64 {
    95.5
}
fn default_status() -> Status {
    Status::Active
}
fn default_verified() -> bool {
    true
}

/// An account status.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Status {
    Active,
    Inactive,
    Pending,
}

/// A form whose every field has a default (SEP-1034).
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Defaults {
    #[serde(default = "default_name")]
    name: String,
    #[serde(default = "default_age")]
    age: i64,
    #[serde(default = "default_score")]
    score: f64,
    #[serde(default = "default_status")]
    status: Status,
    #[serde(default = "default_verified")]
    verified: bool,
}

/// Asks for a form whose fields all have defaults.
#[tool]
async fn test_elicitation_sep1034_defaults(ctx: RequestContext) -> Result<String, ToolError> {
    let answer = ctx.elicit::<Defaults>("defaults", "Please review your details")?;
    let (action, content) = outcome(&answer);
    Ok(format!(
        "Elicitation completed: action={action}, content={content}"
    ))
}

/// Options without titles.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Plain {
    Option1,
    Option2,
    Option3,
}

/// Options with titles (their doc comments).
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Titled {
    /// First Option
    Value1,
    /// Second Option
    Value2,
    /// Third Option
    Value3,
}

/// Options titled the deprecated way, with `enumNames`.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Short {
    Opt1,
    Opt2,
    Opt3,
}

/// Choices with titles, for a multi-select.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Choice {
    /// First Choice
    Value1,
    /// Second Choice
    Value2,
    /// Third Choice
    Value3,
}

/// Every kind of enum field an elicitation form can hold (SEP-1330).
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Enums {
    untitled_single: Plain,
    titled_single: Titled,
    #[schemars(extend("enumNames" = ["Option One", "Option Two", "Option Three"]))]
    legacy_enum: Short,
    untitled_multi: Vec<Plain>,
    titled_multi: Vec<Choice>,
}

/// Asks for a form with single- and multi-select enums, titled and not.
#[tool]
async fn test_elicitation_sep1330_enums(ctx: RequestContext) -> Result<String, ToolError> {
    let answer = ctx.elicit::<Enums>("enums", "Please pick your options")?;
    let (action, content) = outcome(&answer);
    Ok(format!(
        "Elicitation completed: action={action}, content={content}"
    ))
}

/// Lets go of the client's connection mid-call, then finishes: a resumable client
/// reconnects and still gets the result.
#[tool]
async fn test_reconnection(ctx: RequestContext) -> &'static str {
    ctx.release_connection();
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    "Reconnection test completed."
}

// ---- JSON Schema 2020-12 as written -----------------------------------------------------

// ANCHOR: hand_written_schema
/// Contact details with a conditional requirement, which a derive cannot express: the
/// `JsonSchema` impl is written by hand and published as written.
#[derive(serde::Deserialize)]
#[allow(dead_code)]
struct Contact {
    name: Option<String>,
    address: Option<serde_json::Value>,
    #[serde(rename = "contactMethod")]
    contact_method: Option<String>,
    phone: Option<String>,
    email: Option<String>,
}

impl schemars::JsonSchema for Contact {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Contact".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "$anchor": "addressDef",
                    "type": "object",
                    "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
                }
            },
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"},
                "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                "phone": {"type": "string"},
                "email": {"type": "string"}
            },
            "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
            "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "additionalProperties": false
        })
    }
}

/// Tool with JSON Schema 2020-12 features
#[tool]
async fn json_schema_2020_12_tool(Args(contact): Args<Contact>) -> String {
    format!(
        "Contact {} by {}",
        contact.name.unwrap_or_default(),
        contact.contact_method.unwrap_or_else(|| "email".into())
    )
}
// ANCHOR_END: hand_written_schema

// ---- Tasks extension fixtures --------------------------------------------------------

/// Greets someone, synchronously (never a task).
#[tool]
async fn greet(
    /// Who to greet.
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Sleeps `seconds` seconds, then reports; a task unless `seconds` is 0. Stops at once
/// when cancelled.
#[tool(task)]
async fn slow_compute(
    /// How long to work.
    seconds: u64,
    /// A label echoed in the result.
    label: Option<String>,
    ctx: RequestContext,
) -> String {
    if seconds > 0 {
        ctx.start_task();
    }
    tokio::time::sleep(std::time::Duration::from_secs(seconds)).await;
    format!(
        "Computed {} in {seconds} s",
        label.unwrap_or_else(|| "nothing".into())
    )
}

/// Works for a second, then reports a tool error; runs only as a task.
#[tool(task = required)]
async fn failing_job(ctx: RequestContext) -> Result<String, ToolError> {
    ctx.start_task();
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    Err(ToolError::new(
        "the job failed: the input data is inconsistent",
    ))
}

/// Fails with a protocol-level error (its handler panics), as a task.
#[tool(task)]
async fn protocol_error_job(ctx: RequestContext) -> String {
    ctx.start_task();
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    panic!("protocol_error_job always fails")
}

/// A yes/no answer, as the tasks scenarios send it.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct DeleteConfirmation {
    /// Go ahead?
    confirm: bool,
}

/// Deletes a file after the user confirms, as a task waiting for the answer.
#[tool(task)]
async fn confirm_delete(
    /// The file to delete.
    filename: String,
    ctx: RequestContext,
) -> Result<String, ToolError> {
    ctx.start_task();
    let answer =
        ctx.elicit::<DeleteConfirmation>("confirm_delete", &format!("Delete {filename}?"))?;
    Ok(match answer.accepted() {
        Some(DeleteConfirmation { confirm: true }) => format!("Deleted {filename}"),
        _ => format!("Kept {filename}"),
    })
}

/// A name and a yes/no answer.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NamedConfirmation {
    /// A name.
    name: String,
    /// Go ahead?
    confirm: bool,
}

/// Asks two questions at once, as a task, and reports both answers.
#[tool(task)]
async fn multi_input(ctx: RequestContext) -> Result<String, ToolError> {
    ctx.start_task();
    let first = ctx.elicit::<NamedConfirmation>("first", "First answer?");
    let second = ctx.elicit::<NamedConfirmation>("second", "Second answer?");
    let (first, second) = (first?, second?);
    let name = |answer: Elicitation<NamedConfirmation>| {
        answer
            .accepted()
            .map(|a| format!("{} ({})", a.name, a.confirm))
            .unwrap_or_else(|| "declined".into())
    };
    Ok(format!("first: {}, second: {}", name(first), name(second)))
}

/// Asks for the user's name first (synchronously), then continues as a task.
#[tool(task = required)]
async fn test_tool_with_task(ctx: RequestContext) -> Result<String, ToolError> {
    let name = ctx.elicit::<UserName>("user_name", "What is your name?")?;
    let name = name
        .accepted()
        .map(|n| n.name)
        .unwrap_or_else(|| "stranger".into());
    ctx.start_task();
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    Ok(format!("Hello, {name}! Your task is done."))
}

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    Server::new("mcp-conformance-server", env!("CARGO_PKG_VERSION"))
        .serve_from_args()
        .await
}
