//! What the protocol asks of values its types cannot say: the form of a URI, of a URL a
//! user is sent to, of a MIME type and of base64 data, the grammar of `_meta` keys, and
//! the content blocks made of them.
//!
//! The types here accept any string, so a handler can build a block the protocol does not
//! allow (an embedded resource whose `uri` is a file name, an image whose data is not
//! base64). The core checks what a handler returns with these functions before anything
//! is sent, and the registry checks definitions given as JSON when they are added; each
//! function says what is wrong in words, for the error that names the handler.

use std::net::{Ipv4Addr, Ipv6Addr};

use serde_json::{Map, Value};

use super::{CallToolResult, Content, GetPromptResult, ResourceContents};

/// An absolute URI (RFC 3986: a scheme, then what the scheme says), the form the schema's
/// `format: uri` asks of every `uri`.
pub(crate) fn absolute_uri(uri: &str) -> Result<(), String> {
    match fluent_uri::Uri::parse(uri) {
        Ok(_) => Ok(()),
        Err(_) => Err(format!("{uri:?} is not an absolute URI")),
    }
}

/// A page a user may be sent to: an absolute `https` URL, or plain `http` to this machine
/// only (`localhost`, 127.0.0.0/8, `[::1]`), with a host and no credentials in it.
pub(crate) fn user_url(url: &str) -> Result<(), String> {
    let Ok(parsed) = fluent_uri::Uri::parse(url) else {
        return Err(format!("{url:?} is not an absolute URL"));
    };
    let scheme = parsed.scheme().as_str();
    let web = scheme.eq_ignore_ascii_case("https") || scheme.eq_ignore_ascii_case("http");
    let authority = parsed.authority().filter(|a| !a.host().is_empty());
    let Some(authority) = authority.filter(|_| web) else {
        return Err(format!(
            "{url:?} is not an https URL with a host (plain http only to localhost, 127.0.0.0/8 or [::1])"
        ));
    };
    if authority.userinfo().is_some() {
        return Err(format!(
            "{url:?} carries credentials before its host; a URL for the user holds none"
        ));
    }
    if scheme.eq_ignore_ascii_case("http") && !loopback(authority.host()) {
        return Err(format!(
            "{url:?} is plain http to another machine; use https (plain http only to localhost, 127.0.0.0/8 or [::1])"
        ));
    }
    Ok(())
}

/// Whether `host` (as a URI writes it) names this machine.
fn loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
        || host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .and_then(|h| h.parse::<Ipv6Addr>().ok())
            .is_some_and(|ip| ip.is_loopback())
}

/// A MIME type: `type/subtype`, each an HTTP token, then optional `; name=value`
/// parameters.
pub(crate) fn mime_type(mime: &str) -> Result<(), String> {
    let mut parts = mime.split(';');
    let essence = parts.next().unwrap_or_default().trim();
    let valid = essence
        .split_once('/')
        .is_some_and(|(kind, subtype)| token(kind) && token(subtype))
        && parts.all(|parameter| {
            parameter
                .trim()
                .split_once('=')
                .is_some_and(|(name, value)| token(name) && !value.is_empty())
        });
    if valid {
        Ok(())
    } else {
        Err(format!(
            "{mime:?} is not a MIME type (type/subtype, such as text/plain)"
        ))
    }
}

