use mcp_runtime::prelude::*;

/// Generic resources have no fixed contents type.
#[resource("things://<id>")]
async fn generic<T: Default>(id: String) -> String {
    let _ = T::default();
    id
}

/// Mistyped option values.
#[resource("sizes://one", name = "", size = "big", title = 7)]
async fn sized() -> String {
    String::new()
}

/// A borrowed variable.
#[resource("words://<word>")]
async fn borrowed(word: &str) -> String {
    word.to_owned()
}

/// Not a completer list.
#[resource("colours://<name>", complete = names)]
async fn colour(name: String) -> String {
    name
}

#[resource("not://a-function")]
struct NotAFunction;

fn main() {}

/// A size on a template.
#[resource("logs://<day>", size = 4096)]
async fn log(day: String) -> String {
    day
}
