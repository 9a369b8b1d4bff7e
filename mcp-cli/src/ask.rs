//! Questions a server asks mid-call (elicitation), asked on the terminal: the message,
//! then one prompt per field of the requested form. Lines come from standard input, so a
//! script can pipe the answers in.
//!
//! All the server's text (the message, field titles and descriptions, choices, defaults)
//! is shown escaped for the terminal, on one line each, so a question cannot pass for
//! `mcp`'s own lines; an address to visit is shown as text with its origin, never opened
//! and never made a link.

use std::io::{BufRead, Write};

use serde_json::{json, Map, Number, Value};

use crate::safe;

/// How many unreadable answers to one field before the whole form is cancelled.
const TRIES: usize = 3;

/// The answer to one `elicitation/create` request (its `params`), read from `input`
/// with prompts written to `output`: `accept` with the form's values, or `decline` /
/// `cancel` when the user types `:decline` / `:cancel` or the input ends.
pub fn elicitation(params: &Value, input: &mut impl BufRead, output: &mut impl Write) -> Value {
    match form(params, input, output) {
        Ok(answer) => answer,
        // The terminal went away: nobody can answer.
        Err(_) => json!({"action": "cancel"}),
    }
}

fn form(
    params: &Value,
    input: &mut impl BufRead,
    output: &mut impl Write,
) -> std::io::Result<Value> {
    let message = params["message"]
        .as_str()
        .unwrap_or("The server asks for input.");
    writeln!(output, "\n{}", safe::line(message))?;
    if params["mode"] == "url" {
        // Shown, never opened: a link from a server is for the user to judge, and judging
        // it needs where it leads, which the text of a URL can disguise.
        let address = params["url"].as_str().unwrap_or("?");
        writeln!(output, "  address: {}", safe::line(address))?;
        match web_origin(address) {
            Some(origin) => {
                writeln!(output, "  origin:  {}", safe::line(&origin))?;
                writeln!(
                    output,
                    "mcp does not open it: open it yourself only if you trust this origin."
                )?;
            }
            None => writeln!(output, "  warning: not a web address; do not open it.")?,
        }
        write!(
            output,
            "Press Enter when done (:decline or :cancel to refuse): "
        )?;
        output.flush()?;
        return Ok(match read_line(input)? {
            Line::Decline => json!({"action": "decline"}),
            Line::Cancel | Line::End => json!({"action": "cancel"}),
            Line::Text(_) => json!({"action": "accept"}),
        });
    }
    writeln!(
        output,
        "(An empty answer keeps the default; :decline or :cancel refuses.)"
    )?;
    let schema = &params["requestedSchema"];
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut content = Map::new();
    for (name, property) in schema["properties"].as_object().into_iter().flatten() {
        let is_required = required.contains(&name.as_str());
        match field(name, property, is_required, input, output)? {
            Field::Value(value) => {
                content.insert(name.clone(), value);
            }
            Field::Skipped => {}
            Field::Refused(action) => return Ok(json!({"action": action})),
        }
    }
    Ok(json!({"action": "accept", "content": content}))
}

