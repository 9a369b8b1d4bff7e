//! The ranking behind `search_tools`: BM25 (the `bm25` crate scores) over the words of
//! each tool's fields, built when the catalog is, so a new catalog brings a new index.
//!
//! The words are made here, because tool catalogs are not prose: names are identifiers
//! (`repos_list_for_user`, `getInvoice`) split into words; every word is lower-cased and
//! stemmed (Snowball English), so "invoices" finds "invoice"; the verbs and short forms
//! APIs name things with are brought to one word ("remove" and "delete", "repo" and
//! "repository"), so a user's words find an API's. A field weighs more by being indexed
//! more than once: a word of the name counts three times, of the title or a tag twice,
//! of the description or an argument once.
//!
//! BM25 then ranks the tools that share a word with the query, and two signals reorder
//! the best of them: how much of the tool's name the query covers (`issues_create` is
//! all there in "create an issue", `issues_create_milestone` is not), and whether what
//! the query asks (to read, to change, to delete) is what the tool does, as its hints
//! say (`readOnlyHint`, `destructiveHint`).

use bm25::{Embedder, EmbedderBuilder, Scorer, Tokenizer};
use rust_stemmers::{Algorithm, Stemmer};
use serde_json::Value;

use crate::registry::CatalogTool;

/// How many times a word of each field is indexed.
const NAME_WEIGHT: usize = 3;
const TITLE_WEIGHT: usize = 2;
const TAG_WEIGHT: usize = 2;

/// The longest part of a description, and of each argument's, that is indexed (in
/// bytes): the first sentences say what a tool does; the rest mostly how.
const DESCRIPTION_BYTES: usize = 1_500;
const ARGUMENT_BYTES: usize = 200;

/// Words too common to tell tools apart.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "for", "from", "how", "i", "if",
    "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "our", "please", "so", "that",
    "the", "their", "them", "then", "there", "these", "this", "to", "us", "want", "was", "we",
    "what", "when", "which", "with", "would", "you", "your", "need", "should", "could", "will",
    "some", "any",
];

/// Stems brought to one word: (stem, the word it stands for). Both the tools' words and
/// the query's go through it.
const SAME_WORDS: &[(&str, &str)] = &[
    // Verbs.
    ("remov", "delet"),
    ("destroy", "delet"),
    ("eras", "delet"),
    ("purg", "delet"),
    ("add", "creat"),
    ("make", "creat"),
    ("insert", "creat"),
    ("regist", "creat"),
    ("edit", "updat"),
    ("chang", "updat"),
    ("modifi", "updat"),
    ("alter", "updat"),
    ("fetch", "get"),
    ("retriev", "get"),
    ("read", "get"),
    ("show", "get"),
    ("view", "get"),
    ("see", "get"),
    ("display", "get"),
    ("enumer", "list"),
    ("find", "search"),
    ("lookup", "search"),
    ("queri", "search"),
    ("abort", "cancel"),
    // Short forms.
    ("repositori", "repo"),
    ("organ", "org"),
    ("organis", "org"),
    ("configur", "config"),
    ("authent", "auth"),
    ("author", "auth"),
    ("applic", "app"),
    ("environ", "env"),
    ("messag", "msg"),
    ("document", "doc"),
    ("specif", "spec"),
    ("statist", "stat"),
    ("identifi", "id"),
    ("pr", "pull"),
    ("email", "mail"),
    ("e-mail", "mail"),
];

/// Words of a query that also ask for another word: "open a pull request" asks to
/// create one, "show the open issues" to list them; the word itself stays in the query.
const ALSO_MEANS: &[(&str, &str)] = &[
    ("open", "create"),
    ("new", "create"),
    ("close", "update"),
    ("rename", "update"),
    ("set", "update"),
    ("show", "list"),
    ("all", "list"),
    ("recent", "latest"),
    ("newest", "latest"),
    ("last", "latest"),
    ("ticket", "issue"),
    ("bug", "issue"),
    ("cancel", "delete"),
];

