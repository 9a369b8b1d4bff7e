//! Which branch of an old union is which of the new: branches split one per type and
//! read once, then paired by their signature (type and tags), then by the members they
//! name, each pair found both ways round.

use serde_json::Value;

use super::node::{list, normal, Node, INTEGER, NUMBER, TYPE_NAMES};
use super::objects::required;
use crate::catalog::json::same;

/// Branches with several types split into one branch per type, so that
/// `{"type": ["string", "null"]}` and `anyOf: [{"type": "string"}, {"type": "null"}]` pair
/// branch by branch. The same values are accepted: a value has one type, and a keyword
/// for another type says nothing of it.
pub(super) fn split(branches: Vec<Node<'_>>) -> Vec<Node<'_>> {
    let mut out = Vec::with_capacity(branches.len());
    for branch in branches {
        let mask = match branch.types() {
            Ok(mask) if branch.get("type").is_some() && branch.only.is_none() => normal(mask),
            _ => {
                out.push(branch);
                continue;
            }
        };
        if mask.count_ones() <= 1 {
            out.push(branch);
            continue;
        }
        for (bit, _) in TYPE_NAMES {
            if mask & bit != 0 {
                out.push(Node {
                    only: Some(bit),
                    ..branch.clone()
                });
            }
        }
    }
    out
}

/// The branches with repeats left out: one reached through the same pointer as an
/// earlier one, or written the same way, read the same way.
pub(super) fn distinct(branches: Vec<Node<'_>>) -> Vec<Node<'_>> {
    let mut out: Vec<Node<'_>> = Vec::with_capacity(branches.len());
    for branch in branches {
        let repeat = out.iter().any(|seen| {
            seen.key() == branch.key()
                || (seen.only == branch.only
                    && seen.bare == branch.bare
                    && same(&seen.schema, &branch.schema))
        });
        if !repeat {
            out.push(branch);
        }
    }
    out
}

/// Whether no value can match two of the branches: their types do not overlap, or their
/// constants differ, or a required member holds different constants in each.
pub(super) fn disjoint(branches: &[Node<'_>]) -> bool {
    branches
        .iter()
        .enumerate()
        .all(|(i, a)| branches.iter().skip(i + 1).all(|b| apart(a, b)))
}

fn apart(a: &Node<'_>, b: &Node<'_>) -> bool {
    let (Ok(ta), Ok(tb)) = (a.types(), b.types()) else {
        return false;
    };
    let overlap = normal(ta) & normal(tb) != 0
        || (ta & INTEGER != 0 && tb & NUMBER != 0)
        || (tb & INTEGER != 0 && ta & NUMBER != 0);
    if !overlap {
        return true;
    }
    if let (Ok(Some(va)), Ok(Some(vb))) = (a.values(), b.values()) {
        if !va.iter().any(|v| vb.iter().any(|w| same(v, w))) {
            return true;
        }
    }
    let tags_a = tags(a);
    let tags_b = tags(b);
    tags_a.iter().any(|(name, va)| {
        tags_b
            .iter()
            .any(|(other, vb)| name == other && !va.iter().any(|v| vb.iter().any(|w| same(v, w))))
    })
}

/// The required members of a schema whose values are constants: the tags that tell the
/// branches of a union apart (`{"kind": {"const": "card"}}`).
pub(super) fn tags(node: &Node<'_>) -> Vec<(String, Vec<Value>)> {
    let names = required(node);
    let mut out = Vec::new();
    for name in names {
        let Some(prop) = node.part(&["properties", name]) else {
            continue;
        };
        if let Ok(Some(values)) = prop.values() {
            out.push((name.to_owned(), values));
        }
    }
    out
}

/// Pair branches left on both sides when they are the only ones of their kind on each:
/// the same types and the same tags.
#[allow(clippy::type_complexity)]
pub(super) fn pair_by_signature<'a>(
    old: Vec<Node<'a>>,
    new: Vec<Node<'a>>,
) -> (Vec<(Node<'a>, Node<'a>)>, Vec<Node<'a>>, Vec<Node<'a>>) {
    let signature = |node: &Node<'_>| -> String {
        let types = node.types().map_or(0, normal);
        let mut tags: Vec<String> = tags(node)
            .into_iter()
            .map(|(name, values)| format!("{name}={}", list(&values)))
            .collect();
        tags.sort();
        format!("{types}|{}", tags.join(","))
    };
    let old_sigs: Vec<String> = old.iter().map(signature).collect();
    let new_sigs: Vec<String> = new.iter().map(signature).collect();
    let unique = |sigs: &[String], s: &String| sigs.iter().filter(|x| *x == s).count() == 1;
    pair_up(old, new, |i| {
        let sig = old_sigs.get(i)?;
        new_sigs
            .iter()
            .position(|s| s == sig)
            .filter(|_| unique(&old_sigs, sig) && unique(&new_sigs, sig))
    })
}

/// Each old branch with the new one `mate` gives for its index (each new one taken
/// once), then the branches left on each side.
#[allow(clippy::type_complexity)]
fn pair_up<'a>(
    old: Vec<Node<'a>>,
    new: Vec<Node<'a>>,
    mate: impl Fn(usize) -> Option<usize>,
) -> (Vec<(Node<'a>, Node<'a>)>, Vec<Node<'a>>, Vec<Node<'a>>) {
    let mut pairs = Vec::new();
    let mut old_left = Vec::new();
    let mut taken = vec![false; new.len()];
    for (i, a) in old.into_iter().enumerate() {
        let free = |j: &usize| taken.get(*j).is_some_and(|t| !t);
        match mate(i)
            .filter(free)
            .and_then(|j| new.get(j).map(|b| (j, b)))
        {
            Some((j, b)) => {
                if let Some(t) = taken.get_mut(j) {
                    *t = true;
                }
                pairs.push((a, b.clone()));
            }
            None => old_left.push(a),
        }
    }
    let new_left = new
        .into_iter()
        .zip(taken)
        .filter(|(_, t)| !t)
        .map(|(b, _)| b)
        .collect();
    (pairs, old_left, new_left)
}

