//! A schema as the comparison sees it ([`Node`]: where it is, and what was made of it),
//! the JSON types as a set of bits, and the small readings every keyword comparison
//! shares.

use std::borrow::Cow;

use serde_json::Value;

use crate::catalog::json::{child, same, show};

/// Keywords that describe a value without constraining it: a change to one is
/// informational. `x-` keywords (vendor annotations) are among them too.
const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "$id",
    "$anchor",
    "$dynamicAnchor",
    // The content vocabulary annotates strings; validators do not assert it (2020-12).
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
];

/// Keywords read only where something else leads to them (`$defs` through `$ref`) or
/// compared apart (`$schema`): beside a `$ref` or a union they do not stop it from being
/// followed.
pub(super) const STRUCTURAL: &[&str] = &["$defs", "definitions", "$schema"];

/// The JSON types as bits, so a `type` keyword is a set.
pub(super) const NULL: u8 = 1;

const BOOLEAN: u8 = 2;

pub(super) const OBJECT: u8 = 4;

pub(super) const ARRAY: u8 = 8;

pub(super) const NUMBER: u8 = 16;

pub(super) const INTEGER: u8 = 32;

pub(super) const STRING: u8 = 64;

pub(super) const ANY: u8 = 127;

pub(super) const TYPE_NAMES: [(u8, &str); 7] = [
    (NULL, "null"),
    (BOOLEAN, "boolean"),
    (OBJECT, "object"),
    (ARRAY, "array"),
    (NUMBER, "number"),
    (INTEGER, "integer"),
    (STRING, "string"),
];

/// What a [`Node`] was made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Made {
    /// The schema at its pointer, as it is.
    Exact,
    /// An `anyOf`/`oneOf` of constants at its pointer, read as the `enum` it means.
    Consts,
    /// A keyword absent at its pointer, read as its default (`true`).
    Absent,
}

/// A schema being compared, and where it is.
#[derive(Debug, Clone)]
pub(super) struct Node<'a> {
    pub(super) schema: Cow<'a, Value>,
    /// Where the schema is in its snapshot; for a rewritten one, where what it was made
    /// from is.
    pub(super) ptr: String,
    pub(super) made: Made,
    /// Its annotations (and `$schema`) left out: they were compared already, with those of
    /// a union it stands as a branch of, or through the reference that led to it.
    pub(super) bare: bool,
    /// Read for the values of this one type only (a branch of a union split by type):
    /// its `type` is this, and keywords for other types are left out.
    pub(super) only: Option<u8>,
}

/// What identifies a node for remembering comparisons.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Key {
    pub(super) ptr: String,
    pub(super) made: Made,
    pub(super) bare: bool,
    pub(super) only: Option<u8>,
}

impl<'a> Node<'a> {
    pub(super) fn exact(schema: &'a Value, ptr: String) -> Self {
        Node {
            schema: Cow::Borrowed(schema),
            ptr,
            made: Made::Exact,
            bare: false,
            only: None,
        }
    }

    /// A keyword's default where it is absent: `true`, which accepts everything.
    pub(super) fn absent(ptr: String) -> Self {
        Node {
            schema: Cow::Owned(Value::Bool(true)),
            ptr,
            made: Made::Absent,
            bare: false,
            only: None,
        }
    }

    pub(super) fn key(&self) -> Key {
        Key {
            // Every absent keyword is the same `true`: one key for all, or a recursive
            // schema compared with `true` would meet ever longer pointers and never a
            // pair it has seen.
            ptr: match self.made {
                Made::Absent => String::new(),
                _ => self.ptr.clone(),
            },
            made: self.made,
            bare: self.bare,
            only: self.only,
        }
    }

    /// Whether `keyword` is seen in this node (not left out by `bare` or `only`).
    pub(super) fn visible(&self, keyword: &str) -> bool {
        if self.bare && (is_annotation(keyword) || keyword == "$schema") {
            return false;
        }
        match self.only {
            Some(only) => applies(keyword, only),
            None => true,
        }
    }

    pub(super) fn get(&self, keyword: &str) -> Option<&Value> {
        if !self.visible(keyword) {
            return None;
        }
        self.schema.as_object()?.get(keyword)
    }

    pub(super) fn keys(&self) -> Vec<&str> {
        match self.schema.as_object() {
            Some(map) => map
                .keys()
                .map(String::as_str)
                .filter(|k| self.visible(k))
                .collect(),
            None => Vec::new(),
        }
    }

    /// Whether this node's pointer extended by a keyword names that keyword in the
    /// snapshot (it does not for a rewritten node).
    pub(super) fn exact_at(&self, keyword: &str) -> bool {
        self.made == Made::Exact && self.get(keyword).is_some()
    }

