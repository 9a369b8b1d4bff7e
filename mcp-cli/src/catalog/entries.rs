//! The snapshot's parts compared: the server, and the tools, resources, resource templates
//! and prompts entry by entry (their schemas by [`schema`](super::schema)).
//!
//! Entries are keyed by name or URI, so a renamed tool, or a template whose URI template
//! changed, is one entry removed and another added; the removal is breaking, and its
//! message names the likely new key when one is evident.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::json::{child, same, show};
use super::schema::{self, Role};
use super::{Change, Class};

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
            "tools" => tools(&a, &b, &mut out),
            "resources" => resources(&a, &b, &mut out),
            "resourceTemplates" => templates(&a, &b, &mut out),
            _ => prompts(&a, &b, &mut out),
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

/// A tool entry's `inputSchema`.
fn input(entry: Option<&Value>) -> Option<&Value> {
    entry.and_then(|e| e.get("inputSchema"))
}

/// The tools: by name; a removed one is breaking, and named as possibly renamed when
/// exactly one added tool has its `inputSchema` and no other removed tool does.
fn tools(o: &Object, n: &Object, out: &mut Out) {
    let removed: Vec<&String> = o.keys().filter(|k| !n.contains_key(*k)).collect();
    let added: Vec<&String> = n.keys().filter(|k| !o.contains_key(*k)).collect();
    let twins = |schema: Option<&Value>, among: &[&String], section: &Object| -> Vec<String> {
        among
            .iter()
            .filter(|k| match (schema, input(section.get(k.as_str()))) {
                (Some(x), Some(y)) => same(x, y),
                _ => false,
            })
            .map(|k| (*k).clone())
            .collect()
    };
    for name in &removed {
        let schema = input(o.get(name.as_str()));
        let candidates = twins(schema, &added, n);
        let mut message = format!("tool `{name}` removed: calls to it fail");
        if let [renamed] = candidates.as_slice() {
            if twins(input(n.get(renamed.as_str())), &removed, o).len() == 1 {
                message.push_str(&format!(
                    "; possibly renamed to `{renamed}`, which has the same inputSchema"
                ));
            }
        }
        out.push(Class::Breaking, child("/tools", name), message);
    }
    for name in &added {
        out.push(
            Class::Compatible,
            child("/tools", name),
            format!("tool `{name}` added"),
        );
    }
    for (name, b) in n {
        if let Some(a) = o.get(name) {
            tool(name, a, b, out);
        }
    }
}

fn tool(name: &str, a: &Value, b: &Value, out: &mut Out) {
    let pointer = child("/tools", name);
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        if !same(a, b) {
            out.push(
                Class::Unknown,
                pointer,
                format!("tool `{name}` is not an object in one snapshot"),
            );
        }
        return;
    };
    for key in union_keys(a, b) {
        let (x, y) = (a.get(key), b.get(key));
        let at = child(&pointer, key);
        match key {
            "name" => {}
            "title" | "description" | "icons" => described(&at, key, x, y, out),
            "inputSchema" => match (x, y) {
                (Some(x), Some(y)) => out.0.extend(schema::compare(Role::Input, x, y, &at, &at)),
                (None, None) => {}
                _ => out.push(
                    Class::Unknown,
                    at,
                    format!(
                        "tool `{name}` has no inputSchema in the {} snapshot, so what it \
                         accepts cannot be compared",
                        if x.is_none() { "old" } else { "new" }
                    ),
                ),
            },
            "outputSchema" => match (x, y) {
                (Some(x), Some(y)) => out.0.extend(schema::compare(Role::Output, x, y, &at, &at)),
                (None, None) => {}
                (Some(_), None) => out.push(
                    Class::Breaking,
                    at,
                    format!(
                        "outputSchema of tool `{name}` removed: callers no longer get \
                         structured results they can rely on"
                    ),
                ),
                (None, Some(_)) => out.push(
                    Class::Compatible,
                    at,
                    format!("outputSchema of tool `{name}` added: results are now described"),
                ),
            },
            "annotations" => hints(&at, x, y, out),
            "_meta" => meta(&at, x, y, out),
            "execution" => execution(&at, x, y, out),
            _ => unknown_member(&at, "tool", name, key, x, y, out),
        }
    }
}

