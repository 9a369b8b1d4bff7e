//! Unions and the other combinations of schemas: `anyOf` and `oneOf` compared branch by
//! branch, `allOf` schema by schema, `not`, and `if`/`then`/`else`.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::node::{at, is_annotation, list, same_keyword, type_names, Made, Node, ANY};
use super::pairing::{disjoint, distinct, pair_by_members, pair_by_signature, split, tags};
use super::{Cx, Dir, Finding, Side};
use crate::catalog::json::{child, same, show};

/// A union: the branches of an `anyOf` or a `oneOf`, or a single schema seen as one.
pub(super) struct Union<'a> {
    /// `anyOf` or `oneOf`; `None` for a single schema.
    pub(super) keyword: Option<&'static str>,
    pub(super) branches: Vec<Node<'a>>,
}

impl Union<'_> {
    pub(super) fn exclusive(&self) -> bool {
        self.keyword == Some("oneOf")
    }

    pub(super) fn name(&self) -> &'static str {
        self.keyword.unwrap_or("the schema")
    }
}

impl<'a> Cx<'a> {
    /// Compare two unions (`anyOf`, `oneOf`, or a schema standing as one).
    pub(super) fn unions(
        &mut self,
        o: &Node<'a>,
        n: &Node<'a>,
        old: Union<'a>,
        new: Union<'a>,
        depth: usize,
    ) -> Vec<Finding> {
        let pointer = match (old.keyword, new.keyword) {
            (_, Some(k)) if n.exact_at(k) => child(&n.ptr, k),
            (Some(k), _) if o.exact_at(k) => child(&o.ptr, k),
            _ => n.ptr.clone(),
        };
        let mut old_branches = Vec::with_capacity(old.branches.len());
        for branch in &old.branches {
            match self.settle(branch.clone(), Side::Old) {
                Ok((b, _)) => old_branches.push(b),
                Err(why) => return vec![Finding::new(Dir::Unknown, branch.ptr.clone(), why)],
            }
        }
        let mut new_branches = Vec::with_capacity(new.branches.len());
        for branch in &new.branches {
            match self.settle(branch.clone(), Side::New) {
                Ok((b, _)) => new_branches.push(b),
                Err(why) => return vec![Finding::new(Dir::Unknown, branch.ptr.clone(), why)],
            }
        }
        // A `oneOf` whose branches cannot overlap accepts what an `anyOf` of them does;
        // one whose branches may overlap refuses a value matching several, so adding,
        // removing or widening a branch can move values either way.
        let old_any = !old.exclusive() || disjoint(&old_branches);
        let new_any = !new.exclusive() || disjoint(&new_branches);
        if old_any && new_any {
            // A value matching one of several equal branches matches the union once it
            // matches one: the repeats add nothing (an `anyOf` that names one error
            // schema per status, for instance).
            return self.branches(
                distinct(split(old_branches)),
                distinct(split(new_branches)),
                Combine::Any,
                &pointer,
                depth,
            );
        }
        let (mut out, left_old, left_new, _) = self.pair_equal(&old_branches, &new_branches, depth);
        if !left_old.is_empty() || !left_new.is_empty() {
            return vec![Finding::new(
                Dir::Unknown,
                pointer,
                format!(
                    "cannot tell whether the change to {} narrows or widens: its branches \
                     may overlap, and a value matching more than one is refused",
                    if old.exclusive() {
                        old.name()
                    } else {
                        new.name()
                    }
                ),
            )];
        }
        if !old_any && new_any {
            out.push(Finding::new(
                Dir::Wider,
                pointer,
                format!(
                    "{} became {}: a value matching several branches is now accepted",
                    old.name(),
                    new.name()
                ),
            ));
        } else if old_any && !new_any {
            out.push(Finding::new(
                Dir::Narrower,
                pointer,
                format!(
                    "{} became oneOf, whose branches may overlap: a value matching several \
                     is now refused",
                    old.name()
                ),
            ));
        }
        out
    }

