//! The per-call authorization hook, the built-in scope check, and list filtering.
//!
//! `Authorize::check` runs before every `tools/call`, `resources/read`, `prompts/get` and
//! `completion/complete`, after the target is found and before arguments are validated or
//! any handler runs. A model choosing a tool is never consent:
//! the hook decides from the request context and the tool's definition.
//!
//! Policy sits below the core; its one arrow up is a type-only contract: the hook is
//! handed the core's `RequestContext` (checked by `tests/layers.rs`).

use std::future::Future;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::{json, Map, Value};

use crate::core::RequestContext;
use crate::protocol::{codes, RpcError};
use crate::registry::{PromptDef, ResourceDef, ToolDef};

pub use crate::registry::Listed;

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
    /// Read an artifact (`artifact://..`) a tool call made: large output stored for
    /// reading by reference. Its maker has already been checked (no one else can read
    /// it); the default check is the tool's own scopes, as if it were called again.
    ReadArtifact {
        /// The tool that made it.
        tool: &'a ToolDef,
        /// The URI requested (the artifact, or one of its parts).
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
        target: CompletionTarget<'a>,
        /// The argument (or template variable) being completed.
        argument: &'a str,
    },
}

/// What a `completion/complete` request refers to.
#[derive(Debug, Clone, Copy)]
pub enum CompletionTarget<'a> {
    /// A prompt's argument.
    Prompt(&'a PromptDef),
    /// A resource template's variable.
    Resource(&'a ResourceDef),
}

impl Action<'_> {
    /// The scopes the target declares (`scopes(..)` in its attribute).
    pub fn required_scopes(&self) -> &'static [&'static str] {
        match self {
            Action::CallTool { tool, .. } => tool.scopes,
            Action::ReadResource { resource, .. } => resource.scopes,
            Action::ReadArtifact { tool, .. } => tool.scopes,
            Action::GetPrompt { prompt, .. } => prompt.scopes,
            Action::Complete {
                target: CompletionTarget::Prompt(prompt),
                ..
            } => prompt.scopes,
            Action::Complete {
                target: CompletionTarget::Resource(resource),
                ..
            } => resource.scopes,
        }
    }

    /// The name of the tool or prompt, or the URI of the resource, the action targets.
    pub fn name(&self) -> &str {
        match self {
            Action::CallTool { tool, .. } => tool.name,
            Action::ReadResource { uri, .. } | Action::ReadArtifact { uri, .. } => uri,
            Action::GetPrompt { prompt, .. } => prompt.name,
            Action::Complete {
                target: CompletionTarget::Prompt(prompt),
                ..
            } => prompt.name,
            Action::Complete {
                target: CompletionTarget::Resource(resource),
                ..
            } => resource.uri,
        }
    }
}

/// A refusal, with the reason the client is told.
#[derive(Debug, Clone, PartialEq)]
pub struct Denied {
    reason: String,
    scopes: Vec<String>,
}

impl Denied {
    /// Refuse with this reason (sent to the client, so keep secrets out of it).
    pub fn new(reason: impl Into<String>) -> Self {
        Denied {
            reason: reason.into(),
            scopes: Vec::new(),
        }
    }

    /// Refuse because the caller lacks some of `needed`, every scope the action needs
    /// (a client asks for all of them at once, so name them all).
    ///
    /// The client gets the JSON-RPC error -31403 with `data.requiredScopes`, the same error
    /// a scope declared with `scopes(..)` gives. On Streamable HTTP one rule holds for every
    /// such refusal, whichever check made it (the declared scopes, checked before your
    /// hook, or this refusal from your [`Authorize`] hook) and whatever named the
    /// caller (a token verifier, or your own layer inserting a [`Principal`] into the
    /// request's extensions): the response is HTTP 403 with
    /// `WWW-Authenticate: Bearer error="insufficient_scope", scope="<needed>"` (plus
    /// `resource_metadata` when the server publishes protected-resource metadata, see
    /// `Server::oauth`). An anonymous caller holds no scopes and gets the same 403. Over
    /// stdio and in process it is the JSON-RPC error alone. The one exception is a
    /// 2025-03-26 batch: its responses share one HTTP status, 200.
    pub fn insufficient_scope<S: AsRef<str>>(needed: impl IntoIterator<Item = S>) -> Self {
        let scopes: Vec<String> = needed.into_iter().map(|s| s.as_ref().to_owned()).collect();
        Denied {
            reason: format!("it needs the scope(s) {}", scopes.join(" ")),
            scopes,
        }
    }

    /// The reason.
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// The scopes the action needs, when the refusal is for want of scopes.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// The scopes, taken out (empty unless the refusal is for want of scopes).
    pub(crate) fn into_scopes(self) -> Vec<String> {
        self.scopes
    }

