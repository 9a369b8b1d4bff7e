//! The methods a server answers, told apart once per request, and the rule of the wire
//! that says which member of a request's params names its target.
//!
//! Every layer that needs to know what a request is about (the HTTP `Mcp-Name` check, the
//! catalog lookup, the trace span, the metrics label) asks [`Method`] rather than matching
//! method strings of its own.

use super::Params;

/// A method of MCP a server answers, in either era.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    /// `initialize` (the handshake era's opening).
    Initialize,
    /// `ping`.
    Ping,
    /// `server/discover`.
    Discover,
    /// `tools/list`.
    ToolsList,
    /// `tools/call`.
    ToolsCall,
    /// `resources/list`.
    ResourcesList,
    /// `resources/templates/list`.
    TemplatesList,
    /// `resources/read`.
    ResourcesRead,
    /// `resources/subscribe` (handshake era).
    ResourcesSubscribe,
    /// `resources/unsubscribe` (handshake era).
    ResourcesUnsubscribe,
    /// `prompts/list`.
    PromptsList,
    /// `prompts/get`.
    PromptsGet,
    /// `completion/complete`.
    Complete,
    /// `logging/setLevel` (handshake era).
    SetLevel,
    /// `subscriptions/listen`: a stream the transports open.
    Listen,
    /// `tasks/get`.
    TasksGet,
    /// `tasks/update`.
    TasksUpdate,
    /// `tasks/cancel`.
    TasksCancel,
}

/// What names a request's target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TargetKind {
    /// A tool, by `params.name`.
    Tool,
    /// A prompt, by `params.name`.
    Prompt,
    /// A resource, by `params.uri`.
    Resource,
    /// A task, by `params.taskId`.
    Task,
}

impl TargetKind {
    /// The member of `params` that names the target.
    pub(crate) fn param(self) -> &'static str {
        match self {
            TargetKind::Tool | TargetKind::Prompt => "name",
            TargetKind::Resource => "uri",
            TargetKind::Task => "taskId",
        }
    }
}

impl Method {
    /// The method a name on the wire stands for; `None` for a name no server answers.
    pub(crate) fn parse(method: &str) -> Option<Method> {
        Some(match method {
            "initialize" => Method::Initialize,
            "ping" => Method::Ping,
            "server/discover" => Method::Discover,
            "tools/list" => Method::ToolsList,
            "tools/call" => Method::ToolsCall,
            "resources/list" => Method::ResourcesList,
            "resources/templates/list" => Method::TemplatesList,
            "resources/read" => Method::ResourcesRead,
            "resources/subscribe" => Method::ResourcesSubscribe,
            "resources/unsubscribe" => Method::ResourcesUnsubscribe,
            "prompts/list" => Method::PromptsList,
            "prompts/get" => Method::PromptsGet,
            "completion/complete" => Method::Complete,
            "logging/setLevel" => Method::SetLevel,
            "subscriptions/listen" => Method::Listen,
            "tasks/get" => Method::TasksGet,
            "tasks/update" => Method::TasksUpdate,
            "tasks/cancel" => Method::TasksCancel,
            _ => return None,
        })
    }

    /// What names the method's target, for the methods that have one.
    pub(crate) fn target(self) -> Option<TargetKind> {
        match self {
            Method::ToolsCall => Some(TargetKind::Tool),
            Method::PromptsGet => Some(TargetKind::Prompt),
            Method::ResourcesRead | Method::ResourcesSubscribe | Method::ResourcesUnsubscribe => {
                Some(TargetKind::Resource)
            }
            Method::TasksGet | Method::TasksUpdate | Method::TasksCancel => Some(TargetKind::Task),
            _ => None,
        }
    }

    /// Whether the method exists only in the stateless 2026-07-28 revision.
    #[cfg_attr(not(feature = "legacy"), allow(dead_code))]
    pub(crate) fn stateless_only(self) -> bool {
        matches!(
            self,
            Method::Discover
                | Method::Listen
                | Method::TasksGet
                | Method::TasksUpdate
                | Method::TasksCancel
        )
    }
}

impl Params {
    /// The text of the member that names `method`'s target (a tool or prompt name, a
    /// resource URI, a task id); `None` when the method has no target or the member is
    /// absent or no string.
    pub(crate) fn target(&self, method: Option<Method>) -> Option<&str> {
        let kind = method?.target()?;
        self.get(kind.param()).and_then(serde_json::Value::as_str)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn each_method_names_its_target_by_one_member() {
        let params = Params::from_value(json!({"name": "add", "uri": "x://1", "taskId": "t"}))
            .unwrap_or_default();
        let of = |method: &str| params.target(Method::parse(method));
        assert_eq!(of("tools/call"), Some("add"));
        assert_eq!(of("prompts/get"), Some("add"));
        assert_eq!(of("resources/read"), Some("x://1"));
        assert_eq!(of("resources/subscribe"), Some("x://1"));
        assert_eq!(of("tasks/cancel"), Some("t"));
        assert_eq!(of("tools/list"), None);
        assert_eq!(of("no/such"), None);
        let numbered = Params::from_value(json!({"name": 7})).unwrap_or_default();
        assert_eq!(numbered.target(Method::parse("tools/call")), None);
    }
}
