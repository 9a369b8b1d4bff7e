//! Output schemas kept to a size: a tool's output schema carries every named schema its
//! result reaches, which for an API's operations (served from its OpenAPI document, or
//! generated from it) can be most of the document: each of Stripe's tools would publish
//! half a megabyte. Past a budget the schema is abridged:
//! the named schemas farthest from the result are left out, and each reference to one
//! becomes a stand-in that keeps its `type` and the first sentence of its description.
//!
//! Abridging only ever widens: every value the whole schema accepts, the abridged one
//! accepts too, so a result the API answers still conforms to what the tool publishes.
//! Replacing a part by a weaker one widens a schema except where the part's weakness
//! narrows it; those places are repaired: a `oneOf` with a stand-in inside becomes an
//! `anyOf` (two branches may now both match), and a `not`, an `if` (with its `then` and
//! `else`), a `maxContains` or an `unevaluatedProperties`/`unevaluatedItems` whose answer
//! could change is dropped.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::{Map, Value};

/// The budget of a published output schema unless the server sets another (bytes of
/// JSON).
pub(crate) const DEFAULT_BUDGET: usize = 32 << 10;

/// What abridging did to one schema, for the start-up log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Abridged {
    /// The whole schema's size, serialized.
    pub(crate) whole: usize,
    /// The size published.
    pub(crate) published: usize,
    /// How many named schemas were left out, of how many.
    pub(crate) left_out: usize,
    /// How many named schemas the whole schema has.
    pub(crate) named: usize,
}

/// The named schemas of one document, each measured once (its size serialized, the
/// named schemas it refers to), so that each tool's output schema is weighed without
/// building it whole: most of the document, for some, and once per tool.
pub(crate) struct Named<'a> {
    schemas: &'a BTreeMap<String, Value>,
    known: HashMap<&'a str, Known>,
}

/// One named schema, measured.
#[derive(Clone)]
struct Known {
    size: usize,
    refers_to: Vec<String>,
}

impl Known {
    fn of(def: &Value) -> Known {
        let mut refers_to = Vec::new();
        refs(def, &mut refers_to);
        refers_to.sort_unstable();
        refers_to.dedup();
        Known {
            size: size(def),
            refers_to,
        }
    }
}

impl<'a> Named<'a> {
    /// The document's named schemas (by `$defs` name), measured.
    pub(crate) fn of(schemas: &'a BTreeMap<String, Value>) -> Named<'a> {
        let known = schemas
            .iter()
            .map(|(name, def)| (name.as_str(), Known::of(def)))
            .collect();
        Named { schemas, known }
    }
}

/// The named schemas one schema can use: its own `$defs`, then the document's.
struct Defs<'a> {
    own: Map<String, Value>,
    named: &'a Named<'a>,
}

impl Defs<'_> {
    fn get(&self, name: &str) -> Option<&Value> {
        self.own.get(name).or_else(|| self.named.schemas.get(name))
    }

    fn known(&self, name: &str) -> Option<Known> {
        match self.own.get(name) {
            Some(def) => Some(Known::of(def)),
            None => self.named.known.get(name).cloned(),
        }
    }
}

