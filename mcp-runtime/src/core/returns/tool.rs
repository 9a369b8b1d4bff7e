//! Turning a tool's return value into a `tools/call` result.
//!
//! What a tool returns decides what the client gets, at compile time:
//!
//! 1. `Result<T, E>`: `Ok` goes on to step 2; `Err` becomes an `isError: true` result with
//!    the error's message (`E: Display`), with structure for [`ToolError::with_detail`] and
//!    [`Rejected`], or a JSON-RPC error for [`ToolError::protocol`].
//! 2. A type implementing [`IntoToolResult`] (text, content blocks, [`Json`](struct@Json),
//!    [`CallToolResult`], `()`) converts itself.
//! 3. Otherwise a `Serialize + JsonSchema` value becomes `structuredContent` (with its JSON as
//!    a text block) and its schema the tool's `outputSchema`.
//! 4. Otherwise a `Serialize` value becomes text.
//!
//! The choice is made by method resolution on the concrete type in generated code (autoref
//! specialization), so aliases such as `anyhow::Result<T>` behave like what they name.

use std::convert::Infallible;
use std::fmt::Display;
use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;
use serde_json::Value;

use crate::protocol::{CallToolResult, Content, RpcError};
use crate::registry::ErrorDetail;

use crate::core::{Rejected, ToolError};

/// Values a tool can return that know their own result shape.
pub trait IntoToolResult {
    /// The output schema, when the value produces `structuredContent`.
    fn output_schema(_generator: &mut SchemaGenerator) -> Option<Schema> {
        None
    }

    /// The result.
    fn into_tool_result(self) -> CallToolResult;
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> CallToolResult {
        self
    }
}

impl IntoToolResult for Content {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(vec![self])
    }
}

impl IntoToolResult for Vec<Content> {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(self)
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(vec![Content::text(self)])
    }
}

impl IntoToolResult for &'static str {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(vec![Content::text(self)])
    }
}

impl IntoToolResult for () {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(Vec::new())
    }
}

/// Structured output: `structuredContent` plus its JSON as text, and `outputSchema` from `T`.
///
/// Plain `Serialize + JsonSchema` return values get the same treatment; `Json` makes it
/// explicit and lets you set the text block yourself with [`Json::with_text`].
#[derive(Debug, Clone)]
pub struct Json<T> {
    pub(crate) value: T,
    pub(crate) text: Option<String>,
}

#[allow(non_snake_case)]
/// Wrap a value as structured output.
pub fn Json<T>(value: T) -> Json<T> {
    Json { value, text: None }
}

impl<T> Json<T> {
    /// Use `text` as the text block instead of the value's JSON.
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        self.text = Some(text.into());
        self
    }
}

impl<T: Serialize + JsonSchema> IntoToolResult for Json<T> {
    fn output_schema(generator: &mut SchemaGenerator) -> Option<Schema> {
        Some(T::json_schema(generator))
    }

    fn into_tool_result(self) -> CallToolResult {
        let Some(text) = self.text else {
            return structured(&self.value);
        };
        // The text is given: the value's JSON text would only be thrown away.
        match serde_json::to_value(&self.value) {
            Ok(value) => CallToolResult {
                content: vec![Content::text(text)],
                structured_content: Some(value),
                ..Default::default()
            },
            Err(e) => {
                CallToolResult::error(format!("The tool's result could not be serialized: {e}"))
            }
        }
    }
}

fn structured<T: Serialize + ?Sized>(value: &T) -> CallToolResult {
    match serde_json::to_value(value) {
        Ok(v) => CallToolResult::structured(v),
        Err(e) => CallToolResult::error(format!("The tool's result could not be serialized: {e}")),
    }
}

fn text_of<T: Serialize + ?Sized>(value: &T) -> CallToolResult {
    match serde_json::to_value(value) {
        Ok(Value::String(s)) => CallToolResult::success(vec![Content::text(s)]),
        Ok(v) => CallToolResult::success(vec![Content::text(v.to_string())]),
        Err(e) => CallToolResult::error(format!("The tool's result could not be serialized: {e}")),
    }
}

// ---- resolution machinery used by generated code -------------------------------------

/// A type-level tag; generated code calls methods on `&&Tag<T>` / `&&&Tag<T>` and method
/// resolution picks the most specific impl.
#[doc(hidden)]
pub struct Tag<T>(PhantomData<fn() -> T>);

impl<T> Tag<T> {
    #[doc(hidden)]
    pub fn new() -> Self {
        Tag(PhantomData)
    }
}

impl<T> Default for Tag<T> {
    fn default() -> Self {
        Self::new()
    }
}

#[doc(hidden)]
pub fn tag_of<T>(_: &T) -> Tag<T> {
    Tag::new()
}

/// Step 1: how a return value splits into success and failure.
#[doc(hidden)]
pub struct Split<R, T, E> {
    pub split: fn(R) -> Result<T, E>,
}

impl<R, T, E> Split<R, T, E> {
    #[doc(hidden)]
    pub fn ok_tag(&self) -> Tag<T> {
        Tag::new()
    }

    #[doc(hidden)]
    pub fn err_tag(&self) -> Tag<E> {
        Tag::new()
    }
}

#[doc(hidden)]
pub trait SplitResult {
    type R;
    type T;
    type E;
    fn __mcp_split(&self) -> Split<Self::R, Self::T, Self::E>;
}

impl<T, E> SplitResult for &Tag<Result<T, E>> {
    type R = Result<T, E>;
    type T = T;
    type E = E;
    fn __mcp_split(&self) -> Split<Result<T, E>, T, E> {
        Split { split: |r| r }
    }
}

