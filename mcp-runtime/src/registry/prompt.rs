//! The static description of one `#[prompt]` function, and completers shared with
//! resources.

use futures_util::future::BoxFuture;
use serde_json::{Map, Value};

use crate::core::RequestContext;
use crate::protocol::{Completion, GetPromptResult, RpcError};

use super::ParamSpec;

/// The future a `prompts/get` runs as.
pub type PromptFuture = BoxFuture<'static, Result<GetPromptResult, RpcError>>;

/// The future a completer runs as.
pub type CompleteFuture = BoxFuture<'static, Result<Completion, RpcError>>;

/// Everything `#[prompt]` knows about a function at compile time.
#[derive(Debug)]
pub struct PromptDef {
    /// Wire name.
    pub name: &'static str,
    /// Display title.
    pub title: Option<&'static str>,
    /// What the prompt is for (from the doc comment or `description = ".."`).
    pub description: Option<&'static str>,
    /// `scopes(..)`: OAuth scopes a caller needs; the server checks them before any
    /// `Authorize` hook.
    pub scopes: &'static [&'static str],
    /// `tags(..)`: labels a server enables, disables and shows by.
    pub tags: &'static [&'static str],
    /// `module_path!()` where the function is defined.
    pub module_path: &'static str,
    /// Source file, for error messages about duplicates.
    pub file: &'static str,
    /// Source line.
    pub line: u32,
    /// Describes the parameters (prompt arguments, state needs) into a [`ParamSpec`].
    pub params: fn(&mut ParamSpec),
    /// Runs the function with the request's arguments (all strings, already checked).
    pub get: fn(RequestContext, Map<String, Value>) -> PromptFuture,
    /// Completers for arguments, from `complete(arg = function)`.
    pub completions: &'static [Completer],
}

/// A completer for one prompt argument or template variable.
#[derive(Debug, Clone, Copy)]
pub struct Completer {
    /// The argument (or variable) it completes.
    pub argument: &'static str,
    /// Runs the completer.
    pub complete: fn(crate::core::CompletionRequest) -> CompleteFuture,
}

registered!(
    PromptDef,
    PromptRegistration,
    PromptItem,
    PromptRef,
    "#[prompt]",
    "prompts"
);
