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
