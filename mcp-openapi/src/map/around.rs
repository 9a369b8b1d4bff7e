//! What the document says around its operations: their text for the model, their paging,
//! the credentials it takes and the server it is at.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{text_of, MAX_DESCRIPTION};
use crate::model::{Credential, Location, Method, Output, OutputKind, PageBy, Pagination, Param};
use crate::refs::follow;
use crate::schema::Schemas;

/// A title (the summary), the description the model reads, and the whole text when that
/// was shortened.
pub(super) fn describe(
    raw: &Map<String, Value>,
    method: Method,
    path: &str,
    deprecated: bool,
) -> (Option<String>, String, Option<String>) {
    let summary = text_of(raw.get("summary")).map(|s| plain(&s));
    let long = text_of(raw.get("description")).map(|d| plain(&d));
    // The summary is the tool's title, which clients show beside the description: the
    // description does not repeat it, unless it is all there is.
    let full = match (&summary, &long) {
        (_, Some(d)) => d.clone(),
        (Some(s), None) => s.clone(),
        (None, None) => format!("{} {path}", method.as_str()),
    };
    // A model should not pick an operation the API is retiring when another does the
    // job: the description says so first (and search ranks it below its equals).
    let full = if deprecated {
        format!("Deprecated by the API. {full}")
    } else {
        full
    };
    let short = shorten(&full, MAX_DESCRIPTION);
    let docs = (short != full).then_some(full);
    (summary, short, docs)
}

/// Text written as HTML (as many generated documents are: `<p>Creates a budget.</p>`) as
/// the plain text a model reads: paragraphs and line breaks kept, other tags dropped, the
/// common entities decoded. Text without tags is returned as it is.
pub(super) fn plain(text: &str) -> String {
    if !text.contains('<') || !text.contains('>') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        // A tag starts right after its `<` (`a < b` is text).
        let tag_like = rest[open + 1..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '/' || c == '!');
        if !tag_like {
            out.push('<');
            rest = &rest[open + 1..];
            continue;
        }
        let Some(close) = rest[open..].find('>') else {
            out.push_str(&rest[open..]);
            rest = "";
            break;
        };
        let tag = rest[open + 1..open + close].trim().to_ascii_lowercase();
        let name = tag
            .trim_start_matches('/')
            .split([' ', '/'])
            .next()
            .unwrap_or("");
        match name {
            "p" | "ul" | "ol" if tag.starts_with('/') => out.push_str("\n\n"),
            "br" => out.push('\n'),
            "li" if !tag.starts_with('/') => out.push_str("\n- "),
            _ => {}
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    let decoded = out
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&");
    // Spaces and empty lines the tags left, tidied.
    let lines: Vec<String> = decoded
        .lines()
        .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    let mut tidy = String::new();
    for line in lines {
        if line.is_empty() {
            if !tidy.ends_with("\n\n") && !tidy.is_empty() {
                tidy.push('\n');
            }
        } else {
            if !tidy.is_empty() && !tidy.ends_with('\n') {
                tidy.push('\n');
            }
            tidy.push_str(&line);
            tidy.push('\n');
        }
    }
    tidy.trim().to_owned()
}

/// The first paragraph, cut at the last sentence that fits in `max` characters.
pub(super) fn shorten(text: &str, max: usize) -> String {
    let paragraph = text.split("\n\n").next().unwrap_or(text).trim();
    let paragraph = paragraph.split_whitespace().collect::<Vec<_>>().join(" ");
    if paragraph.chars().count() <= max {
        return paragraph;
    }
    let cut: String = paragraph.chars().take(max).collect();
    match cut.rfind(". ") {
        Some(end) if end > max / 3 => cut[..=end].to_owned(),
        _ => {
            let at = cut.rfind(' ').unwrap_or(cut.len());
            format!("{}…", cut[..at].trim_end_matches([',', ';', ':']))
        }
    }
}

/// Recognisable paging: a `GET` answering a list (or an object holding one list) that
/// takes a page number, an offset, or a cursor the answer hands back. Anything less
/// certain is left to the API's own arguments.
pub(super) fn pagination(
    method: Method,
    params: &[Param],
    output: &Output,
    schemas: &mut Schemas<'_>,
) -> Option<Pagination> {
    if method != Method::Get {
        return None;
    }
    let OutputKind::Json { schema, .. } = &output.kind else {
        return None;
    };
    let answer = schemas.resolved(schema);
    let (items, item_schema, properties) = if has_type(&answer, "array") {
        (None, answer.get("items")?.clone(), None)
    } else {
        let properties = answer.get("properties")?.as_object()?.clone();
        let mut lists = properties
            .iter()
            .filter(|(_, p)| has_type(&schemas.resolved(p), "array"));
        let (name, list) = lists.next()?;
        if lists.next().is_some() {
            return None;
        }
        let list = schemas.resolved(list);
        (
            Some(name.clone()),
            list.get("items")?.clone(),
            Some(properties),
        )
    };
    let query = |names: &[&str], kind: &str| {
        params.iter().find(|p| {
            p.location == Location::Query
                && p.hidden.is_none()
                && has_type(&p.schema, kind)
                && names.contains(&squashed(&p.name).as_str())
        })
    };
    let integer = |param: Option<&Param>, key: &str| {
        param
            .and_then(|p| p.schema.get(key))
            .and_then(Value::as_i64)
    };
    let size = query(
        &[
            "perpage",
            "pagesize",
            "limit",
            "size",
            "count",
            "maxresults",
        ],
        "integer",
    );
    let by = if let Some(page) = query(&["page", "pagenumber", "pageno"], "integer") {
        PageBy::Page {
            page: page.name.clone(),
            first: integer(Some(page), "default")
                .or(integer(Some(page), "minimum"))
                .unwrap_or(1),
            size: size.map(|p| p.name.clone()),
            size_default: integer(size, "default"),
        }
    } else if let Some(offset) = query(&["offset", "skip"], "integer") {
        PageBy::Offset {
            offset: offset.name.clone(),
            limit: size.map(|p| p.name.clone()),
            limit_default: integer(size, "default"),
        }
    } else {
        let param = query(
            &[
                "cursor",
                "after",
                "pagetoken",
                "nexttoken",
                "startingafter",
                "continuationtoken",
                "marker",
            ],
            "string",
        )
        .filter(|p| !p.required)?;
        let next = properties.as_ref()?.iter().find(|(name, property)| {
            [
                "nextcursor",
                "next",
                "nextpagetoken",
                "nexttoken",
                "cursor",
                "continuationtoken",
                "nextmarker",
            ]
            .contains(&squashed(name).as_str())
                && has_type(&schemas.resolved(property), "string")
        })?;
        PageBy::Cursor {
            param: param.name.clone(),
            next: next.0.clone(),
        }
    };
    let pagination = Pagination {
        by,
        items,
        item_schema,
        total: properties.as_ref().and_then(|properties| {
            properties
                .iter()
                .find(|(name, property)| {
                    ["total", "totalcount", "totalitems", "totalresults"]
                        .contains(&squashed(name).as_str())
                        && has_type(&schemas.resolved(property), "integer")
                })
                .map(|(name, _)| name.clone())
        }),
    };
    // The framework's cursor is published as the argument `cursor`: no other argument
    // may have that name.
    let taken = params
        .iter()
        .any(|p| p.hidden.is_none() && p.argument == "cursor" && p.name != pagination.param());
    (!taken).then_some(pagination)
}

/// A name in lower case without `_` and `-`, to compare names written in any case.
fn squashed(name: &str) -> String {
    name.to_ascii_lowercase().replace(['_', '-'], "")
}

/// Whether `schema` says its values may be of JSON type `kind`.
fn has_type(schema: &Value, kind: &str) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == kind,
        Some(Value::Array(types)) => types.iter().any(|t| t == kind),
        _ => false,
    }
}

