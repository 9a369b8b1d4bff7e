//! Reserved `_meta` keys of the 2026-07-28 revision.

/// Request `_meta`: the revision the request is written in (required).
pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// Request `_meta`: what the client can do on this request (required, `{}` = nothing optional).
pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// Request `_meta`: self-asserted client name and version (optional, display only).
pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// Request `_meta`: per-request log level (deprecated feature).
pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// Result `_meta`: the server's name and version.
pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// Request `_meta`: opt-in token for progress notifications.
pub const PROGRESS_TOKEN: &str = "progressToken";
/// Notification `_meta` (and the listen result `_meta`): the `subscriptions/listen` request id.
pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::member::MemberName;
use super::{Implementation, LogLevel};

/// A request's `params._meta`, as read from the message: the members the 2026-07-28
/// revision reserves in fields of their own, the others in a JSON map.
///
/// Every 2026-07-28 request repeats the reserved members, so they are not made map
/// entries with names of their own. [`Meta::into_value`] gives back the member as sent.
#[derive(Debug, Clone, PartialEq)]
pub struct Meta(Repr);

#[derive(Debug, Clone, PartialEq)]
enum Repr {
    /// An object without members (what a request without `_meta` gets in the handshake
    /// era), kept without an allocation.
    Empty,
    /// Boxed: a message carries it from the transport to the request's context.
    Object(Box<Members>),
    /// `_meta` was not an object.
    Other(Value),
}

/// The members of an object `_meta`. A repeated name keeps its last value, as a JSON
/// object parsed to a map does.
#[derive(Debug, Clone, Default, PartialEq)]
struct Members {
    protocol_version: Option<Value>,
    client_capabilities: Option<Value>,
    client_info: Option<Value>,
    log_level: Option<Value>,
    progress_token: Option<Value>,
    others: Map<String, Value>,
}

impl Members {
    /// The object these members make.
    fn into_meta(self) -> Meta {
        if self == Members::default() {
            Meta(Repr::Empty)
        } else {
            Meta(Repr::Object(Box::new(self)))
        }
    }

    fn slot(&mut self, key: &str) -> Option<&mut Option<Value>> {
        Some(match key {
            PROTOCOL_VERSION => &mut self.protocol_version,
            CLIENT_CAPABILITIES => &mut self.client_capabilities,
            CLIENT_INFO => &mut self.client_info,
            LOG_LEVEL => &mut self.log_level,
            PROGRESS_TOKEN => &mut self.progress_token,
            _ => return None,
        })
    }

    fn reserved(&self) -> [(&'static str, &Option<Value>); 5] {
        [
            (PROTOCOL_VERSION, &self.protocol_version),
            (CLIENT_CAPABILITIES, &self.client_capabilities),
            (CLIENT_INFO, &self.client_info),
            (LOG_LEVEL, &self.log_level),
            (PROGRESS_TOKEN, &self.progress_token),
        ]
    }
}

impl Meta {
    /// Read a `_meta` member that was already parsed as a JSON value.
    pub fn from_value(value: Value) -> Meta {
        match value {
            Value::Object(map) => Meta::from_map(map),
            other => Meta(Repr::Other(other)),
        }
    }

    /// Read an object `_meta` that was already parsed as a JSON map.
    pub fn from_map(map: Map<String, Value>) -> Meta {
        let mut members = Members::default();
        for (key, value) in map {
            match members.slot(&key) {
                Some(slot) => *slot = Some(value),
                None => {
                    members.others.insert(key, value);
                }
            }
        }
        members.into_meta()
    }

    /// The member as sent, as a JSON value.
    pub fn into_value(self) -> Value {
        match self.0 {
            Repr::Empty => Value::Object(Map::new()),
            Repr::Object(members) => Value::Object(Meta::map_of(*members)),
            Repr::Other(value) => value,
        }
    }

    /// The member as a JSON map: empty when it was not an object.
    pub fn to_map(&self) -> Map<String, Value> {
        match &self.0 {
            Repr::Object(members) => Meta::map_of(Members::clone(members)),
            Repr::Empty | Repr::Other(_) => Map::new(),
        }
    }

