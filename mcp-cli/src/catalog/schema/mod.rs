//! Two JSON Schemas compared by the values they accept: did the new one widen, narrow or
//! change the set, keyword by keyword?
//!
//! A schema is a conjunction of its keywords' constraints, so if every keyword's change
//! widens (or keeps) what it accepts, the schema widens, and the same for narrowing. That is
//! what makes a per-keyword comparison sound, and every finding here says which way its
//! keyword moved ([`Dir`]). The role ([`Role`]) turns that into a class: a caller sends
//! inputs, so a narrowing breaks it; it receives outputs, so a widening does. Where the
//! direction cannot be proven (a changed `pattern`, branches of a `oneOf` that may overlap,
//! a keyword this module does not know) the finding is [`Dir::Unknown`], never a guess.
//!
//! Two departures from pure set semantics, both because a caller works from the declared
//! properties and not from the set of accepted values: an optional argument added to an
//! input is compatible (callers never sent it), and a field removed from an output is
//! breaking even where `additionalProperties: false` makes the set smaller (callers read
//! it).
//!
//! Local `$ref`s (`#/$defs/X`, `#/definitions/X`, `#`) are followed; beside other keywords
//! a `$ref` is one more constraint (2019-09 and later), or the only one (draft-07 and
//! before, which ignore its siblings), as the schema's `$schema` says. Each comparison of an
//! old schema with a new one is remembered by the pair of places they sit at, so a
//! recursive type compares in finite time: a pair already being compared further up is
//! taken as equal there (coinduction: if it differs, the comparison further up reports
//! it), and a pair compared before gives its findings again. Depth and the number of
//! comparisons are bounded; past either, the answer is unknown.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::json::{child, local_ref, same, show};
use super::{Change, Class};
use keywords::{max_count, min_count};
use node::{
    at, dialect, is_annotation, Key, Node, ARRAY, INTEGER, NUMBER, OBJECT, STRING, STRUCTURAL,
};
use text::{format, pattern};
use unions::{all_of, consts_union, single_branch, union_of, Union};

mod keywords;
mod node;
mod objects;
mod pairing;
mod text;
mod unions;

/// Deepest nesting of schemas compared; past it the answer is unknown.
const MAX_DEPTH: usize = 64;

/// Most comparisons of two (sub)schemas one pair of schemas may take.
const MAX_STEPS: usize = 100_000;

/// Most `$ref`s and one-branch wrappers followed in a row before a schema is reached.
const MAX_HOPS: usize = 32;

/// Every keyword this module compares by what it means; a change to any other is unknown.
const KNOWN: &[&str] = &[
    "$ref",
    "type",
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "items",
    "prefixItems",
    "additionalItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
    "unevaluatedItems",
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependentSchemas",
    "unevaluatedProperties",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
];

/// Which side of the calls a schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// What a caller sends (a tool's `inputSchema`): narrowing breaks callers.
    Input,
    /// What a caller receives (a tool's `outputSchema`): widening breaks callers.
    Output,
}

/// Which way a change moved the set of values a schema accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Dir {
    /// The new schema accepts every value the old one did, and more.
    Wider,
    /// The new schema accepts only values the old one did, and fewer.
    Narrower,
    /// Some values were gained and some lost.
    Both,
    /// The direction cannot be told.
    Unknown,
    /// An annotation: no value is gained or lost.
    Note,
}

/// One keyword's change, before the role makes it a [`Class`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Finding {
    dir: Dir,
    pointer: String,
    /// What changed.
    what: String,
    /// Why it matters, when more can be said than the role's general reason.
    why: Option<String>,
}

impl Finding {
    fn new(dir: Dir, pointer: String, what: impl Into<String>) -> Self {
        Finding {
            dir,
            pointer,
            what: what.into(),
            why: None,
        }
    }

    fn because(mut self, why: impl Into<String>) -> Self {
        self.why = Some(why.into());
        self
    }

    /// The finding as seen inside a `not`, which turns widening into narrowing.
    fn negated(self) -> Self {
        let dir = match self.dir {
            Dir::Wider => Dir::Narrower,
            Dir::Narrower => Dir::Wider,
            other => other,
        };
        Finding {
            dir,
            pointer: self.pointer,
            what: format!("inside `not`, {}", self.what),
            why: None,
        }
    }

