//! The keywords that constrain one value: `type`, `enum` and `const`, the bounds of
//! numbers, strings and arrays, and the items of arrays (`pattern` and `format` are in
//! `text`).

use serde_json::Value;

use super::node::{
    accepts_type, at, common_types, list, normal, same_keyword, subset, type_names, Node, ANY, NULL,
};
use super::{Cx, Dir, Finding};
use crate::catalog::json::{child, same, show};

impl<'a> Cx<'a> {
    /// Compare `type`; returns the types either schema accepts, which decide the keywords
    /// worth comparing (a string's `minLength` means nothing to an integer).
    pub(super) fn types(&self, o: &Node<'a>, n: &Node<'a>, out: &mut Vec<Finding>) -> u8 {
        let pointer = at(o, n, "type");
        match (o.types(), n.types()) {
            (Ok(a), Ok(b)) => {
                let (wider, narrower) = (subset(a, b), subset(b, a));
                if wider && narrower {
                    return a | b;
                }
                let gained = normal(b) & !normal(a);
                let lost = normal(a) & !normal(b);
                let finding = if wider && gained == NULL {
                    Finding::new(Dir::Wider, pointer, "null is now allowed")
                } else if narrower && lost == NULL {
                    Finding::new(Dir::Narrower, pointer, "null is no longer allowed")
                } else if wider {
                    Finding::new(
                        Dir::Wider,
                        pointer,
                        format!("type widened from {} to {}", type_names(a), type_names(b)),
                    )
                } else if narrower {
                    Finding::new(
                        Dir::Narrower,
                        pointer,
                        format!("type narrowed from {} to {}", type_names(a), type_names(b)),
                    )
                } else {
                    Finding::new(
                        Dir::Both,
                        pointer,
                        format!("type changed from {} to {}", type_names(a), type_names(b)),
                    )
                };
                out.push(finding);
                a | b
            }
            (a, b) => {
                if !same_keyword(o, n, "type") {
                    let why = a.err().or(b.err()).unwrap_or_default();
                    out.push(Finding::new(Dir::Unknown, pointer, why));
                }
                ANY
            }
        }
    }

    /// Compare `enum` and `const` as the set of values they allow.
    pub(super) fn values(&self, o: &Node<'a>, n: &Node<'a>) -> Vec<Finding> {
        let keyword = if o.get("const").is_some() || n.get("const").is_some() {
            "const"
        } else {
            "enum"
        };
        let pointer = if n.exact_at("enum") {
            child(&n.ptr, "enum")
        } else {
            at(o, n, keyword)
        };
        let (a, b) = match (o.values(), n.values()) {
            (Ok(a), Ok(b)) => (a, b),
            (a, b) => {
                if same_keyword(o, n, "enum") && same_keyword(o, n, "const") {
                    return Vec::new();
                }
                let why = a.err().or(b.err()).unwrap_or_default();
                return vec![Finding::new(Dir::Unknown, pointer, why)];
            }
        };
        // Values of a type only one side accepts are the `type` keyword's change, reported
        // there; here, only those of the types both accept.
        let common = common_types(o.types().unwrap_or(ANY), n.types().unwrap_or(ANY));
        let keep = |values: Option<Vec<Value>>| {
            values.map(|v| {
                v.into_iter()
                    .filter(|v| accepts_type(common, v))
                    .collect::<Vec<_>>()
            })
        };
        let (a, b) = match (a, b) {
            (Some(a), Some(b)) => (keep(Some(a)), keep(Some(b))),
            other => other,
        };
        match (a, b) {
            (None, None) => Vec::new(),
            (None, Some(b)) => vec![Finding::new(
                Dir::Narrower,
                pointer,
                format!("{keyword} added, allowing only {}", list(&b)),
            )],
            (Some(a), None) => vec![Finding::new(
                Dir::Wider,
                pointer,
                format!(
                    "{keyword} removed: any value of the type is allowed, not only {}",
                    list(&a)
                ),
            )],
            (Some(a), Some(b)) => {
                let removed: Vec<&Value> =
                    a.iter().filter(|v| !b.iter().any(|w| same(v, w))).collect();
                let added: Vec<&Value> =
                    b.iter().filter(|v| !a.iter().any(|w| same(v, w))).collect();
                if a.len() == 1 && b.len() == 1 && !removed.is_empty() {
                    return vec![Finding::new(
                        Dir::Both,
                        pointer,
                        format!("{keyword} changed from {} to {}", list(&a), list(&b)),
                    )];
                }
                let mut out = Vec::new();
                for v in removed {
                    out.push(Finding::new(
                        Dir::Narrower,
                        pointer.clone(),
                        format!("value {} no longer allowed ({keyword})", show(v)),
                    ));
                }
                for v in added {
                    out.push(Finding::new(
                        Dir::Wider,
                        pointer.clone(),
                        format!("value {} now allowed ({keyword})", show(v)),
                    ));
                }
                out
            }
        }
    }

