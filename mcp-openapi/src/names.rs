//! Names a document's operations, parameters and schemas take as tools, arguments and
//! Rust items: snake_case, ASCII, never a keyword, unique where they must be.

use heck::{ToShoutySnakeCase, ToSnakeCase, ToUpperCamelCase};

use crate::model::Method;

/// The longest tool name given: clients commonly cap names at 64 characters.
pub const MAX_TOOL_NAME: usize = 64;

/// A tool name from an `operationId`, or from the method and path when there is none.
pub(crate) fn tool_name(operation_id: Option<&str>, method: Method, path: &str) -> String {
    let base = operation_id
        .map(snake)
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| {
            let words: Vec<&str> = path
                .split('/')
                .map(|s| s.trim_matches(|c| c == '{' || c == '}'))
                .filter(|s| !s.is_empty())
                .collect();
            snake(&format!("{} {}", method.key(), words.join(" ")))
        });
    shorten(&base, MAX_TOOL_NAME)
}

/// A name as part of an environment variable's (`apiKey` is `API_KEY`): how the generated
/// `Api::from_env` and the runtime's serving mode name a security scheme's variables.
pub fn env_name(name: &str) -> String {
    name.to_shouty_snake_case()
}

/// `name`, or `name_2`, `name_3`, ... : the first one `taken` says is free, within `max`.
pub(crate) fn unique(name: &str, max: usize, taken: impl Fn(&str) -> bool) -> String {
    if !taken(name) {
        return name.to_owned();
    }
    (2..)
        .map(|i| {
            let suffix = format!("_{i}");
            format!(
                "{}{suffix}",
                shorten(name, max.saturating_sub(suffix.len()))
            )
        })
        .find(|candidate| !taken(candidate))
        .unwrap_or_else(|| name.to_owned())
}

/// snake_case ASCII: letters, digits and single underscores, starting with a letter.
pub(crate) fn snake(text: &str) -> String {
    let ascii: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { ' ' })
        .collect();
    let mut name = ascii.to_snake_case();
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, 'n');
        name.insert(1, '_');
    }
    name
}

/// An argument or field name: snake_case, and not a Rust keyword (`type` is `type_`).
pub(crate) fn field(text: &str) -> String {
    let mut name = snake(text);
    if name.is_empty() {
        name.push_str("value");
    }
    if is_keyword(&name) {
        name.push('_');
    }
    name
}

/// A type name: UpperCamelCase ASCII, starting with a letter.
pub fn type_name(text: &str) -> String {
    let ascii: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { ' ' })
        .collect();
    let mut name = ascii.to_upper_camel_case();
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, 'T');
    }
    if is_keyword(&name)
        || matches!(
            name.as_str(),
            "Self" | "Option" | "Result" | "String" | "Vec" | "Value" | "Box"
        )
    {
        name.push('_');
    }
    name
}

/// At most `max` characters, cut at an underscore where one is near the end.
fn shorten(name: &str, max: usize) -> String {
    if name.len() <= max {
        return name.to_owned();
    }
    let cut = &name[..max];
    match cut.rfind('_') {
        Some(at) if at > max / 2 => cut[..at].to_owned(),
        _ => cut.to_owned(),
    }
}

/// Rust's keywords, strict and reserved, in every edition.
pub(crate) fn is_keyword(name: &str) -> bool {
    matches!(
        name,
        "as" | "break"
            | "const"
            | "continue"
            | "crate"
            | "else"
            | "enum"
            | "extern"
            | "false"
            | "fn"
            | "for"
            | "if"
            | "impl"
            | "in"
            | "let"
            | "loop"
            | "match"
            | "mod"
            | "move"
            | "mut"
            | "pub"
            | "ref"
            | "return"
            | "self"
            | "Self"
            | "static"
            | "struct"
            | "super"
            | "trait"
            | "true"
            | "type"
            | "unsafe"
            | "use"
            | "where"
            | "while"
            | "async"
            | "await"
            | "dyn"
            | "abstract"
            | "become"
            | "box"
            | "do"
            | "final"
            | "macro"
            | "override"
            | "priv"
            | "typeof"
            | "unsized"
            | "virtual"
            | "yield"
            | "try"
            | "gen"
            | "union"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_come_from_operation_ids_or_the_route() {
        assert_eq!(
            tool_name(Some("listItems"), Method::Get, "/items"),
            "list_items"
        );
        assert_eq!(
            tool_name(Some("Items.Get-One"), Method::Get, "/x"),
            "items_get_one"
        );
        assert_eq!(
            tool_name(None, Method::Get, "/items/{itemId}/tags"),
            "get_items_item_id_tags"
        );
        assert_eq!(tool_name(Some("2fa"), Method::Post, "/x"), "n_2fa");
        assert_eq!(tool_name(Some("ß"), Method::Delete, "/a"), "delete_a");
        let long = "word_".repeat(30);
        let name = tool_name(Some(&long), Method::Get, "/");
        assert!(
            name.len() <= MAX_TOOL_NAME && !name.ends_with('_'),
            "{name}"
        );
    }

    #[test]
    fn unique_names_count_up_within_the_limit() {
        let taken = ["get", "get_2"];
        assert_eq!(unique("get", 64, |n| taken.contains(&n)), "get_3");
        assert_eq!(unique("abcdef", 6, |n| n == "abcdef"), "abcd_2");
    }

    #[test]
    fn fields_and_types_are_rust_identifiers() {
        assert_eq!(field("type"), "type_");
        assert_eq!(field("perPage"), "per_page");
        assert_eq!(field("X-Request-ID"), "x_request_id");
        assert_eq!(field("$filter"), "filter");
        assert_eq!(field("@"), "value");
        assert_eq!(type_name("item-list"), "ItemList");
        assert_eq!(type_name("200_response"), "T200Response");
        assert_eq!(type_name("Self"), "Self_");
    }
}