#[doc(hidden)]
pub trait SplitPlain {
    type R;
    fn __mcp_split(&self) -> Split<Self::R, Self::R, Infallible>;
}

impl<R> SplitPlain for Tag<R> {
    type R = R;
    fn __mcp_split(&self) -> Split<R, R, Infallible> {
        Split { split: Ok }
    }
}

/// Step 2: how a success value becomes a result, and its output schema.
#[doc(hidden)]
pub struct Output<T> {
    pub schema: fn(&mut SchemaGenerator) -> Option<Schema>,
    pub render: fn(T) -> CallToolResult,
}

#[doc(hidden)]
pub trait OutputExplicit {
    type T;
    fn __mcp_output(&self) -> Output<Self::T>;
}

impl<T: IntoToolResult> OutputExplicit for &&Tag<T> {
    type T = T;
    fn __mcp_output(&self) -> Output<T> {
        Output {
            schema: T::output_schema,
            render: T::into_tool_result,
        }
    }
}

#[doc(hidden)]
pub trait OutputStructured {
    type T;
    fn __mcp_output(&self) -> Output<Self::T>;
}

impl<T: Serialize + JsonSchema> OutputStructured for &Tag<T> {
    type T = T;
    fn __mcp_output(&self) -> Output<T> {
        Output {
            schema: |g| Some(T::json_schema(g)),
            render: |v| structured(&v),
        }
    }
}

#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{T}` cannot be returned from a tool",
    note = "return text, content blocks, `Json<T>`, a `Serialize` value, or `Result<T, E>` of those"
)]
pub trait OutputText<T> {
    fn __mcp_output(&self) -> Output<T>;
}

impl<T: Serialize> OutputText<T> for Tag<T> {
    fn __mcp_output(&self) -> Output<T> {
        Output {
            schema: |_| None,
            render: |v| text_of(&v),
        }
    }
}

/// Step 3: how an error value becomes a result or a JSON-RPC error, and the structure it
/// carries.
#[doc(hidden)]
pub struct Failure<E> {
    pub render: fn(E) -> Result<CallToolResult, RpcError>,
    pub detail: fn(&mut SchemaGenerator) -> ErrorDetail,
}

#[doc(hidden)]
pub trait FailureExplicit {
    type E;
    fn __mcp_failure(&self) -> Failure<Self::E>;
}

impl FailureExplicit for &Tag<ToolError> {
    type E = ToolError;
    fn __mcp_failure(&self) -> Failure<ToolError> {
        Failure {
            render: ToolError::into_outcome,
            detail: |_| ErrorDetail::Any,
        }
    }
}

impl<E: Serialize + JsonSchema> FailureExplicit for &Tag<Rejected<E>> {
    type E = Rejected<E>;
    fn __mcp_failure(&self) -> Failure<Rejected<E>> {
        Failure {
            render: Rejected::into_outcome,
            detail: |generator| ErrorDetail::Typed(generator.subschema_for::<E>()),
        }
    }
}

impl FailureExplicit for &Tag<RpcError> {
    type E = RpcError;
    fn __mcp_failure(&self) -> Failure<RpcError> {
        Failure {
            render: Err,
            detail: |_| ErrorDetail::None,
        }
    }
}

#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "the error type `{E}` of a tool must implement `Display`",
    note = "its message becomes the `isError: true` result the model reads"
)]
pub trait FailureDisplay<E> {
    fn __mcp_failure(&self) -> Failure<E>;
}

impl<E: Display> FailureDisplay<E> for Tag<E> {
    fn __mcp_failure(&self) -> Failure<E> {
        // `{:#}` prints the whole chain for error types that support it (anyhow, eyre).
        Failure {
            render: |e| Ok(CallToolResult::error(format!("{e:#}"))),
            detail: |_| ErrorDetail::None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Serialize, JsonSchema)]
    struct Sum {
        sum: i64,
    }

    macro_rules! render {
        ($e:expr) => {{
            let out = $e;
            let split = (&&tag_of(&out)).__mcp_split();
            match (split.split)(out) {
                Ok(v) => Ok(((&&&tag_of(&v)).__mcp_output().render)(v)),
                Err(e) => ((&&tag_of(&e)).__mcp_failure().render)(e),
            }
        }};
    }

    #[test]
    fn return_types_pick_their_shape() {
        let r = render!(String::from("hi")).unwrap();
        assert_eq!(r.content, vec![Content::text("hi")]);
        assert!(r.structured_content.is_none());

        let r = render!(Sum { sum: 5 }).unwrap();
        assert_eq!(r.structured_content, Some(json!({"sum": 5})));
        assert_eq!(r.content, vec![Content::text("{\"sum\":5}")]);

        let r = render!(Ok::<_, String>(Sum { sum: 2 })).unwrap();
        assert_eq!(r.structured_content, Some(json!({"sum": 2})));

        let r = render!(Err::<Sum, _>("no such order")).unwrap();
        assert!(r.is_error);
        assert_eq!(r.content, vec![Content::text("no such order")]);

        let r = render!(Err::<Sum, _>(ToolError::protocol(
            RpcError::invalid_params("x")
        )));
        assert_eq!(r.unwrap_err().code, -32602);

        let r = render!(Json(Sum { sum: 5 }).with_text("5")).unwrap();
        assert_eq!(r.content, vec![Content::text("5")]);
        assert_eq!(r.structured_content, Some(json!({"sum": 5})));

        type Alias = Result<String, std::io::Error>;
        let a: Alias = Ok("aliased".into());
        assert_eq!(render!(a).unwrap().content, vec![Content::text("aliased")]);
    }
}
