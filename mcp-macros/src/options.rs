//! Attribute options shared by `#[tool]`, `#[resource]` and `#[prompt]`: `key`,
//! `key = value` and `key(inner = value, ..)`, with "did you mean" hints.
//!
//! Each macro declares its keys once with [`option_keys!`]; [`Reader::key`] turns the
//! written ident into that enum, so a macro's `match` over the enum must handle every key
//! it lists, and the "unknown option" message lists the same keys.

use proc_macro2::{Span, TokenStream};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Ident, Lit, LitStr, Token};

use crate::errors::Errors;

/// One `key`, `key = value` or `key(..)` inside an attribute.
pub struct RawOption {
    /// The key as written (any ident, keywords included).
    pub key: Ident,
    /// `key = value`: the value.
    pub value: Option<Expr>,
    /// `key(inner = value, ..)`: the inner options.
    pub nested: Option<Vec<RawOption>>,
    /// `key("a", "b")`: a list of string literals.
    pub strings: Option<Vec<LitStr>>,
}

impl Parse for RawOption {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let key: Ident = input.call(syn::ext::IdentExt::parse_any)?;
        if input.peek(syn::token::Paren) {
            let inner;
            syn::parenthesized!(inner in input);
            if inner.peek(LitStr) {
                let list = Punctuated::<LitStr, Token![,]>::parse_terminated(&inner)?;
                return Ok(RawOption {
                    key,
                    value: None,
                    nested: None,
                    strings: Some(list.into_iter().collect()),
                });
            }
            let list = Punctuated::<RawOption, Token![,]>::parse_terminated(&inner)?;
            return Ok(RawOption {
                key,
                value: None,
                nested: Some(list.into_iter().collect()),
                strings: None,
            });
        }
        let value = if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            Some(input.parse()?)
        } else {
            None
        };
        Ok(RawOption {
            key,
            value,
            nested: None,
            strings: None,
        })
    }
}

/// `"literal", options..`: the string an attribute starts with (a URI or a template) and
/// the options after it; `missing` is the error when the string is not there.
pub fn parse_after_string(
    input: ParseStream,
    missing: &str,
) -> syn::Result<(LitStr, Vec<RawOption>)> {
    let lead: LitStr = input
        .parse()
        .map_err(|e| syn::Error::new(e.span(), missing))?;
    let options = if input.is_empty() {
        Vec::new()
    } else {
        input.parse::<Token![,]>()?;
        parse_list(input)?
    };
    Ok((lead, options))
}

/// Parse a comma-separated option list.
pub fn parse_list(input: ParseStream) -> syn::Result<Vec<RawOption>> {
    Ok(Punctuated::<RawOption, Token![,]>::parse_terminated(input)?
        .into_iter()
        .collect())
}

/// The keys of one macro's options: an enum declared with [`option_keys!`], so the list
/// that messages print and the `match` that handles each key come from one declaration,
/// and the compiler reports a key that is listed but not handled.
pub trait Key: Copy + 'static {
    /// The attribute's name, for messages: `tool`, `resource` or `prompt`.
    const MACRO: &'static str;
    /// Every key with its spelling, in the order messages list them.
    const ALL: &'static [(Self, &'static str)];

    /// The key spelled `text`, if there is one.
    fn from_text(text: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .find(|(_, spelling)| *spelling == text)
            .map(|(key, _)| *key)
    }
}

/// Declare the option keys of one macro: an enum and its [`Key`] implementation, from one
/// list of `Variant = "spelling"` pairs.
macro_rules! option_keys {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident for $macro_name:literal {
            $($(#[$variant_meta:meta])* $variant:ident = $spelling:literal,)+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        $vis enum $name {
            $($(#[$variant_meta])* $variant,)+
        }

        impl $crate::options::Key for $name {
            const MACRO: &'static str = $macro_name;
            const ALL: &'static [(Self, &'static str)] = &[$(($name::$variant, $spelling)),+];
        }
    };
}
// Exported by path (`crate::options::option_keys`) so each macro's model can name it.
pub(crate) use option_keys;

/// Reads options one by one, reporting repeats, unknown keys and mistyped values.
pub struct Reader<'a, K> {
    /// Spellings rather than keys, so an unknown key written twice is reported as repeated.
    seen: Vec<String>,
    keys: std::marker::PhantomData<K>,
    /// Where the reader and its callers record problems.
    pub errors: &'a mut Errors,
}

