//! Admission of a 2026-07-28 request: its `_meta`, parsed by the protocol's
//! [`RequestMeta`], then the method; each refusal becomes the JSON-RPC error and HTTP
//! status this revision gives it.

use crate::core::Core;
use crate::protocol::meta::{self, Meta, MetaError, RequestMeta};
use crate::protocol::RpcError;

/// Read and check the per-request `_meta`; `served` says whether the server answers
/// `method` (as resolved when the request arrived). Errors carry their HTTP status.
pub(crate) fn admit(
    core: &Core,
    (method, served): (&str, bool),
    meta: Option<Meta>,
) -> Result<RequestMeta, (RpcError, u16)> {
    let parsed = RequestMeta::parse(meta, core.supported_versions());
    // `_meta` and its version are checked before the method, the rest after it.
    if let Err(error) = &parsed {
        if error.is_before_method() {
            return Err(refusal(core, method, error));
        }
    }
    if !served {
        return Err((RpcError::method_not_found(method), 404));
    }
    parsed.map_err(|error| refusal(core, method, &error))
}

/// The error and HTTP status for a `_meta` that cannot be admitted.
fn refusal(core: &Core, method: &str, error: &MetaError) -> (RpcError, u16) {
    let invalid = |message: String| (RpcError::invalid_params(message), 400);
    match error {
        MetaError::NotAnObject => invalid("params._meta must be an object".into()),
        MetaError::Missing => (
            missing_meta(core, method, "params._meta is missing; every request carries io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities in it"),
            400,
        ),
        MetaError::VersionNotAString => invalid(format!(
            "_meta[\"{}\"] must be a string",
            meta::PROTOCOL_VERSION
        )),
        MetaError::VersionMissing => (
            missing_meta(
                core,
                method,
                &format!("_meta[\"{}\"] is missing", meta::PROTOCOL_VERSION),
            ),
            400,
        ),
        MetaError::UnsupportedVersion(version) => (
            RpcError::unsupported_version(core.supported_versions(), version),
            400,
        ),
        MetaError::CapabilitiesNotAnObject => invalid(format!(
            "_meta[\"{}\"] must be an object",
            meta::CLIENT_CAPABILITIES
        )),
        MetaError::CapabilitiesMissing => invalid(format!(
            "_meta[\"{}\"] is missing (send {{}} when the client declares none)",
            meta::CLIENT_CAPABILITIES
        )),
        MetaError::ClientInfoMalformed(e) => invalid(format!(
            "_meta[\"{}\"] is malformed: {e}",
            meta::CLIENT_INFO
        )),
        // The two below are answered with 200: the request is understood, one optional
        // field is not.
        MetaError::UnknownLogLevel => (
            RpcError::invalid_params(format!(
                "_meta[\"{}\"] must be one of debug, info, notice, warning, error, critical, alert, emergency",
                meta::LOG_LEVEL
            )),
            200,
        ),
        MetaError::ProgressTokenMalformed => (
            RpcError::invalid_params("_meta.progressToken must be a string or an integer"),
            200,
        ),
    }
}

fn missing_meta(core: &Core, method: &str, detail: &str) -> RpcError {
    if method == "initialize" {
        // A handshake-era client: say which revisions we speak, since it cannot fall forward.
        RpcError::invalid_params(format!(
            "This server does not use the initialize handshake; it speaks protocol version(s) {} with per-request _meta",
            core.supported_versions().join(", ")
        ))
        .with_data(serde_json::json!({ "supported": core.supported_versions() }))
    } else if cfg!(feature = "legacy") {
        RpcError::invalid_params(format!(
            "{detail} (a handshake-era client sends initialize first)"
        ))
    } else {
        RpcError::invalid_params(detail.to_owned())
    }
}
