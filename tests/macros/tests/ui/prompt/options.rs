use mcp_runtime::prelude::*;

/// An unknown option, a bad name and a completer for a missing parameter.
#[prompt(name = "review code", titel = "Review", complete(langauge = languages))]
async fn review(
    /// The language.
    language: String,
) -> String {
    language
}

async fn languages(_request: CompletionRequest) -> Vec<String> {
    Vec::new()
}

fn main() {}
