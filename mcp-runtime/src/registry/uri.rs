//! URI templates of `#[resource("scheme://path/<id>/<rest..>")]`: matching concrete URIs
//! safely, publishing them in RFC 6570 form, and finding templates that overlap.
//!
//! The macro checks the template's syntax at compile time and emits it pre-split into
//! [`Piece`]s, so the runtime never parses template text.
//!
//! Matching is exact and conservative:
//! - literal pieces (scheme, host, fixed path) compare byte for byte;
//! - `<name>` takes one non-empty path segment (no `/`, `?` or `#`);
//! - `<name..>` takes the non-empty rest of the URI, split on `/`;
//! - every value is percent-decoded exactly once and must be UTF-8; a segment that is
//!   empty, `.` or `..`, or that decodes to something containing `/`, `\` or NUL, makes
//!   the URI match nothing, so no value handed to a handler can climb out of its place.

/// One piece of a URI template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece {
    /// Text that must appear as is.
    Literal(&'static str),
    /// `<name>`: one path segment.
    Segment(&'static str),
    /// `<name..>`: the rest of the URI (always the last piece).
    Rest(&'static str),
}

/// The variables of a matched URI, percent-decoded, in template order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UriParams(Vec<(&'static str, String)>);

impl UriParams {
    /// The decoded value of variable `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// All variables as `(name, value)`.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &str)> {
        self.0.iter().map(|(n, v)| (*n, v.as_str()))
    }
}

/// Whether `pieces` has no variables (a static resource).
pub fn is_static(pieces: &[Piece]) -> bool {
    pieces.iter().all(|p| matches!(p, Piece::Literal(_)))
}

/// The RFC 6570 form published in `resources/templates/list`: `{name}` and `{+name}`.
pub fn rfc6570(pieces: &[Piece]) -> String {
    let mut out = String::new();
    for piece in pieces {
        match piece {
            Piece::Literal(text) => out.push_str(text),
            Piece::Segment(name) => {
                out.push('{');
                out.push_str(name);
                out.push('}');
            }
            Piece::Rest(name) => {
                out.push_str("{+");
                out.push_str(name);
                out.push('}');
            }
        }
    }
    out
}

/// Longest URI a read or completion may name. Real URIs are far shorter; the bound keeps
/// matching cheap whatever a client sends.
pub const MAX_URI_BYTES: usize = 16 * 1024;

/// Match `uri` against `pieces`, returning the decoded variables.
pub fn match_uri(pieces: &[Piece], uri: &str) -> Option<UriParams> {
    if uri.len() > MAX_URI_BYTES {
        return None;
    }
    let mut matcher = Matcher {
        params: Vec::new(),
        budget: MATCH_BUDGET,
    };
    if matcher.match_from(pieces, uri) {
        // Values were pushed innermost first.
        matcher.params.reverse();
        Some(UriParams(matcher.params))
    } else {
        None
    }
}

/// Steps one match may take. Templates have a handful of pieces, so real URIs need a few
/// dozen; a URI built to make the backtracking explode is simply not matched.
const MATCH_BUDGET: usize = 1024;

struct Matcher {
    params: Vec<(&'static str, String)>,
    budget: usize,
}

impl Matcher {
    fn match_from(&mut self, pieces: &[Piece], rest: &str) -> bool {
        if self.budget == 0 {
            return false;
        }
        self.budget -= 1;
        let Some((first, others)) = pieces.split_first() else {
            return rest.is_empty();
        };
        match first {
            Piece::Literal(text) => match rest.strip_prefix(text) {
                Some(after) => self.match_from(others, after),
                None => false,
            },
            Piece::Segment(name) => {
                let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
                // Where the value may end: at the segment's end when nothing follows, else
                // where the next literal occurs (shortest first, so with `.json` after the
                // variable the value ends where that literal can start).
                let cuts: Box<dyn Iterator<Item = usize> + '_> = match others.first() {
                    Some(Piece::Literal(next)) => Box::new(
                        rest.match_indices(next)
                            .map(|(at, _)| at)
                            .take_while(move |at| *at <= end),
                    ),
                    _ => Box::new(std::iter::once(end)),
                };
                for cut in cuts {
                    if cut == 0 || !rest.is_char_boundary(cut) {
                        continue;
                    }
                    let before = self.params.len();
                    // The rest is matched first, so each candidate value is decoded only
                    // when everything after it fits.
                    let Some((value, after)) = rest.split_at_checked(cut) else {
                        continue;
                    };
                    if self.match_from(others, after) {
                        if let Some(value) = decode_segment(value) {
                            self.params.push((name, value));
                            return true;
                        }
                    }
                    self.params.truncate(before);
                    if self.budget == 0 {
                        return false;
                    }
                }
                false
            }
            Piece::Rest(name) => {
                if !others.is_empty() || rest.is_empty() || rest.contains(['?', '#']) {
                    return false;
                }
                let mut decoded = Vec::new();
                for segment in rest.split('/') {
                    match decode_segment(segment) {
                        Some(value) => decoded.push(value),
                        None => return false,
                    }
                }
                self.params.push((name, decoded.join("/")));
                true
            }
        }
    }
}

/// Percent-decode one segment once; `None` for a segment a handler must never see.
fn decode_segment(raw: &str) -> Option<String> {
    if raw.is_empty() || raw == "." || raw == ".." {
        return None;
    }
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        if byte == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let text = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(text, 16).ok()?);
            i += 3;
        } else {
            out.push(byte);
            i += 1;
        }
    }
    let value = String::from_utf8(out).ok()?;
    if value == "." || value == ".." || value.contains(['/', '\\', '\0']) {
        return None;
    }
    Some(value)
}