/// Options of one attribute written on another, a mistake of someone who knows the other:
/// the attribute it was written on, the option, and where it belongs instead.
const ELSEWHERE: &[(&str, &str, &str)] = &[
    (
        "tool",
        "ttl",
        "`ttl` is an option of #[resource] and #[view] (how long clients may keep what they read); a tool's results are kept by Server::cache_responses(..)",
    ),
    (
        "tool",
        "cache",
        "`cache` is an option of #[resource] and #[view] (who may share what they read); a tool's results are kept by Server::cache_responses(..)",
    ),
    (
        "tool",
        "mime",
        "`mime` is an option of #[resource]; what a tool returns is said by its return type (Json<T>, String, Content, ..)",
    ),
    (
        "resource",
        "read_only",
        "a resource is read-only already; `read_only` is an option of #[tool]",
    ),
    (
        "prompt",
        "read_only",
        "a prompt changes nothing already; `read_only` is an option of #[tool]",
    ),
];

impl<'a, K: Key> Reader<'a, K> {
    /// A reader of the options of `K`'s macro that records problems in `errors`.
    pub fn new(errors: &'a mut Errors) -> Self {
        Reader {
            seen: Vec::new(),
            keys: std::marker::PhantomData,
            errors,
        }
    }

    /// The option's key, or `None` (with an error) when it is repeated or unknown.
    pub fn key(&mut self, option: &RawOption) -> Option<K> {
        let key = option.key.to_string();
        if self.seen.contains(&key) {
            self.errors
                .at(&option.key, format!("`{key}` is given twice"));
            return None;
        }
        self.seen.push(key.clone());
        if let Some(known) = K::from_text(&key) {
            return Some(known);
        }
        let spellings: Vec<&'static str> = K::ALL.iter().map(|(_, spelling)| *spelling).collect();
        // An option of another attribute says where it belongs, rather than suggest a
        // look-alike of this one's (`ttl` on a tool is not a misspelled `title`).
        let elsewhere = ELSEWHERE
            .iter()
            .find(|(on, option, _)| *on == K::MACRO && *option == key)
            .map(|(_, _, instead)| format!(": {instead}"));
        let hint = elsewhere.unwrap_or_else(|| {
            suggest(&key, &spellings)
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default()
        });
        self.errors.at(
            &option.key,
            format!(
                "unknown #[{}] option `{key}`{hint} (options: {})",
                K::MACRO,
                spellings.join(", ")
            ),
        );
        None
    }

    /// A `key = "text"` option.
    pub fn string(&mut self, option: &RawOption) -> Option<LitStr> {
        let key = &option.key;
        match &option.value {
            Some(Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            })) => Some(s.clone()),
            Some(other) => {
                self.errors.at(
                    other,
                    format!("`{key}` takes a string literal: {key} = \"..\""),
                );
                None
            }
            None => {
                self.errors
                    .at(key, format!("`{key}` needs a value: {key} = \"..\""));
                None
            }
        }
    }

    /// A flag: `key` or `key = true|false`.
    pub fn flag(&mut self, option: &RawOption) -> Option<bool> {
        let key = &option.key;
        match &option.value {
            None => Some(true),
            Some(Expr::Lit(ExprLit {
                lit: Lit::Bool(b), ..
            })) => Some(b.value),
            Some(other) => {
                self.errors.at(
                    other,
                    format!("`{key}` is a flag: write `{key}` or `{key} = false`"),
                );
                None
            }
        }
    }
}