/// An HTTP token (RFC 9110): the characters of MIME types' parts.
fn token(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Base64 as RFC 4648 writes it (the standard alphabet, padded to a multiple of four), the
/// form the schema's `format: byte` asks of `data` and `blob`. Checked without decoding:
/// an image may be megabytes.
pub(crate) fn base64(data: &str) -> Result<(), String> {
    let bytes = data.as_bytes();
    let body = bytes
        .strip_suffix(b"==")
        .or_else(|| bytes.strip_suffix(b"="))
        .unwrap_or(bytes);
    let alphabet = |b: &u8| b.is_ascii_alphanumeric() || *b == b'+' || *b == b'/';
    if bytes.len().is_multiple_of(4) && body.iter().all(alphabet) {
        Ok(())
    } else {
        Err("is not base64 (RFC 4648: A-Z, a-z, 0-9, + and /, padded with = to a multiple of four characters)".to_owned())
    }
}

/// A `_meta` key a server may write: an optional prefix of dot-separated labels (each
/// starting with a letter and ending with a letter or digit, with letters, digits and
/// hyphens inside) ending in `/`, then a name, empty or starting and ending with a letter
/// or digit with letters, digits, `-`, `_` and `.` inside. A prefix whose second label is
/// `modelcontextprotocol` or `mcp` belongs to the protocol: the keys it defines there are
/// the server's own to write, never a handler's.
pub(crate) fn meta_key(key: &str) -> Result<(), String> {
    let (prefix, name) = match key.rsplit_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if let Some(prefix) = prefix {
        if !prefix.split('.').all(label) {
            return Err(format!(
                "the _meta key {key:?} has a prefix that is not dot-separated labels (each starting with a letter and ending with a letter or digit, with letters, digits and hyphens inside) before its `/`"
            ));
        }
        if let Some(second) = reserved_label(prefix) {
            return Err(format!(
                "the _meta key {key:?} is under `{prefix}/`, a prefix the protocol reserves for its own keys (its second label is `{second}`)"
            ));
        }
    }
    let inner = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.');
    let named = name.is_empty()
        || (name.starts_with(|c: char| c.is_ascii_alphanumeric())
            && name.ends_with(|c: char| c.is_ascii_alphanumeric())
            && name.bytes().all(inner));
    if named {
        Ok(())
    } else {
        Err(format!(
            "the _meta key {key:?} has a name that is neither empty nor starts and ends with a letter or digit (with letters, digits, `-`, `_` and `.` inside)"
        ))
    }
}

/// Whether `key` is under a prefix the protocol reserves (its second label is
/// `modelcontextprotocol` or `mcp`): one of the protocol's own keys, or a key no one else
/// may mint. (The gateway drops such keys of an upstream's results.)
#[cfg_attr(not(feature = "client"), allow(dead_code))]
pub(crate) fn reserved(key: &str) -> bool {
    key.rsplit_once('/')
        .is_some_and(|(prefix, _)| reserved_label(prefix).is_some())
}

/// The second label of `prefix` when it is one the protocol reserves.
fn reserved_label(prefix: &str) -> Option<&str> {
    prefix.split('.').nth(1).filter(|second| {
        second.eq_ignore_ascii_case("modelcontextprotocol") || second.eq_ignore_ascii_case("mcp")
    })
}

/// One label of a `_meta` key's prefix.
fn label(label: &str) -> bool {
    label.starts_with(|c: char| c.is_ascii_alphabetic())
        && label.ends_with(|c: char| c.is_ascii_alphanumeric())
        && label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// Every key of a `_meta` object, as [`meta_key`] checks one.
pub(crate) fn meta_keys(meta: Option<&Map<String, Value>>) -> Result<(), String> {
    meta.into_iter()
        .flat_map(Map::keys)
        .try_for_each(|key| meta_key(key))
}

/// What a content block is, for the messages.
fn kind(block: &Content) -> &'static str {
    match block {
        Content::Text { .. } => "a text block",
        Content::Image { .. } => "an image block",
        Content::Audio { .. } => "an audio block",
        Content::ResourceLink(_) => "a resource link",
        Content::Resource(_) => "an embedded resource",
    }
}

/// A content block as the schema shapes it: an image's or audio's data is base64 of that
/// media type, a link's and an embedded resource's `uri` an absolute URI with a MIME type
/// where it names one, an embedded resource's `blob` base64, and every `_meta` key
/// well-formed.
pub(crate) fn content(block: &Content) -> Result<(), String> {
    let media = |data: &str, mime: &str, of: &str| -> Result<(), String> {
        mime_type(mime)?;
        let (top, _) = mime.split_once('/').unwrap_or_default();
        if !top.eq_ignore_ascii_case(of) {
            return Err(format!("its MIME type {mime:?} is not an {of}/ type"));
        }
        base64(data).map_err(|problem| format!("its data {problem}"))
    };
    match block {
        Content::Text { meta, .. } => meta_keys(meta.as_ref()),
        Content::Image {
            data, mime_type, ..
        } => media(data, mime_type, "image"),
        Content::Audio {
            data, mime_type, ..
        } => media(data, mime_type, "audio"),
        Content::ResourceLink(link) => {
            absolute_uri(&link.uri).map_err(|problem| format!("its uri {problem}"))?;
            if let Some(mime) = &link.mime_type {
                mime_type(mime)?;
            }
            meta_keys(link.meta.as_ref())
        }
        Content::Resource(embedded) => resource_contents(&embedded.resource),
    }
}

/// The contents of a resource: an absolute `uri`, a MIME type where they name one, and
/// base64 in a `blob`.
pub(crate) fn resource_contents(contents: &ResourceContents) -> Result<(), String> {
    absolute_uri(contents.uri()).map_err(|problem| format!("its uri {problem}"))?;
    if let Some(mime) = contents.mime_type() {
        mime_type(mime)?;
    }
    match contents {
        ResourceContents::Blob { blob, .. } => {
            base64(blob).map_err(|problem| format!("its blob {problem}"))
        }
        ResourceContents::Text { .. } => Ok(()),
    }
}

/// A tool's result: each content block (see [`content`]) and the result's `_meta` keys.
pub(crate) fn tool_result(result: &CallToolResult) -> Result<(), String> {
    for (i, block) in result.content.iter().enumerate() {
        content(block).map_err(|problem| format!("content[{i}], {}: {problem}", kind(block)))?;
    }
    meta_keys(result.meta.as_ref())
}

/// A prompt's result: each message's block (see [`content`]). The role needs no check:
/// [`Role`](super::Role) has only `user` and `assistant`.
pub(crate) fn prompt_result(result: &GetPromptResult) -> Result<(), String> {
    for (i, message) in result.messages.iter().enumerate() {
        let block = &message.content;
        content(block)
            .map_err(|problem| format!("messages[{i}].content, {}: {problem}", kind(block)))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{PromptMessage, Role};
    use serde_json::json;

    /// `check` accepts each of `good`, and refuses each of `bad` saying `says`.
    fn sorts(check: fn(&str) -> Result<(), String>, good: &[&str], bad: &[&str], says: &str) {
        for good in good {
            assert_eq!(check(good), Ok(()), "{good:?}");
        }
        for bad in bad {
            let problem = check(bad).unwrap_err();
            assert!(problem.contains(says), "{bad:?}: {problem}");
        }
    }

    #[test]
    fn uris_are_absolute() {
        let good = [
            "file:///a.txt",
            "vault://alpha",
            "x://1",
            "urn:isbn:0451450523",
        ];
        let bad = [
            "",
            "a.txt",
            "/etc/passwd",
            "not a uri",
            "ürl://x",
            "x://a b",
        ];
        sorts(absolute_uri, &good, &bad, "");
    }

    #[test]
    fn a_user_is_sent_to_https_or_to_this_machine() {
        // S-283: a URL question's `url` is one a person may open.
        for good in [
            "https://bank.example/signin",
            "HTTPS://bank.example:8443/a?b=c#d",
            "http://localhost:8080/callback",
            "http://127.0.0.1/x",
            "http://127.8.9.10/x",
            "http://[::1]:3000/",
        ] {
            assert_eq!(user_url(good), Ok(()), "{good}");
        }
        for (bad, says) in [
            ("bank.example/signin", "is not an absolute URL"),
            ("javascript:alert(1)", "is not an https URL"),
            ("ftp://bank.example/f", "is not an https URL"),
            ("https:///nohost", "is not an https URL"),
            ("https:no-slashes", "is not an https URL"),
            (
                "http://bank.example/signin",
                "plain http to another machine",
            ),
            (
                "http://127.0.0.1.evil.example/",
                "plain http to another machine",
            ),
            ("http://[::2]/", "plain http to another machine"),
            ("https://user:secret@bank.example/", "carries credentials"),
            ("http://localhost@evil.example/", "carries credentials"),
        ] {
            let problem = user_url(bad).unwrap_err();
            assert!(problem.contains(says), "{bad}: {problem}");
        }
    }

    #[test]
    fn mime_types_and_base64_have_their_forms() {
        let good = [
            "text/plain",
            "image/svg+xml",
            "text/html; charset=utf-8",
            "application/vnd.a.b-c",
        ];
        let bad = [
            "",
            "text",
            "text/",
            "/plain",
            "text plain",
            "text/plain; charset",
            "täxt/plain",
        ];
        sorts(mime_type, &good, &bad, "");
        let good = ["", "AQID", "AQI=", "AQ==", "+/+/"];
        let bad = ["AQI", "A===", "AQ=D", "AQ ID", "AQID\n", "AQ-_"];
        sorts(base64, &good, &bad, "");
    }

    #[test]
    fn meta_keys_follow_the_grammar_outside_the_reserved_prefixes() {
        // S-035: the grammar of prefix and name.
        let good = [
            "",
            "x",
            "traceparent",
            "com.example/",
            "com.example/a",
            "com.example-corp.v2/trace.id_x-1",
            "com.example.mcp/x",
            "mcp/x",
            "a/b",
        ];
        let bad = [
            "-x",
            "x-",
            "_",
            "/x",
            "com..example/x",
            "1com.example/x",
            "com.example-/x",
            "com.exa_mple/x",
            "com.example/x/",
            "com.example/x y",
            "com.example/.x",
        ];
        sorts(meta_key, &good, &bad, "_meta key");
        // S-037: a prefix whose second label is the protocol's is not a handler's to mint.
        for reserved in [
            "io.modelcontextprotocol/serverInfo",
            "dev.mcp/x",
            "org.modelcontextprotocol.api/x",
            "com.MCP.tools/x",
        ] {
            let problem = meta_key(reserved).unwrap_err();
            assert!(problem.contains("reserves"), "{reserved}: {problem}");
            assert!(super::reserved(reserved), "{reserved}");
        }
        assert!(!reserved("com.example.mcp/x") && !reserved("mcp/x") && !reserved("x"));
    }

    #[test]
    fn blocks_are_checked_where_the_schema_leaves_strings_open() {
        // S-228: an embedded resource has an absolute URI, a MIME type where it names one,
        // and text or a base64 blob.
        let good = [
            Content::text("hi"),
            Content::image([1u8, 2, 3], "image/png"),
            Content::audio([4u8], "audio/wav"),
            Content::link("library://books/1", "Dune"),
            Content::embedded_text("file:///a.txt", "text/plain", "inline"),
            Content::embedded_blob("file:///a.bin", "application/octet-stream", [0u8, 1]),
        ];
        for block in &good {
            assert_eq!(content(block), Ok(()), "{block:?}");
        }
        let block = |value: Value| serde_json::from_value::<Content>(value).unwrap();
        let bad = [
            (
                block(json!({"type": "resource", "resource": {"uri": "notes.txt", "text": "t"}})),
                "its uri \"notes.txt\" is not an absolute URI",
            ),
            (
                block(
                    json!({"type": "resource", "resource": {"uri": "x://a", "mimeType": "text", "text": "t"}}),
                ),
                "\"text\" is not a MIME type",
            ),
            (
                block(
                    json!({"type": "resource", "resource": {"uri": "x://a", "blob": "not base64!"}}),
                ),
                "its blob is not base64",
            ),
            (
                block(json!({"type": "resource_link", "uri": "a b", "name": "n"})),
                "its uri \"a b\" is not an absolute URI",
            ),
            (
                block(json!({"type": "image", "data": "AQID", "mimeType": "text/plain"})),
                "is not an image/ type",
            ),
            (
                block(json!({"type": "audio", "data": "%%%%", "mimeType": "audio/wav"})),
                "its data is not base64",
            ),
            (
                block(json!({"type": "text", "text": "t", "_meta": {"io.mcp.x/y": 1}})),
                "_meta key \"io.mcp.x/y\"",
            ),
        ];
        for (block, says) in bad {
            let problem = content(&block).unwrap_err();
            assert!(problem.contains(says), "{block:?}: {problem}");
        }
    }

    #[test]
    fn results_name_the_block_that_is_wrong() {
        let mut result = CallToolResult::success(vec![
            Content::text("ok"),
            Content::embedded_text("notes.txt", "text/plain", "t"),
        ]);
        assert_eq!(
            tool_result(&result).unwrap_err(),
            "content[1], an embedded resource: its uri \"notes.txt\" is not an absolute URI"
        );
        result.content.pop();
        assert_eq!(tool_result(&result), Ok(()));
        let mut meta = Map::new();
        meta.insert("com.example/ok".into(), json!(1));
        meta.insert("io.modelcontextprotocol/mine".into(), json!(2));
        result.meta = Some(meta);
        assert!(tool_result(&result).unwrap_err().contains("reserves"));

        let prompt = GetPromptResult::new([
            PromptMessage::user("hi"),
            PromptMessage::assistant(Content::link("relative/link", "l")),
        ]);
        assert_eq!(
            prompt_result(&prompt).unwrap_err(),
            "messages[1].content, a resource link: its uri \"relative/link\" is not an absolute URI"
        );
        // S-234: a third role cannot even be written down.
        let system = serde_json::from_value::<PromptMessage>(
            json!({"role": "system", "content": {"type": "text", "text": "obey"}}),
        );
        assert!(system.is_err());
        assert!(matches!(
            serde_json::from_value::<Role>(json!("assistant")),
            Ok(Role::Assistant)
        ));
    }
}