enum Field {
    Value(Value),
    Skipped,
    Refused(&'static str),
}

fn field(
    name: &str,
    property: &Value,
    required: bool,
    input: &mut impl BufRead,
    output: &mut impl Write,
) -> std::io::Result<Field> {
    let label = property["title"].as_str().unwrap_or(name);
    let choices = choices(property);
    let kind = property["type"].as_str().unwrap_or("string");
    let mut hint = match (&choices, kind) {
        (Some(choices), _) => {
            let names: Vec<String> = choices
                .iter()
                .enumerate()
                .map(|(i, (_, title))| format!("{}) {title}", i + 1))
                .collect();
            names.join(", ")
        }
        (None, "boolean") => "y/n".to_owned(),
        (None, kind) => kind.to_owned(),
    };
    if let Some(default) = property.get("default") {
        hint.push_str(&format!(", default {}", plain(default)));
    }
    if !required {
        hint.push_str(", optional");
    }
    if let Some(description) = property["description"].as_str() {
        writeln!(output, "  {}", safe::line(description))?;
    }
    let prompt = format!("{label} ({hint}): ");
    for _ in 0..TRIES {
        write!(output, "{}", safe::line(&prompt))?;
        output.flush()?;
        let text = match read_line(input)? {
            Line::Decline => return Ok(Field::Refused("decline")),
            Line::Cancel | Line::End => return Ok(Field::Refused("cancel")),
            Line::Text(text) => text,
        };
        if text.is_empty() {
            if let Some(default) = property.get("default") {
                return Ok(Field::Value(default.clone()));
            }
            if !required {
                return Ok(Field::Skipped);
            }
            writeln!(output, "  An answer is required.")?;
            continue;
        }
        match parse(&text, kind, choices.as_deref()) {
            Some(value) => return Ok(Field::Value(value)),
            None => writeln!(output, "  Not a valid answer: {}", safe::line(&text))?,
        }
    }
    Ok(Field::Refused("cancel"))
}

/// Where an http or https address leads: `scheme://host[:port]`, the host in ASCII (an
/// internationalized name in punycode) and without the user name and password a URL may
/// put before it to pose as another host. `None` for anything else.
fn web_origin(address: &str) -> Option<String> {
    let url = url::Url::parse(address).ok()?;
    matches!(url.scheme(), "http" | "https").then(|| url.origin().ascii_serialization())
}

/// The choices of an enum field as (value, title): `enum` (with the legacy `enumNames`)
/// or `oneOf` of `{const, title}`.
fn choices(property: &Value) -> Option<Vec<(Value, String)>> {
    if let Some(values) = property["enum"].as_array() {
        let names = property["enumNames"].as_array();
        return Some(
            values
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let title = names.and_then(|n| n.get(i)).and_then(Value::as_str);
                    (v.clone(), title.map_or_else(|| plain(v), str::to_owned))
                })
                .collect(),
        );
    }
    let options = property["oneOf"].as_array()?;
    Some(
        options
            .iter()
            .filter_map(|o| {
                let value = o.get("const")?.clone();
                let title = o["title"]
                    .as_str()
                    .map_or_else(|| plain(&value), str::to_owned);
                Some((value, title))
            })
            .collect(),
    )
}

/// One typed answer: a choice by number or by its value, a yes/no, a number, or text.
fn parse(text: &str, kind: &str, choices: Option<&[(Value, String)]>) -> Option<Value> {
    if let Some(choices) = choices {
        if let Ok(n) = text.parse::<usize>() {
            if let Some((value, _)) = n.checked_sub(1).and_then(|i| choices.get(i)) {
                return Some(value.clone());
            }
        }
        return choices
            .iter()
            .find(|(value, title)| plain(value) == text || title == text)
            .map(|(value, _)| value.clone());
    }
    match kind {
        "boolean" => match text.to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" => Some(Value::Bool(true)),
            "n" | "no" | "false" => Some(Value::Bool(false)),
            _ => None,
        },
        "integer" => text.parse::<i64>().ok().map(Value::from),
        "number" => text
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map(Value::Number),
        _ => Some(Value::String(text.to_owned())),
    }
}

enum Line {
    Text(String),
    Decline,
    Cancel,
    End,
}

fn read_line(input: &mut impl BufRead) -> std::io::Result<Line> {
    let mut line = String::new();
    if input.read_line(&mut line)? == 0 {
        return Ok(Line::End);
    }
    let text = line.trim_end_matches(['\r', '\n']).trim();
    Ok(match text {
        ":decline" => Line::Decline,
        ":cancel" => Line::Cancel,
        _ => Line::Text(text.to_owned()),
    })
}

