//! Multi round-trip requests: what a server asks the client for inside an
//! `InputRequiredResult` (`elicitation/create`, `sampling/createMessage`, `roots/list`) and
//! the answers that come back in `inputResponses`. Also the log levels of
//! `notifications/message`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::content::{Content, Role};

/// The user's decision on an elicitation (`ElicitResult.action`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// The user submitted the form (or agreed to open the URL).
    Accept,
    /// The user said no.
    Decline,
    /// The user dismissed the request without choosing.
    Cancel,
}

/// A client's answer to `elicitation/create`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// What the user chose.
    pub action: ElicitAction,
    /// The submitted form values (accepted form mode only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
}

/// One message of a sampling conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Who speaks.
    pub role: Role,
    /// One content block, or an array of them.
    pub content: Value,
}

/// What the server asks the client's model to do (`sampling/createMessage` params).
///
/// ```
/// use mcp_runtime::SamplingRequest;
/// let request = SamplingRequest::new(100)
///     .system("Answer in one word.")
///     .user("What is the capital of France?");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SamplingRequest {
    /// The conversation so far.
    pub messages: Vec<SamplingMessage>,
    /// Upper bound on generated tokens (required by the protocol).
    pub max_tokens: u32,
    /// A system prompt the client may use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Sequences that end generation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Model preferences (`hints`, `costPriority`, ..), passed through as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<Value>,
    /// Provider-specific metadata, passed through as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// Tools the model may use; asking with tools needs the client's `sampling.tools`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Value>>,
    /// How the model should choose tools (`{"mode": "auto"}`, ..).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<Value>,
}

impl SamplingRequest {
    /// An empty conversation that may generate up to `max_tokens` tokens.
    pub fn new(max_tokens: u32) -> Self {
        SamplingRequest {
            messages: Vec::new(),
            max_tokens,
            system_prompt: None,
            temperature: None,
            stop_sequences: None,
            model_preferences: None,
            metadata: None,
            tools: None,
            tool_choice: None,
        }
    }

    /// Add a user message with this text.
    pub fn user(self, text: impl Into<String>) -> Self {
        self.message(Role::User, Content::text(text))
    }

    /// Add an assistant message with this text.
    pub fn assistant(self, text: impl Into<String>) -> Self {
        self.message(Role::Assistant, Content::text(text))
    }

    /// Add a message with one content block.
    pub fn message(mut self, role: Role, content: Content) -> Self {
        self.messages.push(SamplingMessage {
            role,
            content: serde_json::to_value(content).unwrap_or(Value::Null),
        });
        self
    }

    /// Set the system prompt.
    pub fn system(mut self, text: impl Into<String>) -> Self {
        self.system_prompt = Some(text.into());
        self
    }

    /// Set the temperature.
    pub fn temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }
}

/// The client's answer to `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SamplingResult {
    /// Normally `assistant`.
    pub role: Role,
    /// One content block, or an array of them.
    pub content: Value,
    /// The model that answered.
    pub model: String,
    /// Why generation stopped (`endTurn`, `maxTokens`, ..), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
}

impl SamplingResult {
    /// The text of the answer: its text block, or its text blocks joined with newlines.
    pub fn text(&self) -> String {
        let text_of = |block: &Value| {
            (block.get("type").and_then(Value::as_str) == Some("text"))
                .then(|| block.get("text").and_then(Value::as_str))
                .flatten()
                .map(str::to_owned)
        };
        match &self.content {
            Value::Array(blocks) => blocks
                .iter()
                .filter_map(text_of)
                .collect::<Vec<_>>()
                .join("\n"),
            block => text_of(block).unwrap_or_default(),
        }
    }
}

/// A root the client exposes (`roots/list` result entry).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Root {
    /// A `file://` URI.
    pub uri: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The client's answer to `roots/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListRootsResult {
    /// The roots.
    pub roots: Vec<Root>,
}

/// Severity of a `notifications/message` log entry, in ascending order (RFC 5424 levels).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// Detailed debugging information.
    Debug,
    /// General information.
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// Every level, ascending.
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }

    /// Parse a wire name.
    pub fn parse(name: &str) -> Option<LogLevel> {
        LogLevel::ALL.into_iter().find(|l| l.as_str() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampling_text_joins_text_blocks() {
        let single: SamplingResult = serde_json::from_value(serde_json::json!({
            "role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"
        }))
        .unwrap();
        assert_eq!(single.text(), "Paris");
        let many: SamplingResult = serde_json::from_value(serde_json::json!({
            "role": "assistant", "model": "m",
            "content": [{"type": "text", "text": "a"}, {"type": "image", "data": "", "mimeType": "image/png"}, {"type": "text", "text": "b"}]
        }))
        .unwrap();
        assert_eq!(many.text(), "a\nb");
    }

    #[test]
    fn log_levels_are_ordered_and_named() {
        assert!(LogLevel::Debug < LogLevel::Emergency);
        for level in LogLevel::ALL {
            assert_eq!(LogLevel::parse(level.as_str()), Some(level));
            assert_eq!(
                serde_json::to_value(level).unwrap(),
                serde_json::json!(level.as_str())
            );
        }
        assert_eq!(LogLevel::parse("verbose"), None);
    }
}
