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
//! A word made of two words the catalog also uses alone (`worklog`: work, log) is
//! indexed as its parts too, in the tools and in the query.
//!
//! The query is read before it is ranked: the values it names ("issue 17", "octo/app",
//! quoted text) say which thing to act on rather than what to do, and are left out,
//! except that an address says what kind of thing it is ("dana@acme.com" an email,
//! "+14155550123" a phone number, "#sales" a channel, "report.pdf" a file); the words
//! people use also ask for the words APIs use ("text" a message, "ring" a call, "my" the
//! authenticated user's, "every time" a webhook); a question asks to read whatever verb
//! it uses ("which files were changed?").
//!
//! Scores are summed over postings lists (each word's tools and weights), so a query
//! costs the tools that share its words.
//!
//! BM25 then ranks the tools that share a word with the query, and two signals reorder
//! the best of them: how much of the tool's name the query covers (`issues_create` is
//! all there in "create an issue", `issues_create_milestone` is not), and whether what
//! the query asks (to read, to change, to delete) is what the tool does, as its hints
//! say (`readOnlyHint`, `destructiveHint`); a tool whose description opens with
//! "Deprecated" loses a fifth of its score, so the tool that replaces it comes first
//! when both match. The verb a query leaves out counts as
//! covered when its words imply it: a request to read things in the plural (or who
//! did something) implies `list`, in the singular `get`, and a request to change "a"
//! thing with a verb the index does not know ("leave a comment") implies `create`.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use bm25::{Embedder, EmbedderBuilder, Tokenizer};
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
    ("verifi", "valid"),
    ("subscrib", "subscript"),
    ("email", "mail"),
    ("e-mail", "mail"),
];

/// Words of a query that also ask for another word: "open a pull request" asks to
/// create one, "show the open issues" to list them; the word itself stays in the query.
const ALSO_MEANS: &[(&str, &str)] = &[
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
    ("stop", "cancel"),
    ("people", "user"),
    ("person", "user"),
    ("who", "user member"),
    // What people call things that APIs name otherwise.
    ("text", "message"),
    ("texts", "message"),
    ("sms", "message"),
    ("ring", "call"),
    ("dial", "call"),
    ("buy", "purchase"),
    ("rid", "delete"),
    ("kick", "delete"),
    ("picture", "image media"),
    ("photo", "image media"),
    ("image", "media"),
    ("video", "media"),
    ("online", "presence"),
    ("offline", "presence"),
    ("money", "balance"),
    ("left", "remaining"),
    ("quota", "limit"),
    ("history", "log"),
    ("whenever", "webhook event"),
    ("attach", "upload"),
    ("pdf", "file"),
    ("csv", "file"),
    // The caller's own things are the authenticated, current user's.
    ("my", "authenticated current"),
    ("mine", "authenticated current"),
    ("am", "authenticated current"),
];

/// Words that mean more when a certain word follows: (word, followed by one of, also
/// means). "open a pull request" asks to create one; "the open issues" does not.
const PHRASES: &[(&str, &[&str], &str)] = &[
    ("open", &["a", "an", "new"], "create"),
    ("look", &["up", "for"], "search"),
    ("every", &["time"], "webhook event"),
];

/// Query words that ask to read rather than change.
const READING: &[&str] = &["list", "show", "get", "find", "search"];

