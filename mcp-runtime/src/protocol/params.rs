//! The `params` object of a request or notification, `_meta` apart.
//!
//! `name` and `arguments`, which a `tools/call` (and a `prompts/get`) always carries, are
//! read into places of their own; every other member goes to a map. A call's params
//! therefore cost no member-name allocation and no map node of their own, and taking the
//! arguments out is a move.

use serde_json::{Map, Value};

/// The `params` of a request or notification, without `_meta`: a JSON object read as
/// it came, with the same `get`, `insert` and `remove` as a `serde_json::Map`.
///
/// ```
/// use mcp_runtime::protocol::Params;
/// use serde_json::json;
///
/// let mut params = Params::from_value(json!({"name": "add", "arguments": {"a": 2}, "x": 1}))
///     .unwrap();
/// assert_eq!(params.get("name"), Some(&json!("add")));
/// assert_eq!(params.remove("arguments"), Some(json!({"a": 2})));
/// assert_eq!(params.into_map(), json!({"name": "add", "x": 1}).as_object().unwrap().clone());
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Params {
    name: Option<Value>,
    arguments: Option<Value>,
    others: Map<String, Value>,
}

/// Where a member of `params` is kept: in a place of its own, or in the map of the
/// others. The envelope's reader asks this too, so that it copies no name with a place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    Name,
    Arguments,
    Other,
}

pub(crate) fn slot(key: &str) -> Slot {
    match key {
        "name" => Slot::Name,
        "arguments" => Slot::Arguments,
        _ => Slot::Other,
    }
}

impl Params {
    /// No members.
    pub fn new() -> Params {
        Params::default()
    }

    /// The params of an object; `None` for any other JSON value.
    pub fn from_value(value: Value) -> Option<Params> {
        match value {
            Value::Object(members) => Some(Params::from(members)),
            _ => None,
        }
    }

    /// The member `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match slot(key) {
            Slot::Name => self.name.as_ref(),
            Slot::Arguments => self.arguments.as_ref(),
            Slot::Other => self.others.get(key),
        }
    }

    /// The member `key`, to change in place.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        match slot(key) {
            Slot::Name => self.name.as_mut(),
            Slot::Arguments => self.arguments.as_mut(),
            Slot::Other => self.others.get_mut(key),
        }
    }

    /// Whether the member `key` is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Set the member `key`, giving back the value it replaced.
    pub fn insert(&mut self, key: String, value: Value) -> Option<Value> {
        match slot(&key) {
            Slot::Name => self.name.replace(value),
            Slot::Arguments => self.arguments.replace(value),
            Slot::Other => self.others.insert(key, value),
        }
    }

    /// Take the member `key` out.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        match slot(key) {
            Slot::Name => self.name.take(),
            Slot::Arguments => self.arguments.take(),
            Slot::Other => self.others.remove(key),
        }
    }

    /// Set the member in `place`, one with a place of its own (the envelope's reader,
    /// which has no member name to give); a later value wins, as in a JSON object.
    pub(crate) fn set_in_place(&mut self, place: Slot, value: Value) {
        match place {
            Slot::Name => self.name = Some(value),
            Slot::Arguments => self.arguments = Some(value),
            Slot::Other => {}
        }
    }

    /// Whether there are no members.
    pub fn is_empty(&self) -> bool {
        self.name.is_none() && self.arguments.is_none() && self.others.is_empty()
    }

    /// The members as a JSON object.
    pub fn into_map(self) -> Map<String, Value> {
        let Params {
            name,
            arguments,
            mut others,
        } = self;
        if let Some(name) = name {
            others.insert("name".to_owned(), name);
        }
        if let Some(arguments) = arguments {
            others.insert("arguments".to_owned(), arguments);
        }
        others
    }

    /// The members as a JSON object value.
    pub fn into_value(self) -> Value {
        Value::Object(self.into_map())
    }
}

impl From<Map<String, Value>> for Params {
    fn from(mut members: Map<String, Value>) -> Params {
        Params {
            name: members.remove("name"),
            arguments: members.remove("arguments"),
            others: members,
        }
    }
}

impl From<Params> for Map<String, Value> {
    fn from(params: Params) -> Map<String, Value> {
        params.into_map()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn members_in_their_own_places_read_as_a_map_would() {
        let object = json!({"name": "add", "arguments": {"a": 1}, "cursor": "c", "uri": "u"});
        let map = object.as_object().unwrap().clone();
        let mut params = Params::from_value(object).unwrap();
        for key in ["name", "arguments", "cursor", "uri", "absent"] {
            assert_eq!(params.get(key), map.get(key), "{key}");
            assert_eq!(params.contains_key(key), map.contains_key(key), "{key}");
        }
        assert_eq!(params.clone().into_map(), map);
        assert_eq!(params.insert("name".into(), json!("b")), Some(json!("add")));
        assert_eq!(params.insert("level".into(), json!("info")), None);
        *params.get_mut("arguments").unwrap() = json!({});
        assert_eq!(params.remove("name"), Some(json!("b")));
        assert_eq!(params.remove("name"), None);
        assert_eq!(
            params.into_value(),
            json!({"arguments": {}, "cursor": "c", "uri": "u", "level": "info"})
        );
        assert!(Params::new().is_empty());
        assert!(Params::from_value(json!([1])).is_none());
    }
}
