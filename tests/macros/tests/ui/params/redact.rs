use mcp_runtime::prelude::*;

/// `#[redact]` takes no arguments.
#[tool]
async fn with_arguments(#[redact(always)] password: String) -> String {
    password
}

/// A prompt argument is not recorded with its value: nothing to redact.
#[prompt]
async fn on_a_prompt(#[redact] customer: String) -> String {
    customer
}

/// A URI variable is part of the resource's URI: nothing to redact.
#[resource("notes://<id>")]
async fn on_a_resource(#[redact] id: u32) -> String {
    id.to_string()
}

fn main() {}