    fn into_change(self, role: Role) -> Change {
        let class = match (role, self.dir) {
            (_, Dir::Both) => Class::Breaking,
            (_, Dir::Unknown) => Class::Unknown,
            (_, Dir::Note) => Class::Informational,
            (Role::Input, Dir::Narrower) | (Role::Output, Dir::Wider) => Class::Breaking,
            (Role::Input, Dir::Wider) | (Role::Output, Dir::Narrower) => Class::Compatible,
        };
        let general = match (role, self.dir) {
            (Role::Input, Dir::Narrower | Dir::Both) => {
                Some("calls that were valid may now be refused")
            }
            (Role::Input, Dir::Wider) => Some("every call that was valid still is"),
            (Role::Output, Dir::Wider | Dir::Both) => {
                Some("callers may now receive values they did not expect")
            }
            (Role::Output, Dir::Narrower) => {
                Some("callers receive nothing they could not receive before")
            }
            (_, Dir::Unknown | Dir::Note) => None,
        };
        let message = match (self.why.as_deref(), general) {
            (Some(why), _) | (None, Some(why)) => format!("{}: {why}", self.what),
            (None, None) => self.what,
        };
        Change {
            class,
            pointer: self.pointer,
            message,
        }
    }
}

/// Compare the schema `old`, found at `old_base` in the old snapshot, with `new`, found at
/// `new_base` in the new one, as the `role` says callers use it.
pub fn compare(
    role: Role,
    old: &Value,
    new: &Value,
    old_base: &str,
    new_base: &str,
) -> Vec<Change> {
    // Identical schemas accept the same values, even ones this module could not read
    // (a `$ref` that leads nowhere): nothing changed.
    if same(old, new) {
        return Vec::new();
    }
    let mut cx = Cx {
        role,
        old_root: old,
        new_root: new,
        old_base,
        new_base,
        old_ref_alone: ref_alone(old),
        new_ref_alone: ref_alone(new),
        active: HashSet::new(),
        done: HashMap::new(),
        steps: 0,
        exhausted: false,
    };
    let findings = cx.compare(
        Node::exact(old, old_base.to_owned()),
        Node::exact(new, new_base.to_owned()),
        0,
    );
    let mut changes: Vec<Change> = findings.into_iter().map(|f| f.into_change(role)).collect();
    if cx.exhausted {
        changes.push(Change {
            class: Class::Unknown,
            pointer: new_base.to_owned(),
            message: format!(
                "the schemas take more than {MAX_STEPS} comparisons, the most this version \
                 makes, so what was not compared may have changed"
            ),
        });
    }
    changes
}

/// Whether the dialect a schema's `$schema` names reads a `$ref` alone, ignoring the
/// keywords beside it, as the drafts before 2019-09 do.
fn ref_alone(root: &Value) -> bool {
    let dialect = root.get("$schema").and_then(Value::as_str).unwrap_or("");
    ["draft-03", "draft-04", "draft-06", "draft-07"]
        .iter()
        .any(|draft| dialect.contains(draft))
}

/// Which snapshot a schema comes from, for following its `$ref`s.
#[derive(Debug, Clone, Copy)]
enum Side {
    Old,
    New,
}

/// The state of one comparison of two schemas.
struct Cx<'a> {
    role: Role,
    old_root: &'a Value,
    new_root: &'a Value,
    old_base: &'a str,
    new_base: &'a str,
    /// Whether a `$ref` stands alone in the old (new) schema's dialect, what is beside it
    /// ignored (draft-07 and before), rather than one constraint among its siblings.
    old_ref_alone: bool,
    new_ref_alone: bool,
    /// Pairs being compared further up: met again, they are taken as equal.
    active: HashSet<(Key, Key)>,
    /// Pairs compared already, with what was found.
    done: HashMap<(Key, Key), Vec<Finding>>,
    steps: usize,
    exhausted: bool,
}

