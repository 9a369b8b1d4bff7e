//! The keywords of objects: each property declared or not, required or not, and what the
//! members a schema does not declare may hold. Here the comparison reads properties as
//! callers do (see the parent module): an optional argument added is compatible, a field
//! removed from an output is breaking.

use serde_json::Value;

use super::keywords::{max_count, min_count};
use super::node::{at, at_old, is_annotation, same_keyword, Node, STRUCTURAL};
use super::{Cx, Dir, Finding, Role};
use crate::catalog::json::{child, show};

impl<'a> Cx<'a> {
    /// Compare what an object's members must be: its properties one by one (declared,
    /// required), what members it does not declare may be, and its other constraints.
    pub(super) fn objects(&mut self, o: &Node<'a>, n: &Node<'a>, depth: usize) -> Vec<Finding> {
        let mut out = Vec::new();
        let (props_o, props_n) = match (members(o, "properties"), members(n, "properties")) {
            (Ok(a), Ok(b)) => (a, b),
            (a, b) => {
                let why = a.err().or(b.err()).unwrap_or_default();
                return vec![Finding::new(Dir::Unknown, at(o, n, "properties"), why)];
            }
        };
        let (req_o, req_n) = (required(o), required(n));
        let mut names: Vec<&str> = props_n.iter().map(|(k, _)| k.as_str()).collect();
        for name in props_o
            .iter()
            .map(|(k, _)| k.as_str())
            .chain(req_n.iter().copied())
            .chain(req_o.iter().copied())
        {
            if !names.contains(&name) {
                names.push(name);
            }
        }
        let noun = match (self.role, depth) {
            (Role::Input, 0) => "argument",
            (Role::Input, _) => "property",
            (Role::Output, _) => "field",
        };
        let patterns_o = has_members(o, "patternProperties");
        let patterns_n = has_members(n, "patternProperties");
        for name in names {
            let was_declared = props_o.iter().any(|(k, _)| k.as_str() == name);
            let is_declared = props_n.iter().any(|(k, _)| k.as_str() == name);
            let was_required = req_o.contains(&name);
            let is_required = req_n.contains(&name);
            let old_prop = o.part(&["properties", name]);
            let new_prop = n.part(&["properties", name]);
            let prop_pointer = |node: &Node<'_>| child(&child(&node.ptr, "properties"), name);
            match (was_declared, is_declared) {
                (true, true) => {
                    if let (Some(a), Some(b)) = (old_prop, new_prop) {
                        out.extend(self.compare(a, b, depth + 1));
                    }
                    out.extend(self.required_flip(o, n, noun, name, was_required, is_required));
                }
                (false, true) => {
                    let Some(b) = new_prop else { continue };
                    if patterns_o {
                        out.push(Finding::new(
                            Dir::Unknown,
                            prop_pointer(n),
                            format!(
                                "{noun} `{name}` was declared, and patternProperties may \
                                 already have said what it holds: cannot tell how that changed"
                            ),
                        ));
                        continue;
                    }
                    out.extend(self.declared(
                        o,
                        n,
                        b,
                        noun,
                        name,
                        was_required,
                        is_required,
                        depth,
                    ));
                }
                (true, false) => {
                    let Some(a) = old_prop else { continue };
                    if patterns_n {
                        out.push(Finding::new(
                            Dir::Unknown,
                            prop_pointer(o),
                            format!(
                                "{noun} `{name}` is no longer declared, and patternProperties \
                                 may now say what it holds: cannot tell how that changed"
                            ),
                        ));
                        continue;
                    }
                    out.extend(self.undeclared(
                        o,
                        n,
                        a,
                        noun,
                        name,
                        was_required,
                        is_required,
                        depth,
                    ));
                }
                (false, false) => {
                    out.extend(self.required_flip(o, n, noun, name, was_required, is_required));
                }
            }
        }
        out.extend(self.additional(o, n, depth));
        out.extend(self.patterns(o, n, depth));
        for keyword in ["propertyNames", "unevaluatedProperties"] {
            if o.get(keyword).is_some() || n.get(keyword).is_some() {
                out.extend(self.compare(
                    o.part_or_true(keyword),
                    n.part_or_true(keyword),
                    depth + 1,
                ));
            }
        }
        out.extend(min_count(o, n, "minProperties", 0.0));
        out.extend(max_count(o, n, "maxProperties"));
        out.extend(dependent_required(o, n));
        out.extend(self.dependent_schemas(o, n, depth));
        out
    }