/// Whether some URI matches both templates (so reads would be ambiguous).
///
/// Each template is read as a pattern over characters: literal characters, "one or more
/// characters other than `/ ? #`" for `<name>`, "one or more characters" for `<name..>`.
/// The patterns overlap when their product automaton can reach the end of both.
pub fn overlaps(a: &[Piece], b: &[Piece]) -> bool {
    let a = atoms(a);
    let b = atoms(b);
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![(0usize, 0usize)];
    while let Some((i, j)) = stack.pop() {
        if !seen.insert((i, j)) {
            continue;
        }
        if i == a.len() && j == b.len() {
            return true;
        }
        let (Some(x), Some(y)) = (a.get(i), b.get(j)) else {
            continue;
        };
        if !x.meets(y) {
            continue;
        }
        // Each side either stays on a repeating atom or moves past it.
        for di in x.next_steps() {
            for dj in y.next_steps() {
                stack.push((i + di, j + dj));
            }
        }
    }
    false
}

#[derive(Debug, Clone, Copy)]
enum Atom {
    Char(char),
    /// One or more characters other than `/ ? #` (entered once; may then repeat).
    Segment,
    /// One or more characters.
    Any,
}

impl Atom {
    fn meets(&self, other: &Atom) -> bool {
        let in_segment = |c: &char| !matches!(c, '/' | '?' | '#');
        match (self, other) {
            (Atom::Char(x), Atom::Char(y)) => x == y,
            (Atom::Char(c), Atom::Segment) | (Atom::Segment, Atom::Char(c)) => in_segment(c),
            _ => true,
        }
    }

    fn repeats(&self) -> bool {
        !matches!(self, Atom::Char(_))
    }

    /// After consuming one character here: 1 moves to the next atom, 0 stays (repeat).
    fn next_steps(&self) -> &'static [usize] {
        if self.repeats() {
            &[0, 1]
        } else {
            &[1]
        }
    }
}