    /// The subschema at `path` below this node (the first step a visible keyword).
    pub(super) fn part(&self, path: &[&str]) -> Option<Node<'a>> {
        let first = path.first()?;
        self.get(first)?;
        let ptr = path.iter().fold(self.ptr.clone(), |p, t| child(&p, t));
        let schema = match &self.schema {
            Cow::Borrowed(v) => Cow::Borrowed(walk(v, path)?),
            Cow::Owned(v) => Cow::Owned(walk(v, path)?.clone()),
        };
        Some(Node {
            schema,
            ptr,
            made: Made::Exact,
            bare: false,
            only: None,
        })
    }

    /// The subschema under `keyword`, or its default `true` where it is absent.
    pub(super) fn part_or_true(&self, keyword: &str) -> Node<'a> {
        self.part(&[keyword])
            .unwrap_or_else(|| Node::absent(child(&self.ptr, keyword)))
    }

    /// The same schema with its annotations left out.
    pub(super) fn stripped(&self) -> Node<'a> {
        Node {
            bare: true,
            ..self.clone()
        }
    }

    /// Whether every visible keyword is an annotation, structural, or one of `besides`.
    pub(super) fn only_annotations_besides(&self, besides: &[&str]) -> bool {
        self.keys()
            .iter()
            .all(|k| besides.contains(k) || is_annotation(k) || STRUCTURAL.contains(k))
    }

    /// The types the node accepts, as bits; all of them where it has no `type`.
    pub(super) fn types(&self) -> Result<u8, String> {
        if let Some(only) = self.only {
            return Ok(only);
        }
        match self.get("type") {
            None => Ok(ANY),
            Some(Value::String(name)) => type_bit(name),
            Some(Value::Array(names)) => names.iter().try_fold(0, |mask, name| match name {
                Value::String(name) => Ok(mask | type_bit(name)?),
                other => Err(format!("`type` holds {}, not a type name", show(other))),
            }),
            Some(other) => Err(format!("`type` is {}, not a type name", show(other))),
        }
    }

    /// The values the node allows by `enum` and `const` (both: the values in both), of
    /// its types only; `None` where it has neither.
    pub(super) fn values(&self) -> Result<Option<Vec<Value>>, String> {
        let listed = match self.get("enum") {
            None => None,
            Some(Value::Array(values)) => Some(values.clone()),
            Some(other) => return Err(format!("`enum` is {}, not an array", show(other))),
        };
        let values = match (listed, self.get("const")) {
            (None, None) => return Ok(None),
            (Some(values), None) => values,
            (None, Some(c)) => vec![c.clone()],
            (Some(values), Some(c)) => values.into_iter().filter(|v| same(v, c)).collect(),
        };
        // A value of a type the node refuses can never be valid: leaving it out keeps a
        // `type` change from being reported twice.
        let types = self.types().unwrap_or(ANY);
        Ok(Some(
            values
                .into_iter()
                .filter(|v| accepts_type(types, v))
                .collect(),
        ))
    }

    /// Whether the node accepts no value at all: `false`, `{"not": {}}`, an empty `enum`
    /// or `type`.
    pub(super) fn accepts_nothing(&self) -> bool {
        if matches!(self.schema.as_ref(), Value::Bool(false)) {
            return true;
        }
        let not_everything = match self.get("not") {
            Some(Value::Bool(true)) => true,
            Some(Value::Object(map)) => map.keys().all(|k| is_annotation(k)),
            _ => false,
        };
        let empty = |k: &str| matches!(self.get(k), Some(Value::Array(a)) if a.is_empty());
        not_everything || empty("enum") || empty("type")
    }
}

/// Whether a keyword is the same on both sides (both absent counts).
pub(super) fn same_keyword(o: &Node<'_>, n: &Node<'_>, keyword: &str) -> bool {
    match (o.get(keyword), n.get(keyword)) {
        (Some(a), Some(b)) => same(a, b),
        (None, None) => true,
        _ => false,
    }
}

/// Where a change to `keyword` is: the keyword in the new schema if it is there, else in
/// the old one, else the schema itself.
pub(super) fn at(o: &Node<'_>, n: &Node<'_>, keyword: &str) -> String {
    if n.exact_at(keyword) {
        child(&n.ptr, keyword)
    } else if o.exact_at(keyword) {
        child(&o.ptr, keyword)
    } else {
        n.ptr.clone()
    }
}