    /// Pair each old branch with a new one it equals (annotations aside), trying the same
    /// position first: the notes of the pairs, the branches left on each side, and the
    /// pairs by index.
    #[allow(clippy::type_complexity)]
    fn pair_equal(
        &mut self,
        old: &[Node<'a>],
        new: &[Node<'a>],
        depth: usize,
    ) -> (
        Vec<Finding>,
        Vec<Node<'a>>,
        Vec<Node<'a>>,
        Vec<(usize, usize)>,
    ) {
        let mut notes = Vec::new();
        let mut new_used = vec![false; new.len()];
        let mut old_left = Vec::new();
        let mut pairs = Vec::new();
        for (i, a) in old.iter().enumerate() {
            let order = std::iter::once(i).chain((0..new.len()).filter(move |&j| j != i));
            let mut matched = false;
            for j in order {
                let (Some(b), Some(false)) = (new.get(j), new_used.get(j).copied()) else {
                    continue;
                };
                let found = self.compare(a.clone(), b.clone(), depth + 1);
                if found.iter().all(|f| f.dir == Dir::Note) {
                    if let Some(used) = new_used.get_mut(j) {
                        *used = true;
                    }
                    notes.extend(found);
                    pairs.push((i, j));
                    matched = true;
                    break;
                }
            }
            if !matched {
                old_left.push(a.clone());
            }
        }
        let new_left = new
            .iter()
            .zip(&new_used)
            .filter(|(_, used)| !**used)
            .map(|(b, _)| b.clone())
            .collect();
        (notes, old_left, new_left, pairs)
    }

    /// Compare two lists of branches combined as `combine` says: those equal on both
    /// sides, then those that can be paired by their type, then one left on each side;
    /// branches only on one side were added or removed. More left on both sides than that
    /// is unknown.
    fn branches(
        &mut self,
        old: Vec<Node<'a>>,
        new: Vec<Node<'a>>,
        combine: Combine,
        pointer: &str,
        depth: usize,
    ) -> Vec<Finding> {
        let (mut out, old_left, new_left, _) = self.pair_equal(&old, &new, depth);
        let (mut pairs, old_left, new_left) = pair_by_signature(old_left, new_left);
        let (more, old_left, new_left) = pair_by_members(old_left, new_left);
        pairs.extend(more);
        for (a, b) in pairs {
            out.extend(self.compare(a, b, depth + 1));
        }
        match (old_left.len(), new_left.len()) {
            (0, 0) => {}
            (1, 1) => {
                if let (Some(a), Some(b)) =
                    (old_left.into_iter().next(), new_left.into_iter().next())
                {
                    out.extend(self.compare(a, b, depth + 1));
                }
            }
            (_, 0) => {
                for removed in old_left {
                    out.push(match combine {
                        Combine::Any => Finding::new(
                            Dir::Narrower,
                            removed.ptr.clone(),
                            match describe(&removed).as_deref() {
                                Some("null") => "null is no longer allowed".to_owned(),
                                Some(what) => {
                                    format!("{what} is no longer allowed (branch removed)")
                                }
                                None => "a branch of the union was removed".to_owned(),
                            },
                        ),
                        Combine::All => Finding::new(
                            Dir::Wider,
                            removed.ptr.clone(),
                            "a schema of allOf was removed, and with it its constraints",
                        ),
                    });
                }
            }
            (0, _) => {
                for added in new_left {
                    out.push(match combine {
                        Combine::Any => Finding::new(
                            Dir::Wider,
                            added.ptr.clone(),
                            match describe(&added).as_deref() {
                                Some("null") => "null is now allowed".to_owned(),
                                Some(what) => format!("{what} is now allowed too (branch added)"),
                                None => "a branch was added to the union".to_owned(),
                            },
                        ),
                        Combine::All => Finding::new(
                            Dir::Narrower,
                            added.ptr.clone(),
                            "a schema was added to allOf, and with it its constraints",
                        ),
                    });
                }
            }
            (removed, added) => out.push(Finding::new(
                Dir::Unknown,
                pointer.to_owned(),
                format!(
                    "cannot tell whether the change to {} narrows or widens: {removed} \
                     branches were replaced by {added} others that cannot be paired with them",
                    match combine {
                        Combine::Any => "the union",
                        Combine::All => "allOf",
                    }
                ),
            )),
        }
        out
    }

    /// Compare a schema with an `allOf` (either way round) as two lists of schemas that
    /// must all hold, the lone schema a list of one.
    pub(super) fn intersections(
        &mut self,
        o: &Node<'a>,
        n: &Node<'a>,
        depth: usize,
    ) -> Vec<Finding> {
        let mut out = Vec::new();
        let old = match all_of(o) {
            Some(parts) => self.conjuncts(parts, Side::Old, &mut out),
            None => vec![o.stripped()],
        };
        let new = match all_of(n) {
            Some(parts) => self.conjuncts(parts, Side::New, &mut out),
            None => vec![n.stripped()],
        };
        let pointer = at(o, n, "allOf");
        out.extend(self.branches(distinct(old), distinct(new), Combine::All, &pointer, depth));
        out
    }

    /// The parts of an `allOf`, each settled (its `$ref` followed), and a part that is an
    /// `allOf` itself replaced by its own parts: all of (A and B) and C is all of A, B and
    /// C, so a schema extended once more compares part by part with the one before.
    fn conjuncts(&self, parts: Vec<Node<'a>>, side: Side, out: &mut Vec<Finding>) -> Vec<Node<'a>> {
        let mut found = Vec::new();
        let mut todo: Vec<Node<'a>> = parts.into_iter().rev().collect();
        let mut opened = 0;
        while let Some(part) = todo.pop() {
            let settled = match self.settle(part.clone(), side) {
                Ok((settled, _)) => settled,
                Err(why) => {
                    out.push(Finding::new(Dir::Unknown, part.ptr, why));
                    continue;
                }
            };
            match all_of(&settled) {
                // A bound on the parts opened, for an `allOf` that reaches itself.
                Some(inner) if opened < MAX_PARTS => {
                    opened += 1;
                    todo.extend(inner.into_iter().rev());
                }
                _ => found.push(settled),
            }
        }
        found
    }

    /// Compare `allOf`, `anyOf` and `oneOf` beside other keywords (each one constraint
    /// more), `not`, and `if`/`then`/`else`.
    pub(super) fn combinators(&mut self, o: &Node<'a>, n: &Node<'a>, depth: usize) -> Vec<Finding> {
        let mut out = Vec::new();
        for keyword in ["allOf", "anyOf", "oneOf"] {
            let (a, b) = (o.get(keyword), n.get(keyword));
            match (a, b) {
                (None, None) => {}
                (Some(Value::Array(a)), Some(Value::Array(b))) => {
                    let old: Vec<Node<'a>> = (0..a.len())
                        .filter_map(|i| o.part(&[keyword, &i.to_string()]))
                        .collect();
                    let new: Vec<Node<'a>> = (0..b.len())
                        .filter_map(|i| n.part(&[keyword, &i.to_string()]))
                        .collect();
                    if keyword == "allOf" {
                        let settled_old = self.conjuncts(old, Side::Old, &mut out);
                        let settled_new = self.conjuncts(new, Side::New, &mut out);
                        let pointer = at(o, n, keyword);
                        out.extend(self.branches(
                            distinct(settled_old),
                            distinct(settled_new),
                            Combine::All,
                            &pointer,
                            depth,
                        ));
                    } else {
                        let old = Union {
                            keyword: Some(keyword),
                            branches: old,
                        };
                        let new = Union {
                            keyword: old.keyword,
                            branches: new,
                        };
                        out.extend(self.unions(o, n, old, new, depth));
                    }
                }
                (Some(Value::Array(_)), None) => out.push(Finding::new(
                    Dir::Wider,
                    at(o, n, keyword),
                    format!("{keyword} removed, and with it its constraint"),
                )),
                (None, Some(Value::Array(_))) => out.push(Finding::new(
                    Dir::Narrower,
                    at(o, n, keyword),
                    format!(
                        "{keyword} added beside the other keywords, which values must also match"
                    ),
                )),
                _ => {
                    if !same_keyword(o, n, keyword) {
                        out.push(Finding::new(
                            Dir::Unknown,
                            at(o, n, keyword),
                            format!("`{keyword}` is not an array of schemas"),
                        ));
                    }
                }
            }
        }
        match (o.get("not").is_some(), n.get("not").is_some()) {
            (true, true) => {
                let found = self.compare(o.part_or_true("not"), n.part_or_true("not"), depth + 1);
                out.extend(found.into_iter().map(Finding::negated));
            }
            (false, true) => out.push(Finding::new(
                Dir::Narrower,
                at(o, n, "not"),
                "`not` added, refusing what matches it",
            )),
            (true, false) => out.push(Finding::new(
                Dir::Wider,
                at(o, n, "not"),
                "`not` removed, which refused what matches it",
            )),
            (false, false) => {}
        }
        out.extend(self.conditional(o, n, depth));
        out
    }

    /// Compare `if`/`then`/`else`: with the same condition, each branch as a schema;
    /// with another condition, unknown.
    fn conditional(&mut self, o: &Node<'a>, n: &Node<'a>, depth: usize) -> Vec<Finding> {
        let effective = |node: &Node<'_>| {
            node.get("if").is_some() && (node.get("then").is_some() || node.get("else").is_some())
        };
        match (effective(o), effective(n)) {
            (false, false) => Vec::new(),
            (false, true) => vec![Finding::new(
                Dir::Narrower,
                at(o, n, "if"),
                "a condition (`if`/`then`/`else`) added, which values must also meet",
            )],
            (true, false) => vec![Finding::new(
                Dir::Wider,
                at(o, n, "if"),
                "a condition (`if`/`then`/`else`) removed, and with it its constraint",
            )],
            (true, true) => {
                let condition = self.compare(o.part_or_true("if"), n.part_or_true("if"), depth + 1);
                if condition.iter().any(|f| f.dir != Dir::Note) {
                    return vec![Finding::new(
                        Dir::Unknown,
                        at(o, n, "if"),
                        "the condition of `if`/`then`/`else` changed: cannot tell which values \
                         now meet which branch",
                    )];
                }
                let mut out = condition;
                for keyword in ["then", "else"] {
                    out.extend(self.compare(
                        o.part_or_true(keyword),
                        n.part_or_true(keyword),
                        depth + 1,
                    ));
                }
                out
            }
        }
    }
}

/// The most nested `allOf`s opened into one list of parts.
const MAX_PARTS: usize = 64;

/// How the branches of a list combine.
#[derive(Debug, Clone, Copy)]
enum Combine {
    /// A value must match one (`anyOf`, or a `oneOf` whose branches cannot overlap).
    Any,
    /// A value must match all (`allOf`).
    All,
}

/// An `allOf`/`anyOf`/`oneOf` of one branch with only annotations beside it: which.
pub(super) fn single_branch(node: &Node<'_>) -> Option<&'static str> {
    let mut found = None;
    for keyword in ["allOf", "anyOf", "oneOf"] {
        if let Some(v) = node.get(keyword) {
            if found.is_some() {
                return None;
            }
            match v {
                Value::Array(items) if items.len() == 1 => found = Some(keyword),
                _ => return None,
            }
        }
    }
    let keyword = found?;
    node.only_annotations_besides(&[keyword]).then_some(keyword)
}

/// The union a node is when it is nothing but an `anyOf` or a `oneOf` (and annotations).
pub(super) fn union_of<'a>(node: &Node<'a>) -> Option<Union<'a>> {
    let keyword = match (node.get("anyOf"), node.get("oneOf")) {
        (Some(Value::Array(_)), None) => "anyOf",
        (None, Some(Value::Array(_))) => "oneOf",
        _ => return None,
    };
    if !node.only_annotations_besides(&[keyword]) {
        return None;
    }
    let count = node
        .get(keyword)
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let branches = (0..count)
        .filter_map(|i| node.part(&[keyword, &i.to_string()]))
        .collect();
    Some(Union {
        keyword: Some(keyword),
        branches,
    })
}

/// The parts of a node that is nothing but an `allOf` (and annotations).
pub(super) fn all_of<'a>(node: &Node<'a>) -> Option<Vec<Node<'a>>> {
    let count = node.get("allOf").and_then(Value::as_array)?.len();
    if !node.only_annotations_besides(&["allOf"]) {
        return None;
    }
    Some(
        (0..count)
            .filter_map(|i| node.part(&["allOf", &i.to_string()]))
            .collect(),
    )
}