fn atoms(pieces: &[Piece]) -> Vec<Atom> {
    let mut out = Vec::new();
    for piece in pieces {
        match piece {
            Piece::Literal(text) => out.extend(text.chars().map(Atom::Char)),
            Piece::Segment(_) => out.push(Atom::Segment),
            Piece::Rest(_) => out.push(Atom::Any),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use Piece::*;

    const DATA: &[Piece] = &[Literal("test://template/"), Segment("id"), Literal("/data")];
    const FILES: &[Piece] = &[Literal("file:///srv/"), Rest("path")];
    const REPORT: &[Piece] = &[Literal("reports://"), Segment("name"), Literal(".json")];

    fn get(pieces: &[Piece], uri: &str, name: &str) -> Option<String> {
        match_uri(pieces, uri).map(|p| p.get(name).unwrap_or_default().to_owned())
    }

    #[test]
    fn segments_match_one_segment_and_decode_once() {
        for (pieces, uri, name, value) in [
            (DATA, "test://template/123/data", "id", Some("123")),
            (DATA, "test://template/a%20b/data", "id", Some("a b")),
            // Decoded once: %2541 is "%41", not "A".
            (DATA, "test://template/%2541/data", "id", Some("%41")),
            (DATA, "test://template//data", "id", None),
            (DATA, "test://template/1/2/data", "id", None),
            (DATA, "test://template/1/data?x=1", "id", None),
            (DATA, "TEST://template/1/data", "id", None),
            (DATA, "test://template/1/datax", "id", None),
            (REPORT, "reports://q3.json", "name", Some("q3")),
            (REPORT, "reports://q3.v2.json", "name", Some("q3.v2")),
        ] {
            assert_eq!(get(pieces, uri, name).as_deref(), value, "{uri}");
        }
    }

    #[test]
    fn traversal_attempts_match_nothing() {
        for uri in [
            "test://template/../data",
            "test://template/./data",
            "test://template/%2e%2e/data",
            "test://template/%2E%2E/data",
            "test://template/a%2Fb/data",
            "test://template/a%5Cb/data",
            "test://template/a%00/data",
            "test://template/%zz/data",
            "test://template/%ff/data",
        ] {
            // S-219: dot segments, encoded separators and broken escapes match no template.
            assert_eq!(match_uri(DATA, uri), None, "{uri}");
        }
        for uri in [
            "file:///srv/../etc/passwd",
            "file:///srv/a/../../etc/passwd",
            "file:///srv/a/%2e%2e/%2e%2e/etc/passwd",
            "file:///srv/a//b",
            "file:///srv/a/",
            "file:///srv/",
            "file:///srv/a%2F..%2F..%2Fetc",
            "file:///srv/a/b?x",
        ] {
            assert_eq!(match_uri(FILES, uri), None, "{uri}");
        }
        assert_eq!(
            get(FILES, "file:///srv/a/b%20c.txt", "path").as_deref(),
            Some("a/b c.txt")
        );
    }

    #[test]
    fn hostile_uris_cost_a_bounded_number_of_steps() {
        // Many candidate ends for `<name>` before `.json`: only the last fits, and values
        // are decoded only once the rest matched.
        let uri = format!("reports://{}", "a.json".repeat(500));
        let matched = get(REPORT, &uri, "name");
        assert!(matched.is_some_and(|name| name.len() == uri.len() - "reports://".len() - 5));
        // Nested choices: more candidates than the step budget allows are not matched.
        let nested: &[Piece] = &[
            Literal("x://"),
            Segment("a"),
            Literal("."),
            Segment("b"),
            Literal("."),
            Segment("c"),
            Literal(".json"),
        ];
        let hostile = format!("x://{}", ".a".repeat(3_000));
        assert_eq!(match_uri(nested, &hostile), None);
        assert_eq!(get(nested, "x://1.2.3.json", "c").as_deref(), Some("3"));
        let long = format!("reports://{}", "a".repeat(MAX_URI_BYTES));
        assert_eq!(match_uri(REPORT, &long), None);
    }

    #[test]
    fn published_form_is_rfc6570() {
        assert_eq!(rfc6570(DATA), "test://template/{id}/data");
        assert_eq!(rfc6570(FILES), "file:///srv/{+path}");
        assert!(is_static(&[Literal("test://static-text")]));
        assert!(!is_static(DATA));
    }

    #[test]
    fn overlapping_templates_are_found() {
        let a: &[Piece] = &[Literal("db://"), Segment("table"), Literal("/rows")];
        let b: &[Piece] = &[Literal("db://users/"), Segment("x")];
        assert!(overlaps(a, b), "db://users/rows matches both");
        let c: &[Piece] = &[Literal("db://"), Segment("t"), Literal("/schema")];
        assert!(!overlaps(a, c));
        assert!(overlaps(FILES, &[Literal("file:///srv/"), Segment("name")]));
        assert!(!overlaps(DATA, REPORT));
        assert!(overlaps(DATA, DATA));
        let d: &[Piece] = &[Literal("x://"), Segment("a"), Literal("/"), Segment("b")];
        let e: &[Piece] = &[Literal("x://"), Segment("c")];
        assert!(!overlaps(d, e), "a segment never spans a slash");
    }
}
