//! The prompts compared: by name, and their arguments one by one.

use serde_json::Value;

use super::{described, meta, same_value, union_keys, unknown_member, Object, Out};
use crate::catalog::json::{child, same};
use crate::catalog::Class;

/// The prompts: by name.
pub(super) fn prompts(o: &Object, n: &Object, out: &mut Out) {
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
