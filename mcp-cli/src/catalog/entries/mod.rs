//! The snapshot's parts compared: the server, and the tools, resources, resource templates
//! and prompts entry by entry (their schemas by [`schema`](super::schema)).
//!
//! Entries are keyed by name or URI, so a renamed tool, or a template whose URI template
//! changed, is one entry removed and another added; the removal is breaking, and its
//! message names the likely new key when one is evident.
//!
//! Here: the snapshot as a whole, the server, and what every kind of entry shares (its
//! descriptions, its `_meta`, members the diff does not know); each kind in its module.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::json::{child, same, show};
use super::{Change, Class};

mod prompts;
mod resources;
mod tools;

/// The `_meta` member of an entry listing the scopes a caller needs.
const SCOPES_META: &str = "rs.mcp-runtime/scopes";
/// The `_meta` member naming a tool's version.
const VERSION_META: &str = "rs.mcp-runtime/version";
/// The `_meta` member marking an older, deprecated version.
const DEPRECATED_META: &str = "rs.mcp-runtime/deprecated";
/// The `_meta` member listing a tool's tags.
const TAGS_META: &str = "rs.mcp-runtime/tags";

/// The snapshot format this version reads.
const FORMAT: u64 = 1;

/// The sections of a snapshot, in the order they are compared.
const SECTIONS: [&str; 4] = ["tools", "resources", "resourceTemplates", "prompts"];

/// The changes found, as they are found.
#[derive(Default)]
struct Out(Vec<Change>);

impl Out {
    fn push(&mut self, class: Class, pointer: impl Into<String>, message: impl Into<String>) {
        self.0.push(Change {
            class,
            pointer: pointer.into(),
            message: message.into(),
        });
    }
}

type Object = Map<String, Value>;

/// Every change from the snapshot `old` to `new`, in the order found.
pub fn snapshot(old: &Value, new: &Value) -> Vec<Change> {
    let mut out = Out::default();
    // Identical snapshots have nothing to report, whatever they hold.
    if same(old, new) {
        return out.0;
    }
    let (Some(o), Some(n)) = (old.as_object(), new.as_object()) else {
        out.push(
            Class::Unknown,
            "",
            "a snapshot is not a JSON object, so nothing in it can be compared",
        );
        return out.0;
    };
    format(o, n, &mut out);
    server(o.get("server"), n.get("server"), &mut out);
    for key in SECTIONS {
        let pointer = child("", key);
        let (a, b) = match (section(o, key), section(n, key)) {
            (Some(a), Some(b)) => (a, b),
            _ => {
                if !same_member(o, n, key) {
                    out.push(
                        Class::Unknown,
                        pointer,
                        format!("`{key}` is not an object keyed by name, so it cannot be compared"),
                    );
                }
                continue;
            }
        };
        match key {
            "tools" => tools::tools(&a, &b, &mut out),
            "resources" => resources::resources(&a, &b, &mut out),
            "resourceTemplates" => resources::templates(&a, &b, &mut out),
            _ => prompts::prompts(&a, &b, &mut out),
        }
    }
    for key in union_keys(o, n) {
        if key == "catalog" || key == "server" || SECTIONS.contains(&key) {
            continue;
        }
        if !same_member(o, n, key) {
            out.push(
                Class::Unknown,
                child("", key),
                format!("`{key}` changed, and this version does not know what it holds"),
            );
        }
    }
    out.0
}

/// The snapshot format: a snapshot of another format may hold what this one misreads.
fn format(o: &Object, n: &Object, out: &mut Out) {
    let unread = |m: &Object| match m.get("catalog") {
        None => None,
        Some(v) if v.as_u64() == Some(FORMAT) => None,
        Some(v) => Some(show(v)),
    };
    let (a, b) = (unread(o), unread(n));
    let which = match (&a, &b) {
        (None, None) => return,
        (Some(a), Some(b)) if a == b => format!("both snapshots are of format {a}"),
        (Some(a), None) => format!("the old snapshot is of format {a}"),
        (None, Some(b)) => format!("the new snapshot is of format {b}"),
        (Some(a), Some(b)) => format!("the snapshots are of formats {a} and {b}"),
    };
    out.push(
        Class::Unknown,
        "/catalog",
        format!("{which}, and this version reads format {FORMAT}: what they hold may be misread"),
    );
}

/// Who the server says it is: informational whatever changed.
fn server(a: Option<&Value>, b: Option<&Value>, out: &mut Out) {
    let pointer = "/server";
    let (Some(a), Some(b)) = (object_or_empty(a), object_or_empty(b)) else {
        if !same_value(a, b) {
            out.push(Class::Unknown, pointer, "`server` is not an object");
        }
        return;
    };
    for key in union_keys(&a, &b) {
        let (x, y) = (a.get(key), b.get(key));
        if same_value(x, y) {
            continue;
        }
        let message = match (key, x, y) {
            ("version" | "name", Some(x), Some(y)) => {
                format!("server {key} changed from {} to {}", show(x), show(y))
            }
            (_, None, Some(y)) => format!("server {key} {} added", show(y)),
            (_, Some(_), None) => format!("server {key} removed"),
            _ => format!("server {key} changed"),
        };
        out.push(Class::Informational, child(pointer, key), message);
    }
}

