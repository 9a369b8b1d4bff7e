//! The corpus of cases (`cases.json`) and the report's renderings.
//!
//! Each case is `{"name", "rule", "where", "old", "new", "expect"}` and optionally
//! `"pointer"`, `"message"`, `"unsaid"` and `"changes"`. For `where` `input` or `output`,
//! `old` and `new` are JSON Schemas, wrapped into a one-tool snapshot as its
//! `inputSchema` or its `outputSchema`; for `catalog` they are whole snapshots. `expect`
//! is the most severe class the diff must report (`breaking` > `unknown` > `compatible` >
//! `informational`), or `none`; `pointer` a place some change must name, `message` words
//! some change must say, `unsaid` words none may say, `changes` how many changes there
//! must be. Every snapshot of a case is also compared with itself, which must report
//! nothing.

use serde_json::{json, Value};

use super::{diff, Bump, Change, Class, Report};

/// The most severe class of a report, as the corpus writes it.
fn severity(report: &Report) -> &'static str {
    report
        .changes
        .iter()
        .map(|c| c.class)
        .min()
        .map_or("none", Class::as_str)
}

/// A one-tool snapshot around a schema, as the corpus's `where` says.
fn wrap(schema: &Value, place: &str) -> Value {
    match place {
        "input" => json!({"catalog": 1, "tools": {"t": {"inputSchema": schema}}}),
        _ => json!({
            "catalog": 1,
            "tools": {"t": {"inputSchema": {"type": "object"}, "outputSchema": schema}}
        }),
    }
}

#[test]
fn every_case_of_the_corpus() {
    let cases: Vec<Value> = serde_json::from_str(include_str!("cases.json")).unwrap();
    let mut failures = Vec::new();
    let mut names = std::collections::HashSet::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        assert!(names.insert(name), "two cases are named {name}");
        assert!(
            case["rule"].as_str().is_some_and(|r| !r.is_empty()),
            "{name}: no rule"
        );
        let place = case["where"].as_str().unwrap();
        let (old, new) = match place {
            "input" | "output" => (wrap(&case["old"], place), wrap(&case["new"], place)),
            "catalog" => (case["old"].clone(), case["new"].clone()),
            other => panic!("{name}: `where` is {other}"),
        };
        let report = diff(&old, &new);
        let expected = case["expect"].as_str().unwrap();
        let got = severity(&report);
        let mut wrong = Vec::new();
        if got != expected {
            wrong.push(format!("expected {expected}, got {got}"));
        }
        if let Some(pointer) = case.get("pointer").and_then(Value::as_str) {
            if !report.changes.iter().any(|c| c.pointer == pointer) {
                wrong.push(format!("no change at {pointer}"));
            }
        }
        if let Some(count) = case.get("changes").and_then(Value::as_u64) {
            if report.changes.len() as u64 != count {
                wrong.push(format!("{} changes, not {count}", report.changes.len()));
            }
        }
        if let Some(text) = case.get("message").and_then(Value::as_str) {
            if !report.changes.iter().any(|c| c.message.contains(text)) {
                wrong.push(format!("no message says \"{text}\""));
            }
        }
        if let Some(text) = case.get("unsaid").and_then(Value::as_str) {
            if report.changes.iter().any(|c| c.message.contains(text)) {
                wrong.push(format!("a message says \"{text}\""));
            }
        }
        // Both ways round, a snapshot against itself has nothing to say.
        for same in [&old, &new] {
            let itself = diff(same, same);
            if !itself.changes.is_empty() {
                wrong.push(format!("a snapshot against itself: {:?}", itself.changes));
            }
        }
        if !wrong.is_empty() {
            let report: Vec<String> = report
                .changes
                .iter()
                .map(|c| format!("      {} {} {}", c.class, c.pointer, c.message))
                .collect();
            failures.push(format!(
                "{name} ({}): {}\n{}",
                case["rule"].as_str().unwrap_or(""),
                wrong.join("; "),
                report.join("\n")
            ));
        }
    }
    assert!(cases.len() >= 60, "the corpus has {} cases", cases.len());
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n  {}",
        failures.len(),
        cases.len(),
        failures.join("\n  ")
    );
}

fn change(class: Class, pointer: &str, message: &str) -> Change {
    Change {
        class,
        pointer: pointer.to_owned(),
        message: message.to_owned(),
    }
}

#[test]
fn human_sorts_by_class_and_ends_with_the_bump() {
    let report = Report {
        changes: vec![
            change(
                Class::Informational,
                "/tools/add/description",
                "description changed",
            ),
            change(Class::Compatible, "/tools/mul", "tool `mul` added"),
            change(
                Class::Breaking,
                "/tools/add/inputSchema/required",
                "argument `c` became required",
            ),
            change(
                Class::Unknown,
                "/tools/add/inputSchema/properties/b/pattern",
                "pattern changed",
            ),
        ],
    };
    assert_eq!(
        report.human(),
        "breaking  /tools/add/inputSchema/required  argument `c` became required\n\
         unknown  /tools/add/inputSchema/properties/b/pattern  pattern changed\n\
         compatible  /tools/mul  tool `mul` added\n\
         informational  /tools/add/description  description changed\n\
         suggested version bump: major\n"
    );
}