    /// Compare the bounds of numbers: the lower and upper ones, each from its inclusive
    /// and exclusive keyword together, and `multipleOf`.
    pub(super) fn numbers(&self, o: &Node<'a>, n: &Node<'a>) -> Vec<Finding> {
        let mut out = Vec::new();
        for end in [End::Lower, End::Upper] {
            let (a, b) = match (bound(o, end), bound(n, end)) {
                (Ok(a), Ok(b)) => (a, b),
                (a, b) => {
                    let (inclusive, exclusive) = end.keywords();
                    if !(same_keyword(o, n, inclusive) && same_keyword(o, n, exclusive)) {
                        let why = a.err().or(b.err()).unwrap_or_default();
                        out.push(Finding::new(Dir::Unknown, at(o, n, inclusive), why));
                    }
                    continue;
                }
            };
            let name = end.name();
            match (a, b) {
                (None, None) => {}
                (None, Some(b)) => out.push(Finding::new(
                    Dir::Narrower,
                    at(o, n, b.keyword),
                    format!("{name} bound {} added", b.text()),
                )),
                (Some(a), None) => out.push(Finding::new(
                    Dir::Wider,
                    at(o, n, a.keyword),
                    format!("{name} bound {} removed", a.text()),
                )),
                (Some(a), Some(b)) => {
                    if b.stricter_than(&a, end) {
                        out.push(Finding::new(
                            Dir::Narrower,
                            at(o, n, b.keyword),
                            format!("{name} bound tightened from {} to {}", a.text(), b.text()),
                        ));
                    } else if a.stricter_than(&b, end) {
                        out.push(Finding::new(
                            Dir::Wider,
                            at(o, n, b.keyword),
                            format!("{name} bound loosened from {} to {}", a.text(), b.text()),
                        ));
                    }
                }
            }
        }
        out.extend(multiple_of(o, n));
        out
    }

    /// Compare what an array's items must be, and how many.
    pub(super) fn arrays(&mut self, o: &Node<'a>, n: &Node<'a>, depth: usize) -> Vec<Finding> {
        let mut out = Vec::new();
        // `items` as one schema for every item, or (before 2020-12) as a tuple, one schema
        // per position; `prefixItems` is the tuple of 2020-12.
        for keyword in ["prefixItems", "items"] {
            match (o.get(keyword), n.get(keyword)) {
                (Some(Value::Array(a)), Some(Value::Array(b))) => {
                    if a.len() != b.len() {
                        out.push(Finding::new(
                            Dir::Unknown,
                            at(o, n, keyword),
                            format!(
                                "the tuple of `{keyword}` changed from {} to {} positions, \
                                 which this version does not compare",
                                a.len(),
                                b.len()
                            ),
                        ));
                        continue;
                    }
                    for i in 0..a.len() {
                        let index = i.to_string();
                        if let (Some(x), Some(y)) =
                            (o.part(&[keyword, &index]), n.part(&[keyword, &index]))
                        {
                            out.extend(self.compare(x, y, depth + 1));
                        }
                    }
                }
                (Some(Value::Array(_)), Some(_)) | (Some(_), Some(Value::Array(_))) => {
                    out.push(Finding::new(
                        Dir::Unknown,
                        at(o, n, keyword),
                        format!(
                            "`{keyword}` changed between a tuple and one schema for every \
                             item, which this version does not compare"
                        ),
                    ));
                }
                (None, None) => {}
                (Some(Value::Array(_)), None) | (None, Some(Value::Array(_))) => {
                    // Which items `items` covers depends on the tuple before it.
                    out.push(Finding::new(
                        Dir::Unknown,
                        at(o, n, keyword),
                        format!(
                            "a tuple (`{keyword}`) was added or removed, which changes which \
                             items the other keywords apply to"
                        ),
                    ));
                }
                _ => out.extend(self.compare(
                    o.part_or_true(keyword),
                    n.part_or_true(keyword),
                    depth + 1,
                )),
            }
        }
        for keyword in ["additionalItems", "unevaluatedItems"] {
            if o.get(keyword).is_some() || n.get(keyword).is_some() {
                out.extend(self.compare(
                    o.part_or_true(keyword),
                    n.part_or_true(keyword),
                    depth + 1,
                ));
            }
        }
        out.extend(min_count(o, n, "minItems", 0.0));
        out.extend(max_count(o, n, "maxItems"));
        match (flag(o, "uniqueItems"), flag(n, "uniqueItems")) {
            (Ok(false), Ok(true)) => out.push(Finding::new(
                Dir::Narrower,
                at(o, n, "uniqueItems"),
                "uniqueItems added: the items of an array must all differ",
            )),
            (Ok(true), Ok(false)) => out.push(Finding::new(
                Dir::Wider,
                at(o, n, "uniqueItems"),
                "uniqueItems removed: the items of an array may repeat",
            )),
            (Ok(_), Ok(_)) => {}
            (a, b) => {
                if !same_keyword(o, n, "uniqueItems") {
                    let why = a.err().or(b.err()).unwrap_or_default();
                    out.push(Finding::new(Dir::Unknown, at(o, n, "uniqueItems"), why));
                }
            }
        }
        match (o.get("contains").is_some(), n.get("contains").is_some()) {
            (true, true) => {
                out.extend(self.compare(
                    o.part_or_true("contains"),
                    n.part_or_true("contains"),
                    depth + 1,
                ));
                out.extend(min_count(o, n, "minContains", 1.0));
                out.extend(max_count(o, n, "maxContains"));
            }
            (false, true) => out.push(Finding::new(
                Dir::Narrower,
                at(o, n, "contains"),
                "contains added: an array must hold an item that matches it",
            )),
            (true, false) => out.push(Finding::new(
                Dir::Wider,
                at(o, n, "contains"),
                "contains removed: an array need not hold an item that matches it",
            )),
            (false, false) => {}
        }
        out
    }
}