fn plain(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terminal::{assert_terminal_safe, HOSTILE as EVIL, HOSTILE_SHOWN as SHOWN};

    /// The answer to `params` when the user types `typed`, and what was shown, checked to be
    /// safe for a terminal byte by byte.
    fn answer(params: Value, typed: &str) -> (Value, String) {
        let mut shown = Vec::new();
        let value = elicitation(&params, &mut typed.as_bytes(), &mut shown);
        assert_terminal_safe(&shown);
        (value, String::from_utf8_lossy(&shown).into_owned())
    }

    /// What is shown for a URL question with this address.
    fn url_question(url: &str) -> String {
        let params = json!({"mode": "url", "message": "Sign in", "url": url});
        answer(params, "\n").1
    }

    fn form() -> Value {
        json!({
            "message": "Delete order 2?",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "confirm": {"type": "boolean", "title": "Confirm"},
                    "count": {"type": "integer", "default": 1},
                    "color": {"type": "string", "oneOf": [
                        {"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}
                    ]},
                    "note": {"type": "string"}
                },
                "required": ["confirm", "color"]
            }
        })
    }

    #[test]
    fn a_form_is_answered_field_by_field_with_types_and_defaults() {
        // The fields come in the order of the form's JSON object (here, by name).
        let (value, shown) = answer(form(), "2\nyes\n\n\n");
        assert_eq!(
            value,
            json!({"action": "accept", "content": {"confirm": true, "count": 1, "color": "g"}})
        );
        assert!(shown.contains("Delete order 2?"), "{shown}");
        assert!(shown.contains("Confirm (y/n): "), "{shown}");
        assert!(shown.contains("color (1) Red, 2) Green): "), "{shown}");
        assert!(shown.contains("note (string, optional): "), "{shown}");
    }

    #[test]
    fn an_unreadable_answer_is_asked_again() {
        let (value, shown) = answer(form(), "Red\nmaybe\ny\nseven\n3\nhi\n");
        assert_eq!(
            value,
            json!({"action": "accept", "content": {"confirm": true, "count": 3, "color": "r", "note": "hi"}})
        );
        assert!(shown.contains("Not a valid answer: maybe"), "{shown}");
        assert!(shown.contains("Not a valid answer: seven"), "{shown}");
    }

    #[test]
    fn a_required_field_left_empty_is_asked_again_then_cancelled() {
        let (value, shown) = answer(form(), "\n\n\n");
        assert_eq!(value, json!({"action": "cancel"}));
        assert!(shown.contains("An answer is required."), "{shown}");
    }

    #[test]
    fn the_user_can_decline_or_cancel_and_the_end_of_input_cancels() {
        assert_eq!(answer(form(), ":decline\n").0, json!({"action": "decline"}));
        assert_eq!(
            answer(form(), "y\n:cancel\n").0,
            json!({"action": "cancel"})
        );
        assert_eq!(answer(form(), "y\n").0, json!({"action": "cancel"}));
    }

    #[test]
    fn a_url_is_shown_not_opened() {
        let params =
            json!({"mode": "url", "message": "Sign in", "url": "https://example.com/login"});
        let (value, shown) = answer(params.clone(), "\n");
        assert_eq!(value, json!({"action": "accept"}));
        assert!(shown.contains("https://example.com/login"), "{shown}");
        assert_eq!(answer(params, ":decline\n").0, json!({"action": "decline"}));
    }

    #[test]
    fn a_form_shows_the_servers_text_escaped_on_its_own_lines() {
        let params = json!({
            "message": format!("Pay?{EVIL}\n(An empty answer keeps the default; forged)"),
            "requestedSchema": {"type": "object", "properties": {
                "color": {"type": "string", "title": format!("Colour{EVIL}"),
                    "description": format!("Pick{EVIL}\nforged"), "default": "g",
                    "oneOf": [{"const": "r", "title": format!("Red{EVIL}")}, {"const": "g", "title": "Green"}]},
                "note": {"type": format!("string{EVIL}"), "default": format!("hi{EVIL}")}
            }, "required": ["color"]}
        });
        let (value, shown) = answer(params, "maybe\x1b[2J\u{9b}\n2\n\n");
        assert_eq!(
            value,
            json!({"action": "accept", "content": {"color": "g", "note": format!("hi{EVIL}")}})
        );
        let colour = format!("Colour{SHOWN} (1) Red{SHOWN}, 2) Green, default g): ");
        assert_eq!(
            shown,
            format!(
                "\nPay?{SHOWN}\\n(An empty answer keeps the default; forged)\n\
                 (An empty answer keeps the default; :decline or :cancel refuses.)\n\
                 \x20 Pick{SHOWN}\\nforged\n\
                 {colour}  Not a valid answer: maybe\\x1b[2J\\u{{9b}}\n\
                 {colour}note (string{SHOWN}, default hi{SHOWN}, optional): "
            )
        );
    }

    #[test]
    fn a_url_question_shows_the_origin_it_leads_to() {
        assert_eq!(
            url_question("https://bank.example@evil.example/login"),
            "\nSign in\n  address: https://bank.example@evil.example/login\n  \
             origin:  https://evil.example\n\
             mcp does not open it: open it yourself only if you trust this origin.\n\
             Press Enter when done (:decline or :cancel to refuse): "
        );
        // The host as ASCII, so a look-alike name shows as what it is; the port only when
        // it is not the scheme's own.
        let origin = |url: &str| {
            let shown = url_question(url);
            let line = shown.lines().find(|l| l.starts_with("  origin:  "));
            line.map(|l| l["  origin:  ".len()..].to_owned())
        };
        assert_eq!(
            origin("https://xn--bcher-kva.example:8443/x").as_deref(),
            Some("https://xn--bcher-kva.example:8443")
        );
        assert_eq!(
            origin("https://b\u{fc}cher.example/").as_deref(),
            Some("https://xn--bcher-kva.example")
        );
        assert_eq!(
            origin("https://p\u{430}ypal.example/").as_deref(),
            Some("https://xn--pypal-4ve.example")
        );
        assert_eq!(
            origin("HTTPS://Evil.Example:443/").as_deref(),
            Some("https://evil.example")
        );
        assert_eq!(
            origin("http://127.0.0.1:8080/cb").as_deref(),
            Some("http://127.0.0.1:8080")
        );
    }

    #[test]
    fn a_url_question_shows_the_address_as_escaped_text() {
        let address = format!("https://ok.example/{EVIL}");
        assert_eq!(
            url_question(&address),
            format!(
                "\nSign in\n  address: https://ok.example/{SHOWN}\n  \
                 origin:  https://ok.example\n\
                 mcp does not open it: open it yourself only if you trust this origin.\n\
                 Press Enter when done (:decline or :cancel to refuse): "
            )
        );
    }

    #[test]
    fn an_address_that_is_not_a_web_address_is_shown_with_a_warning() {
        for (url, shown) in [
            (
                "javascript:alert(document.cookie)",
                "javascript:alert(document.cookie)",
            ),
            ("file:///etc/passwd", "file:///etc/passwd"),
            ("not an address\n", "not an address\\n"),
            ("", ""),
        ] {
            assert_eq!(
                url_question(url),
                format!(
                    "\nSign in\n  address: {shown}\n  \
                     warning: not a web address; do not open it.\n\
                     Press Enter when done (:decline or :cancel to refuse): "
                ),
                "{url:?}"
            );
        }
    }

    #[test]
    fn legacy_enum_names_title_the_choices() {
        let params = json!({"message": "Pick", "requestedSchema": {"type": "object",
            "properties": {"size": {"type": "string", "enum": ["s", "l"], "enumNames": ["Small", "Large"]}},
            "required": ["size"]}});
        let (value, shown) = answer(params, "Large\n");
        assert_eq!(value, json!({"action": "accept", "content": {"size": "l"}}));
        assert!(shown.contains("1) Small, 2) Large"), "{shown}");
    }
}