    /// The JSON-RPC error of this refusal of `kind` (`tool`, `resource`, ...) `target`:
    /// -31403 with `data.name`, `data.reason` and, for want of scopes,
    /// `data.requiredScopes`.
    pub(crate) fn to_error(&self, kind: &str, target: &str) -> RpcError {
        let mut data = Map::new();
        data.insert("name".into(), json!(target));
        data.insert("reason".into(), json!(self.reason));
        if !self.scopes.is_empty() {
            data.insert("requiredScopes".into(), json!(self.scopes));
        }
        RpcError::new(
            codes::ACCESS_DENIED,
            format!("Access denied to {kind} {target}: {}", self.reason),
        )
        .with_data(Value::Object(data))
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

pub use super::principal::Principal;

/// The built-in authorizer: an action needs every scope its `#[tool(scopes(..))]`,
/// `#[resource(.., scopes(..))]` or `#[prompt(scopes(..))]` declares.
///
/// The server always runs it before your own [`Authorize`] hook, so a declared scope is
/// never forgotten; use it directly only to compose it into hooks of your own. A request
/// without a principal holds no scopes.
#[derive(Debug, Clone, Copy, Default)]
pub struct DeclaredScopes;

impl DeclaredScopes {
    /// The same check, synchronously.
    pub fn check_principal(principal: Option<&Principal>, needed: &[&str]) -> Result<(), Denied> {
        if needed.is_empty() {
            return Ok(());
        }
        let missing: Vec<&str> = match principal {
            Some(p) => p.missing_scopes(needed),
            None => needed.to_vec(),
        };
        if missing.is_empty() {
            Ok(())
        } else {
            Err(Denied::insufficient_scope(needed))
        }
    }
}

impl Authorize for DeclaredScopes {
    async fn check(&self, ctx: &RequestContext, action: &Action<'_>) -> Result<(), Denied> {
        DeclaredScopes::check_principal(ctx.principal(), action.required_scopes())
    }
}

/// Two hooks in a row: the first refusal wins. Made by [`AuthorizeExt::and`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Both<A, B>(pub A, pub B);

impl<A: Authorize, B: Authorize> Authorize for Both<A, B> {
    async fn check(&self, ctx: &RequestContext, action: &Action<'_>) -> Result<(), Denied> {
        self.0.check(ctx, action).await?;
        self.1.check(ctx, action).await
    }
}

/// Composition of [`Authorize`] hooks.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::policy::auth::{AuthorizeExt, DeclaredScopes};
///
/// struct SameTenant;
///
/// impl Authorize for SameTenant {
///     async fn check(&self, ctx: &RequestContext, action: &Action<'_>) -> Result<(), Denied> {
///         match (action, ctx.principal().and_then(|p| p.tenant())) {
///             (Action::ReadResource { uri, .. }, Some(tenant))
///                 if !uri.starts_with(&format!("orders://{tenant}/")) =>
///             {
///                 Err(Denied::new("that order belongs to another tenant"))
///             }
///             _ => Ok(()),
///         }
///     }
/// }
///
/// let hook = DeclaredScopes.and(SameTenant);
/// # let _ = hook;
/// ```
pub trait AuthorizeExt: Authorize + Sized {
    /// Run `self`, then `next` when `self` allowed the action.
    fn and<B: Authorize>(self, next: B) -> Both<Self, B> {
        Both(self, next)
    }
}

impl<A: Authorize> AuthorizeExt for A {}

/// Decides which items a caller sees and may name (see `Server::visible_if`).
pub(crate) type VisibleIf =
    Arc<dyn Fn(&RequestContext, &Listed<'_>) -> bool + Send + Sync + 'static>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_refusals_for_want_of_scopes_name_required_scopes() {
        let denied = Denied::insufficient_scope(["orders:write", "orders:read"]);
        let error = denied.to_error("tool", "place");
        assert_eq!(error.code, codes::ACCESS_DENIED);
        assert_eq!(
            error.message,
            "Access denied to tool place: it needs the scope(s) orders:write orders:read"
        );
        assert_eq!(
            error.data.as_ref().map(|d| d["requiredScopes"].clone()),
            Some(json!(["orders:write", "orders:read"]))
        );
        assert_eq!(denied.into_scopes(), ["orders:write", "orders:read"]);
        let tenant = Denied::new("another tenant's order");
        let error = tenant.to_error("resource", "orders://x/1");
        assert_eq!(
            error.data.as_ref().map(|d| d["reason"].clone()),
            Some(json!("another tenant's order"))
        );
        assert_eq!(
            error.data.as_ref().and_then(|d| d.get("requiredScopes")),
            None
        );
        assert!(tenant.into_scopes().is_empty());
    }
}