/// Words that open a question: a question asks to read, whatever verb it uses ("which
/// files were changed" reads).
const ASKING: &[&str] = &[
    "what", "which", "who", "whom", "whose", "how", "where", "when", "is", "are", "does", "do",
    "did", "has", "have", "can",
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
const NAME_COVER_BONUS: f32 = 1.0;
const INTENT_BONUS: f32 = 0.25;

/// The shortest word a compound is split into.
const MIN_PART: usize = 3;

/// What a deprecated tool's score is multiplied by: it stays findable, below the tools
/// that replace it.
const DEPRECATED_FACTOR: f32 = 0.8;

/// How many of BM25's best the two signals reorder.
const RERANKED: usize = 100;

/// Splits text and identifiers into stemmed words.
#[derive(Clone)]
pub(crate) struct Words {
    stemmer: Arc<Stemmer>,
    /// The words a catalog uses on their own: a word made of two of them (`worklog`,
    /// `stacktrace`) is also indexed as its parts, so "time logged" finds a worklog.
    /// Empty while the catalog's own words are read.
    vocabulary: Arc<HashSet<String>>,
}

impl Default for Words {
    fn default() -> Self {
        Words {
            stemmer: Arc::new(Stemmer::create(Algorithm::English)),
            vocabulary: Arc::default(),
        }
    }
}

impl Words {
    /// Words that split compounds into the words `documents` use on their own.
    fn fitted_to(documents: &[String]) -> Words {
        let plain = Words::default();
        let vocabulary = documents
            .iter()
            .flat_map(|text| plain.tokenize(text))
            .filter(|word| word.len() >= MIN_PART)
            .collect();
        Words {
            vocabulary: Arc::new(vocabulary),
            ..plain
        }
    }

    /// The two words of the vocabulary `word` is made of, if it is made of two (the
    /// longest first part wins: `worklog` is work and log).
    fn parts<'w>(&self, word: &'w str) -> Option<(&'w str, &'w str)> {
        if self.vocabulary.is_empty() || word.len() < 2 * MIN_PART {
            return None;
        }
        (MIN_PART..=word.len() - MIN_PART)
            .rev()
            .filter_map(|at| Some((word.get(..at)?, word.get(at..)?)))
            .find(|(left, right)| {
                self.vocabulary.contains(*left) && self.vocabulary.contains(*right)
            })
    }

    fn push_word(&self, word: &str, out: &mut Vec<String>) {
        if word.is_empty() {
            return;
        }
        let lower = word.to_lowercase();
        if STOP_WORDS.contains(&lower.as_str()) {
            return;
        }
        let stem = self.stemmer.stem(&lower);
        // Who does a thing, and the doing, are named after it: a watcher watches, a
        // contributor contributes, an assignee is assigned, a reaction reacts (the
        // stemmer keeps these apart).
        let stem = ["er", "or", "e", "ion"]
            .iter()
            .find_map(|end| stem.strip_suffix(end).filter(|rest| rest.len() >= 5))
            .map_or(stem.as_ref(), |rest| rest);
        let stem = match SAME_WORDS.iter().find(|(from, _)| *from == stem) {
            Some((_, to)) => (*to).to_owned(),
            None => stem.to_owned(),
        };
        if let Some((left, right)) = self.parts(&stem) {
            out.push(left.to_owned());
            out.push(right.to_owned());
        }
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
    postings: Postings,
    /// Each tool's name as words.
    names: Vec<Vec<String>>,
    /// What each tool does, from its hints.
    intents: Vec<Intent>,
    /// Whether each tool is deprecated.
    deprecated: Vec<bool>,
    /// The catalog's words, for reading queries as its tools were read.
    words: Words,
}

impl SearchIndex {
    /// Index `tools`.
    pub(crate) fn build(tools: &[CatalogTool]) -> SearchIndex {
        let documents: Vec<String> = tools.iter().map(document).collect();
        let corpus: Vec<&str> = documents.iter().map(String::as_str).collect();
        let words = Words::fitted_to(&documents);
        let embedder =
            EmbedderBuilder::<u32, Words>::with_tokenizer_and_fit_to_corpus(words.clone(), &corpus)
                .build();
        let postings = Postings::build(documents.iter().map(|text| embedder.embed(text)));
        // Names as written, compounds whole: a compound counts once in the cover.
        let plain = Words::default();
        let names = tools
            .iter()
            .map(|tool| {
                let mut name = plain.tokenize(&tool.tool.name);
                name.dedup();
                name
            })
            .collect();
        let deprecated = tools.iter().map(is_deprecated).collect();
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
            postings,
            names,
            intents,
            deprecated,
            words,
        }
    }

    /// The positions of the tools that share a word with `query`, best first (ties in
    /// catalog order, so a ranking is the same every time).
    pub(crate) fn rank(&self, query: &str) -> Vec<usize> {
        let question = is_question(query);
        let query = expanded(&without_values(query));
        let embedding = self.embedder.embed(&query);
        let mut found = self.postings.scores(&embedding);
        found.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let best = found.first().map_or(0.0, |(_, score)| *score);
        // The query's words as written (lower-cased) and as indexed (stemmed).
        let lower = lower_words(&query);
        let words = self.words.tokenize(&query);
        let intent = if question {
            Intent::Read
        } else {
            intent_of(&lower, &words)
        };
        // A question, or a request to read, that names things in the plural asks for a
        // list ("what branches does the repo have?"); in the singular, for one of them.
        // A request to change with a verb we do not know, of "a" thing, makes one
        // ("leave a comment", "attach a screenshot").
        let implied = match intent {
            Intent::Read if plural_nouns(&lower) || asks_who(&lower) => Some("list"),
            Intent::Read => Some("get"),
            Intent::Change if !words.iter().any(|w| w == "updat") && has_article(&lower) => {
                Some("creat")
            }
            Intent::Change | Intent::Delete => None,
        };
        for (at, score) in found.iter_mut().take(RERANKED) {
            let name = self.names.get(*at).map(Vec::as_slice).unwrap_or_default();
            if !name.is_empty() {
                // A compound of the name is covered by either of its parts.
                let covered = name
                    .iter()
                    .filter(|w| {
                        words.contains(w)
                            || implied == Some(w.as_str())
                            || self.words.parts(w).is_some_and(|(left, right)| {
                                words.iter().any(|q| q == left || q == right)
                            })
                    })
                    .count();
                *score += best * NAME_COVER_BONUS * covered as f32 / name.len() as f32;
            }
            if self.intents.get(*at) == Some(&intent) {
                *score += best * INTENT_BONUS;
            }
            if self.deprecated.get(*at) == Some(&true) {
                *score *= DEPRECATED_FACTOR;
            }
        }
        found.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        found.into_iter().map(|(at, _)| at).collect()
    }
}

