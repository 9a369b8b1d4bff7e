//! The per-call authorization hook.
//!
//! `Authorize::check` runs before every `tools/call`, `resources/read`, `prompts/get` and
//! `completion/complete`, after the target is found and before arguments are validated or
//! any handler runs. A model choosing a tool is never consent:
//! the hook decides from the request context and the tool's definition.

use std::future::Future;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::{Map, Value};

use crate::core::RequestContext;
use crate::registry::{PromptDef, ResourceDef, ToolDef};

/// What a request wants to do.
#[derive(Debug)]
#[non_exhaustive]
pub enum Action<'a> {
    /// Call a tool with these arguments.
    CallTool {
        /// The tool's definition (name, annotations, module).
        tool: &'a ToolDef,
        /// The arguments as sent (not yet validated).
        arguments: &'a Map<String, Value>,
    },
    /// Read a resource.
    ReadResource {
        /// The resource's definition (its template, name, module).
        resource: &'a ResourceDef,
        /// The concrete URI requested.
        uri: &'a str,
    },
    /// Get a prompt with these arguments.
    GetPrompt {
        /// The prompt's definition.
        prompt: &'a PromptDef,
        /// The arguments as sent (not yet checked).
        arguments: &'a Map<String, Value>,
    },
    /// Ask for completions of an argument, which may reveal data (ids, names).
    Complete {
        /// The prompt or resource template whose argument is completed.
        target: CompleteTarget<'a>,
        /// The argument (or template variable) being completed.
        argument: &'a str,
    },
}

/// What a `completion/complete` request refers to.
#[derive(Debug, Clone, Copy)]
pub enum CompleteTarget<'a> {
    /// A prompt's argument.
    Prompt(&'a PromptDef),
    /// A resource template's variable.
    Resource(&'a ResourceDef),
}

impl Action<'_> {
    /// The name of the tool or prompt, or the URI of the resource, the action targets.
    pub fn name(&self) -> &str {
        match self {
            Action::CallTool { tool, .. } => tool.name,
            Action::ReadResource { uri, .. } => uri,
            Action::GetPrompt { prompt, .. } => prompt.name,
            Action::Complete {
                target: CompleteTarget::Prompt(prompt),
                ..
            } => prompt.name,
            Action::Complete {
                target: CompleteTarget::Resource(resource),
                ..
            } => resource.uri,
        }
    }
}

/// A refusal, with the reason the client is told.
#[derive(Debug, Clone, PartialEq)]
pub struct Denied {
    reason: String,
}

impl Denied {
    /// Refuse with this reason (sent to the client, so keep secrets out of it).
    pub fn new(reason: impl Into<String>) -> Self {
        Denied {
            reason: reason.into(),
        }
    }

    /// The reason.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl std::fmt::Display for Denied {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

/// Decides whether a request may perform an [`Action`].
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::policy::auth::{Action, Authorize, Denied};
///
/// /// Refuses tools marked destructive.
/// struct NoDestruction;
///
/// impl Authorize for NoDestruction {
///     async fn check(&self, _ctx: &RequestContext, action: &Action<'_>) -> Result<(), Denied> {
///         match action {
///             Action::CallTool { tool, .. } if tool.destructive == Some(true) => {
///                 Err(Denied::new(format!("{} is destructive and disabled here", tool.name)))
///             }
///             _ => Ok(()),
///         }
///     }
/// }
/// ```
pub trait Authorize: Send + Sync + 'static {
    /// `Ok(())` to allow, `Err(Denied)` to refuse.
    fn check(
        &self,
        ctx: &RequestContext,
        action: &Action<'_>,
    ) -> impl Future<Output = Result<(), Denied>> + Send;
}

/// The default: every action is allowed.
#[derive(Debug, Clone, Copy, Default)]
pub struct AllowAll;

impl Authorize for AllowAll {
    async fn check(&self, _: &RequestContext, _: &Action<'_>) -> Result<(), Denied> {
        Ok(())
    }
}

/// Object-safe form stored by the server.
pub(crate) trait DynAuthorize: Send + Sync {
    fn check<'a>(
        &'a self,
        ctx: &'a RequestContext,
        action: &'a Action<'a>,
    ) -> BoxFuture<'a, Result<(), Denied>>;
}

impl<A: Authorize> DynAuthorize for A {
    fn check<'a>(
        &'a self,
        ctx: &'a RequestContext,
        action: &'a Action<'a>,
    ) -> BoxFuture<'a, Result<(), Denied>> {
        Box::pin(Authorize::check(self, ctx, action))
    }
}

pub(crate) type SharedAuthorize = Arc<dyn DynAuthorize>;

/// Who is calling, as established by the transport.
///
/// On HTTP, an authentication layer in front of the MCP router (your own axum middleware,
/// or a token verifier) inserts a `Principal` into the request's extensions; handlers and
/// the [`Authorize`] hook read it with [`RequestContext::principal`]. Sealed state handed
/// to a client (`requestState`) is bound to the principal's subject, so another caller
/// cannot continue someone else's call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Principal {
    /// Stable identifier of the caller (a token's `sub`).
    pub subject: String,
}

impl Principal {
    /// A caller identified by `subject`.
    pub fn new(subject: impl Into<String>) -> Self {
        Principal {
            subject: subject.into(),
        }
    }
}