    /// A property required on one side and not the other.
    fn required_flip(
        &self,
        o: &Node<'a>,
        n: &Node<'a>,
        noun: &str,
        name: &str,
        was: bool,
        is: bool,
    ) -> Option<Finding> {
        match (was, is, self.role) {
            (false, true, Role::Input) => Some(
                Finding::new(
                    Dir::Narrower,
                    at(o, n, "required"),
                    format!("{noun} `{name}` became required"),
                )
                .because("calls without it are refused"),
            ),
            (false, true, Role::Output) => Some(
                Finding::new(
                    Dir::Narrower,
                    at(o, n, "required"),
                    format!("{noun} `{name}` became required"),
                )
                .because("it is now always present"),
            ),
            (true, false, Role::Input) => Some(
                Finding::new(
                    Dir::Wider,
                    at_old(o, n, "required"),
                    format!("{noun} `{name}` is no longer required"),
                )
                .because("calls that send it still work"),
            ),
            (true, false, Role::Output) => Some(
                Finding::new(
                    Dir::Wider,
                    at_old(o, n, "required"),
                    format!("{noun} `{name}` is no longer required"),
                )
                .because("callers that read it may find it missing"),
            ),
            _ => None,
        }
    }

    /// A property the new schema declares and the old one did not.
    #[allow(clippy::too_many_arguments)]
    fn declared(
        &mut self,
        o: &Node<'a>,
        n: &Node<'a>,
        b: Node<'a>,
        noun: &str,
        name: &str,
        was_required: bool,
        is_required: bool,
        depth: usize,
    ) -> Vec<Finding> {
        let pointer = b.ptr.clone();
        let old_rest = o.get("additionalProperties");
        // Where the old schema said what undeclared members hold (a schema, not `true` or
        // `false`), or where callers already had to send it (required but undeclared),
        // the new declaration is compared with what was accepted before.
        let mut out = if was_required
            || (matches!(old_rest, Some(Value::Object(_))) && restricts(old_rest))
        {
            self.compare(o.part_or_true("additionalProperties"), b, depth + 1)
        } else {
            Vec::new()
        };
        let moved = out.iter().any(|f| f.dir != Dir::Note);
        match (self.role, was_required, is_required) {
            (Role::Input, false, true) => out.push(
                Finding::new(
                    Dir::Narrower,
                    pointer,
                    format!("{noun} `{name}` added as required"),
                )
                .because("calls without it are refused"),
            ),
            (Role::Input, _, _) if !moved => out.push(
                Finding::new(
                    Dir::Wider,
                    pointer,
                    format!("optional {noun} `{name}` added"),
                )
                .because("calls without it still work"),
            ),
            (Role::Output, false, true) if !moved => out.push(
                Finding::new(
                    Dir::Narrower,
                    pointer,
                    format!("{noun} `{name}` added, always present"),
                )
                .because("callers that do not know it can ignore it"),
            ),
            (Role::Output, _, _) if !moved => out.push(
                Finding::new(Dir::Narrower, pointer, format!("{noun} `{name}` added"))
                    .because("callers that do not know it can ignore it"),
            ),
            _ => {}
        }
        // Added as required: the addition says it.
        if was_required || !is_required || moved {
            out.extend(self.required_flip(o, n, noun, name, was_required, is_required));
        }
        out
    }

    /// A property the old schema declared and the new one does not.
    #[allow(clippy::too_many_arguments)]
    fn undeclared(
        &mut self,
        o: &Node<'a>,
        n: &Node<'a>,
        a: Node<'a>,
        noun: &str,
        name: &str,
        was_required: bool,
        is_required: bool,
        depth: usize,
    ) -> Vec<Finding> {
        let pointer = a.ptr.clone();
        let mut out = Vec::new();
        match self.role {
            Role::Output => out.push(
                Finding::new(Dir::Wider, pointer, format!("{noun} `{name}` removed"))
                    .because("callers that read it no longer get it"),
            ),
            Role::Input => match n.get("additionalProperties") {
                rest if !restricts(rest) && rest != Some(&Value::Bool(false)) => out.push(
                    Finding::new(Dir::Wider, pointer, format!("{noun} `{name}` removed")).because(
                        "calls that still send it are accepted, though the tool no longer \
                         declares it",
                    ),
                ),
                Some(Value::Bool(false)) => out.push(
                    Finding::new(Dir::Narrower, pointer, format!("{noun} `{name}` removed"))
                        .because(
                            "calls that send it are refused, as additionalProperties is false",
                        ),
                ),
                Some(Value::Object(_)) => {
                    let found = self.compare(a, n.part_or_true("additionalProperties"), depth + 1);
                    if found.iter().all(|f| f.dir == Dir::Note) {
                        out.push(
                            Finding::new(Dir::Wider, pointer, format!("{noun} `{name}` removed"))
                                .because(
                                    "calls that still send it are accepted under \
                                     additionalProperties",
                                ),
                        );
                    }
                    out.extend(found);
                }
                _ => out.push(
                    Finding::new(Dir::Wider, pointer, format!("{noun} `{name}` removed")).because(
                        "calls that still send it are accepted, though the tool no longer \
                         declares it",
                    ),
                ),
            },
        }
        // No longer required because no longer declared: the removal says it.
        if !was_required || is_required {
            out.extend(self.required_flip(o, n, noun, name, was_required, is_required));
        }
        out
    }