/// The closest known option to a misspelled `key`.
pub fn suggest(key: &str, known: &[&'static str]) -> Option<&'static str> {
    let normalized = key.replace('-', "_").to_ascii_lowercase();
    let aliases = [
        ("readonly", "read_only"),
        ("openworld", "open_world"),
        ("desc", "description"),
        ("rename", "name"),
        ("mimetype", "mime"),
        ("mime_type", "mime"),
        ("completion", "complete"),
        ("completions", "complete"),
        ("scope", "scopes"),
        ("requires", "scopes"),
        ("cachescope", "cache"),
        ("clipboard", "clipboard_write"),
        ("connectdomains", "connect"),
        ("resourcedomains", "resource"),
        ("framedomains", "frame"),
        ("baseuridomains", "base_uri"),
        ("baseuri", "base_uri"),
        ("border", "prefers_border"),
        ("prefersborder", "prefers_border"),
    ];
    if let Some((_, to)) = aliases.iter().find(|(from, to)| {
        (normalized.replace('_', "") == *from || normalized == *from) && known.contains(to)
    }) {
        return known.iter().copied().find(|k| k == to);
    }
    known
        .iter()
        .map(|o| (distance(&normalized, o), *o))
        .filter(|(d, _)| *d <= 2)
        .min()
        .map(|(_, o)| o)
}

fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// `complete(arg = function, ..)`: the argument names and completer paths.
pub fn completers(option: &RawOption, errors: &mut Errors) -> Vec<(Ident, syn::Path)> {
    let Some(nested) = &option.nested else {
        errors.at(&option.key, "write `complete(argument = completer_fn, ..)`");
        return Vec::new();
    };
    let mut out: Vec<(Ident, syn::Path)> = Vec::new();
    for inner in nested {
        if out.iter().any(|(k, _)| *k == inner.key) {
            errors.at(
                &inner.key,
                format!("`{}` has a completer already", inner.key),
            );
            continue;
        }
        match &inner.value {
            Some(Expr::Path(p)) => out.push((inner.key.clone(), p.path.clone())),
            Some(other) => errors.at(
                other,
                format!("name a completer function: {} = my_completer", inner.key),
            ),
            None => errors.at(
                &inner.key,
                format!("name a completer function: {} = my_completer", inner.key),
            ),
        }
    }
    out
}

/// `scopes("a:read", "b")`: OAuth scope tokens, each checked (RFC 6749 section 3.3) and
/// reported at its own literal.
pub fn scopes(option: &RawOption, errors: &mut Errors) -> Vec<String> {
    let Some(strings) = &option.strings else {
        if option.nested.as_ref().is_some_and(Vec::is_empty) {
            errors.at(
                &option.key,
                "`scopes()` is empty: name at least one scope, or leave the option out",
            );
            return Vec::new();
        }
        errors.at(
            &option.key,
            "write the scopes a caller needs as strings: scopes(\"orders:read\", \"orders:write\")",
        );
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for lit in strings {
        let scope = lit.value();
        let valid = !scope.is_empty()
            && scope
                .bytes()
                .all(|b| b == 0x21 || (0x23..=0x5B).contains(&b) || (0x5D..=0x7E).contains(&b));
        if !valid {
            errors.at(
                lit,
                format!("`{scope}` is not an OAuth scope: use visible ASCII without spaces, `\"` or `\\`, such as \"orders:write\""),
            );
        } else if out.contains(&scope) {
            errors.at(lit, format!("scope `{scope}` is listed twice"));
        } else {
            out.push(scope);
        }
    }
    out
}

/// `tags("billing", "admin")`: labels a server enables, disables, shows and searches by,
/// each reported at its own literal when it is empty, holds a space, or is listed twice.
pub fn tags(option: &RawOption, errors: &mut Errors) -> Vec<String> {
    let form = "write the tags as strings: tags(\"billing\", \"admin\")";
    let Some(strings) = &option.strings else {
        if option.nested.as_ref().is_some_and(Vec::is_empty) {
            errors.at(
                &option.key,
                "`tags()` is empty: name at least one tag, or leave the option out",
            );
        } else {
            errors.at(&option.key, form);
        }
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for lit in strings {
        let tag = lit.value();
        if tag.is_empty() || tag.chars().any(|c| c.is_whitespace() || c.is_control()) {
            errors.at(
                lit,
                format!("`{tag}` is not a tag: use a word without spaces, such as \"billing\" or \"read-only\""),
            );
        } else if out.contains(&tag) {
            errors.at(lit, format!("tag `{tag}` is listed twice"));
        } else {
            out.push(tag);
        }
    }
    out
}

/// `timeout = "30s"`: a whole number and a unit (`ms`, `s`, `m`, `h`), in milliseconds;
/// at least one millisecond, at most a day.
pub fn duration(lit: &LitStr, errors: &mut Errors) -> Option<u64> {
    let text = lit.value();
    let digits = text.chars().take_while(char::is_ascii_digit).count();
    let (number, unit) = text.split_at(digits);
    let scale = match unit.trim() {
        "ms" => Some(1),
        "s" => Some(1_000),
        "m" | "min" => Some(60_000),
        "h" => Some(3_600_000),
        _ => None,
    };
    let ms = number
        .parse::<u64>()
        .ok()
        .zip(scale)
        .and_then(|(n, scale)| n.checked_mul(scale))
        .filter(|ms| (1..=86_400_000).contains(ms));
    if ms.is_none() {
        errors.at(
            lit,
            format!("`{text}` is not a timeout: write a whole number and a unit, such as \"500ms\", \"30s\", \"5m\" or \"1h\" (at most a day)"),
        );
    }
    ms
}

/// `version = "2"` or `"1.4"`: numbers joined by dots, compared number by number.
pub fn version(lit: &LitStr, errors: &mut Errors) -> Option<String> {
    let version = lit.value();
    let numeric = !version.is_empty()
        && version.split('.').all(|part| {
            !part.is_empty() && part.len() <= 9 && part.bytes().all(|b| b.is_ascii_digit())
        });
    if numeric {
        Some(version)
    } else {
        errors.at(
            lit,
            format!("`{version}` is not a tool version: write numbers joined by dots, such as \"2\" or \"1.4\" (the highest is served by default)"),
        );
        None
    }
}

/// A tool or prompt name (letters, digits, `_`, `.` and `-`, as the macros check) in
/// identifier characters that read as the name: for the duplicate detectors, whose name
/// rustc shows as it is. `.` and `-` are spelled out; a name that spells them out itself
/// (`a_dot_b` beside `a.b`) would be taken for the same, which no real pair of names does.
pub fn readable(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '_' => out.push(c),
            '.' => out.push_str("_dot_"),
            '-' => out.push_str("_dash_"),
            other => out.push_str(&format!("_x{:x}_", other as u32)),
        }
    }
    out
}

/// Encode a name into identifier characters, injectively.
pub fn encode(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else {
            out.push_str(&format!("_{:x}", c as u32));
        }
    }
    out
}

/// `Some("..")` / `None` tokens.
pub fn opt_str(value: &Option<String>) -> TokenStream {
    match value {
        Some(s) => quote::quote!(::core::option::Option::Some(#s)),
        None => quote::quote!(::core::option::Option::None),
    }
}

/// A span inside a string literal for the characters `range` of its value, when the
/// compiler can point there (it needs the literal to have no escapes); otherwise the whole
/// literal.
pub fn inner_span(lit: &LitStr, range: std::ops::Range<usize>) -> Span {
    let token = lit.token();
    let repr = token.to_string();
    // Only a plain "..." literal maps value offsets to source offsets one to one.
    if repr.starts_with('"') && !repr.contains('\\') {
        if let Some(span) = token.subspan(range.start + 1..range.end + 1) {
            return span;
        }
    }
    lit.span()
}

#[cfg(test)]
mod tests {
    use super::*;

    option_keys! {
        enum Sample for "sample" {
            First = "first",
            SecondKey = "second_key",
        }
    }

    #[test]
    fn keys_come_from_their_spelling() {
        for (key, spelling) in Sample::ALL {
            assert_eq!(Sample::from_text(spelling), Some(*key));
        }
        assert_eq!(Sample::from_text("third"), None);
    }

    #[test]
    fn unknown_keys_list_the_enum() {
        let mut errors = Errors::default();
        let option: RawOption = syn::parse_quote!(secondkey);
        assert_eq!(Reader::<Sample>::new(&mut errors).key(&option), None);
        let message = errors.finish().err().unwrap_or_default().to_string();
        assert!(
            message.contains("unknown #[sample] option `secondkey`; did you mean `second_key`? (options: first, second_key)"),
            "{message}"
        );
    }
}