/// The behaviour hints, with MCP's defaults where a hint is absent: `readOnlyHint` false,
/// `destructiveHint` true and `idempotentHint` false (both meaningful only when the tool
/// is not read-only: a read-only tool destroys nothing and can be repeated), and
/// `openWorldHint` true. A hint toward more danger is breaking: callers that acted on the
/// old one (calling without confirmation, retrying) may now do harm.
fn hints(pointer: &str, old: Option<&Value>, new: Option<&Value>, out: &mut Out) {
    let (Some(a), Some(b)) = (object_or_empty(old), object_or_empty(new)) else {
        if !same_value(old, new) {
            out.push(Class::Unknown, pointer, "`annotations` is not an object");
        }
        return;
    };
    let (x, y) = match (Hints::of(&a), Hints::of(&b)) {
        (Ok(x), Ok(y)) => (x, y),
        (x, y) => {
            if !same_value(old, new) {
                let why = x.err().or(y.err()).unwrap_or_default();
                out.push(Class::Unknown, pointer, why);
            }
            return;
        }
    };
    let at = |key: &str| {
        if b.contains_key(key) || a.contains_key(key) {
            child(pointer, key)
        } else {
            pointer.to_owned()
        }
    };
    // How a hint's value came about, for the message: written, or its default.
    let said = |key: &str, value: bool| {
        if b.contains_key(key) {
            format!("{key} is {value}")
        } else {
            format!("{key} is absent, which means {value} here")
        }
    };
    if x.read_only != y.read_only {
        let key = "readOnlyHint";
        if y.read_only {
            out.push(
                Class::Compatible,
                at(key),
                format!("the tool now declares it does not change its environment ({key} is true)"),
            );
        } else {
            out.push(
                Class::Breaking,
                at(key),
                format!(
                    "the tool may now change its environment ({}): callers that called it \
                     freely as read-only may now cause effects",
                    said(key, false)
                ),
            );
        }
    }
    if x.destructive != y.destructive {
        let key = "destructiveHint";
        if y.destructive {
            out.push(
                Class::Breaking,
                at(key),
                format!(
                    "the tool may now make destructive changes ({}): callers that call it \
                     without confirmation may destroy data",
                    said(key, true)
                ),
            );
        } else {
            out.push(
                Class::Compatible,
                at(key),
                "the tool no longer declares it may make destructive changes",
            );
        }
    }
    if x.idempotent != y.idempotent {
        let key = "idempotentHint";
        if y.idempotent {
            out.push(
                Class::Compatible,
                at(key),
                "repeating a call of the tool now has no further effect",
            );
        } else {
            out.push(
                Class::Breaking,
                at(key),
                format!(
                    "repeating a call of the tool may now have further effect ({}): callers \
                     that retry may repeat what it does",
                    said(key, false)
                ),
            );
        }
    }
    if x.open_world != y.open_world {
        let key = "openWorldHint";
        if y.open_world {
            out.push(
                Class::Breaking,
                at(key),
                format!(
                    "the tool may now reach an open world of external entities ({}): what it \
                     touches is no longer closed",
                    said(key, true)
                ),
            );
        } else {
            out.push(
                Class::Compatible,
                at(key),
                "the tool now declares it works in a closed world (openWorldHint is false)",
            );
        }
    }
    for key in union_keys(&a, &b) {
        if Hints::KEYS.contains(&key) || same_value(a.get(key), b.get(key)) {
            continue;
        }
        out.push(
            Class::Informational,
            child(pointer, key),
            format!("annotation {key} changed"),
        );
    }
}

