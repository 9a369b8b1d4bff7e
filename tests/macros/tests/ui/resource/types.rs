use mcp_runtime::prelude::*;

struct Opaque;

/// A variable whose type cannot be parsed from text.
#[resource("things://<thing>")]
async fn thing(thing: Opaque) -> String {
    let _ = thing;
    String::new()
}

/// A parameter that is neither a variable nor an extractor.
#[resource("config://main")]
async fn config(verbose: bool) -> String {
    verbose.to_string()
}

/// A return type that is not resource contents.
#[resource("numbers://seven")]
async fn seven() -> i32 {
    7
}

fn main() {}