/// `schema` with the named schemas it reaches in `$defs` (from its own `$defs`, else
/// the document's), or, when that would serialize to more than `budget` bytes, an
/// abridgement that fits: the named schemas within as many references of the root as
/// fit (by their sizes), the others replaced by stand-ins. When even the root alone does
/// not fit, an object of the root's description.
pub(crate) fn abridge(schema: Value, budget: usize, named: &Named) -> (Value, Option<Abridged>) {
    let Value::Object(mut root) = schema else {
        return (schema, None);
    };
    let own = match root.remove("$defs") {
        Some(Value::Object(own)) => own,
        Some(other) => {
            // Not named schemas: left as they are.
            root.insert("$defs".into(), other);
            return (Value::Object(root), None);
        }
        None => Map::new(),
    };
    let defs = Defs { own, named };
    let graph = Graph::of(&root, &defs);
    // The size serialized, from the parts: the root without its `$defs`, then
    // `,"$defs":{` .. `}` with `"NAME":DEF` for each reached, comma-separated.
    let base = size(&Value::Object(root.clone()));
    let entry = |name: &str, known: &Known| {
        serde_json::to_string(name).map_or(name.len() + 2, |quoted| quoted.len()) + 1 + known.size
    };
    let reached = graph.known.len();
    let whole = if reached == 0 {
        base
    } else {
        let entries: usize = graph.known.iter().map(|(name, k)| entry(name, k)).sum();
        base + usize::from(!root.is_empty()) + "\"$defs\":{}".len() + entries + reached - 1
    };
    if whole <= budget {
        // Whole: the root as it is, with every named schema it reaches.
        let reached: Map<String, Value> = graph
            .known
            .keys()
            .filter_map(|name| Some((name.clone(), defs.get(name)?.clone())))
            .collect();
        if !reached.is_empty() {
            root.insert("$defs".into(), Value::Object(reached));
        }
        return (Value::Object(root), None);
    }
    // What each cut would weigh, estimated from the named schemas' own sizes (a
    // stand-in weighs about what the reference it replaces did), to start from the
    // deepest cut that may fit rather than build every one.
    let mut estimate = vec![base; graph.deepest + 1];
    for (name, depth) in &graph.depths {
        let weight = graph.known.get(name).map_or(0, |k| entry(name, k) + 1);
        for level in estimate.iter_mut().skip(*depth) {
            *level += weight;
        }
    }
    let first = (0..graph.deepest)
        .rev()
        .find(|keep| estimate.get(*keep).is_some_and(|weight| *weight <= budget))
        .unwrap_or(0);
    if graph.deepest > 0 {
        for keep in (0..=first).rev() {
            let kept: BTreeSet<&str> = graph
                .depths
                .iter()
                .filter(|(_, depth)| **depth <= keep)
                .map(|(name, _)| name.as_str())
                .collect();
            let candidate = cut(&root, &defs, &kept, &graph);
            let published = size(&candidate);
            if published <= budget {
                return (
                    candidate,
                    Some(Abridged {
                        whole,
                        published,
                        left_out: reached - kept.len(),
                        named: reached,
                    }),
                );
            }
        }
    }
    let fallback = bare_object(&root);
    let published = size(&fallback);
    (
        fallback,
        Some(Abridged {
            whole,
            published,
            left_out: reached,
            named: reached,
        }),
    )
}

/// Serialized size in bytes.
/// A schema that carries its named schemas in its own `$defs` (a `#[tool]`'s), as
/// published: whole when it fits `budget` bytes of JSON, as nearly every one does,
/// without the walk that `abridge` makes; else abridged to fit.
pub(crate) fn within(schema: Value, budget: usize) -> (Value, Option<Abridged>) {
    if size(&schema) <= budget {
        return (schema, None);
    }
    abridge(schema, budget, &Named::of(&BTreeMap::new()))
}

/// The bytes of `value` serialized.
fn size(value: &Value) -> usize {
    serde_json::to_vec(value).map_or(usize::MAX, |bytes| bytes.len())
}

/// The named schemas the root reaches: how far each is from the root, and which others
/// each refers to.
struct Graph {
    /// The fewest references from the root to each (1: the root refers to it).
    depths: BTreeMap<String, usize>,
    /// The deepest of them (0 when there are none).
    deepest: usize,
    /// Each, measured.
    known: BTreeMap<String, Known>,
}

impl Graph {
    fn of(root: &Map<String, Value>, defs: &Defs) -> Graph {
        let mut depths = BTreeMap::new();
        let mut known = BTreeMap::new();
        let mut frontier = Vec::new();
        for member in root.values() {
            refs(member, &mut frontier);
        }
        let mut depth = 1;
        let mut deepest = 0;
        while !frontier.is_empty() {
            let mut next = Vec::new();
            for name in frontier {
                if depths.contains_key(&name) {
                    continue;
                }
                if let Some(def) = defs.known(&name) {
                    next.extend(def.refers_to.iter().cloned());
                    known.insert(name.clone(), def);
                    depths.insert(name, depth);
                    deepest = depth;
                }
            }
            frontier = next;
            depth += 1;
        }
        Graph {
            depths,
            deepest,
            known,
        }
    }

    /// The kept named schemas that reach one left out through kept ones: weaker once it
    /// is replaced, so a reference to one in a `not` or an `if` is repaired as a
    /// stand-in there would be.
    fn weakened(&self, kept: &BTreeSet<&str>) -> BTreeSet<String> {
        let mut weakened = BTreeSet::new();
        loop {
            let before = weakened.len();
            for (name, def) in &self.known {
                if kept.contains(name.as_str())
                    && !weakened.contains(name)
                    && def
                        .refers_to
                        .iter()
                        .any(|to| !kept.contains(to.as_str()) || weakened.contains(to))
                {
                    weakened.insert(name.clone());
                }
            }
            if weakened.len() == before {
                return weakened;
            }
        }
    }
}

