//! A first MCP server: a few tools, a resource template and a prompt a newcomer can read
//! in a minute.
//!
//! Run it with `cargo run -p mcp-examples --bin quickstart` (stdio) or add
//! `-- --http 127.0.0.1:8080` to serve Streamable HTTP at `http://127.0.0.1:8080/mcp`.

// ANCHOR: uses
use std::sync::Mutex;

use mcp_runtime::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
// ANCHOR_END: uses

// ANCHOR: add
/// Adds two integers.
#[tool(read_only, idempotent)]
async fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> i64 {
    a + b
}
// ANCHOR_END: add

// ANCHOR: divide
/// Divides one number by another.
#[tool(read_only, idempotent)]
async fn divide(
    /// The number to divide.
    dividend: f64,
    /// The number to divide by; must not be zero.
    divisor: f64,
) -> Result<f64, String> {
    if divisor == 0.0 {
        return Err("Cannot divide by zero: pass a non-zero divisor.".to_owned());
    }
    Ok(dividend / divisor)
}
// ANCHOR_END: divide

// ANCHOR: temperature
/// A temperature scale.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Scale {
    Celsius,
    Fahrenheit,
}

/// A temperature with its scale.
#[derive(Debug, Serialize, JsonSchema)]
struct Temperature {
    value: f64,
    scale: Scale,
}

/// Converts a temperature to the other scale.
// ANCHOR: options
#[tool(
    name = "convert_temperature",
    title = "Convert temperature",
    read_only,
    idempotent
)]
// ANCHOR_END: options
fn convert(
    /// The temperature to convert.
    value: f64,
    /// The scale to convert to; the value is read in the other one.
    to: Scale,
) -> Temperature {
    let converted = match to {
        Scale::Fahrenheit => value * 9.0 / 5.0 + 32.0,
        Scale::Celsius => (value - 32.0) * 5.0 / 9.0,
    };
    Temperature {
        value: (converted * 100.0).round() / 100.0,
        scale: to,
    }
}
// ANCHOR_END: temperature

// ANCHOR: notes
/// Notes kept in memory for as long as this server runs.
#[derive(Default)]
struct Notes {
    items: Mutex<Vec<String>>,
}

/// Saves a short note for later in this session of the server.
#[tool]
async fn add_note(
    /// The note's text.
    note: String,
    notes: State<Notes>,
) -> String {
    let mut list = notes.items.lock().unwrap_or_else(|e| e.into_inner());
    list.push(note);
    format!("Saved. You have {} note(s).", list.len())
}

/// Lists the saved notes, oldest first.
#[tool(read_only)]
async fn list_notes(notes: State<Notes>) -> Vec<String> {
    notes
        .items
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
}
// ANCHOR_END: notes

// ANCHOR: resource
/// One saved note, by its number (1 is the oldest).
#[resource(
    "notes://<number>",
    name = "note",
    mime = "text/plain",
    ttl = "0s",
    complete(number = note_numbers)
)]
async fn note(number: usize, notes: State<Notes>) -> Option<String> {
    let list = notes.items.lock().unwrap_or_else(|e| e.into_inner());
    list.get(number.checked_sub(1)?).cloned()
}

/// Suggests the numbers of saved notes that start with what was typed.
async fn note_numbers(request: CompletionRequest) -> Vec<String> {
    let count = request.ctx.state::<Notes>().map_or(0, |notes| {
        notes.items.lock().unwrap_or_else(|e| e.into_inner()).len()
    });
    request.matching((1..=count).map(|n| n.to_string()))
}
// ANCHOR_END: resource

// ANCHOR: prompt
/// Asks the model to convert a temperature with the tool and explain the formula.
#[prompt(title = "Explain a conversion", complete(to = scale_names))]
async fn explain_conversion(
    /// The temperature to convert, e.g. 21.5.
    value: f64,
    /// The scale to convert to: celsius or fahrenheit.
    to: Scale,
) -> Vec<PromptMessage> {
    let to = match to {
        Scale::Celsius => "Celsius",
        Scale::Fahrenheit => "Fahrenheit",
    };
    vec![
        PromptMessage::user(format!(
            "Convert {value} degrees to {to} with the convert_temperature tool."
        )),
        PromptMessage::user("Then explain the formula you used in one sentence."),
    ]
}

/// Completes scale names.
async fn scale_names(request: CompletionRequest) -> Vec<String> {
    request.matching(["celsius", "fahrenheit"])
}
// ANCHOR_END: prompt

// ANCHOR: main
#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    Server::new("quickstart", env!("CARGO_PKG_VERSION"))
        .instructions(
            "Arithmetic, temperature conversion and a scratch pad of notes (readable as notes://{number}).",
        )
        .state(Notes::default())
        .serve_from_args()
        .await
}
// ANCHOR_END: main
