//! The tools compared: each by name (a removal named as a likely rename), its schemas,
//! its annotations read as hints toward danger or safety, and how it runs (tasks).

use serde_json::Value;

use super::{
    described, meta, object_or_empty, same_value, union_keys, unknown_member, Object, Out,
};
use crate::catalog::json::{child, same, show};
use crate::catalog::schema::{self, Role};
use crate::catalog::Class;

/// The tools: by name; a removed one is breaking, and named as possibly renamed when
/// exactly one added tool is like it and it is the one removed tool like that one: the
/// same entry under another name, else the same input and output schemas, else the same
/// `inputSchema` (several tools taking no arguments tell nothing by that alone).
pub(super) fn tools(o: &Object, n: &Object, out: &mut Out) {
    let removed: Vec<&String> = o.keys().filter(|k| !n.contains_key(*k)).collect();
    let added: Vec<&String> = n.keys().filter(|k| !o.contains_key(*k)).collect();
    for name in &removed {
        let mut message = format!("tool `{name}` removed: calls to it fail");
        if let Some((renamed, why)) = renamed(name, o, n, &removed, &added) {
            message.push_str(&format!("; possibly renamed to `{renamed}`, {why}"));
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

/// The one added tool a removed one was likely renamed to, and why it seems so.
fn renamed<'n>(
    name: &str,
    o: &Object,
    n: &'n Object,
    removed: &[&String],
    added: &[&'n String],
) -> Option<(&'n str, &'static str)> {
    type Alike = fn(&Value, &Value) -> bool;
    let tiers: [(Alike, &'static str); 3] = [
        (
            |a, b| same_but_name(a, b),
            "which is the same tool under another name",
        ),
        (
            |a, b| {
                same_at(a, b, "inputSchema")
                    && same_at(a, b, "outputSchema")
                    && a.get("inputSchema").is_some()
            },
            "which has the same input and output schemas",
        ),
        (
            |a, b| same_at(a, b, "inputSchema") && a.get("inputSchema").is_some(),
            "which has the same inputSchema",
        ),
    ];
    let entry = o.get(name)?;
    for (alike, why) in tiers {
        let forward: Vec<&&String> = added
            .iter()
            .filter(|k| n.get(k.as_str()).is_some_and(|b| alike(entry, b)))
            .collect();
        if let [candidate] = forward.as_slice() {
            let back = removed
                .iter()
                .filter(|k| {
                    o.get(k.as_str())
                        .zip(n.get(candidate.as_str()))
                        .is_some_and(|(a, b)| alike(a, b))
                })
                .count();
            if back == 1 {
                return Some((candidate.as_str(), why));
            }
            return None;
        }
    }
    None
}

/// Whether two entries hold the same member `key` (both absent counts as the same).
fn same_at(a: &Value, b: &Value, key: &str) -> bool {
    match (a.get(key), b.get(key)) {
        (Some(x), Some(y)) => same(x, y),
        (None, None) => true,
        _ => false,
    }
}

/// Whether two entries are the same but for their `name`.
fn same_but_name(a: &Value, b: &Value) -> bool {
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        return false;
    };
    union_keys(a, b)
        .into_iter()
        .all(|key| key == "name" || a.get(key).zip(b.get(key)).is_some_and(|(x, y)| same(x, y)))
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