/// Like [`at`], the old schema first: for what the old one said and the new one no longer
/// does.
pub(super) fn at_old(o: &Node<'_>, n: &Node<'_>, keyword: &str) -> String {
    if o.exact_at(keyword) {
        child(&o.ptr, keyword)
    } else {
        at(o, n, keyword)
    }
}

fn walk<'v>(value: &'v Value, path: &[&str]) -> Option<&'v Value> {
    path.iter().try_fold(value, |v, token| match v {
        Value::Object(map) => map.get(*token),
        Value::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => None,
    })
}

pub(super) fn is_annotation(keyword: &str) -> bool {
    ANNOTATIONS.contains(&keyword) || keyword.starts_with("x-")
}

/// The dialect a `$schema` names, without the details that do not change it (scheme,
/// trailing `#`); 2020-12 where it names none, as the runtime reads such schemas.
pub(super) fn dialect(uri: &str) -> String {
    let uri = if uri.is_empty() {
        "https://json-schema.org/draft/2020-12/schema"
    } else {
        uri
    };
    uri.trim_end_matches('#')
        .trim_start_matches("https://")
        .trim_start_matches("http://")
        .to_owned()
}

/// Which keywords apply to values of a type (`type` and the keywords for every type apply
/// to all).
pub(super) fn applies(keyword: &str, only: u8) -> bool {
    let for_types = match keyword {
        "minLength" | "maxLength" | "pattern" | "contentEncoding" | "contentMediaType"
        | "contentSchema" => STRING,
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
            NUMBER | INTEGER
        }
        "format" => STRING | NUMBER | INTEGER,
        "items" | "prefixItems" | "additionalItems" | "contains" | "minContains"
        | "maxContains" | "minItems" | "maxItems" | "uniqueItems" | "unevaluatedItems" => ARRAY,
        "properties"
        | "required"
        | "additionalProperties"
        | "patternProperties"
        | "propertyNames"
        | "minProperties"
        | "maxProperties"
        | "dependentRequired"
        | "dependentSchemas"
        | "dependencies"
        | "unevaluatedProperties" => OBJECT,
        _ => ANY,
    };
    for_types & only != 0 || (only == INTEGER && for_types & NUMBER != 0)
}

fn type_bit(name: &str) -> Result<u8, String> {
    TYPE_NAMES
        .iter()
        .find(|(_, n)| *n == name)
        .map(|(bit, _)| *bit)
        .ok_or_else(|| format!("`type` names \"{name}\", which is not a JSON Schema type"))
}

/// A set of types with `integer` dropped where `number` (which holds it) is there.
pub(super) fn normal(mask: u8) -> u8 {
    if mask & NUMBER != 0 {
        mask & !INTEGER
    } else {
        mask
    }
}

/// Whether every value of the types `a` is of the types `b`.
pub(super) fn subset(a: u8, b: u8) -> bool {
    let (a, b) = (normal(a), normal(b));
    TYPE_NAMES
        .iter()
        .all(|(bit, _)| a & bit == 0 || b & bit != 0 || (*bit == INTEGER && b & NUMBER != 0))
}

/// The types both sets accept (an integer is a number).
pub(super) fn common_types(a: u8, b: u8) -> u8 {
    TYPE_NAMES
        .iter()
        .filter(|(bit, _)| subset(*bit, a) && subset(*bit, b))
        .fold(0, |mask, (bit, _)| mask | bit)
}

pub(super) fn type_names(mask: u8) -> String {
    if normal(mask) == normal(ANY) {
        return "any type".to_owned();
    }
    let names: Vec<&str> = TYPE_NAMES
        .iter()
        .filter(|(bit, _)| normal(mask) & bit != 0)
        .map(|(_, n)| *n)
        .collect();
    names.join(" or ")
}

/// Whether a value is of one of the types `mask`.
pub(super) fn accepts_type(mask: u8, value: &Value) -> bool {
    let bit = match value {
        Value::Null => NULL,
        Value::Bool(_) => BOOLEAN,
        Value::Object(_) => OBJECT,
        Value::Array(_) => ARRAY,
        Value::String(_) => STRING,
        Value::Number(n) => {
            let whole = n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|x| x.fract() == 0.0);
            if mask & NUMBER != 0 || (whole && mask & INTEGER != 0) {
                return true;
            }
            return false;
        }
    };
    mask & bit != 0
}

/// Values listed for a message.
pub(super) fn list(values: &[Value]) -> String {
    match values {
        [] => "no value".to_owned(),
        [one] => show(one),
        many => {
            let shown: Vec<String> = many.iter().take(6).map(show).collect();
            let more = if many.len() > 6 { ", …" } else { "" };
            format!("[{}{more}]", shown.join(", "))
        }
    }
}
