//! The keywords about a string's text: `pattern`, and `format`, which validators check
//! only for the formats a standard defines.

use serde_json::Value;

use super::node::{at, Node};
use super::{Dir, Finding};
use crate::catalog::json::{same, show};

/// Compare `pattern`. Whether one regular expression matches more strings than another
/// cannot be told here, so a changed pattern is unknown.
pub(super) fn pattern(o: &Node<'_>, n: &Node<'_>) -> Option<Finding> {
    let keyword = "pattern";
    let pointer = at(o, n, keyword);
    match (o.get(keyword), n.get(keyword)) {
        (None, None) => None,
        (Some(a), Some(b)) if same(a, b) => None,
        (None, Some(b)) => Some(Finding::new(
            Dir::Narrower,
            pointer,
            format!("pattern {} added", show(b)),
        )),
        (Some(a), None) => Some(Finding::new(
            Dir::Wider,
            pointer,
            format!("pattern {} removed", show(a)),
        )),
        (Some(a), Some(b)) => Some(Finding::new(
            Dir::Unknown,
            pointer,
            format!(
                "pattern changed from {} to {}: cannot tell whether it accepts more or fewer \
                 strings",
                show(a),
                show(b)
            ),
        )),
    }
}

/// The formats a standard defines, which a validator may check: JSON Schema's (2020-12)
/// and OpenAPI's for numbers and base64 text. Any other (`path`, `google-datetime`) is a
/// name for readers alone.
const CHECKED_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
    "int32",
    "int64",
    "float",
    "double",
    "byte",
];

/// Compare `format`: one added constrains, one removed frees, one changed does both.
/// A format no standard defines constrains nothing, so a change to it is informational.
pub(super) fn format(o: &Node<'_>, n: &Node<'_>) -> Option<Finding> {
    let keyword = "format";
    let pointer = at(o, n, keyword);
    let checked = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .is_some_and(|f| CHECKED_FORMATS.contains(&f))
    };
    let (a, b) = (o.get(keyword), n.get(keyword));
    if (a.is_some() || b.is_some()) && !checked(a) && !checked(b) {
        return match (a, b) {
            (Some(a), Some(b)) if same(a, b) => None,
            (a, b) => {
                let what = match (a, b) {
                    (Some(a), Some(b)) => format!("format changed from {} to {}", show(a), show(b)),
                    (Some(a), None) => format!("format {} removed", show(a)),
                    (None, b) => format!("format {} added", b.map_or_else(String::new, show)),
                };
                Some(Finding::new(
                    Dir::Note,
                    pointer,
                    format!("{what}; no standard defines it, so validators do not check it"),
                ))
            }
        };
    }
    match (a, b) {
        (None, None) => None,
        (Some(a), Some(b)) if same(a, b) => None,
        (None, Some(b)) => Some(Finding::new(
            Dir::Narrower,
            pointer,
            format!("format {} added", show(b)),
        )),
        (Some(a), None) => Some(Finding::new(
            Dir::Wider,
            pointer,
            format!("format {} removed", show(a)),
        )),
        // One that validators check replaced by one they do not: the check is gone.
        (Some(a), Some(b)) if !checked(Some(b)) => Some(Finding::new(
            Dir::Wider,
            pointer,
            format!(
                "format changed from {} to {}, which no standard defines: values are no \
                 longer checked against {}",
                show(a),
                show(b),
                show(a)
            ),
        )),
        (Some(a), Some(b)) if !checked(Some(a)) => Some(Finding::new(
            Dir::Narrower,
            pointer,
            format!(
                "format changed from {}, which no standard defines, to {}, which validators \
                 check",
                show(a),
                show(b)
            ),
        )),
        (Some(a), Some(b)) => Some(Finding::new(
            Dir::Both,
            pointer,
            format!("format changed from {} to {}", show(a), show(b)),
        )),
    }
}
