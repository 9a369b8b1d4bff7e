//! Property tests of the code that reads what clients send: the JSON-RPC envelope, the
//! nesting-depth scan, URI template matching, sealed-token opening and header decoding.
//! Each property runs `PROPTEST_CASES` cases (256 unless the environment says more, as
//! in a longer soak: `PROPTEST_CASES=100000 cargo test -p mcp-runtime props`).

use proptest::prelude::*;
use serde_json::{json, Map, Value};

use crate::policy::limits::check_depth;
use crate::policy::seal::{SealKey, Sealer};
use crate::protocol::jsonrpc::{Envelope, Frame, Message};
use crate::protocol::meta::{self, Meta};
use crate::protocol::RequestId;
use crate::registry::uri::{match_uri, Piece};

/// Any JSON value, nested a few levels.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                "[a-z_]{1,8}|id|method|params|jsonrpc|result|error|_meta|progressToken|io\\.modelcontextprotocol/(protocolVersion|clientCapabilities|clientInfo|logLevel)",
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect::<Map<String, Value>>())),
        ]
    })
}

/// Maximum array/object nesting of a value.
/// `Frame::parse` and `from_slice::<Value>` then `Message::from_value` agree on `bytes`: both
/// refuse them, or both classify them alike (a batch keeps its items).
fn same_verdict(bytes: &[u8]) -> Result<(), TestCaseError> {
    let direct = Frame::parse(bytes);
    match serde_json::from_slice::<Value>(bytes) {
        Err(_) => prop_assert!(
            direct.is_err(),
            "{:?} parsed only directly",
            String::from_utf8_lossy(bytes)
        ),
        Ok(Value::Array(items)) => prop_assert_eq!(direct.ok(), Some(Frame::Batch(items))),
        Ok(value) => {
            let direct = direct.map_err(|e| TestCaseError::fail(e.to_string()))?;
            // What the transports read from the envelope before classifying it.
            let envelope = direct.envelope();
            prop_assert_eq!(
                envelope.and_then(Envelope::method),
                value.get("method").and_then(Value::as_str)
            );
            // `params` without its `_meta`, which is read apart.
            let params = value.get("params").and_then(Value::as_object);
            let mut members = params.cloned();
            let meta = members
                .as_mut()
                .and_then(|m| m.remove("_meta"))
                .map(Meta::from_value);
            let members = members.map(crate::protocol::Params::from);
            prop_assert_eq!(envelope.and_then(Envelope::params), members.as_ref());
            prop_assert_eq!(envelope.and_then(Envelope::meta), meta.as_ref());
            prop_assert_eq!(
                envelope.and_then(Envelope::id),
                value
                    .get("id")
                    .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok())
            );
            prop_assert_eq!(direct.into_message(), Message::from_value(value));
        }
    }
    Ok(())
}

fn depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

const FILES: &[Piece] = &[Piece::Literal("file:///srv/"), Piece::Rest("path")];
const ITEMS: &[Piece] = &[
    Piece::Literal("shop://"),
    Piece::Segment("section"),
    Piece::Literal("/items/"),
    Piece::Segment("id"),
    Piece::Literal(".json"),
];