/// For each word, the tools whose text has it and the word's BM25 weight in each (the
/// `bm25` crate's term saturation and length normalisation), and the word's inverse
/// document frequency. A query then costs the tools that share its words, not every
/// candidate's whole text once per query word, as the crate's own scorer does.
struct Postings {
    tools: usize,
    words: HashMap<u32, (f32, Vec<(usize, f32)>)>,
}

impl Postings {
    fn build(embeddings: impl Iterator<Item = bm25::Embedding<u32>>) -> Postings {
        let mut words: HashMap<u32, (f32, Vec<(usize, f32)>)> = HashMap::new();
        let mut tools = 0;
        for (at, embedding) in embeddings.enumerate() {
            tools = at + 1;
            // A word repeated in one text has one weight there (its count is in it).
            let mut seen = HashSet::new();
            for word in embedding.iter() {
                if seen.insert(word.index) {
                    words
                        .entry(word.index)
                        .or_default()
                        .1
                        .push((at, word.value));
                }
            }
        }
        for (idf, postings) in words.values_mut() {
            let having = postings.len() as f32;
            *idf = (1.0 + (tools as f32 - having + 0.5) / (having + 0.5)).ln();
        }
        Postings { tools, words }
    }

    /// The BM25 score of every tool that shares a word with `query` (a word the query
    /// repeats counts each time), in no particular order.
    fn scores(&self, query: &bm25::Embedding<u32>) -> Vec<(usize, f32)> {
        let mut scores = vec![0.0_f32; self.tools];
        let mut touched = Vec::new();
        for word in query.indices() {
            let Some((idf, postings)) = self.words.get(word) else {
                continue;
            };
            for &(at, value) in postings {
                if let Some(score) = scores.get_mut(at) {
                    if *score == 0.0 {
                        touched.push(at);
                    }
                    *score += idf * value;
                }
            }
        }
        touched
            .into_iter()
            .map(|at| (at, scores.get(at).copied().unwrap_or_default()))
            .collect()
    }
}

/// `query` with the words its words also mean added: "open" asks to create when an
/// article follows ("open a pull request"), and is a state otherwise ("the open issues").
fn expanded(query: &str) -> String {
    let mut out = query.to_owned();
    let words = lower_words(query);
    for (at, lower) in words.iter().enumerate() {
        let next = words.get(at + 1).map(String::as_str).unwrap_or_default();
        let also = PHRASES
            .iter()
            .find(|(first, then, _)| first == lower && then.contains(&next))
            .map(|(_, _, also)| *also)
            .or_else(|| {
                ALSO_MEANS
                    .iter()
                    .find(|(w, _)| w == lower)
                    .map(|(_, also)| *also)
            });
        if let Some(also) = also {
            out.push(' ');
            out.push_str(also);
        }
    }
    out
}