/// The `$defs` names `value` refers to.
fn refs(value: &Value, names: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, member) in map {
                match (key.as_str(), member) {
                    ("$ref", Value::String(reference)) => {
                        if let Some(name) = def_name(reference) {
                            names.push(name);
                        }
                    }
                    _ => refs(member, names),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| refs(item, names)),
        _ => {}
    }
}

/// The named schema a `#/$defs/NAME` reference points into (its JSON pointer escapes
/// undone).
fn def_name(reference: &str) -> Option<String> {
    let rest = reference.strip_prefix("#/$defs/")?;
    let name = rest.split('/').next().unwrap_or(rest);
    Some(name.replace("~1", "/").replace("~0", "~"))
}

/// Whether a reference points at a whole named schema, not into one.
fn whole_def(reference: &str) -> bool {
    reference
        .strip_prefix("#/$defs/")
        .is_some_and(|rest| !rest.contains('/'))
}

/// The root with only the `kept` named schemas, references to the others replaced.
fn cut(root: &Map<String, Value>, defs: &Defs, kept: &BTreeSet<&str>, graph: &Graph) -> Value {
    let cutter = Cutter {
        defs,
        kept,
        weakened: graph.weakened(kept),
    };
    let Value::Object(mut out) = cutter.schema(root).0 else {
        return Value::Object(Map::new());
    };
    let kept_defs: Map<String, Value> = kept
        .iter()
        .filter_map(|name| Some(((*name).to_owned(), cutter.any(defs.get(name)?).0)))
        .collect();
    if !kept_defs.is_empty() {
        out.insert("$defs".into(), Value::Object(kept_defs));
    }
    Value::Object(out)
}

/// Replaces references to the named schemas left out.
struct Cutter<'a> {
    defs: &'a Defs<'a>,
    kept: &'a BTreeSet<&'a str>,
    /// Kept named schemas made weaker by what they refer to.
    weakened: BTreeSet<String>,
}

/// Keywords whose value is one schema.
const ONE: [&str; 12] = [
    "items",
    "additionalItems",
    "additionalProperties",
    "unevaluatedItems",
    "unevaluatedProperties",
    "propertyNames",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
];
/// Keywords whose value is an array of schemas.
const LIST: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value maps names to schemas.
const NAMED: [&str; 5] = [
    "properties",
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
];

impl Cutter<'_> {
    /// A schema (an object, a boolean, or in an old `items` an array of schemas) with its
    /// references replaced, and whether it is now weaker than it was.
    fn any(&self, value: &Value) -> (Value, bool) {
        match value {
            Value::Object(map) => self.schema(map),
            Value::Array(items) => self.list(items),
            other => (other.clone(), false),
        }
    }

    fn list(&self, items: &[Value]) -> (Value, bool) {
        let mut weakened = false;
        let items = items
            .iter()
            .map(|item| {
                let (item, changed) = self.any(item);
                weakened |= changed;
                item
            })
            .collect();
        (Value::Array(items), weakened)
    }

    fn schema(&self, map: &Map<String, Value>) -> (Value, bool) {
        let mut out = Map::new();
        let mut changed_in = BTreeSet::new();
        let mut stand_in_for = None;
        for (key, member) in map {
            let key = key.as_str();
            let (member, changed) = match (key, member) {
                ("$ref", Value::String(reference)) => match def_name(reference) {
                    Some(name) if !self.kept.contains(name.as_str()) => {
                        changed_in.insert(key);
                        stand_in_for = Some(reference);
                        continue;
                    }
                    Some(name) => (member.clone(), self.weakened.contains(&name)),
                    None => (member.clone(), false),
                },
                (_, Value::Object(named)) if NAMED.contains(&key) => {
                    let mut weakened = false;
                    let named = named
                        .iter()
                        .map(|(name, schema)| {
                            let (schema, changed) = self.any(schema);
                            weakened |= changed;
                            (name.clone(), schema)
                        })
                        .collect();
                    (Value::Object(named), weakened)
                }
                (_, Value::Array(items)) if LIST.contains(&key) => self.list(items),
                _ if ONE.contains(&key) => self.any(member),
                // Data (`enum`, `const`, `default`, `examples`, `required`, ..) and
                // annotations: as they are.
                _ => (member.clone(), false),
            };
            if changed {
                changed_in.insert(key);
            }
            out.insert(key.to_owned(), member);
        }
        if let Some(reference) = stand_in_for {
            let def = def_name(reference)
                .filter(|_| whole_def(reference))
                .and_then(|name| self.defs.get(&name));
            // Keys written beside the reference are the document's own for this place,
            // and win over the stand-in's.
            for (key, value) in stand_in(def) {
                out.entry(key).or_insert(value);
            }
        }
        let weakened = !changed_in.is_empty();
        if weakened {
            repair(&mut out, &changed_in);
        }
        (Value::Object(out), weakened)
    }
}