impl<'a> Cx<'a> {
    /// What changed from `old` to `new`, `depth` schemas down from the root.
    fn compare(&mut self, old: Node<'a>, new: Node<'a>, depth: usize) -> Vec<Finding> {
        if self.exhausted {
            return Vec::new();
        }
        self.steps += 1;
        if self.steps > MAX_STEPS {
            self.exhausted = true;
            return Vec::new();
        }
        if depth > MAX_DEPTH {
            return vec![Finding::new(
                Dir::Unknown,
                new.ptr,
                format!(
                    "the schemas nest more than {MAX_DEPTH} levels deep here; this version \
                     does not compare deeper, so what is below may have changed"
                ),
            )];
        }
        let (o, old_hopped) = match self.settle(old.clone(), Side::Old) {
            Ok(settled) => settled,
            Err(why) => return vec![Finding::new(Dir::Unknown, old.ptr, why)],
        };
        let (n, new_hopped) = match self.settle(new.clone(), Side::New) {
            Ok(settled) => settled,
            Err(why) => return vec![Finding::new(Dir::Unknown, new.ptr, why)],
        };
        let mut out = Vec::new();
        let (o, n) = match (old_hopped, new_hopped) {
            // Both were references (or one-branch wrappers): what they said beside it
            // (a description of this use of the definition) is compared here, the
            // definitions themselves below.
            (true, true) => {
                out.extend(self.annotations(&[&old], &[&new]));
                (o, n)
            }
            // One was: its annotations are its own over its definition's, compared here
            // with the other's, and not again below.
            (true, false) => {
                out.extend(self.annotations(&[&old, &o], &[&n]));
                (o.stripped(), n.stripped())
            }
            (false, true) => {
                out.extend(self.annotations(&[&o], &[&new, &n]));
                (o.stripped(), n.stripped())
            }
            (false, false) => (o, n),
        };
        let key = (o.key(), n.key());
        if self.active.contains(&key) {
            return out;
        }
        if let Some(found) = self.done.get(&key) {
            out.extend(found.iter().cloned());
            return out;
        }
        self.active.insert(key.clone());
        let mut found = self.settled(&o, &n, depth);
        self.active.remove(&key);
        // A definition reached by two paths reports the same findings twice (they point
        // into the definition); kept twice at every level, a chain of definitions that
        // each use the next twice would double them at each.
        let mut seen = HashSet::new();
        found.retain(|f| seen.insert(f.clone()));
        out.extend(found.iter().cloned());
        self.done.insert(key, found);
        out
    }

    /// The schema a node stands for once what only leads to it is followed: a `$ref` with
    /// nothing but annotations beside it, an `allOf`/`anyOf`/`oneOf` of one branch; and an
    /// `anyOf`/`oneOf` of constants read as an `enum`. Also whether anything was followed.
    fn settle(&self, node: Node<'a>, side: Side) -> Result<(Node<'a>, bool), String> {
        let mut node = node;
        let mut hopped = false;
        for _ in 0..MAX_HOPS {
            if let Some(reference) = node.get("$ref") {
                let alone = match side {
                    Side::Old => self.old_ref_alone,
                    Side::New => self.new_ref_alone,
                };
                if !alone && !node.only_annotations_besides(&["$ref"]) {
                    // Beside other constraints it is one more of them, compared as a
                    // keyword.
                    return Ok((node, hopped));
                }
                let Some(reference) = reference.as_str() else {
                    return Err(format!("`$ref` is {}, not a string", show(reference)));
                };
                if local_ref(reference).is_none() {
                    return Ok((node, hopped));
                }
                node = self.resolve(side, reference)?;
                hopped = true;
                continue;
            }
            if let Some(keyword) = single_branch(&node) {
                match node.part(&[keyword, "0"]) {
                    Some(branch) => node = branch,
                    None => return Ok((node, hopped)),
                }
                hopped = true;
                continue;
            }
            if let Some(consts) = consts_union(&node) {
                return Ok((consts, hopped));
            }
            return Ok((node, hopped));
        }
        Err(format!(
            "`$ref`s lead from one to another more than {MAX_HOPS} times without reaching \
             a schema"
        ))
    }

