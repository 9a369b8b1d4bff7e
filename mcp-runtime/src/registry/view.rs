//! Views: the MCP Apps extension (`io.modelcontextprotocol/ui`, SEP-1865).
//!
//! A view is a resource whose URI starts with `ui://` and whose contents are an HTML
//! document (`text/html;profile=mcp-app`) that a host renders in a sandboxed frame beside
//! a tool's result. `#[view("ui://..")]` declares one: the macro emits an ordinary
//! [`ResourceDef`](super::ResourceDef) whose `view` field carries what the host needs to
//! sandbox it ([`ViewDef`]); `#[tool(ui = "ui://..")]` names it in the tool's
//! `_meta.ui.resourceUri`, and `visibility = app` keeps a tool for the view alone.

use serde_json::{json, Map, Value};

use crate::protocol::extensions::{self, UI, UI_MIME};

/// The URI scheme every view's URI starts with.
pub const SCHEME: &str = "ui://";

/// What a host needs to frame one view: the origins its Content Security Policy allows,
/// the browser permissions it asks for, its own origin and whether it wants a border.
/// Published as `_meta.ui` on the view's `resources/list` entry and on its read contents.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ViewDef {
    /// `csp.connectDomains`: origins it may fetch from or open sockets to.
    pub connect_domains: &'static [&'static str],
    /// `csp.resourceDomains`: origins of its scripts, styles, images, fonts and media.
    pub resource_domains: &'static [&'static str],
    /// `csp.frameDomains`: origins of frames it nests.
    pub frame_domains: &'static [&'static str],
    /// `csp.baseUriDomains`: origins its `<base>` may name.
    pub base_uri_domains: &'static [&'static str],
    /// `permissions`: the browser features it asks the host for.
    pub permissions: Permissions,
    /// `domain`: a dedicated origin for its frame, in the host's own format.
    pub domain: Option<&'static str>,
    /// `prefersBorder`: whether the host should draw a border and background around it.
    pub prefers_border: Option<bool>,
}

/// The browser features a view asks for (`_meta.ui.permissions`). A host may refuse any
/// of them; a view checks for a feature before it uses it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Permissions {
    /// `camera`.
    pub camera: bool,
    /// `microphone`.
    pub microphone: bool,
    /// `geolocation`.
    pub geolocation: bool,
    /// `clipboardWrite`.
    pub clipboard_write: bool,
}

impl ViewDef {
    /// The `ui` member of `_meta` as the extension spells it: only what was declared.
    pub fn ui_meta(&self) -> Value {
        let mut ui = Map::new();
        let mut csp = Map::new();
        for (key, domains) in [
            ("connectDomains", self.connect_domains),
            ("resourceDomains", self.resource_domains),
            ("frameDomains", self.frame_domains),
            ("baseUriDomains", self.base_uri_domains),
        ] {
            if !domains.is_empty() {
                csp.insert(key.into(), json!(domains));
            }
        }
        if !csp.is_empty() {
            ui.insert("csp".into(), Value::Object(csp));
        }
        let mut permissions = Map::new();
        for (key, asked) in [
            ("camera", self.permissions.camera),
            ("microphone", self.permissions.microphone),
            ("geolocation", self.permissions.geolocation),
            ("clipboardWrite", self.permissions.clipboard_write),
        ] {
            if asked {
                permissions.insert(key.into(), json!({}));
            }
        }
        if !permissions.is_empty() {
            ui.insert("permissions".into(), Value::Object(permissions));
        }
        if let Some(domain) = self.domain {
            ui.insert("domain".into(), json!(domain));
        }
        if let Some(border) = self.prefers_border {
            ui.insert("prefersBorder".into(), json!(border));
        }
        Value::Object(ui)
    }

    /// `_meta` holding [`ViewDef::ui_meta`].
    pub(crate) fn meta(&self) -> Map<String, Value> {
        let mut meta = Map::new();
        meta.insert("ui".into(), self.ui_meta());
        meta
    }
}

/// Who may call a tool (`_meta.ui.visibility`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Visibility {
    /// The model and views (the default, left out of `_meta`).
    #[default]
    ModelAndApp,
    /// `visibility = model`: the model only; hosts refuse calls from views.
    Model,
    /// `visibility = app`: views only. Clients that did not declare the extension neither
    /// see it in `tools/list` nor may call it.
    App,
}