/// The credential schemes the document declares that the mapping knows how to send.
pub(super) fn credentials(document: &Value) -> BTreeMap<String, Credential> {
    let mut out = BTreeMap::new();
    let Some(schemes) = document
        .pointer("/components/securitySchemes")
        .and_then(Value::as_object)
    else {
        return out;
    };
    for (name, scheme) in schemes {
        let Ok(scheme) = follow(document, scheme) else {
            continue;
        };
        let credential = match scheme.get("type").and_then(Value::as_str) {
            Some("apiKey") => {
                let location = match scheme.get("in").and_then(Value::as_str) {
                    Some("header") => Location::Header,
                    Some("query") => Location::Query,
                    Some("cookie") => Location::Cookie,
                    _ => continue,
                };
                let Some(key) = scheme.get("name").and_then(Value::as_str) else {
                    continue;
                };
                Credential::ApiKey {
                    location,
                    name: key.to_owned(),
                }
            }
            Some("http") => match scheme
                .get("scheme")
                .and_then(Value::as_str)
                .map(str::to_ascii_lowercase)
                .as_deref()
            {
                Some("bearer") => Credential::Bearer,
                Some("basic") => Credential::Basic,
                _ => continue,
            },
            Some("oauth2" | "openIdConnect") => Credential::Bearer,
            _ => continue,
        };
        out.insert(name.clone(), credential);
    }
    out
}

/// The first server's URL with its variables at their defaults.
pub(super) fn base_url(document: &Value) -> Option<String> {
    let server = document.pointer("/servers/0")?;
    let mut url = server.get("url")?.as_str()?.to_owned();
    if let Some(variables) = server.get("variables").and_then(Value::as_object) {
        for (name, variable) in variables {
            if let Some(default) = variable.get("default").and_then(Value::as_str) {
                url = url.replace(&format!("{{{name}}}"), default);
            }
        }
    }
    Some(url.trim_end_matches('/').to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_descriptions_become_plain_text() {
        assert_eq!(
            plain("<p>Creates a budget.</p> <important> <p>Only one of <code>A</code> &amp; <code>B</code>.</p> </important>"),
            "Creates a budget.\n\nOnly one of A & B."
        );
        assert_eq!(
            plain("<ul> <li> <p>one</p> </li> <li>two</li> </ul>"),
            "- one\n\n- two"
        );
        assert_eq!(plain("a < b and c > d"), "a < b and c > d");
        assert_eq!(plain("no tags at all"), "no tags at all");
        assert_eq!(plain("cut <b"), "cut <b");
    }

    #[test]
    fn a_deprecated_operation_says_so_first() {
        let raw = serde_json::json!({"summary": "List teams", "description": "Lists the teams."});
        let raw = raw.as_object().cloned().unwrap_or_default();
        let (_, kept, _) = describe(&raw, Method::Get, "/teams", false);
        assert_eq!(kept, "Lists the teams.");
        let (title, retired, _) = describe(&raw, Method::Get, "/teams", true);
        assert_eq!(retired, "Deprecated by the API. Lists the teams.");
        assert_eq!(title.as_deref(), Some("List teams"));
    }
}