proptest! {
    // Any bytes: the depth scan and the parser never panic, and whatever parses is
    // classified (a message, or a refusal with a JSON-RPC error code).
    #[test]
    fn any_bytes_are_parsed_or_refused(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let _ = check_depth(&bytes, 64);
        if let Ok(value) = serde_json::from_slice::<Value>(&bytes) {
            if let Err(malformed) = Message::from_value(value) {
                prop_assert!((-32700..=-32600).contains(&malformed.error.code));
            }
        }
    }

    // Reading a frame straight into a message gives the same verdict as parsing it to a
    // JSON value first, for any bytes and for any JSON message.
    #[test]
    fn frames_read_as_values_do(bytes in prop::collection::vec(any::<u8>(), 0..256), value in any_json(), id in any::<i64>()) {
        same_verdict(&bytes)?;
        same_verdict(&serde_json::to_vec(&value).unwrap())?;
        for envelope in [
            json!({"jsonrpc": "2.0", "id": id, "method": "m", "params": value}),
            json!({"jsonrpc": value, "id": id, "method": "m"}),
            json!({"jsonrpc": "2.0", "id": value, "method": "m", "extra": value}),
            json!({"jsonrpc": "2.0", "id": id, "result": value}),
            json!({"jsonrpc": "2.0", "id": id, "error": value}),
            json!({"jsonrpc": "2.0", "method": value, "params": value}),
            json!({"jsonrpc": "2.0", "id": id, "method": "m", "params": {"_meta": value, "x": value}}),
            json!({"jsonrpc": "2.0", "method": "m", "params": {"_meta": {
                meta::PROTOCOL_VERSION: value, meta::CLIENT_CAPABILITIES: value,
                meta::PROGRESS_TOKEN: value, "traceparent": value,
            }}}),
            json!([{"jsonrpc": "2.0", "id": id, "method": "m"}, value]),
        ] {
            same_verdict(&serde_json::to_vec(&envelope).unwrap())?;
        }
    }

    // Any JSON value is a message or a refusal; a well-formed request keeps its id and
    // method.
    #[test]
    fn any_json_is_classified(value in any_json(), id in any::<i64>(), method in "[a-z/]{1,20}") {
        let _ = Message::from_value(value.clone());
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"x": value}});
        match Message::from_value(request) {
            Ok(Message::Request { id: got, method: m, .. }) => {
                prop_assert_eq!(got.to_string(), id.to_string());
                prop_assert_eq!(m, method);
            }
            other => prop_assert!(false, "not a request: {:?}", other.err().map(|m| m.error)),
        }
    }

    // The byte scan agrees with the real nesting of any value, whatever its strings hold.
    #[test]
    fn depth_scan_matches_the_value(value in any_json(), max in 0usize..8) {
        let text = serde_json::to_vec(&value).unwrap();
        prop_assert_eq!(check_depth(&text, max).is_ok(), depth(&value) <= max);
    }

    // Any URI: matching never panics, and no matched value can climb out of its place.
    #[test]
    fn matched_values_never_escape(uri in "(file:///srv/|shop://)[a-z0-9%./\\\\-]{0,40}(\\.json)?") {
        for pieces in [FILES, ITEMS] {
            if let Some(params) = match_uri(pieces, &uri) {
                for (_, value) in params.iter() {
                    for segment in value.split('/') {
                        prop_assert!(segment != ".." && segment != "." && !segment.is_empty(), "{uri} gave {value}");
                    }
                    prop_assert!(!value.contains('\\') && !value.contains('\0'));
                }
            }
        }
    }

    // Values put into a template with percent-encoding come back out exactly.
    #[test]
    fn template_values_round_trip(section in "[^/\\\\\\x00]{0,9}x", id in "x[^/\\\\\\x00]{0,9}") {
        let encode = |s: &str| s.bytes().map(|b| {
            if b.is_ascii_alphanumeric() { (b as char).to_string() } else { format!("%{b:02X}") }
        }).collect::<String>();
        let uri = format!("shop://{}/items/{}.json", encode(&section), encode(&id));
        let params = match_uri(ITEMS, &uri);
        prop_assert!(params.is_some(), "{uri}");
        let params = params.unwrap();
        prop_assert_eq!(params.get("section"), Some(section.as_str()));
        prop_assert_eq!(params.get("id"), Some(id.as_str()));
    }

    // No string opens as a sealed token unless this key sealed it for this purpose, and
    // changing any character of a genuine token makes it unopenable.
    #[test]
    fn sealed_tokens_resist_forgery(junk in ".{0,200}", plain in prop::collection::vec(any::<u8>(), 0..64), at in any::<prop::sample::Index>(), with in "[A-Za-z0-9_.-]") {
        let sealer = Sealer::new(&SealKey::from_bytes([7; 32]));
        prop_assert!(sealer.open("cursor:tools/list", &junk).is_err());
        let token = sealer.seal("cursor:tools/list", &plain).unwrap();
        prop_assert_eq!(sealer.open("cursor:tools/list", &token).ok(), Some(plain.clone()));
        prop_assert!(sealer.open("cursor:prompts/list", &token).is_err());
        let other = Sealer::new(&SealKey::from_bytes([8; 32]));
        prop_assert!(other.open("cursor:tools/list", &token).is_err());
        let mut chars: Vec<char> = token.chars().collect();
        let i = at.index(chars.len());
        let replacement = with.chars().next().unwrap();
        prop_assume!(chars[i] != replacement);
        chars[i] = replacement;
        let forged: String = chars.into_iter().collect();
        // Base64 padding bits can absorb a change of the last character; anything that
        // still opens must then be the very same plaintext.
        if let Ok(opened) = sealer.open("cursor:tools/list", &forged) {
            prop_assert_eq!(opened, plain);
        }
    }

    // Header values: decoding never panics, and only the exact sentinel form decodes.
    #[test]
    fn header_sentinels_decode_strictly(text in ".{0,64}") {
        let decoded = crate::transport::http::decode_sentinel("Mcp-Name", &text);
        if !(text.starts_with("=?base64?") && text.ends_with("?=")) {
            let decoded = decoded.ok();
            prop_assert_eq!(decoded.as_deref(), Some(text.as_str()));
        }
    }
}

/// A repeated member of `params` or of its `_meta`, reserved or not, keeps its last value,
/// as it does when the message is parsed to a JSON value first.
#[test]
fn repeated_meta_members_keep_their_last_value() {
    let v = meta::PROTOCOL_VERSION;
    for text in [
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{{"_meta":{{"a":1}},"_meta":{{"{v}":"x"}}}}}}"#
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{{"_meta":{{"{v}":1,"{v}":"2026-07-28","a":[1],"a":{{}}}}}}}}"#
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{{"_meta":{{"{v}":"x"}},"_meta":7}}}}"#
        ),
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":"\ud83d\ude00","x":1}}"#
            .to_owned(),
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"\u005fmeta":{"progress\u0054oken":2}}}"#
            .to_owned(),
    ] {
        same_verdict(text.as_bytes()).unwrap();
    }
    // Lone surrogates are refused inside `_meta` as anywhere else.
    for text in [
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"a":"\ud800"}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"\ud800":1}}}"#,
    ] {
        assert!(Frame::parse(text.as_bytes()).is_err());
        same_verdict(text.as_bytes()).unwrap();
    }
}