    /// Compare `additionalProperties`: what members the schema does not declare may hold.
    fn additional(&mut self, o: &Node<'a>, n: &Node<'a>, depth: usize) -> Vec<Finding> {
        let keyword = "additionalProperties";
        let (a, b) = (o.get(keyword), n.get(keyword));
        let open = |v: Option<&Value>| !restricts(v) && v != Some(&Value::Bool(false));
        let closed = |v: Option<&Value>| matches!(v, Some(Value::Bool(false)));
        if (open(a) && open(b)) || (closed(a) && closed(b)) {
            return Vec::new();
        }
        if open(a) && closed(b) {
            let finding = Finding::new(
                Dir::Narrower,
                at(o, n, keyword),
                "additionalProperties became false",
            );
            return vec![match self.role {
                Role::Input => {
                    finding.because("calls with members the schema does not declare are refused")
                }
                Role::Output => finding,
            }];
        }
        if closed(a) && open(b) {
            let finding = Finding::new(
                Dir::Wider,
                at(o, n, keyword),
                "additionalProperties is no longer false",
            );
            return vec![match self.role {
                Role::Input => finding,
                Role::Output => {
                    finding.because("callers may now receive members the schema does not declare")
                }
            }];
        }
        self.compare(o.part_or_true(keyword), n.part_or_true(keyword), depth + 1)
    }

    /// Compare `patternProperties` by their patterns; a pattern added or removed changes
    /// which members `additionalProperties` applies to, so it is unknown unless that
    /// allows everything on both sides.
    fn patterns(&mut self, o: &Node<'a>, n: &Node<'a>, depth: usize) -> Vec<Finding> {
        let keyword = "patternProperties";
        let (a, b) = match (members(o, keyword), members(n, keyword)) {
            (Ok(a), Ok(b)) => (a, b),
            (a, b) => {
                let why = a.err().or(b.err()).unwrap_or_default();
                return vec![Finding::new(Dir::Unknown, at(o, n, keyword), why)];
            }
        };
        let open = |node: &Node<'_>| {
            matches!(
                node.get("additionalProperties"),
                None | Some(Value::Bool(true))
            )
        };
        let mut out = Vec::new();
        for (pattern, _) in &b {
            if a.iter().any(|(k, _)| k == pattern) {
                if let (Some(x), Some(y)) =
                    (o.part(&[keyword, pattern]), n.part(&[keyword, pattern]))
                {
                    out.extend(self.compare(x, y, depth + 1));
                }
            } else if open(o) && open(n) {
                out.push(Finding::new(
                    Dir::Narrower,
                    child(&child(&n.ptr, keyword), pattern),
                    format!("members matching `{pattern}` are now constrained"),
                ));
            } else {
                out.push(Finding::new(
                    Dir::Unknown,
                    child(&child(&n.ptr, keyword), pattern),
                    format!(
                        "pattern `{pattern}` added to patternProperties, which changes which \
                         members additionalProperties applies to: cannot tell"
                    ),
                ));
            }
        }
        for (pattern, _) in &a {
            if b.iter().any(|(k, _)| k == pattern) {
                continue;
            }
            let pointer = child(&child(&o.ptr, keyword), pattern);
            out.push(if open(o) && open(n) {
                Finding::new(
                    Dir::Wider,
                    pointer,
                    format!("members matching `{pattern}` are no longer constrained"),
                )
            } else {
                Finding::new(
                    Dir::Unknown,
                    pointer,
                    format!(
                        "pattern `{pattern}` removed from patternProperties, which changes \
                         which members additionalProperties applies to: cannot tell"
                    ),
                )
            });
        }
        out
    }

    /// Compare `dependentSchemas`: per member, a schema the whole object must match when
    /// that member is present.
    fn dependent_schemas(&mut self, o: &Node<'a>, n: &Node<'a>, depth: usize) -> Vec<Finding> {
        let keyword = "dependentSchemas";
        let (a, b) = match (members(o, keyword), members(n, keyword)) {
            (Ok(a), Ok(b)) => (a, b),
            (a, b) => {
                let why = a.err().or(b.err()).unwrap_or_default();
                return vec![Finding::new(Dir::Unknown, at(o, n, keyword), why)];
            }
        };
        let mut names: Vec<&str> = b.iter().map(|(k, _)| k.as_str()).collect();
        for (k, _) in &a {
            if !names.contains(&k.as_str()) {
                names.push(k);
            }
        }
        let mut out = Vec::new();
        for name in names {
            let x = o
                .part(&[keyword, name])
                .unwrap_or_else(|| Node::absent(child(&child(&o.ptr, keyword), name)));
            let y = n
                .part(&[keyword, name])
                .unwrap_or_else(|| Node::absent(child(&child(&n.ptr, keyword), name)));
            out.extend(self.compare(x, y, depth + 1));
        }
        out
    }
}