/// A lower or an upper bound.
#[derive(Debug, Clone, Copy)]
enum End {
    Lower,
    Upper,
}

impl End {
    pub(super) fn keywords(self) -> (&'static str, &'static str) {
        match self {
            End::Lower => ("minimum", "exclusiveMinimum"),
            End::Upper => ("maximum", "exclusiveMaximum"),
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            End::Lower => "lower",
            End::Upper => "upper",
        }
    }
}

/// A bound on numbers.
#[derive(Debug, Clone)]
struct Bound {
    value: f64,
    exclusive: bool,
    /// The keyword that sets it.
    keyword: &'static str,
    /// The number as the schema writes it.
    shown: String,
    end: End,
}

impl Bound {
    pub(super) fn text(&self) -> String {
        let op = match (self.end, self.exclusive) {
            (End::Lower, false) => ">=",
            (End::Lower, true) => ">",
            (End::Upper, false) => "<=",
            (End::Upper, true) => "<",
        };
        format!("{op} {}", self.shown)
    }

    /// Whether this bound refuses more numbers than `other`.
    fn stricter_than(&self, other: &Bound, end: End) -> bool {
        let further = match end {
            End::Lower => self.value > other.value,
            End::Upper => self.value < other.value,
        };
        further || (self.value == other.value && self.exclusive && !other.exclusive)
    }
}

/// The bound a schema sets at `end`, from its inclusive keyword and its exclusive one
/// (a number in 2020-12, a flag on the inclusive one in draft-04), the stricter of them.
fn bound(node: &Node<'_>, end: End) -> Result<Option<Bound>, String> {
    let (inclusive, exclusive) = end.keywords();
    let number = |keyword: &'static str, v: &Value, flagged: bool| match v.as_f64() {
        Some(value) if value.is_finite() => Ok(Bound {
            value,
            exclusive: flagged,
            keyword,
            shown: v.to_string(),
            end,
        }),
        _ => Err(format!("`{keyword}` is {}, not a number", show(v))),
    };
    let mut found: Vec<Bound> = Vec::new();
    let flagged = match node.get(exclusive) {
        None | Some(Value::Bool(false)) => false,
        Some(Value::Bool(true)) => true,
        Some(v) => {
            found.push(number(exclusive, v, true)?);
            false
        }
    };
    if let Some(v) = node.get(inclusive) {
        found.push(number(inclusive, v, flagged)?);
    }
    let mut strictest: Option<Bound> = None;
    for b in found {
        strictest = match strictest {
            Some(s) if !b.stricter_than(&s, end) => Some(s),
            _ => Some(b),
        };
    }
    Ok(strictest)
}

