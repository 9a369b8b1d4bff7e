//! What `#[view]` declares: the resource options it shares with `#[resource]` (name,
//! title, description, scopes, freshness) and what the MCP Apps host needs to frame it
//! (CSP origins, permissions, a dedicated domain, a border).
//!
//! Each option's value is checked where it is read, so its error points at the token: a
//! CSP key or permission that does not exist, an origin that is not one, a domain that is
//! not a host name.

use syn::LitStr;

use super::framing::ViewModel;
use super::parse::Parsed;
use crate::docs;
use crate::errors::Errors;
use crate::options::{self, option_keys, suggest, RawOption, Reader};
use crate::resource::model::{cache_private, ttl, Model as ResourceModel, Source};
use crate::sig;
use crate::uri::Piece;

option_keys! {
    /// The options of `#[view(..)]`, after the URI.
    enum ViewKey for "view" {
        Name = "name",
        Title = "title",
        Description = "description",
        Csp = "csp",
        Permissions = "permissions",
        Domain = "domain",
        PrefersBorder = "prefers_border",
        Ttl = "ttl",
        Cache = "cache",
        Scopes = "scopes",
        Tags = "tags",
    }
}

/// The keys of `csp(..)`, each with the `_meta.ui.csp` member it fills.
const CSP_KEYS: &[&str] = &["connect", "resource", "frame", "base_uri"];

/// The permissions a view may ask for.
const PERMISSIONS: &[&str] = &["camera", "microphone", "geolocation", "clipboard_write"];

/// A view as declared: the resource it is served as, and its framing.
pub struct Model {
    pub resource: ResourceModel,
}

/// `None` when the attribute could not be read (its error is recorded).
pub fn build(parsed: &Parsed, errors: &mut Errors) -> Option<Model> {
    let attr = parsed.attr.as_ref()?;
    let func = &parsed.func;
    let lit = &attr.uri;
    let mut view = ViewModel::default();
    let mut resource = ResourceModel {
        template: lit.clone(),
        uri: lit.value(),
        pieces: vec![Piece::Literal(lit.value())],
        name: func
            .sig
            .ident
            .to_string()
            .trim_start_matches("r#")
            .to_owned(),
        title: None,
        description: None,
        mime: Some(VIEW_MIME.to_owned()),
        size: None,
        audience: None,
        priority: None,
        ttl_ms: None,
        cache_private: None,
        scopes: Vec::new(),
        tags: Vec::new(),
        completers: Vec::new(),
        params: Vec::new(),
        is_async: func.sig.asyncness.is_some(),
        output: syn::parse_quote!(()),
        dup_span: lit.span(),
        view: None,
    };
    let mut reader = Reader::<ViewKey>::new(errors);
    for option in &attr.options {
        if let Some(why) = resource_only(&option.key.to_string()) {
            reader.errors.at(&option.key, why);
            continue;
        }
        let Some(key) = reader.key(option) else {
            continue;
        };
        match key {
            ViewKey::Name => {
                if let Some(s) = reader.string(option) {
                    if s.value().is_empty() {
                        reader.errors.at(&s, "a view's name cannot be empty");
                    }
                    resource.name = s.value();
                }
            }
            ViewKey::Title => resource.title = reader.string(option).map(|s| s.value()),
            ViewKey::Description => resource.description = reader.string(option).map(|s| s.value()),
            ViewKey::Ttl => {
                if let Some(ms) = ttl(option, &mut reader) {
                    resource.ttl_ms = Some(ms);
                }
            }
            ViewKey::Cache => {
                if let Some(private) = cache_private(option, reader.errors) {
                    resource.cache_private = Some(private);
                }
            }
            ViewKey::Scopes => resource.scopes = options::scopes(option, reader.errors),
            ViewKey::Tags => resource.tags = options::tags(option, reader.errors),
            ViewKey::Csp => csp(option, &mut view, reader.errors),
            ViewKey::Permissions => permissions(option, &mut view, reader.errors),
            ViewKey::Domain => {
                if let Some(s) = reader.string(option) {
                    let value = s.value();
                    if !is_host(&value) {
                        reader.errors.at(
                            &s,
                            format!("`{value}` is not a domain: write a host name in the host's format, such as \"a904794854a047f6.claudemcpcontent.com\""),
                        );
                    }
                    view.domain = Some(value);
                }
            }
            ViewKey::PrefersBorder => view.prefers_border = reader.flag(option),
        }
    }

    sig::check_signature(&func.sig, "view", errors);
    // A view has one fixed URI: every parameter is an extractor.
    resource.params = sig::params(&func.sig, "view", errors)
        .into_iter()
        .map(|p| (p, Source::Context))
        .collect();
    resource.output = sig::output(&func.sig, errors);
    if resource.description.is_none() {
        resource.description = docs::text(&func.attrs);
    }
    resource.view = Some(view);
    Some(Model { resource })
}