/// `_meta`: the scopes a caller needs (one more is breaking: callers without it are
/// refused), and what is informational (version, deprecation, tags, anything else).
fn meta(pointer: &str, a: Option<&Value>, b: Option<&Value>, out: &mut Out) {
    let (Some(a), Some(b)) = (object_or_empty(a), object_or_empty(b)) else {
        if !same_value(a, b) {
            out.push(Class::Unknown, pointer, "`_meta` is not an object");
        }
        return;
    };
    for key in union_keys(&a, &b) {
        let (x, y) = (a.get(key), b.get(key));
        if same_value(x, y) {
            continue;
        }
        let at = child(pointer, key);
        match key {
            SCOPES_META => scopes(&at, x, y, out),
            VERSION_META => out.push(
                Class::Informational,
                at,
                match (x, y) {
                    (Some(x), Some(y)) => {
                        format!("version changed from {} to {}", show(x), show(y))
                    }
                    (None, Some(y)) => format!("version {} declared", show(y)),
                    _ => "version no longer declared".to_owned(),
                },
            ),
            DEPRECATED_META => out.push(
                Class::Informational,
                at,
                match (x, y) {
                    (None, Some(_)) => "now marked deprecated",
                    (Some(_), None) => "no longer marked deprecated",
                    _ => "deprecation changed",
                },
            ),
            TAGS_META => {
                let names = |v: Option<&Value>| -> Vec<String> {
                    v.and_then(Value::as_array)
                        .map(|a| a.iter().map(show).collect())
                        .unwrap_or_default()
                };
                let (was, is) = (names(x), names(y));
                let gained: Vec<&String> = is.iter().filter(|t| !was.contains(t)).collect();
                let lost: Vec<&String> = was.iter().filter(|t| !is.contains(t)).collect();
                let mut message = "tags changed".to_owned();
                if !gained.is_empty() {
                    message.push_str(&format!("; added {}", join(&gained)));
                }
                if !lost.is_empty() {
                    message.push_str(&format!("; removed {}", join(&lost)));
                }
                out.push(Class::Informational, at, message);
            }
            _ => out.push(
                Class::Informational,
                at,
                format!("_meta {} changed", show(&Value::String(key.to_owned()))),
            ),
        }
    }
}

/// The names in a list of strings; none where absent, `None` where it is not one.
fn names(value: Option<&Value>) -> Option<Vec<&str>> {
    match value {
        None => Some(Vec::new()),
        Some(Value::Array(items)) => items.iter().map(Value::as_str).collect(),
        Some(_) => None,
    }
}

/// The scopes a caller needs: each one added refuses callers without it.
fn scopes(pointer: &str, a: Option<&Value>, b: Option<&Value>, out: &mut Out) {
    let (Some(was), Some(is)) = (names(a), names(b)) else {
        out.push(
            Class::Unknown,
            pointer,
            "the scopes are not a list of names, so which a caller needs cannot be told",
        );
        return;
    };
    for scope in is.iter().filter(|s| !was.contains(s)) {
        out.push(
            Class::Breaking,
            pointer,
            format!("scope `{scope}` now required: callers without it are refused"),
        );
    }
    for scope in was.iter().filter(|s| !is.contains(s)) {
        out.push(
            Class::Compatible,
            pointer,
            format!("scope `{scope}` no longer required: callers without it are accepted"),
        );
    }
}

/// A member that describes an entry (title, description, icons...): informational.
fn described(pointer: &str, member: &str, a: Option<&Value>, b: Option<&Value>, out: &mut Out) {
    if same_value(a, b) {
        return;
    }
    let message = match (member, a, b) {
        ("title" | "name", Some(x), Some(y)) => {
            format!("{member} changed from {} to {}", show(x), show(y))
        }
        (_, None, Some(_)) => format!("{member} added"),
        (_, Some(_), None) => format!("{member} removed"),
        _ => format!("{member} changed"),
    };
    out.push(Class::Informational, pointer, message);
}

/// A member this version does not know: if it changed, what that means is unknown.
fn unknown_member(
    pointer: &str,
    kind: &str,
    key: &str,
    member: &str,
    a: Option<&Value>,
    b: Option<&Value>,
    out: &mut Out,
) {
    if same_value(a, b) {
        return;
    }
    out.push(
        Class::Unknown,
        pointer,
        format!(
            "`{member}` of {kind} `{key}` changed, and this version does not know what it means \
             to callers"
        ),
    );
}

/// A section of a snapshot as an object; an absent or null one is empty, one of another
/// type cannot be read.
fn section<'v>(snapshot: &'v Object, key: &str) -> Option<Cow<'v, Object>> {
    object_or_empty(snapshot.get(key))
}

fn object_or_empty(value: Option<&Value>) -> Option<Cow<'_, Object>> {
    match value {
        None | Some(Value::Null) => Some(Cow::Owned(Map::new())),
        Some(Value::Object(map)) => Some(Cow::Borrowed(map)),
        Some(_) => None,
    }
}

/// The keys of two objects, those of the new one first, each once.
fn union_keys<'m>(a: &'m Object, b: &'m Object) -> Vec<&'m str> {
    let mut keys: Vec<&str> = b.keys().map(String::as_str).collect();
    for key in a.keys() {
        if !b.contains_key(key) {
            keys.push(key);
        }
    }
    keys
}

fn same_value(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => same(a, b),
        (None, None) => true,
        _ => false,
    }
}

fn same_member(a: &Object, b: &Object, key: &str) -> bool {
    same_value(a.get(key), b.get(key))
}

fn join(items: &[&String]) -> String {
    items
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}