/// Query words that ask to read rather than change.
const READING: &[&str] = &[
    "what", "which", "who", "how", "list", "show", "get", "find", "search",
];

/// What a query asks, or a tool does, as far as its words and hints tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Intent {
    Read,
    Change,
    Delete,
}

/// How much a full cover of the tool's name, and a matching intent, add, as parts of
/// the best BM25 score of the query.
const NAME_COVER_BONUS: f32 = 0.6;
const INTENT_BONUS: f32 = 0.25;

/// How many of BM25's best the two signals reorder.
const RERANKED: usize = 100;

/// Splits text and identifiers into stemmed words.
pub(crate) struct Words {
    stemmer: Stemmer,
}

impl Default for Words {
    fn default() -> Self {
        Words {
            stemmer: Stemmer::create(Algorithm::English),
        }
    }
}

impl Words {
    fn push_word(&self, word: &str, out: &mut Vec<String>) {
        if word.is_empty() {
            return;
        }
        let lower = word.to_lowercase();
        if STOP_WORDS.contains(&lower.as_str()) {
            return;
        }
        let stem = self.stemmer.stem(&lower);
        let stem = match SAME_WORDS.iter().find(|(from, _)| *from == stem) {
            Some((_, to)) => (*to).to_owned(),
            None => stem.into_owned(),
        };
        out.push(stem);
    }
}

impl Tokenizer for Words {
    fn tokenize(&self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        for piece in text.split(|c: char| !c.is_alphanumeric()) {
            // `getInvoiceByID` is get, invoice, by, id; `HTTPServer` is http, server;
            // `v2` stays one word.
            let mut word = String::new();
            let mut chars = piece.chars().peekable();
            let mut before: Option<char> = None;
            while let Some(here) = chars.next() {
                let next_lower = chars.peek().is_some_and(|c| c.is_lowercase());
                let boundary = before.is_some_and(|before| {
                    (before.is_lowercase() && here.is_uppercase())
                        || (before.is_uppercase() && here.is_uppercase() && next_lower)
                });
                if boundary {
                    self.push_word(&std::mem::take(&mut word), &mut out);
                }
                word.push(here);
                before = Some(here);
            }
            self.push_word(&word, &mut out);
        }
        out
    }
}

/// The index of one catalog's tools (those served under their names), by position.
pub(crate) struct SearchIndex {
    embedder: Embedder<u32, Words>,
    scorer: Scorer<usize, u32>,
    /// Each tool's name as words.
    names: Vec<Vec<String>>,
    /// What each tool does, from its hints.
    intents: Vec<Intent>,
}

impl SearchIndex {
    /// Index `tools`.
    pub(crate) fn build(tools: &[CatalogTool]) -> SearchIndex {
        let documents: Vec<String> = tools.iter().map(document).collect();
        let corpus: Vec<&str> = documents.iter().map(String::as_str).collect();
        let embedder = EmbedderBuilder::<u32, Words>::with_tokenizer_and_fit_to_corpus(
            Words::default(),
            &corpus,
        )
        .build();
        let mut scorer = Scorer::new();
        for (at, text) in documents.iter().enumerate() {
            let embedding = embedder.embed(text);
            scorer.upsert(&at, embedding);
        }
        let words = Words::default();
        let names = tools
            .iter()
            .map(|tool| {
                let mut name = words.tokenize(&tool.tool.name);
                name.dedup();
                name
            })
            .collect();
        let intents = tools
            .iter()
            .map(|tool| {
                let hints = &tool.tool.annotations;
                if hints.read_only_hint == Some(true) {
                    Intent::Read
                } else if hints.destructive_hint == Some(true) {
                    Intent::Delete
                } else {
                    Intent::Change
                }
            })
            .collect();
        SearchIndex {
            embedder,
            scorer,
            names,
            intents,
        }
    }