impl Visibility {
    /// The `visibility` array, or `None` for the default.
    pub(crate) fn wire(self) -> Option<Value> {
        match self {
            Visibility::ModelAndApp => None,
            Visibility::Model => Some(json!(["model"])),
            Visibility::App => Some(json!(["app"])),
        }
    }

    /// Read a published `visibility` array (a tool added at run time); `None` when it is
    /// not one of the three the extension defines.
    pub(crate) fn from_wire(value: &Value) -> Option<Visibility> {
        let list = value.as_array()?;
        let has = |who: &str| list.iter().any(|v| v.as_str() == Some(who));
        if list
            .iter()
            .any(|v| !matches!(v.as_str(), Some("model" | "app")))
        {
            return None;
        }
        match (has("model"), has("app")) {
            (true, true) => Some(Visibility::ModelAndApp),
            (true, false) => Some(Visibility::Model),
            (false, true) => Some(Visibility::App),
            (false, false) => None,
        }
    }
}

/// A tool's `_meta`: `ui.resourceUri` and `ui.visibility` when it has them.
pub(crate) fn tool_meta(ui: Option<&str>, visibility: Visibility) -> Option<Map<String, Value>> {
    let mut members = Map::new();
    if let Some(uri) = ui {
        members.insert("resourceUri".into(), json!(uri));
    }
    if let Some(list) = visibility.wire() {
        members.insert("visibility".into(), list);
    }
    if members.is_empty() {
        return None;
    }
    let mut meta = Map::new();
    meta.insert("ui".into(), Value::Object(members));
    Some(meta)
}

/// Whether `capabilities` (a client's, as declared) take views: the extension is declared
/// and its `mimeTypes` lists the type views are served as.
pub(crate) fn declared(capabilities: &Map<String, Value>) -> bool {
    capabilities
        .get("extensions")
        .and_then(|e| e.get(UI))
        .and_then(|ui| ui.get("mimeTypes"))
        .and_then(Value::as_array)
        .is_some_and(|types| types.iter().any(|t| t.as_str() == Some(UI_MIME)))
}

/// -32021 naming the extension as a client declares it: an app-only tool was called by a
/// client that did not declare it.
pub(crate) fn missing_extension() -> crate::protocol::RpcError {
    extensions::missing(UI, json!({ "mimeTypes": [UI_MIME] }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_is_declared_is_published() {
        assert_eq!(ViewDef::default().ui_meta(), json!({}));
        let view = ViewDef {
            connect_domains: &["https://api.example.com"],
            base_uri_domains: &["https://cdn.example.com"],
            permissions: Permissions {
                clipboard_write: true,
                ..Permissions::default()
            },
            domain: Some("a1.example.net"),
            prefers_border: Some(false),
            ..ViewDef::default()
        };
        assert_eq!(
            view.ui_meta(),
            json!({
                "csp": {
                    "connectDomains": ["https://api.example.com"],
                    "baseUriDomains": ["https://cdn.example.com"]
                },
                "permissions": { "clipboardWrite": {} },
                "domain": "a1.example.net",
                "prefersBorder": false
            })
        );
    }

    #[test]
    fn visibility_round_trips_and_rejects_strangers() {
        for v in [Visibility::Model, Visibility::App] {
            let wire = v.wire().unwrap();
            assert_eq!(Visibility::from_wire(&wire), Some(v));
        }
        assert_eq!(
            Visibility::from_wire(&json!(["app", "model"])),
            Some(Visibility::ModelAndApp)
        );
        assert_eq!(Visibility::from_wire(&json!(["user"])), None);
        assert_eq!(Visibility::from_wire(&json!([])), None);
        assert_eq!(Visibility::from_wire(&json!("app")), None);
        assert_eq!(tool_meta(None, Visibility::ModelAndApp), None);
    }

    #[test]
    fn the_refusal_names_the_extension() {
        let refused = missing_extension();
        assert_eq!(refused.code, -32021);
        assert_eq!(
            refused.message,
            "Missing required client capability: extension io.modelcontextprotocol/ui"
        );
    }

    #[test]
    fn a_client_takes_views_only_with_the_html_type() {
        let caps = |v: Value| v.as_object().cloned().unwrap_or_default();
        assert!(declared(&caps(
            json!({"extensions": {UI: {"mimeTypes": [UI_MIME]}}})
        )));
        assert!(!declared(&caps(json!({"extensions": {UI: {}}}))));
        assert!(!declared(&caps(
            json!({"extensions": {UI: {"mimeTypes": ["text/html"]}}})
        )));
        assert!(!declared(&caps(json!({}))));
    }
}