    fn map_of(members: Members) -> Map<String, Value> {
        let Members {
            protocol_version,
            client_capabilities,
            client_info,
            log_level,
            progress_token,
            mut others,
        } = members;
        for (key, value) in [
            (PROTOCOL_VERSION, protocol_version),
            (CLIENT_CAPABILITIES, client_capabilities),
            (CLIENT_INFO, client_info),
            (LOG_LEVEL, log_level),
            (PROGRESS_TOKEN, progress_token),
        ] {
            if let Some(value) = value {
                others.insert(key.to_owned(), value);
            }
        }
        others
    }

    /// Whether `_meta` is a JSON object.
    pub fn is_object(&self) -> bool {
        matches!(self.0, Repr::Empty | Repr::Object(_))
    }

    /// The member named `key`, when `_meta` is an object that has it.
    pub fn get(&self, key: &str) -> Option<&Value> {
        let members = self.members()?;
        match members
            .reserved()
            .into_iter()
            .find(|(name, _)| *name == key)
        {
            Some((_, value)) => value.as_ref(),
            None => members.others.get(key),
        }
    }

    /// The protocol version member, when `_meta` is an object that has it (as
    /// [`Meta::get`] with [`PROTOCOL_VERSION`], without comparing names).
    pub(crate) fn protocol_version(&self) -> Option<&Value> {
        self.members().and_then(|m| m.protocol_version.as_ref())
    }

    /// The progress token member, as [`Meta::protocol_version`] reads its own.
    pub(crate) fn progress_token(&self) -> Option<&Value> {
        self.members().and_then(|m| m.progress_token.as_ref())
    }

    /// The log level member, as [`Meta::protocol_version`] reads its own.
    pub(crate) fn log_level(&self) -> Option<&Value> {
        self.members().and_then(|m| m.log_level.as_ref())
    }

    fn members(&self) -> Option<&Members> {
        match &self.0 {
            Repr::Object(members) => Some(members),
            Repr::Empty | Repr::Other(_) => None,
        }
    }

    /// The members the 2026-07-28 revision does not reserve (such as a W3C `traceparent`),
    /// when `_meta` is an object.
    #[cfg_attr(not(feature = "otel"), allow(dead_code))]
    pub(crate) fn others(&self) -> Option<&Map<String, Value>> {
        match &self.0 {
            Repr::Object(members) => Some(&members.others),
            Repr::Empty | Repr::Other(_) => None,
        }
    }
}

impl Default for Meta {
    /// An empty object.
    fn default() -> Self {
        Meta(Repr::Empty)
    }
}

impl<'de> Deserialize<'de> for Meta {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(MetaVisitor)
    }
}

struct MetaVisitor;