/// Pair object branches left on both sides by the members they name, when each is the
/// other's one closest match (a result and an error object, both changed, pair as
/// result with result and error with error). Comparing branch with branch stays sound
/// whatever the pairing: when every pair widens (or narrows) so does the union, and a
/// pair going the other way is reported as it goes; the pairing only chooses which
/// changes are told.
#[allow(clippy::type_complexity)]
pub(super) fn pair_by_members<'a>(
    old: Vec<Node<'a>>,
    new: Vec<Node<'a>>,
) -> (Vec<(Node<'a>, Node<'a>)>, Vec<Node<'a>>, Vec<Node<'a>>) {
    if old.len() < 2 || new.len() < 2 {
        return (Vec::new(), old, new);
    }
    let members = |node: &Node<'_>| -> Vec<String> {
        let mut names: Vec<String> = required(node).into_iter().map(str::to_owned).collect();
        if let Some(Value::Object(props)) = node.get("properties") {
            names.extend(props.keys().cloned());
        }
        names.sort();
        names.dedup();
        names
    };
    let old_members: Vec<Vec<String>> = old.iter().map(members).collect();
    let new_members: Vec<Vec<String>> = new.iter().map(members).collect();
    // Likeness as a fraction shared / together, compared without division.
    let likeness = |a: &[String], b: &[String]| -> (usize, usize) {
        let shared = a.iter().filter(|x| b.contains(x)).count();
        (shared, a.len() + b.len() - shared)
    };
    let closer = |x: (usize, usize), y: (usize, usize)| x.0 * y.1 > y.0 * x.1;
    // The one index closest to `of` among `among`, if no other is as close.
    let best = |of: &[String], among: &[Vec<String>]| -> Option<usize> {
        let mut found: Option<(usize, (usize, usize))> = None;
        let mut tie = false;
        for (j, other) in among.iter().enumerate() {
            let score = likeness(of, other);
            if score.0 == 0 {
                continue;
            }
            match found {
                Some((_, top)) if closer(score, top) => {
                    found = Some((j, score));
                    tie = false;
                }
                Some((_, top)) if !closer(top, score) => tie = true,
                Some(_) => {}
                None => found = Some((j, score)),
            }
        }
        if tie {
            None
        } else {
            found.map(|(j, _)| j)
        }
    };
    pair_up(old, new, |i| {
        let j = best(old_members.get(i)?, &new_members)?;
        let back = best(new_members.get(j)?, &old_members)?;
        (back == i).then_some(j)
    })
}