/// `query` with its values replaced by the kind of thing they are: quoted text, numbers,
/// versions, paths and `owner/name` pairs say which thing to act on, not what to do
/// ("issue 17", "octo/app", "v1.2.0"), and go; but an address says what it addresses
/// ("dana@acme.com" is an email, "+14155550123" a phone number, "https://.." a URL,
/// "config.yml" a file, "#sales" a channel, "@jake" a user, ":tada:" an emoji), and
/// that word stays in its place.
fn without_values(query: &str) -> String {
    const OPEN: [char; 3] = ['"', '`', '\u{201c}'];
    const CLOSE: [char; 3] = ['"', '`', '\u{201d}'];
    let mut out = String::with_capacity(query.len());
    let mut quoted = false;
    for piece in query.split_whitespace() {
        let opens = piece.starts_with(OPEN);
        let closes = piece.chars().count() > 1
            && piece
                .trim_end_matches(['.', ',', '?', '!'])
                .ends_with(CLOSE);
        if quoted {
            quoted = !closes;
            continue;
        }
        if opens && !closes {
            quoted = true;
            continue;
        }
        if opens && closes {
            continue;
        }
        let bare = piece.trim_end_matches(['.', ',', '?', '!', ';', ')', '\'']);
        if let Some(kind) = kind_of_value(bare) {
            out.push_str(kind);
            out.push(' ');
            continue;
        }
        let word = piece.trim_matches(|c: char| !c.is_alphanumeric());
        let is_value = word.chars().any(|c| c.is_ascii_digit()) || word.contains(['/', '.', '_']);
        if !is_value {
            out.push_str(piece);
            out.push(' ');
        }
    }
    out
}

/// Endings of host names, which are not files' extensions ("acme.com").
const DOMAINS: &[&str] = &[
    "com", "org", "net", "io", "dev", "co", "app", "ai", "edu", "gov",
];

/// The kind of thing `value` addresses, as a word tools use for it, when its form says
/// so (see `without_values`).
fn kind_of_value(value: &str) -> Option<&'static str> {
    let letters = |text: &str| {
        text.chars().next().is_some_and(char::is_alphabetic)
            && text
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    if value.starts_with("http://") || value.starts_with("https://") {
        return Some("url");
    }
    if let Some((name, domain)) = value.split_once('@') {
        if !name.is_empty() && domain.contains('.') && !domain.ends_with('.') {
            return Some("email");
        }
        if name.is_empty() && letters(domain) {
            return Some("user");
        }
    }
    if let Some(number) = value.strip_prefix('+') {
        let digits = number.chars().filter(char::is_ascii_digit).count();
        if digits >= 7
            && number
                .chars()
                .all(|c| c.is_ascii_digit() || "-() ".contains(c))
        {
            return Some("phone number");
        }
    }
    if value.strip_prefix('#').is_some_and(letters) {
        return Some("channel");
    }
    if value.len() > 2
        && value.starts_with(':')
        && value.ends_with(':')
        && letters(value.trim_matches(':'))
    {
        return Some("emoji");
    }
    // A name with an extension of letters, alone or at the end of a path.
    let last = value.rsplit('/').next().unwrap_or(value);
    match last.rsplit_once('.') {
        Some((stem, extension))
            if stem.len() >= 2
                && (1..=5).contains(&extension.len())
                && extension.chars().all(|c| c.is_ascii_alphabetic())
                && !DOMAINS.contains(&extension.to_ascii_lowercase().as_str()) =>
        {
            Some("file")
        }
        _ => None,
    }
}

/// The words of `text` as written, lower-cased.
fn lower_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether a query (its `lower_words`) asks who (people, so a list), but not "who am I".
fn asks_who(words: &[String]) -> bool {
    words.first().is_some_and(|w| w == "who") && words.get(1).is_none_or(|w| w != "am")
}

/// Whether a query (its `lower_words`) speaks of "a" or "an" thing.
fn has_article(words: &[String]) -> bool {
    words.iter().any(|w| w == "a" || w == "an")
}

/// Whether `query` is a question: it ends with a question mark or opens with a word
/// that asks.
fn is_question(query: &str) -> bool {
    let query = query.trim();
    query.ends_with('?')
        || query
            .split(|c: char| !c.is_alphanumeric())
            .next()
            .is_some_and(|first| ASKING.contains(&first.to_lowercase().as_str()))
}

/// Whether a query (its `lower_words`) names something in the plural: a word longer
/// than three letters ending in `s` but not in `ss`, `us` or `is`, and not one of the few
/// common words that look so (a crude test that errs towards the singular).
fn plural_nouns(words: &[String]) -> bool {
    words.iter().any(|w| {
        w.len() > 3
            && w.ends_with('s')
            && !w.ends_with("ss")
            && !w.ends_with("us")
            && !w.ends_with("is")
            && !matches!(
                w.as_str(),
                "does" | "goes" | "always" | "perhaps" | "yes" | "less"
            )
    })
}