/// An `anyOf`/`oneOf` whose every branch is a constant (`const`, or an `enum`, with only
/// a `type` and annotations beside), read as the `enum` of those values; a `oneOf` only
/// when no value is in two branches (one that is matches neither, exactly once).
pub(super) fn consts_union<'a>(node: &Node<'a>) -> Option<Node<'a>> {
    let (keyword, branches) = match (node.get("anyOf"), node.get("oneOf")) {
        (Some(Value::Array(b)), None) => ("anyOf", b),
        (None, Some(Value::Array(b))) => ("oneOf", b),
        _ => return None,
    };
    if branches.is_empty() || !node.only_annotations_besides(&[keyword, "type"]) {
        return None;
    }
    let mut values: Vec<Value> = Vec::new();
    for branch in branches {
        let branch = Node::exact(branch, String::new());
        if branch.schema.as_object().is_none()
            || !branch.only_annotations_besides(&["const", "enum", "type"])
        {
            return None;
        }
        for value in branch.values().ok()?? {
            if values.iter().any(|v| same(v, &value)) {
                if keyword == "oneOf" {
                    return None;
                }
                continue;
            }
            values.push(value);
        }
    }
    let mut map = Map::new();
    if let Some(object) = node.schema.as_object() {
        for (k, v) in object {
            if k != keyword && node.visible(k) {
                map.insert(k.clone(), v.clone());
            }
        }
    }
    map.insert("enum".to_owned(), Value::Array(values));
    Some(Node {
        schema: Cow::Owned(Value::Object(map)),
        ptr: node.ptr.clone(),
        made: Made::Consts,
        bare: node.bare,
        only: node.only,
    })
}

/// A branch named for a message when it is simple: a type alone, one constant, or an
/// object told apart by a tag.
pub(super) fn describe(node: &Node<'_>) -> Option<String> {
    if let Ok(Some(values)) = node.values() {
        if let [one] = values.as_slice() {
            return Some(show(one));
        }
    }
    if let Some((name, values)) = tags(node).first() {
        return Some(format!("an object whose `{name}` is {}", list(values)));
    }
    let types = node.types().ok()?;
    if types == ANY {
        return None;
    }
    let plain = node.keys().iter().all(|k| *k == "type" || is_annotation(k));
    plain.then(|| type_names(types))
}