    /// The schema a local `$ref` names, in the schema it is part of.
    fn resolve(&self, side: Side, reference: &str) -> Result<Node<'a>, String> {
        let (root, base) = match side {
            Side::Old => (self.old_root, self.old_base),
            Side::New => (self.new_root, self.new_base),
        };
        let Some(pointer) = local_ref(reference) else {
            return Err(format!(
                "`$ref` \"{reference}\" names another document, which cannot be read here"
            ));
        };
        match root.pointer(&pointer) {
            Some(target) => Ok(Node::exact(target, format!("{base}{pointer}"))),
            None => Err(format!(
                "`$ref` \"{reference}\" names nothing in its schema"
            )),
        }
    }

    /// Compare two settled schemas.
    fn settled(&mut self, o: &Node<'a>, n: &Node<'a>, depth: usize) -> Vec<Finding> {
        match (o.accepts_nothing(), n.accepts_nothing()) {
            (true, true) => return Vec::new(),
            (true, false) => {
                return vec![Finding::new(
                    Dir::Wider,
                    n.ptr.clone(),
                    "the schema accepted no value and now accepts some",
                )]
            }
            (false, true) => {
                return vec![Finding::new(
                    Dir::Narrower,
                    n.ptr.clone(),
                    "the schema now accepts no value at all",
                )]
            }
            (false, false) => {}
        }
        if all_of(o).is_some() != all_of(n).is_some() {
            // A schema against an `allOf` is an `allOf` of one schema: the schema found
            // again among the new parts, the others are constraints added (or removed).
            let mut out = self.annotations(&[o], &[n]);
            out.extend(self.intersections(o, n, depth));
            return out;
        }
        let old_union = union_of(o);
        let new_union = union_of(n);
        if old_union.is_none() && new_union.is_none() {
            return self.keywords(o, n, depth);
        }
        // A schema against a union is a union of one branch; its annotations are compared
        // here, with the union's, and not again as a branch's.
        let mut out = self.annotations(&[o], &[n]);
        let old_union = old_union.unwrap_or_else(|| Union {
            keyword: None,
            branches: vec![o.stripped()],
        });
        let new_union = new_union.unwrap_or_else(|| Union {
            keyword: None,
            branches: vec![n.stripped()],
        });
        out.extend(self.unions(o, n, old_union, new_union, depth));
        out
    }

    /// The annotations of two schemas compared: informational, with what a changed
    /// `default` means for a caller. A changed `$schema` is unknown: the dialect decides
    /// what some keywords mean. Each side is read through its layers, the first that has a
    /// keyword giving it: a reference's own annotations over its definition's.
    fn annotations(&self, old: &[&Node<'a>], new: &[&Node<'a>]) -> Vec<Finding> {
        let lookup = |layers: &[&Node<'a>], keyword: &str| {
            layers
                .iter()
                .find_map(|node| node.get(keyword).map(|v| (v.clone(), (*node).clone())))
        };
        let mut keys: Vec<&str> = Vec::new();
        for node in new.iter().chain(old) {
            for k in node.keys() {
                if !keys.contains(&k) {
                    keys.push(k);
                }
            }
        }
        let fallback = new.first().map_or(String::new(), |n| n.ptr.clone());
        let mut out = Vec::new();
        for keyword in keys {
            if keyword != "$schema" && !is_annotation(keyword) {
                continue;
            }
            let (a, b) = (lookup(old, keyword), lookup(new, keyword));
            // Where the keyword is: in the new schema if there, else in the old one.
            let pointer = match (&b, &a) {
                (Some((_, node)), _) | (None, Some((_, node))) if node.exact_at(keyword) => {
                    child(&node.ptr, keyword)
                }
                _ => fallback.clone(),
            };
            let (a, b) = (a.map(|(v, _)| v), b.map(|(v, _)| v));
            if keyword == "$schema" {
                let read =
                    |v: &Option<Value>| dialect(v.as_ref().and_then(Value::as_str).unwrap_or(""));
                if read(&a) != read(&b) {
                    let shown =
                        |v: &Option<Value>| v.as_ref().map_or("the default".to_owned(), show);
                    out.push(Finding::new(
                        Dir::Unknown,
                        pointer,
                        format!(
                            "the schema's dialect (`$schema`) changed from {} to {}, which \
                             can change what its keywords mean",
                            shown(&a),
                            shown(&b),
                        ),
                    ));
                }
                continue;
            }
            let finding = match (keyword, &a, &b) {
                (_, Some(x), Some(y)) if same(x, y) => continue,
                (_, None, None) => continue,
                ("default", a, b) => {
                    let what = match (a, b) {
                        (Some(a), Some(b)) => {
                            format!("default changed from {} to {}", show(a), show(b))
                        }
                        (None, Some(b)) => format!("default {} added", show(b)),
                        _ => "default removed".to_owned(),
                    };
                    let finding = Finding::new(Dir::Note, pointer, what);
                    match self.role {
                        Role::Input => finding.because(
                            "a caller that leaves it out now gets a different value, \
                             though every call stays valid",
                        ),
                        Role::Output => finding,
                    }
                }
                ("deprecated", _, Some(Value::Bool(true))) => {
                    Finding::new(Dir::Note, pointer, "now marked deprecated")
                }
                ("deprecated", Some(Value::Bool(true)), _) => {
                    Finding::new(Dir::Note, pointer, "no longer marked deprecated")
                }
                (_, None, Some(_)) => Finding::new(Dir::Note, pointer, format!("{keyword} added")),
                (_, Some(_), None) => {
                    Finding::new(Dir::Note, pointer, format!("{keyword} removed"))
                }
                _ => Finding::new(Dir::Note, pointer, format!("{keyword} changed")),
            };
            out.push(finding);
        }
        out
    }

    /// Compare two schemas that are neither unions nor empty, keyword by keyword.
    fn keywords(&mut self, o: &Node<'a>, n: &Node<'a>, depth: usize) -> Vec<Finding> {
        let mut out = self.annotations(&[o], &[n]);
        out.extend(self.reference(o, n, depth));
        let types = self.types(o, n, &mut out);
        out.extend(self.values(o, n));
        if types & (NUMBER | INTEGER) != 0 {
            out.extend(self.numbers(o, n));
        }
        if types & STRING != 0 {
            out.extend(min_count(o, n, "minLength", 0.0));
            out.extend(max_count(o, n, "maxLength"));
            out.extend(pattern(o, n));
        }
        out.extend(format(o, n));
        if types & ARRAY != 0 {
            out.extend(self.arrays(o, n, depth));
        }
        if types & OBJECT != 0 {
            out.extend(self.objects(o, n, depth));
        }
        out.extend(self.combinators(o, n, depth));
        // What no comparison above knows: if it changed, nothing can be said of how.
        let mut keys: Vec<&str> = n.keys();
        for k in o.keys() {
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        for keyword in keys {
            if KNOWN.contains(&keyword) || STRUCTURAL.contains(&keyword) || is_annotation(keyword) {
                continue;
            }
            let changed = match (o.get(keyword), n.get(keyword)) {
                (Some(a), Some(b)) => !same(a, b),
                (None, None) => false,
                _ => true,
            };
            if changed {
                out.push(Finding::new(
                    Dir::Unknown,
                    at(o, n, keyword),
                    format!(
                        "keyword `{keyword}` changed, and this version cannot tell what it does \
                         to the values accepted"
                    ),
                ));
            }
        }
        out
    }

    /// A `$ref` beside other constraints (or to another document): one more constraint.
    fn reference(&mut self, o: &Node<'a>, n: &Node<'a>, depth: usize) -> Vec<Finding> {
        let (a, b) = (o.get("$ref"), n.get("$ref"));
        let text = |v: Option<&Value>| v.map(show).unwrap_or_default();
        match (a.and_then(Value::as_str), b.and_then(Value::as_str)) {
            (None, None) if a.is_none() && b.is_none() => Vec::new(),
            (Some(a), Some(b)) if local_ref(a).is_some() && local_ref(b).is_some() => {
                match (self.resolve(Side::Old, a), self.resolve(Side::New, b)) {
                    (Ok(a), Ok(b)) => self.compare(a, b, depth + 1),
                    (Err(why), _) => vec![Finding::new(Dir::Unknown, at(o, n, "$ref"), why)],
                    (_, Err(why)) => vec![Finding::new(Dir::Unknown, at(o, n, "$ref"), why)],
                }
            }
            (Some(x), Some(y)) if x == y => Vec::new(),
            (Some(_), None) if b.is_none() => vec![Finding::new(
                Dir::Wider,
                at(o, n, "$ref"),
                format!("`$ref` {} no longer applies", text(a)),
            )],
            (None, Some(_)) if a.is_none() => vec![Finding::new(
                Dir::Narrower,
                at(o, n, "$ref"),
                format!("`$ref` {} now applies too", text(b)),
            )],
            _ => vec![Finding::new(
                Dir::Unknown,
                at(o, n, "$ref"),
                format!(
                    "`$ref` changed from {} to {}, which cannot both be followed here",
                    text(a),
                    text(b)
                ),
            )],
        }
    }
}