impl<'de> serde::de::Visitor<'de> for MetaVisitor {
    type Value = Meta;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the _meta of a request")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Meta, A::Error> {
        let mut members = Members::default();
        while let Some(key) = map.next_key::<MetaKey>()? {
            match key {
                MetaKey::Reserved(name) => {
                    if let Some(slot) = members.slot(name) {
                        *slot = Some(map.next_value()?);
                    }
                }
                MetaKey::Other(name) => {
                    let value = map.next_value()?;
                    members.others.insert(name, value);
                }
            }
        }
        Ok(members.into_meta())
    }

    // Any other JSON value is kept whole, read as serde_json reads a value.
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Meta, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Value>()? {
            items.push(item);
        }
        Ok(Meta(Repr::Other(Value::Array(items))))
    }

    fn visit_bool<E>(self, v: bool) -> Result<Meta, E> {
        Ok(Meta(Repr::Other(Value::Bool(v))))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Meta, E> {
        Ok(Meta(Repr::Other(Value::from(v))))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Meta, E> {
        Ok(Meta(Repr::Other(Value::from(v))))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Meta, E> {
        Ok(Meta(Repr::Other(Value::from(v))))
    }

    fn visit_str<E>(self, v: &str) -> Result<Meta, E> {
        Ok(Meta(Repr::Other(Value::String(v.to_owned()))))
    }

    fn visit_string<E>(self, v: String) -> Result<Meta, E> {
        Ok(Meta(Repr::Other(Value::String(v))))
    }

    fn visit_unit<E>(self) -> Result<Meta, E> {
        Ok(Meta(Repr::Other(Value::Null)))
    }
}

/// The reserved member name `name` is, if it is one.
fn reserved(name: &str) -> Option<&'static str> {
    RESERVED.into_iter().find(|reserved| *reserved == name)
}

/// The members of a request's `_meta` that [`Meta`] keeps apart.
const RESERVED: [&str; 5] = [
    PROTOCOL_VERSION,
    CLIENT_CAPABILITIES,
    CLIENT_INFO,
    LOG_LEVEL,
    PROGRESS_TOKEN,
];

/// A member name of `_meta`: a reserved one read without allocating.
enum MetaKey {
    Reserved(&'static str),
    Other(String),
}

impl MemberName for MetaKey {
    fn borrowed(name: &str) -> MetaKey {
        match reserved(name) {
            Some(reserved) => MetaKey::Reserved(reserved),
            None => MetaKey::Other(name.to_owned()),
        }
    }
    fn owned(name: String) -> MetaKey {
        match reserved(&name) {
            Some(reserved) => MetaKey::Reserved(reserved),
            None => MetaKey::Other(name),
        }
    }
}

impl<'de> Deserialize<'de> for MetaKey {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        super::member::member_name(deserializer)
    }
}

/// The reserved fields of one request's `_meta`, read and typed. What the fields mean for
/// the request (which revision serves it, what the client may be asked) is decided above;
/// this only says whether they are well-formed.
#[derive(Debug, Clone)]
pub(crate) struct RequestMeta {
    /// The revision the request is written in, one of those the server speaks.
    pub(crate) protocol_version: &'static str,
    /// The client's capabilities on this request (`{}`: nothing optional).
    pub(crate) client_capabilities: Map<String, Value>,
    /// The client's self-asserted name and version.
    pub(crate) client_info: Option<Arc<Implementation>>,
    /// The log level the client asked for on this request.
    pub(crate) log_level: Option<LogLevel>,
    /// The token progress notifications carry (a string or a number).
    pub(crate) progress_token: Option<Value>,
    /// The whole `_meta`, as sent.
    pub(crate) meta: Meta,
}

/// Why a request's `_meta` is refused, in the order the fields are checked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum MetaError {
    /// `params._meta` is there but is no object.
    NotAnObject,
    /// `params._meta` is absent.
    Missing,
    /// The protocol version is no string.
    VersionNotAString,
    /// The protocol version is absent.
    VersionMissing,
    /// The protocol version names a revision the server does not speak.
    UnsupportedVersion(String),
    /// The client capabilities are no object.
    CapabilitiesNotAnObject,
    /// The client capabilities are absent.
    CapabilitiesMissing,
    /// The client info does not parse; the parser's message.
    ClientInfoMalformed(String),
    /// The log level names no level.
    UnknownLogLevel,
    /// The progress token is neither a string nor a number.
    ProgressTokenMalformed,
}

impl MetaError {
    /// Whether the error is about `_meta` itself or the protocol version: what must hold
    /// before the method is looked at.
    pub(crate) fn is_before_method(&self) -> bool {
        matches!(
            self,
            MetaError::NotAnObject
                | MetaError::Missing
                | MetaError::VersionNotAString
                | MetaError::VersionMissing
                | MetaError::UnsupportedVersion(_)
        )
    }
}