/// The hints as they apply, defaults and all.
struct Hints {
    read_only: bool,
    destructive: bool,
    idempotent: bool,
    open_world: bool,
}

impl Hints {
    const KEYS: [&'static str; 4] = [
        "readOnlyHint",
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
    ];

    fn of(map: &Object) -> Result<Hints, String> {
        let hint = |key: &str, default: bool| match map.get(key) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(format!("{key} is {}, not true or false", show(other))),
        };
        let read_only = hint("readOnlyHint", false)?;
        let destructive = hint("destructiveHint", true)?;
        let idempotent = hint("idempotentHint", false)?;
        Ok(Hints {
            read_only,
            destructive: !read_only && destructive,
            idempotent: read_only || idempotent,
            open_world: hint("openWorldHint", true)?,
        })
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

/// `execution.taskSupport`: whether a call may (`optional`), must (`required`) or must
/// not (`forbidden`, the default) run as a task. Taking away a way of calling breaks the
/// callers that used it.
fn execution(pointer: &str, a: Option<&Value>, b: Option<&Value>, out: &mut Out) {
    let (Some(a), Some(b)) = (object_or_empty(a), object_or_empty(b)) else {
        if !same_value(a, b) {
            out.push(Class::Unknown, pointer, "`execution` is not an object");
        }
        return;
    };
    for key in union_keys(&a, &b) {
        let (x, y) = (a.get(key), b.get(key));
        if same_value(x, y) {
            continue;
        }
        let at = child(pointer, key);
        if key != "taskSupport" {
            out.push(
                Class::Unknown,
                at,
                format!("execution {key} changed, and this version does not know what it means"),
            );
            continue;
        }
        let (Some(was), Some(is)) = (support(x), support(y)) else {
            out.push(
                Class::Unknown,
                at,
                "taskSupport holds a value this version does not know",
            );
            continue;
        };
        let (class, why) = match (was, is) {
            (_, "required") => (
                Class::Breaking,
                "calls that do not run as a task are refused",
            ),
            ("required", _) => (
                Class::Compatible,
                "calls as a task still work, and plain calls too",
            ),
            (_, "forbidden") => (Class::Breaking, "calls that run as a task are refused"),
            _ => (Class::Compatible, "calls may now also run as a task"),
        };
        out.push(
            class,
            at,
            format!("taskSupport changed from {was} to {is}: {why}"),
        );
    }
}

/// A `taskSupport` value, `forbidden` where absent; `None` for one not known.
fn support(value: Option<&Value>) -> Option<&str> {
    match value {
        None => Some("forbidden"),
        Some(Value::String(s)) if ["forbidden", "optional", "required"].contains(&s.as_str()) => {
            Some(s.as_str())
        }
        Some(_) => None,
    }
}

/// The resources: by URI.
fn resources(o: &Object, n: &Object, out: &mut Out) {
    for (uri, _) in o.iter().filter(|(k, _)| !n.contains_key(*k)) {
        out.push(
            Class::Breaking,
            child("/resources", uri),
            format!("resource `{uri}` removed: reading it fails"),
        );
    }
    for (uri, _) in n.iter().filter(|(k, _)| !o.contains_key(*k)) {
        out.push(
            Class::Compatible,
            child("/resources", uri),
            format!("resource `{uri}` added"),
        );
    }
    for (uri, b) in n {
        if let Some(a) = o.get(uri) {
            resource(&child("/resources", uri), "resource", uri, "uri", a, b, out);
        }
    }
}

/// The resource templates: by URI template. A changed template is a different key, so
/// it is a removal and an addition; when the removed and the added one are the only two
/// with their `name`, the messages say so.
fn templates(o: &Object, n: &Object, out: &mut Out) {
    let removed: Vec<&String> = o.keys().filter(|k| !n.contains_key(*k)).collect();
    let added: Vec<&String> = n.keys().filter(|k| !o.contains_key(*k)).collect();
    let name = |entry: Option<&Value>| entry.and_then(|e| e.get("name")).cloned();
    let named = |among: &[&String], section: &Object, wanted: &Option<Value>| -> Vec<String> {
        among
            .iter()
            .filter(|k| wanted.is_some() && name(section.get(k.as_str())) == *wanted)
            .map(|k| (*k).clone())
            .collect()
    };
    // The one removed template and the one added template sharing a name, paired.
    let partner =
        |key: &String, from: &Object, among: &[&String], to: &Object, back: &[&String]| {
            let wanted = name(from.get(key.as_str()));
            match named(among, to, &wanted).as_slice() {
                [other] if named(back, from, &wanted).len() == 1 => Some(other.clone()),
                _ => None,
            }
        };
    for key in &removed {
        let message = match partner(key, o, &added, n, &removed) {
            Some(other) => format!(
                "URI template `{key}` changed to `{other}`: a changed template is another \
                 key, so it shows as this removal and that addition, and URIs built from the \
                 old template may no longer resolve"
            ),
            None if !added.is_empty() => format!(
                "resource template `{key}` removed: URIs built from it may no longer resolve \
                 (if its URI template changed, it is another key: the new one shows as added)"
            ),
            None => format!(
                "resource template `{key}` removed: URIs built from it may no longer resolve"
            ),
        };
        out.push(Class::Breaking, child("/resourceTemplates", key), message);
    }
    for key in &added {
        let message = match partner(key, n, &removed, o, &added) {
            Some(other) => format!("resource template `{key}` added, replacing `{other}`"),
            None => format!("resource template `{key}` added"),
        };
        out.push(Class::Compatible, child("/resourceTemplates", key), message);
    }
    for (key, b) in n {
        if let Some(a) = o.get(key) {
            resource(
                &child("/resourceTemplates", key),
                "resource template",
                key,
                "uriTemplate",
                a,
                b,
                out,
            );
        }
    }
}

/// A resource or a resource template present in both snapshots. Its `mimeType` changed
/// is breaking: callers read the content as the type they were told.
#[allow(clippy::too_many_arguments)]
fn resource(
    pointer: &str,
    kind: &str,
    key: &str,
    key_member: &str,
    a: &Value,
    b: &Value,
    out: &mut Out,
) {
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        if !same(a, b) {
            out.push(
                Class::Unknown,
                pointer,
                format!("{kind} `{key}` is not an object in one snapshot"),
            );
        }
        return;
    };
    for member in union_keys(a, b) {
        let (x, y) = (a.get(member), b.get(member));
        let at = child(pointer, member);
        match member {
            m if m == key_member => {}
            "name" | "title" | "description" | "icons" | "size" | "annotations" => {
                described(&at, member, x, y, out)
            }
            "mimeType" => match (x, y) {
                (Some(x), Some(y)) if !same(x, y) => out.push(
                    Class::Breaking,
                    at,
                    format!(
                        "mimeType changed from {} to {}: callers that read the content as the \
                         old type may fail",
                        show(x),
                        show(y)
                    ),
                ),
                (None, Some(_)) | (Some(_), None) => described(&at, member, x, y, out),
                _ => {}
            },
            "_meta" => meta(&at, x, y, out),
            _ => unknown_member(&at, kind, key, member, x, y, out),
        }
    }
}