#[test]
fn human_escapes_what_servers_named() {
    let report = Report {
        changes: vec![change(
            Class::Compatible,
            "/tools/a\u{1b}[2J",
            "tool `a\u{1b}[2J` added\nfake",
        )],
    };
    let text = report.human();
    assert!(!text.contains('\u{1b}'), "{text}");
    assert_eq!(text.lines().count(), 2, "{text}");
}

#[test]
fn human_of_no_change() {
    assert_eq!(Report::default().human(), "suggested version bump: none\n");
}

#[test]
fn to_json_has_changes_breaking_and_bump() {
    let report = Report {
        changes: vec![change(Class::Compatible, "/tools/mul", "tool `mul` added")],
    };
    assert_eq!(
        report.to_json(),
        json!({
            "changes": [{"class": "compatible", "pointer": "/tools/mul", "message": "tool `mul` added"}],
            "breaking": false,
            "bump": "minor",
        })
    );
    assert_eq!(
        Report::default().to_json(),
        json!({"changes": [], "breaking": false, "bump": "none"})
    );
}

#[test]
fn bump_follows_the_most_severe_class() {
    let of = |classes: &[Class]| Report {
        changes: classes.iter().map(|c| change(*c, "/x", "x")).collect(),
    };
    assert_eq!(of(&[]).bump(), Bump::None);
    assert_eq!(of(&[Class::Informational]).bump(), Bump::Patch);
    assert_eq!(
        of(&[Class::Informational, Class::Compatible]).bump(),
        Bump::Minor
    );
    assert_eq!(of(&[Class::Compatible, Class::Unknown]).bump(), Bump::Major);
    assert_eq!(of(&[Class::Breaking]).bump(), Bump::Major);
    assert!(of(&[Class::Unknown]).breaking());
    assert!(!of(&[Class::Compatible, Class::Informational]).breaking());
    assert_eq!(Bump::Major.to_string(), "major");
    assert_eq!(Class::Informational.to_string(), "informational");
}

#[test]
fn a_diff_reads_end_to_end() {
    let old = json!({
        "catalog": 1,
        "server": {"name": "ledger", "version": "0.1.0"},
        "tools": {"add": {"inputSchema": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}, "c": {"type": "integer"}},
            "required": ["a", "b"]
        }}}
    });
    let new = json!({
        "catalog": 1,
        "server": {"name": "ledger", "version": "0.2.0"},
        "tools": {"add": {"inputSchema": {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "integer"}, "c": {"type": "integer"}},
            "required": ["a", "b", "c"]
        }}}
    });
    let report = diff(&old, &new);
    let json = report.to_json();
    assert_eq!(json["bump"], "major");
    assert_eq!(json["breaking"], true);
    let text = report.human();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            "breaking  /tools/add/inputSchema/required  argument `c` became required: calls \
             without it are refused",
            "compatible  /tools/add/inputSchema/properties/a/type  type widened from integer \
             to number: every call that was valid still is",
            "informational  /server/version  server version changed from \"0.1.0\" to \"0.2.0\"",
            "suggested version bump: major",
        ]
    );
}

/// A schema nested far deeper than the comparison goes answers unknown, without running
/// out of stack.
#[test]
fn deep_schemas_stop_at_the_bound() {
    let mut old = json!({"type": "string"});
    let mut new = json!({"type": "integer"});
    for _ in 0..120 {
        old = json!({"type": "object", "properties": {"x": old}});
        new = json!({"type": "object", "properties": {"x": new}});
    }
    let report = diff(&wrap(&old, "input"), &wrap(&new, "input"));
    assert_eq!(severity(&report), "unknown", "{:?}", report.changes);
    // Unions nest through more functions per level than objects do.
    let mut old = json!({"type": "string"});
    let mut new = json!({"type": "integer"});
    for _ in 0..120 {
        old = json!({"anyOf": [old, {"type": "null"}, {"type": "boolean"}]});
        new = json!({"anyOf": [new, {"type": "null"}, {"type": "boolean"}]});
    }
    let report = diff(&wrap(&old, "output"), &wrap(&new, "output"));
    assert_eq!(severity(&report), "unknown", "{:?}", report.changes);
}

/// Definitions that refer to each other in a chain of every length still compare in
/// bounded time: each pair of places is compared once.
#[test]
fn many_references_compare_once_each() {
    let mut defs = serde_json::Map::new();
    for i in 0..40 {
        defs.insert(
            format!("D{i}"),
            json!({"type": "object", "properties": {
                "left": {"$ref": format!("#/$defs/D{}", i + 1)},
                "right": {"$ref": format!("#/$defs/D{}", i + 1)}
            }}),
        );
    }
    defs.insert("D40".to_owned(), json!({"type": "string"}));
    let old = json!({"$defs": defs.clone(), "$ref": "#/$defs/D0"});
    defs.insert("D40".to_owned(), json!({"type": ["string", "null"]}));
    let new = json!({"$defs": defs, "$ref": "#/$defs/D0"});
    let report = diff(&wrap(&old, "input"), &wrap(&new, "input"));
    assert_eq!(severity(&report), "compatible", "{:?}", report.changes);
    assert_eq!(report.changes.len(), 1, "{:?}", report.changes);
}
