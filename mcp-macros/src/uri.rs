//! The URI template syntax of `#[resource("...")]`, checked at compile time: `<id>` /
//! `<path..>` to pieces, with the byte range of every problem for pointing inside the literal.
//!
//! `<name>` is one path segment, `<name..>` the rest of the URI; everything else is
//! literal. The template must start with a scheme (`orders://`, `file:///`).

use std::ops::Range;

/// A piece of a parsed template, with its byte range in the literal's value.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    Literal(String),
    Segment(String, Range<usize>),
    Rest(String, Range<usize>),
}

impl Piece {
    /// A variable's name and its byte range in the template; `None` for literal text.
    pub fn var(&self) -> Option<(&str, &Range<usize>)> {
        match self {
            Piece::Segment(name, range) | Piece::Rest(name, range) => Some((name, range)),
            Piece::Literal(_) => None,
        }
    }
}

/// A syntax problem at a byte range of the template.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub range: Range<usize>,
    pub message: String,
}

fn problem(range: Range<usize>, message: impl Into<String>) -> Problem {
    Problem {
        range,
        message: message.into(),
    }
}

/// Split `text` into pieces, or report every problem found.
pub fn parse(text: &str) -> Result<Vec<Piece>, Vec<Problem>> {
    let mut problems = Vec::new();
    let scheme_end = text.find(':').unwrap_or(0);
    let scheme = &text[..scheme_end];
    let valid_scheme = !scheme.is_empty()
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !valid_scheme {
        problems.push(problem(
            0..scheme_end.max(1).min(text.len().max(1)),
            "a resource URI starts with a scheme such as `orders://` or `file:///` (RFC 3986)",
        ));
    }

    let mut pieces: Vec<Piece> = Vec::new();
    let mut literal = String::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '<' => {
                let Some(close) = text[i..].find('>').map(|o| i + o) else {
                    problems.push(problem(
                        i..text.len(),
                        "`<` opens a variable that is never closed with `>`",
                    ));
                    break;
                };
                let inner = &text[i + 1..close];
                let range = i..close + 1;
                let (name, rest) = match inner.strip_suffix("..") {
                    Some(name) => (name, true),
                    None => (inner, false),
                };
                if name.is_empty() {
                    problems.push(problem(
                        range.clone(),
                        "a variable needs a name: `<id>` or `<path..>`",
                    ));
                } else if !is_ident(name) {
                    problems.push(problem(
                        range.clone(),
                        format!("`{name}` is not a valid variable name: use a Rust identifier such as `<id>`"),
                    ));
                }
                if !literal.is_empty() {
                    pieces.push(Piece::Literal(std::mem::take(&mut literal)));
                } else if pieces.last().is_some_and(|p| p.var().is_some()) {
                    problems.push(problem(
                        range.clone(),
                        "two variables in a row cannot be told apart: put literal text between them",
                    ));
                }
                if rest {
                    pieces.push(Piece::Rest(name.to_owned(), range));
                } else {
                    pieces.push(Piece::Segment(name.to_owned(), range));
                }
                while chars.peek().is_some_and(|(j, _)| *j <= close) {
                    chars.next();
                }
            }
            '>' => problems.push(problem(i..i + 1, "`>` without a matching `<`")),
            '{' | '}' => {
                let end = if c == '{' {
                    text[i..].find('}').map(|o| i + o + 1).unwrap_or(i + 1)
                } else {
                    i + 1
                };
                problems.push(problem(
                    i..end,
                    "write variables as `<name>` (one segment) or `<name..>` (the rest); the `{name}` form is what clients see",
                ));
                while chars.peek().is_some_and(|(j, _)| *j < end) {
                    chars.next();
                }
            }
            c if c.is_whitespace() || c.is_control() => problems.push(problem(
                i..i + c.len_utf8(),
                "a URI cannot contain whitespace or control characters; percent-encode them",
            )),
            c => literal.push(c),
        }
    }
    if !literal.is_empty() {
        pieces.push(Piece::Literal(literal));
    }

    let mut seen: Vec<&str> = Vec::new();
    for (index, piece) in pieces.iter().enumerate() {
        if let Some((name, range)) = piece.var() {
            if seen.contains(&name) {
                problems.push(problem(
                    range.clone(),
                    format!("variable `{name}` appears twice"),
                ));
            }
            seen.push(name);
            if range.start <= scheme_end && valid_scheme {
                problems.push(problem(range.clone(), "the scheme cannot be a variable"));
            }
            if matches!(piece, Piece::Rest(..)) && index + 1 != pieces.len() {
                problems.push(problem(
                    range.clone(),
                    format!("`<{name}..>` takes the rest of the URI, so it must come last"),
                ));
            }
        }
    }
    if problems.is_empty() {
        Ok(pieces)
    } else {
        Err(problems)
    }
}

fn is_ident(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name != "_"
}

/// `text` with a caret line under `range`, for messages (stable Rust cannot point inside
/// a string literal).
pub fn caret(text: &str, range: &Range<usize>) -> String {
    let before = text[..range.start.min(text.len())].chars().count();
    let width = text[range.start.min(text.len())..range.end.min(text.len())]
        .chars()
        .count()
        .max(1);
    format!(
        "\n    {text}\n    {}{}",
        " ".repeat(before),
        "^".repeat(width)
    )
}

/// The shape of a template, variable names erased: two resources with one shape serve
/// the same URIs.
pub fn shape(pieces: &[Piece]) -> String {
    pieces
        .iter()
        .map(|p| match p {
            Piece::Literal(text) => text.clone(),
            Piece::Segment(..) => "<>".to_owned(),
            Piece::Rest(..) => "<..>".to_owned(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn good_templates_split() {
        assert_eq!(
            parse("test://template/<id>/data").unwrap(),
            vec![
                Piece::Literal("test://template/".into()),
                Piece::Segment("id".into(), 16..20),
                Piece::Literal("/data".into()),
            ]
        );
        assert_eq!(parse("file:///<path..>").unwrap().len(), 2);
        assert_eq!(parse("test://static-text").unwrap().len(), 1);
    }

    #[test]
    fn bad_templates_are_reported_where_they_are() {
        let errs = |t: &str| parse(t).unwrap_err();
        assert_eq!(errs("x://<id")[0].range, 4..7);
        assert_eq!(errs("x://<>/a")[0].range, 4..6);
        assert!(errs("x://<a..>/b")[0].message.contains("must come last"));
        assert!(errs("x://<a>/<a>")[0].message.contains("twice"));
        assert!(errs("x://{id}")[0].message.contains("`<name>`"));
        // S-211: a URI starts with an RFC 3986 scheme: a letter, then letters, digits, `+`,
        // `-` or `.`.
        assert!(errs("no-scheme/<id>")[0].message.contains("scheme"));
        assert!(errs("or_ders://<id>")[0].message.contains("scheme"));
        assert!(errs("x://<a><b>")[0].message.contains("in a row"));
        assert!(errs("x://a b")[0].message.contains("whitespace"));
        assert!(errs("x://<1a>")[0]
            .message
            .contains("not a valid variable name"));
    }
}