/// The prompts: by name.
fn prompts(o: &Object, n: &Object, out: &mut Out) {
    for (name, _) in o.iter().filter(|(k, _)| !n.contains_key(*k)) {
        out.push(
            Class::Breaking,
            child("/prompts", name),
            format!("prompt `{name}` removed: getting it fails"),
        );
    }
    for (name, _) in n.iter().filter(|(k, _)| !o.contains_key(*k)) {
        out.push(
            Class::Compatible,
            child("/prompts", name),
            format!("prompt `{name}` added"),
        );
    }
    for (name, b) in n {
        let Some(a) = o.get(name) else { continue };
        let pointer = child("/prompts", name);
        let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
            if !same(a, b) {
                out.push(
                    Class::Unknown,
                    pointer,
                    format!("prompt `{name}` is not an object in one snapshot"),
                );
            }
            continue;
        };
        for member in union_keys(a, b) {
            let (x, y) = (a.get(member), b.get(member));
            let at = child(&pointer, member);
            match member {
                "name" => {}
                "title" | "description" | "icons" => described(&at, member, x, y, out),
                "arguments" => arguments(&at, x, y, out),
                "_meta" => meta(&at, x, y, out),
                _ => unknown_member(&at, "prompt", name, member, x, y, out),
            }
        }
    }
}