/// Why an option of `#[resource]` is not one of `#[view]`, when `key` is such an option.
fn resource_only(key: &str) -> Option<String> {
    let why = match key {
        "mime" => format!("a view is always served as `{VIEW_MIME}`: leave `mime` out"),
        "size" => "a view's size is its document's: leave `size` out".to_owned(),
        "audience" | "priority" => format!(
            "`{key}` tells a model how to weigh a resource; a view is for the host to render, not for the model: leave it out"
        ),
        "complete" => "a view has one fixed URI, with no variables to complete: leave `complete` out".to_owned(),
        _ => return None,
    };
    Some(why)
}

/// The MIME type every view is served as.
pub const VIEW_MIME: &str = "text/html;profile=mcp-app";

/// `csp(connect("https://.."), resource(..), frame(..), base_uri(..))`.
fn csp(option: &RawOption, view: &mut ViewModel, errors: &mut Errors) {
    let Some(nested) = &option.nested else {
        errors.at(
            &option.key,
            "write the origins the view may reach: csp(connect(\"https://api.example.com\"), resource(\"https://cdn.example.com\"), frame(..), base_uri(..))",
        );
        return;
    };
    let mut seen: Vec<String> = Vec::new();
    for inner in nested {
        let key = inner.key.to_string();
        if !CSP_KEYS.contains(&key.as_str()) {
            let hint = suggest(&key, CSP_KEYS)
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            errors.at(
                &inner.key,
                format!("unknown CSP key `{key}`{hint} (keys: connect, resource, frame, base_uri)"),
            );
            continue;
        }
        if seen.contains(&key) {
            errors.at(&inner.key, format!("`{key}` is given twice in `csp(..)`"));
            continue;
        }
        seen.push(key.clone());
        let Some(strings) = &inner.strings else {
            errors.at(
                &inner.key,
                format!("list the origins as strings: {key}(\"https://api.example.com\")"),
            );
            continue;
        };
        let mut origins = Vec::new();
        for lit in strings {
            if let Some(origin) = checked_origin(lit, errors) {
                origins.push(origin);
            }
        }
        let target = match key.as_str() {
            "connect" => &mut view.connect,
            "resource" => &mut view.resource,
            "frame" => &mut view.frame,
            _ => &mut view.base_uri,
        };
        *target = origins;
    }
}

/// An origin as a CSP source: `https://host`, `https://*.host`, `wss://host:8443`.
fn checked_origin(lit: &LitStr, errors: &mut Errors) -> Option<String> {
    let value = lit.value();
    if is_origin(&value) {
        return Some(value);
    }
    errors.at(
        lit,
        format!("`{value}` is not an origin: write a scheme (http, https, ws or wss), `://` and a host, with an optional `*.` before it and `:port` after it, such as \"https://api.example.com\" or \"https://*.example.com\" (no path)"),
    );
    None
}

fn is_origin(value: &str) -> bool {
    let Some((scheme, rest)) = value.split_once("://") else {
        return false;
    };
    if !matches!(scheme, "http" | "https" | "ws" | "wss") {
        return false;
    }
    let host_port = rest.strip_prefix("*.").unwrap_or(rest);
    let (host, port) = match host_port.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (host_port, None),
    };
    let port_ok =
        port.is_none_or(|p| !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()));
    port_ok && is_host(host)
}

/// A host name: dot-separated labels of letters, digits and inner hyphens.
fn is_host(value: &str) -> bool {
    !value.is_empty()
        && value.len() <= 253
        && value.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
}

/// `permissions(camera, microphone, geolocation, clipboard_write)`.
fn permissions(option: &RawOption, view: &mut ViewModel, errors: &mut Errors) {
    let Some(nested) = &option.nested else {
        errors.at(
            &option.key,
            "name the browser features the view asks for: permissions(camera, microphone, geolocation, clipboard_write)",
        );
        return;
    };
    for inner in nested {
        let key = inner.key.to_string();
        if !PERMISSIONS.contains(&key.as_str()) {
            let hint = suggest(&key, PERMISSIONS)
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            errors.at(
                &inner.key,
                format!("unknown permission `{key}`{hint} (permissions: camera, microphone, geolocation, clipboard_write)"),
            );
            continue;
        }
        if inner.value.is_some() || inner.nested.is_some() || inner.strings.is_some() {
            errors.at(
                &inner.key,
                format!("`{key}` takes no value: write permissions({key})"),
            );
            continue;
        }
        if view.permissions.contains(&key) {
            errors.at(&inner.key, format!("`{key}` is asked for twice"));
            continue;
        }
        view.permissions.push(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_and_hosts() {
        for good in [
            "https://api.example.com",
            "https://*.example.com",
            "wss://realtime.example.com:8443",
            "http://localhost:3000",
        ] {
            assert!(is_origin(good), "{good}");
        }
        for bad in [
            "api.example.com",
            "ftp://example.com",
            "https://example.com/path",
            "https://exa mple.com",
            "https://",
            "https://-bad.example.com",
            "https://example.com:",
            "https://example.com:123456",
            "https://*",
        ] {
            assert!(!is_origin(bad), "{bad}");
        }
        assert!(is_host("a904794854a047f6.claudemcpcontent.com"));
        assert!(!is_host("https://example.com"));
    }
}