/// Compare `dependentRequired`: members that must be present when another is.
fn dependent_required(o: &Node<'_>, n: &Node<'_>) -> Vec<Finding> {
    let keyword = "dependentRequired";
    let names = |node: &Node<'_>| -> Result<Vec<(String, Vec<String>)>, String> {
        match node.get(keyword) {
            None => Ok(Vec::new()),
            Some(Value::Object(map)) => map
                .iter()
                .map(|(k, v)| match v {
                    Value::Array(items) => Ok((
                        k.clone(),
                        items
                            .iter()
                            .filter_map(|s| s.as_str().map(str::to_owned))
                            .collect(),
                    )),
                    other => Err(format!(
                        "`{keyword}` of `{k}` is {}, not an array",
                        show(other)
                    )),
                })
                .collect(),
            Some(other) => Err(format!("`{keyword}` is {}, not an object", show(other))),
        }
    };
    let pointer = at(o, n, keyword);
    let (a, b) = match (names(o), names(n)) {
        (Ok(a), Ok(b)) => (a, b),
        (a, b) => {
            if same_keyword(o, n, keyword) {
                return Vec::new();
            }
            let why = a.err().or(b.err()).unwrap_or_default();
            return vec![Finding::new(Dir::Unknown, pointer, why)];
        }
    };
    let lookup = |list: &[(String, Vec<String>)], key: &str| -> Vec<String> {
        list.iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let mut keys: Vec<&str> = b.iter().map(|(k, _)| k.as_str()).collect();
    for (k, _) in &a {
        if !keys.contains(&k.as_str()) {
            keys.push(k);
        }
    }
    let mut out = Vec::new();
    for key in keys {
        let (was, is) = (lookup(&a, key), lookup(&b, key));
        for added in is.iter().filter(|x| !was.contains(x)) {
            out.push(Finding::new(
                Dir::Narrower,
                pointer.clone(),
                format!("`{added}` is now required whenever `{key}` is present"),
            ));
        }
        for removed in was.iter().filter(|x| !is.contains(x)) {
            out.push(Finding::new(
                Dir::Wider,
                pointer.clone(),
                format!("`{removed}` is no longer required whenever `{key}` is present"),
            ));
        }
    }
    out
}

/// The members of an object-valued keyword (`properties`, `patternProperties`...), in
/// order; none where it is absent.
pub(super) fn members<'n>(
    node: &'n Node<'_>,
    keyword: &str,
) -> Result<Vec<(&'n String, &'n Value)>, String> {
    match node.get(keyword) {
        None => Ok(Vec::new()),
        Some(Value::Object(map)) => Ok(map.iter().collect()),
        Some(other) => Err(format!("`{keyword}` is {}, not an object", show(other))),
    }
}

fn has_members(node: &Node<'_>, keyword: &str) -> bool {
    matches!(node.get(keyword), Some(Value::Object(map)) if !map.is_empty())
}

/// The names in `required` (what is not a string in it names nothing).
/// Whether `additionalProperties` (or a like keyword) says something of the members it
/// applies to: `false` or a schema with a constraint. Absent, `true` and `{}` (or a
/// schema of annotations alone) all accept any member.
fn restricts(rest: Option<&Value>) -> bool {
    match rest {
        Some(Value::Bool(false)) => true,
        Some(Value::Object(schema)) => schema
            .keys()
            .any(|k| !is_annotation(k) && !STRUCTURAL.contains(&k.as_str())),
        _ => false,
    }
}

pub(super) fn required<'n>(node: &'n Node<'_>) -> Vec<&'n str> {
    match node.get("required") {
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}