/// A prompt's arguments, by name: the caller sends them, so one added as required, or
/// made required, or removed is breaking; one added as optional, or made optional, is
/// compatible.
fn arguments(pointer: &str, a: Option<&Value>, b: Option<&Value>, out: &mut Out) {
    let (Some(was), Some(is)) = (prompt_arguments(a), prompt_arguments(b)) else {
        if !same_value(a, b) {
            out.push(
                Class::Unknown,
                pointer,
                "the arguments are not a list of named objects, so they cannot be compared",
            );
        }
        return;
    };
    let find = |list: &[(usize, String, Object)], name: &str| {
        list.iter()
            .find(|(_, n, _)| n == name)
            .map(|(i, _, m)| (*i, m.clone()))
    };
    for (index, name, arg) in &is {
        let at = child(pointer, &index.to_string());
        let required = |m: &Object| m.get("required").and_then(Value::as_bool).unwrap_or(false);
        match find(&was, name) {
            None if required(arg) => out.push(
                Class::Breaking,
                at,
                format!("argument `{name}` added as required: calls without it are refused"),
            ),
            None => out.push(
                Class::Compatible,
                at,
                format!("optional argument `{name}` added: calls without it still work"),
            ),
            Some((_, old)) => {
                for member in union_keys(&old, arg) {
                    let (x, y) = (old.get(member), arg.get(member));
                    if same_value(x, y) {
                        continue;
                    }
                    let there = child(&at, member);
                    match member {
                        "name" => {}
                        "required" => match (required(&old), required(arg)) {
                            (false, true) => out.push(
                                Class::Breaking,
                                there,
                                format!(
                                    "argument `{name}` became required: calls without it are \
                                     refused"
                                ),
                            ),
                            (true, false) => out.push(
                                Class::Compatible,
                                there,
                                format!(
                                    "argument `{name}` is no longer required: calls that send \
                                     it still work"
                                ),
                            ),
                            _ => {
                                if !matches!(x, None | Some(Value::Bool(_)))
                                    || !matches!(y, None | Some(Value::Bool(_)))
                                {
                                    out.push(
                                        Class::Unknown,
                                        there,
                                        format!(
                                            "`required` of argument `{name}` is not true or false"
                                        ),
                                    );
                                }
                            }
                        },
                        "title" | "description" => described(&there, member, x, y, out),
                        _ => unknown_member(&there, "argument", name, member, x, y, out),
                    }
                }
            }
        }
    }
    for (index, name, _) in &was {
        if find(&is, name).is_none() {
            out.push(
                Class::Breaking,
                child(pointer, &index.to_string()),
                format!("argument `{name}` removed: calls that send it may be refused"),
            );
        }
    }
}

/// A prompt's arguments with their positions: none where the member is absent, `None`
/// where it is not a list of objects each with a name.
fn prompt_arguments(value: Option<&Value>) -> Option<Vec<(usize, String, Object)>> {
    match value {
        None => Some(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let map = item.as_object()?;
                let name = map.get("name")?.as_str()?;
                Some((i, name.to_owned(), map.clone()))
            })
            .collect(),
        Some(_) => None,
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
