// ANCHOR: uses
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::Annotations;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
// ANCHOR_END: uses

// ANCHOR: readme
/// How to read the library.
#[resource(
    "library://readme",
    title = "Read me",
    mime = "text/markdown",
    size = 26,
    audience = [user, assistant],
    priority = 0.9,
    ttl = "5m"
)]
pub async fn readme() -> &'static str {
    "# Library\nBooks by number."
}
// ANCHOR_END: readme

/// A book in the library.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Book {
    /// Its number.
    pub id: u32,
    /// Its title.
    pub title: &'static str,
}

const BOOKS: &[(u32, &str)] = &[(1, "Dune"), (2, "Emma"), (12, "Ulysses")];

// ANCHOR: book
/// One book by its number.
#[resource(
    "library://books/<id>",
    name = "book",
    mime = "application/json",
    cache = private,
    complete(id = book_ids)
)]
pub async fn book(id: u32) -> Option<Json<Book>> {
    BOOKS
        .iter()
        .find(|(n, _)| *n == id)
        .map(|(id, title)| Json(Book { id: *id, title }))
}
// ANCHOR_END: book

// ANCHOR: book_ids
/// Book numbers starting with what was typed.
pub async fn book_ids(request: CompletionRequest) -> Vec<String> {
    request.matching(BOOKS.iter().map(|(id, _)| id.to_string()))
}
// ANCHOR_END: book_ids

/// A book's cover image (a few bytes standing in for a PNG).
#[resource("library://covers/<id>.png", mime = "image/png")]
pub fn cover(id: u32) -> Vec<u8> {
    vec![0x89, b'P', b'N', b'G', id as u8]
}

/// A file of the shelf archive; the path may have several segments.
#[resource("archive:///<path..>", mime = "text/plain")]
pub async fn archive(path: String) -> Result<String, RpcError> {
    match path.as_str() {
        "notes/2024/jan.txt" => Ok("January notes".to_owned()),
        "a b.txt" => Ok("spaces decoded".to_owned()),
        _ => Err(RpcError::resource_not_found(&format!("archive:///{path}"))),
    }
}

/// An ISBN-13: parsed by a direct `FromUriParam` impl, since it has no `FromStr`.
#[derive(Debug)]
pub struct Isbn(pub String);

impl mcp_runtime::FromUriParam for Isbn {
    fn from_uri_param(value: &str) -> Result<Self, String> {
        let digits: String = value.chars().filter(|c| *c != '-').collect();
        if digits.len() == 13 && digits.chars().all(|c| c.is_ascii_digit()) {
            Ok(Isbn(digits))
        } else {
            Err(format!(
                "`{value}` is not an ISBN-13 (13 digits, dashes allowed)"
            ))
        }
    }
}

/// A book by its ISBN (this doc comment is replaced by the `description` option).
#[resource(
    "library://isbn/<isbn>",
    mime = "text/plain",
    description = "A book by its ISBN-13; dashes are allowed."
)]
pub async fn by_isbn(isbn: Isbn) -> String {
    format!("ISBN {}", isbn.0)
}

/// Every book on one shelf, one entry per book.
#[resource("library://shelves/<name>")]
pub async fn shelf(name: String) -> Vec<ResourceContents> {
    BOOKS
        .iter()
        .map(|(id, title)| {
            ResourceContents::text(
                format!("library://books/{id}"),
                "text/plain",
                format!("{title} (shelf {name})"),
            )
        })
        .collect()
}

/// Always fails with an internal error.
#[resource("library://flaky")]
pub async fn flaky() -> Result<String, std::io::Error> {
    Err(std::io::Error::other("the disk is on fire"))
}

/// Always panics, to show a panic fails only its own read.
#[resource("library://broken")]
pub async fn broken() -> String {
    panic!("shelf collapsed")
}

/// Readers' notes kept by the server.
pub struct Notes {
    /// The notes, oldest first.
    pub items: Vec<&'static str>,
}

/// The readers' notes (needs `State<Notes>`).
#[resource("library://notes", cache = private, ttl = "0s")]
pub async fn notes(notes: State<Notes>, ctx: RequestContext) -> String {
    format!(
        "{} ({} notes, read over {})",
        notes.items.join("; "),
        notes.items.len(),
        ctx.protocol_version()
    )
}

/// Summary styles.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Style {
    /// One line.
    Short,
    /// A paragraph.
    Long,
}

/// Asks for a summary of a book, with the book embedded.
#[prompt(title = "Summarize a book", complete(id = book_ids, style = styles))]
pub async fn summarize_book(
    /// The book's number.
    id: u32,
    /// `short` or `long`; short by default.
    style: Option<Style>,
) -> Result<Vec<PromptMessage>, RpcError> {
    let Some((_, title)) = BOOKS.iter().find(|(n, _)| *n == id) else {
        return Err(RpcError::invalid_params(format!("There is no book {id}")));
    };
    let length = match style.unwrap_or(Style::Short) {
        Style::Short => "in one line",
        Style::Long => "in one paragraph",
    };
    Ok(vec![
        PromptMessage::user(Content::embedded_text(
            format!("library://books/{id}"),
            "text/plain",
            *title,
        )),
        PromptMessage::user(format!("Summarize {title} {length}.")),
    ])
}

/// Styles starting with what was typed; Ulysses (book 12) is only summarized at length.
pub async fn styles(request: CompletionRequest) -> Completion {
    let styles: &[&str] = if request.filled("id") == Some("12") {
        &["long"]
    } else {
        &["short", "long"]
    };
    Completion::new(request.matching(styles))
}

// ANCHOR: media
/// Shows a cover, says it aloud, and links the book.
#[prompt(name = "cover_story")]
pub fn media() -> GetPromptResult {
    GetPromptResult::new([
        PromptMessage::user(Content::image([1u8, 2, 3], "image/png")),
        PromptMessage::user(Content::audio([4u8, 5], "audio/wav")),
        PromptMessage::assistant(Content::link("library://books/1", "Dune").with_annotations(
            Annotations {
                audience: Some(vec![mcp_runtime::protocol::Role::User]),
                priority: None,
                last_modified: None,
            },
        )),
    ])
    .with_description("A cover, read aloud")
}
// ANCHOR_END: media

/// Has a thousand completions for `word` (replaced by the `description` option).
#[prompt(
    complete(word = many_words),
    description = "Spells a word; `word` has a thousand completions, to show the 100-value bound."
)]
pub async fn spell(
    /// Any word.
    word: String,
) -> String {
    format!("Spell {word}.")
}

/// A thousand words.
pub async fn many_words(_request: CompletionRequest) -> Vec<String> {
    (0..1000).map(|i| format!("word{i}")).collect()
}