/// Where a part made weaker would make the schema narrower, drop or loosen the keyword.
fn repair(schema: &mut Map<String, Value>, changed_in: &BTreeSet<&str>) {
    if changed_in.contains("oneOf") {
        if let Some(branches) = schema.remove("oneOf") {
            match schema.get_mut("anyOf") {
                // `anyOf` beside `oneOf`: both must hold; keep the old `anyOf` in an
                // `allOf` with the loosened `oneOf`.
                Some(_) => {
                    let loosened = serde_json::json!({ "anyOf": branches });
                    match schema.get_mut("allOf") {
                        Some(Value::Array(all)) => all.push(loosened),
                        _ => {
                            schema.insert("allOf".into(), Value::Array(vec![loosened]));
                        }
                    }
                }
                None => {
                    schema.insert("anyOf".into(), branches);
                }
            }
        }
    }
    if changed_in.contains("not") {
        schema.remove("not");
    }
    if changed_in.contains("if") {
        schema.remove("if");
        schema.remove("then");
        schema.remove("else");
    }
    if changed_in.contains("contains") {
        schema.remove("maxContains");
    }
    // What counts as evaluated depends on the parts that evaluate: a part made weaker
    // evaluates fewer members, which `unevaluated*` would then refuse.
    schema.remove("unevaluatedProperties");
    schema.remove("unevaluatedItems");
}

/// What replaces a reference to a named schema left out: its `type` and its
/// `description` (or `title`), which every value it accepts satisfies or which says
/// nothing.
fn stand_in(def: Option<&Value>) -> Map<String, Value> {
    let mut out = Map::new();
    let Some(Value::Object(def)) = def else {
        return out;
    };
    if let Some(kind) = def.get("type").filter(|t| t.is_string() || t.is_array()) {
        out.insert("type".into(), kind.clone());
    }
    if let Some(text) = def
        .get("description")
        .or_else(|| def.get("title"))
        .and_then(Value::as_str)
    {
        out.insert("description".into(), first_sentence(text).into());
    }
    out
}

/// The first sentence of `text`, or its first 200 characters.
fn first_sentence(text: &str) -> String {
    let end = text.find(". ").map(|at| at + 1).unwrap_or(text.len()).min(
        text.char_indices()
            .nth(200)
            .map_or(text.len(), |(at, _)| at),
    );
    text.get(..end).unwrap_or(text).trim().to_owned()
}