impl RequestMeta {
    /// Read `meta` (the request's `params._meta`, if any) against the revisions the server
    /// speaks. The first problem found is the error; the order is that of [`MetaError`].
    pub(crate) fn parse(
        meta: Option<Meta>,
        supported_versions: &[&'static str],
    ) -> Result<RequestMeta, MetaError> {
        let members = match meta.as_ref().map(|meta| &meta.0) {
            Some(Repr::Object(members)) => members,
            Some(Repr::Empty) => return Err(MetaError::VersionMissing),
            Some(Repr::Other(_)) => return Err(MetaError::NotAnObject),
            None => return Err(MetaError::Missing),
        };
        let protocol_version = match &members.protocol_version {
            Some(Value::String(v)) => supported_versions
                .iter()
                .copied()
                .find(|s| *s == v.as_str())
                .ok_or_else(|| MetaError::UnsupportedVersion(v.clone()))?,
            Some(_) => return Err(MetaError::VersionNotAString),
            None => return Err(MetaError::VersionMissing),
        };
        let client_capabilities = match &members.client_capabilities {
            Some(Value::Object(caps)) => caps.clone(),
            Some(_) => return Err(MetaError::CapabilitiesNotAnObject),
            None => return Err(MetaError::CapabilitiesMissing),
        };
        let client_info = match &members.client_info {
            None => None,
            Some(value) => match Implementation::deserialize(value) {
                Ok(info) => Some(Arc::new(info)),
                Err(e) => return Err(MetaError::ClientInfoMalformed(e.to_string())),
            },
        };
        let log_level = match &members.log_level {
            None => None,
            Some(value) => Some(
                value
                    .as_str()
                    .and_then(LogLevel::parse)
                    .ok_or(MetaError::UnknownLogLevel)?,
            ),
        };
        let progress_token = match &members.progress_token {
            None => None,
            Some(token @ (Value::String(_) | Value::Number(_))) => Some(token.clone()),
            Some(_) => return Err(MetaError::ProgressTokenMalformed),
        };
        Ok(RequestMeta {
            protocol_version,
            client_capabilities,
            client_info,
            log_level,
            progress_token,
            meta: meta.unwrap_or_default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const SUPPORTED: &[&str] = &["2026-07-28"];

    fn parse(meta: Value) -> Result<RequestMeta, MetaError> {
        RequestMeta::parse(Some(Meta::from_value(meta)), SUPPORTED)
    }

    #[test]
    fn the_member_read_from_text_is_the_member_as_sent() {
        for text in [
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"progressToken":3,"app/x":[1,{"y":null}]}"#,
            r#"{"io.modelcontextprotocol/logLevel":"info","progressToken":"t","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}"#,
            r#"{"app/x":1}"#,
            r#"{}"#,
            r#"[1,"two"]"#,
            r#""text""#,
            r#"-2.5"#,
            r#"null"#,
        ] {
            let value: Value = serde_json::from_str(text).unwrap();
            let read: Meta = serde_json::from_str(text).unwrap();
            assert_eq!(read, Meta::from_value(value.clone()), "{text}");
            assert_eq!(read.is_object(), value.is_object(), "{text}");
            let map = value.as_object().cloned().unwrap_or_default();
            assert_eq!(read.to_map(), map, "{text}");
            for key in map
                .keys()
                .map(String::as_str)
                .chain([PROTOCOL_VERSION, "absent"])
            {
                assert_eq!(read.get(key), value.get(key), "{text} {key}");
            }
            assert_eq!(
                read.protocol_version(),
                value.get(PROTOCOL_VERSION),
                "{text}"
            );
            assert_eq!(read.progress_token(), value.get(PROGRESS_TOKEN), "{text}");
            assert_eq!(read.log_level(), value.get(LOG_LEVEL), "{text}");
            assert_eq!(read.into_value(), value, "{text}");
        }
        assert_eq!(Meta::default().into_value(), json!({}));
    }

    #[test]
    fn fields_are_typed_and_the_first_problem_is_reported() {
        let ok = parse(json!({
            PROTOCOL_VERSION: "2026-07-28", CLIENT_CAPABILITIES: {"sampling": {}},
            LOG_LEVEL: "info", PROGRESS_TOKEN: 7,
            CLIENT_INFO: {"name": "c", "version": "1"}
        }))
        .unwrap();
        assert_eq!(ok.protocol_version, "2026-07-28");
        assert_eq!(ok.log_level, Some(LogLevel::Info));
        assert_eq!(ok.progress_token, Some(json!(7)));
        assert_eq!(ok.meta.to_map().len(), 5);
        assert_eq!(
            RequestMeta::parse(None, SUPPORTED).unwrap_err(),
            MetaError::Missing
        );
        assert_eq!(parse(json!(1)).unwrap_err(), MetaError::NotAnObject);
        assert_eq!(parse(json!({})).unwrap_err(), MetaError::VersionMissing);
        assert_eq!(
            parse(json!({PROTOCOL_VERSION: "2025-11-25", CLIENT_CAPABILITIES: 1})).unwrap_err(),
            MetaError::UnsupportedVersion("2025-11-25".into())
        );
        let bad_caps = parse(json!({PROTOCOL_VERSION: "2026-07-28", CLIENT_CAPABILITIES: 1}));
        assert!(!bad_caps.unwrap_err().is_before_method());
        assert_eq!(
            parse(
                json!({PROTOCOL_VERSION: "2026-07-28", CLIENT_CAPABILITIES: {}, LOG_LEVEL: "loud"})
            )
            .unwrap_err(),
            MetaError::UnknownLogLevel
        );
    }
}
