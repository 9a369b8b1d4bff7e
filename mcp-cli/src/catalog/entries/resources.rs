//! The resources and resource templates compared: by URI and by URI template.

use serde_json::Value;

use super::{described, meta, union_keys, unknown_member, Object, Out};
use crate::catalog::json::{child, same, show};
use crate::catalog::Class;

/// The resources: by URI.
pub(super) fn resources(o: &Object, n: &Object, out: &mut Out) {
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
pub(super) fn templates(o: &Object, n: &Object, out: &mut Out) {
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