/// An object, with the root's description: what is published when even the root alone
/// is over the budget.
fn bare_object(root: &Map<String, Value>) -> Value {
    let mut out = Map::new();
    out.insert("type".into(), "object".into());
    if let Some(description) = root.get("description") {
        out.insert("description".into(), description.clone());
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::validate::ArgValidator;

    /// [`super::abridge`] of a schema that brings its named schemas itself.
    fn abridge(schema: Value, budget: usize) -> (Value, Option<Abridged>) {
        super::abridge(schema, budget, &Named::of(&BTreeMap::new()))
    }

    /// An order, its customer, the customer's address and its country: a chain of named
    /// schemas three references deep.
    fn order() -> Value {
        json!({
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "customer": {"$ref": "#/$defs/Customer"}
            },
            "$defs": {
                "Customer": {
                    "type": "object",
                    "description": "Who ordered. Their details follow.",
                    "properties": {
                        "name": {"type": "string"},
                        "address": {"$ref": "#/$defs/Address"}
                    }
                },
                "Address": {
                    "type": "object",
                    "description": "Where it goes.",
                    "required": ["country"],
                    "properties": {
                        "street": {"type": "string", "maxLength": 3},
                        "country": {"$ref": "#/$defs/Country"}
                    }
                },
                "Country": {"type": "string", "enum": ["FR", "DE"], "description": "ISO code."}
            }
        })
    }

    /// Whether `schema` compiles and accepts `value`.
    fn accepts(schema: &Value, value: &Value) -> bool {
        ArgValidator::compile(schema)
            .unwrap_or_else(|e| panic!("{e}: {schema:#}"))
            .check(value)
            .is_ok()
    }

    #[test]
    fn a_schema_within_the_budget_is_published_whole() {
        let whole = order();
        let (published, abridged) = abridge(whole.clone(), size(&whole));
        assert_eq!(published, whole);
        assert_eq!(abridged, None);
    }

    #[test]
    fn past_the_budget_the_farthest_named_schemas_become_stand_ins() {
        let whole = order();
        // Room for the root and Customer, not for Address too.
        let without_country = abridge(whole.clone(), size(&whole) - 1).0;
        let budget = size(&without_country) - 1;
        let (published, abridged) = abridge(whole.clone(), budget);
        assert!(size(&published) <= budget, "{published:#}");
        assert_eq!(
            published["$defs"]["Customer"]["properties"]["address"],
            json!({"type": "object", "description": "Where it goes."})
        );
        assert_eq!(published["$defs"].as_object().map(Map::len), Some(1));
        let abridged = abridged.unwrap();
        assert_eq!((abridged.left_out, abridged.named), (2, 3));
        assert_eq!(abridged.whole, size(&whole));
        assert_eq!(abridged.published, size(&published));
        // The deepest cut first: only Country left out, its stand-in keeps its type.
        assert_eq!(
            without_country["$defs"]["Address"]["properties"]["country"],
            json!({"type": "string", "description": "ISO code."})
        );
        // A first sentence only.
        let tiny = abridge(whole, 120).0;
        assert_eq!(
            tiny["properties"]["customer"],
            json!({"type": "object", "description": "Who ordered."})
        );
    }

    #[test]
    fn what_the_whole_schema_accepts_the_abridged_one_accepts() {
        let whole = order();
        let values = [
            json!({"id": "1", "customer": {"name": "Ann", "address": {"street": "Elm", "country": "FR"}}}),
            json!({"id": "2"}),
            json!({"customer": {"address": {"country": "DE"}}}),
        ];
        for budget in (50..size(&whole)).step_by(20) {
            let published = abridge(whole.clone(), budget).0;
            for value in &values {
                assert!(accepts(&whole, value));
                assert!(accepts(&published, value), "{budget}: {published:#}");
            }
        }
        // It widens: a country the document does not have is accepted once Country is
        // a stand-in.
        let cut = abridge(whole.clone(), size(&whole) - 1).0;
        let odd = json!({"customer": {"address": {"country": "XX"}}});
        assert!(!accepts(&whole, &odd) && accepts(&cut, &odd));
    }

    #[test]
    fn where_a_weaker_part_would_narrow_the_schema_it_is_repaired() {
        // Card and Iban both become `{"type": "object"}`: under `oneOf` a card would
        // match both and be refused, so the `oneOf` becomes an `anyOf`. A `not` or an
        // `if` over a stand-in would change its answer, so it goes; `unevaluated*` would
        // refuse members the stand-in no longer evaluates.
        let whole = json!({
            "type": "object",
            "properties": {
                "payment": {"oneOf": [{"$ref": "#/$defs/Card"}, {"$ref": "#/$defs/Iban"}]},
                "refund": {"not": {"$ref": "#/$defs/Card"}},
                "note": {"if": {"$ref": "#/$defs/Card"}, "then": {"required": ["number"]}},
                "extra": {"allOf": [{"$ref": "#/$defs/Card"}], "unevaluatedProperties": false}
            },
            "$defs": {
                "Card": {"type": "object", "required": ["number"], "properties": {"number": {"type": "string"}}, "additionalProperties": false},
                "Iban": {"type": "object", "required": ["iban"], "properties": {"iban": {"type": "string"}}, "additionalProperties": false}
            }
        });
        let value = json!({
            "payment": {"number": "4242"},
            "refund": {"iban": "FR76"},
            "note": {"iban": "FR76"},
            "extra": {"number": "4242"}
        });
        assert!(accepts(&whole, &value));
        let (published, abridged) = abridge(whole.clone(), size(&whole) - 1);
        assert_eq!(abridged.map(|a| a.left_out), Some(2));
        assert!(accepts(&published, &value), "{published:#}");
        let properties = &published["properties"];
        assert!(properties["payment"].get("oneOf").is_none());
        assert_eq!(
            properties["payment"]["anyOf"].as_array().map(Vec::len),
            Some(2)
        );
        assert_eq!(properties["refund"], json!({}));
        assert_eq!(properties["note"], json!({}));
        assert_eq!(properties["extra"], json!({"allOf": [{"type": "object"}]}));
    }

    #[test]
    fn a_kept_schema_made_weaker_is_repaired_where_it_is_negated() {
        // Holder is kept, Id left out: Holder is weaker, so `not: Holder` must go too.
        let whole = json!({
            "type": "object",
            "properties": {
                "holder": {"$ref": "#/$defs/Holder"},
                "other": {"not": {"$ref": "#/$defs/Holder"}}
            },
            "$defs": {
                "Holder": {"type": "object", "properties": {"id": {"$ref": "#/$defs/Id"}}},
                "Id": {"type": "string", "pattern": "^[0-9]+$", "description": "Digits."}
            }
        });
        let value = json!({"holder": {"id": "12"}, "other": {"id": "ab"}});
        assert!(accepts(&whole, &value));
        let (published, _) = abridge(whole.clone(), size(&whole) - 1);
        assert!(
            published["$defs"].get("Holder").is_some() && published["$defs"].get("Id").is_none()
        );
        assert!(
            published["properties"]["other"].get("not").is_none(),
            "{published:#}"
        );
        assert!(accepts(&published, &value));
    }

    #[test]
    fn cycles_and_members_named_like_keywords_are_handled() {
        // A tree of nodes (a cycle through the root's definitions), whose members are
        // named `default`, `required` and `enum`, as data keywords are.
        let whole = json!({
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/Node"}},
            "$defs": {
                "Node": {
                    "type": "object",
                    "properties": {
                        "default": {"$ref": "#/$defs/Leaf"},
                        "required": {"$ref": "#/$defs/Leaf"},
                        "enum": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
                    }
                },
                "Leaf": {"type": "integer", "minimum": 3}
            }
        });
        let (published, _) = abridge(whole.clone(), size(&whole) - 1);
        let node = &published["$defs"]["Node"]["properties"];
        assert_eq!(node["default"], json!({"type": "integer"}));
        assert_eq!(node["required"], json!({"type": "integer"}));
        assert_eq!(node["enum"]["items"], json!({"$ref": "#/$defs/Node"}));
        assert!(accepts(
            &published,
            &json!({"root": {"default": 1, "enum": [{"required": 2}]}})
        ));
    }

    #[test]
    fn the_document_s_named_schemas_are_attached_as_far_as_they_are_reached() {
        // A root without `$defs` refers to the document's: those it reaches are
        // attached (an unrelated one is not), whole within the budget, abridged past it.
        let whole = order();
        let mut document: BTreeMap<String, Value> = whole["$defs"]
            .as_object()
            .map(|defs| defs.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        document.insert("Unrelated".into(), json!({"type": "boolean"}));
        let named = Named::of(&document);
        let mut root = whole.clone();
        root.as_object_mut().map(|r| r.remove("$defs"));
        let (published, abridged) = super::abridge(root.clone(), size(&whole), &named);
        assert_eq!((published, abridged), (whole.clone(), None));
        let (published, abridged) = super::abridge(root, size(&whole) - 1, &named);
        assert!(
            published["$defs"].get("Country").is_none()
                && published["$defs"].get("Address").is_some()
        );
        assert_eq!(
            abridged.map(|a| (a.whole, a.left_out, a.named)),
            Some((size(&whole), 1, 3))
        );
    }

    #[test]
    fn a_root_too_large_alone_is_published_as_an_object() {
        let whole = json!({
            "type": "object",
            "description": "Everything.",
            "properties": {"a": {"type": "string", "description": "x".repeat(500)}}
        });
        let (published, abridged) = abridge(whole, 100);
        assert_eq!(
            published,
            json!({"type": "object", "description": "Everything."})
        );
        assert_eq!(abridged.map(|a| (a.left_out, a.named)), Some((0, 0)));
    }
}