/// Compare `multipleOf`. Between whole numbers, a multiple of the old step narrows and a
/// divisor widens; any other change is counted both ways.
fn multiple_of(o: &Node<'_>, n: &Node<'_>) -> Vec<Finding> {
    let keyword = "multipleOf";
    let step = |node: &Node<'_>| match node.get(keyword) {
        None => Ok(None),
        Some(v) => match v.as_f64() {
            Some(x) if x > 0.0 && x.is_finite() => Ok(Some((x, v.to_string()))),
            _ => Err(format!(
                "`multipleOf` is {}, not a positive number",
                show(v)
            )),
        },
    };
    let pointer = at(o, n, keyword);
    match (step(o), step(n)) {
        (Ok(None), Ok(None)) => Vec::new(),
        (Ok(None), Ok(Some((_, b)))) => vec![Finding::new(
            Dir::Narrower,
            pointer,
            format!("multipleOf {b} added"),
        )],
        (Ok(Some((_, a))), Ok(None)) => vec![Finding::new(
            Dir::Wider,
            pointer,
            format!("multipleOf {a} removed"),
        )],
        (Ok(Some((x, a))), Ok(Some((y, b)))) => {
            if x == y {
                return Vec::new();
            }
            let whole = |v: f64| v.fract() == 0.0 && v < 9.0e15;
            let dir = if whole(x) && whole(y) && y % x == 0.0 {
                Dir::Narrower
            } else if whole(x) && whole(y) && x % y == 0.0 {
                Dir::Wider
            } else {
                Dir::Both
            };
            vec![Finding::new(
                dir,
                pointer,
                format!("multipleOf changed from {a} to {b}"),
            )]
        }
        (a, b) => {
            if same_keyword(o, n, keyword) {
                return Vec::new();
            }
            let why = a.err().or(b.err()).unwrap_or_default();
            vec![Finding::new(Dir::Unknown, pointer, why)]
        }
    }
}

/// A count that must be at least something (`minLength`, `minItems`...), absent meaning
/// `default`.
pub(super) fn count(node: &Node<'_>, keyword: &str) -> Result<Option<(f64, String)>, String> {
    match node.get(keyword) {
        None => Ok(None),
        Some(v) => match v.as_f64() {
            Some(x) if x >= 0.0 && x.is_finite() => Ok(Some((x, v.to_string()))),
            _ => Err(format!("`{keyword}` is {}, not a count", show(v))),
        },
    }
}

pub(super) fn min_count(
    o: &Node<'_>,
    n: &Node<'_>,
    keyword: &str,
    default: f64,
) -> Option<Finding> {
    let pointer = at(o, n, keyword);
    let (a, b) = match (count(o, keyword), count(n, keyword)) {
        (Ok(a), Ok(b)) => (a, b),
        (a, b) => {
            if same_keyword(o, n, keyword) {
                return None;
            }
            let why = a.err().or(b.err()).unwrap_or_default();
            return Some(Finding::new(Dir::Unknown, pointer, why));
        }
    };
    let x = a.as_ref().map_or(default, |(x, _)| *x);
    let y = b.as_ref().map_or(default, |(y, _)| *y);
    let shown =
        |c: &Option<(f64, String)>| c.as_ref().map_or(default.to_string(), |(_, s)| s.clone());
    if y > x {
        Some(Finding::new(
            Dir::Narrower,
            pointer,
            format!("{keyword} raised from {} to {}", shown(&a), shown(&b)),
        ))
    } else if y < x {
        Some(Finding::new(
            Dir::Wider,
            pointer,
            format!("{keyword} lowered from {} to {}", shown(&a), shown(&b)),
        ))
    } else {
        None
    }
}

pub(super) fn max_count(o: &Node<'_>, n: &Node<'_>, keyword: &str) -> Option<Finding> {
    let pointer = at(o, n, keyword);
    let (a, b) = match (count(o, keyword), count(n, keyword)) {
        (Ok(a), Ok(b)) => (a, b),
        (a, b) => {
            if same_keyword(o, n, keyword) {
                return None;
            }
            let why = a.err().or(b.err()).unwrap_or_default();
            return Some(Finding::new(Dir::Unknown, pointer, why));
        }
    };
    match (a, b) {
        (None, None) => None,
        (None, Some((_, b))) => Some(Finding::new(
            Dir::Narrower,
            pointer,
            format!("{keyword} {b} added"),
        )),
        (Some((_, a)), None) => Some(Finding::new(
            Dir::Wider,
            pointer,
            format!("{keyword} {a} removed"),
        )),
        (Some((x, a)), Some((y, b))) => {
            if y < x {
                Some(Finding::new(
                    Dir::Narrower,
                    pointer,
                    format!("{keyword} lowered from {a} to {b}"),
                ))
            } else if y > x {
                Some(Finding::new(
                    Dir::Wider,
                    pointer,
                    format!("{keyword} raised from {a} to {b}"),
                ))
            } else {
                None
            }
        }
    }
}

/// A flag keyword (`uniqueItems`), absent meaning false.
fn flag(node: &Node<'_>, keyword: &str) -> Result<bool, String> {
    match node.get(keyword) {
        None => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(format!("`{keyword}` is {}, not true or false", show(other))),
    }
}