    /// The positions of the tools that share a word with `query`, best first (ties in
    /// catalog order, so a ranking is the same every time).
    pub(crate) fn rank(&self, query: &str) -> Vec<usize> {
        let query = expanded(query);
        let embedding = self.embedder.embed(&query);
        let mut found: Vec<(usize, f32)> = self
            .scorer
            .matches(&embedding)
            .into_iter()
            .map(|scored| (scored.id, scored.score))
            .collect();
        found.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let best = found.first().map_or(0.0, |(_, score)| *score);
        let words = Words::default().tokenize(&query);
        let intent = intent_of(&query, &words);
        for (at, score) in found.iter_mut().take(RERANKED) {
            let name = self.names.get(*at).map(Vec::as_slice).unwrap_or_default();
            if !name.is_empty() {
                let covered = name.iter().filter(|w| words.contains(w)).count();
                *score += best * NAME_COVER_BONUS * covered as f32 / name.len() as f32;
            }
            if intent.is_some() && self.intents.get(*at).copied() == intent {
                *score += best * INTENT_BONUS;
            }
        }
        found.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        found.into_iter().map(|(at, _)| at).collect()
    }
}

/// `query` with the words its words also mean added.
fn expanded(query: &str) -> String {
    let mut out = query.to_owned();
    for word in query.split(|c: char| !c.is_alphanumeric()) {
        let lower = word.to_lowercase();
        if let Some((_, also)) = ALSO_MEANS.iter().find(|(w, _)| *w == lower) {
            out.push(' ');
            out.push_str(also);
        }
    }
    out
}

/// What `query` (as `words`) asks: to delete, to change, or to read; `None` when it
/// does not say.
fn intent_of(query: &str, words: &[String]) -> Option<Intent> {
    let has = |stem: &str| words.iter().any(|w| w == stem);
    if has("delet") {
        Some(Intent::Delete)
    } else if has("creat") || has("updat") {
        Some(Intent::Change)
    } else if query
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| READING.contains(&w.to_lowercase().as_str()))
        || has("get")
        || has("list")
        || has("search")
    {
        Some(Intent::Read)
    } else {
        None
    }
}

/// The text indexed for `tool`: each field repeated as many times as it weighs.
fn document(tool: &CatalogTool) -> String {
    let entry = &tool.tool;
    let mut text = String::new();
    let mut add = |field: &str, times: usize| {
        for _ in 0..times {
            text.push_str(field);
            text.push_str(" . ");
        }
    };
    add(&entry.name, NAME_WEIGHT);
    if let Some(title) = &entry.title {
        add(title, TITLE_WEIGHT);
    }
    for tag in tool.def.tags {
        add(tag, TAG_WEIGHT);
    }
    if let Some(description) = &entry.description {
        add(prefix(description, DESCRIPTION_BYTES), 1);
    }
    if let Some(Value::Object(properties)) = entry.input_schema.get("properties") {
        for (name, schema) in properties {
            add(name, 1);
            if let Some(Value::String(about)) = schema.get("description") {
                add(prefix(about, ARGUMENT_BYTES), 1);
            }
        }
    }
    text
}

/// At most the first `bytes` bytes of `text`, cut at a character boundary.
fn prefix(text: &str, bytes: usize) -> &str {
    let end = (0..=bytes.min(text.len()))
        .rev()
        .find(|&end| text.is_char_boundary(end))
        .unwrap_or(0);
    text.get(..end).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_become_stemmed_words_and_synonyms_one_word() {
        let words = Words::default();
        assert_eq!(
            words.tokenize("repos_listForUser getInvoiceByID"),
            ["repo", "list", "user", "get", "invoic", "id"]
        );
        assert_eq!(
            words.tokenize("Remove the repositories"),
            words.tokenize("delete repo")
        );
        assert_eq!(words.tokenize("HTTPServer v2"), ["http", "server", "v2"]);
    }
}