/// What a query (its `lower` words and its stemmed `words`) asks: to delete, to read,
/// or (an imperative that says neither) to change something.
fn intent_of(lower: &[String], words: &[String]) -> Intent {
    let has = |stem: &str| words.iter().any(|w| w == stem);
    if has("delet") {
        Intent::Delete
    } else if has("creat") || has("updat") {
        Intent::Change
    } else if lower.iter().any(|w| READING.contains(&w.as_str()))
        || has("get")
        || has("list")
        || has("search")
    {
        Intent::Read
    } else {
        Intent::Change
    }
}

/// Whether `tool` is deprecated: its description opens by saying so, as an older
/// version's does, and as the OpenAPI mapping writes for an operation the API marks
/// deprecated ("Deprecated by the API.").
fn is_deprecated(tool: &CatalogTool) -> bool {
    tool.tool.description.as_deref().is_some_and(|text| {
        text.trim_start_matches(|c: char| !c.is_alphanumeric())
            .get(..10)
            .is_some_and(|first| first.eq_ignore_ascii_case("deprecated"))
    })
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

    #[test]
    fn who_does_a_thing_and_the_doing_are_one_word_with_it() {
        let words = Words::default();
        assert_eq!(words.tokenize("watchers"), words.tokenize("watching"));
        assert_eq!(
            words.tokenize("contributors"),
            words.tokenize("contributed")
        );
        assert_eq!(words.tokenize("assignees"), words.tokenize("assign"));
        assert_eq!(words.tokenize("reactions"), words.tokenize("react"));
        // Short words keep their endings: a user is not "us", an order not "ord".
        assert_eq!(words.tokenize("user order"), ["user", "order"]);
    }

    #[test]
    fn values_are_left_out_of_the_query() {
        assert_eq!(
            without_values("Show me the open issues in the octo/app repository"),
            "Show me the open issues in the repository "
        );
        assert_eq!(
            without_values("Assign Bob to issue 17, then publish v1.2.0"),
            "Assign Bob to issue then publish "
        );
        assert_eq!(
            without_values("Comment \"the fix is deployed\" on the issue"),
            "Comment on the issue "
        );
        assert_eq!(without_values("Read src/main.rs"), "Read file ");
        assert_eq!(without_values("rename `old_name`"), "rename ");
    }

    #[test]
    fn an_address_says_what_kind_of_thing_it_is() {
        for (value, kind) in [
            ("dana@acme.com", Some("email")),
            ("@jake", Some("user")),
            ("+14155550123", Some("phone number")),
            ("https://example.com/hook", Some("url")),
            ("#sales", Some("channel")),
            ("#4821", None),
            (":tada:", Some("emoji")),
            ("config.yml", Some("file")),
            ("src/main.rs", Some("file")),
            ("acme.com", None),
            ("v1.2.0", None),
            ("e.g", None),
            ("octo/app", None),
        ] {
            assert_eq!(kind_of_value(value), kind, "{value}");
        }
        assert_eq!(
            without_values("Which user is dana@acme.com?"),
            "Which user is email "
        );
    }

    #[test]
    fn users_words_also_mean_the_words_apis_use() {
        assert!(expanded("text Ana").ends_with(" message"));
        assert!(expanded("look up Ana").ends_with(" search"));
        assert!(!expanded("look at the issue").contains("search"));
        assert!(expanded("every time someone pushes").ends_with(" webhook event"));
        assert!(expanded("list my repos").ends_with(" authenticated current"));
    }

    #[test]
    fn open_creates_only_before_an_article() {
        assert!(expanded("open a pull request").ends_with(" create"));
        assert!(!expanded("the open issues").contains("create"));
    }

    #[test]
    fn questions_plurals_and_articles_imply_the_missing_verb() {
        assert!(is_question(
            "Which files were changed in this pull request?"
        ));
        assert!(is_question("how many requests are left"));
        assert!(!is_question("Close issue 42"));
        let lower = |q: &str| lower_words(q);
        assert!(plural_nouns(&lower("What branches does the repo have")));
        assert!(!plural_nouns(&lower("Get the status of this repo")));
        assert!(!plural_nouns(&lower("does it pass")));
        assert!(asks_who(&lower("Who has starred this repository?")));
        assert!(!asks_who(&lower("Who am I logged in as?")));
        assert!(has_article(&lower("Leave a comment")));
        assert!(!has_article(&lower("Leave the comment")));
        let intent = |q: &str| intent_of(&lower(q), &Words::default().tokenize(q));
        assert_eq!(intent("Attach a screenshot"), Intent::Change);
        assert_eq!(intent("remove the label"), Intent::Delete);
        assert_eq!(intent("list the labels"), Intent::Read);
    }
}
