//! What handlers may return: a tool's return value in [`tool`]; what resource, prompt and
//! completer functions may return here.
//!
//! - A resource returns text (`String`, `&'static str`), bytes (`Vec<u8>`,
//!   `&'static [u8]`, `bytes::Bytes`; base64 `blob` on the wire), [`Json<T>`](struct@Json), one or more
//!   [`ResourceContents`], or `Option<T>` of those (`None` is "Resource not found").
//! - A prompt returns text (one user message), a [`Content`] block, a [`PromptMessage`],
//!   several of them, or a [`GetPromptResult`].
//! - A completer returns a list of strings or a [`Completion`].
//!
//! Each may be wrapped in `Result<T, E>`: an [`RpcError`] is sent as is, a
//! [`ToolError`] as its protocol error (or -32603 with its message), and
//! any other `E: Display` as -32603 with its message.

use std::fmt::Display;
use std::marker::PhantomData;

use serde::Serialize;

use crate::protocol::{
    Completion, Content, GetPromptResult, PromptMessage, ReadResourceResult, ResourceContents,
    RpcError,
};

use super::ToolError;
use tool::{Checked, Json, Tag};

pub mod tool;

/// Values a resource function can return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a resource",
    label = "not resource contents",
    note = "a type of your own is returned as JSON wrapped in Json<T> (it derives Serialize); else return text (String, &'static str), bytes (Vec<u8>, &'static [u8], Bytes), ResourceContents, Vec<ResourceContents>, Option<T> of those, or Result<T, E> of those"
)]
pub trait IntoContents {
    /// The contents of `uri`; `mime` is the resource's declared MIME type.
    fn into_contents(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<Vec<ResourceContents>, RpcError>;
}

/// Text types: `text` contents, `text/plain` unless the resource declares a MIME type.
macro_rules! text_contents {
    ($($ty:ty),*) => {$(
        #[diagnostic::do_not_recommend]
        impl IntoContents for $ty {
            fn into_contents(
                self,
                uri: &str,
                mime: Option<&str>,
            ) -> Result<Vec<ResourceContents>, RpcError> {
                Ok(vec![ResourceContents::text(uri, mime.unwrap_or("text/plain"), self)])
            }
        }
    )*};
}

/// Byte types: a base64 `blob`, `application/octet-stream` unless declared otherwise.
macro_rules! blob_contents {
    ($($ty:ty),*) => {$(
        #[diagnostic::do_not_recommend]
        impl IntoContents for $ty {
            fn into_contents(
                self,
                uri: &str,
                mime: Option<&str>,
            ) -> Result<Vec<ResourceContents>, RpcError> {
                Ok(vec![ResourceContents::blob(
                    uri,
                    mime.unwrap_or("application/octet-stream"),
                    self,
                )])
            }
        }
    )*};
}

text_contents!(String, &'static str);
blob_contents!(Vec<u8>, &'static [u8], bytes::Bytes);

// Not listed under a wrong return type's error: its note lists what may be returned.
#[diagnostic::do_not_recommend]
impl<T: Serialize> IntoContents for Json<T> {
    fn into_contents(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<Vec<ResourceContents>, RpcError> {
        let text = match self.text {
            Some(text) => text,
            None => serde_json::to_string(&self.value).map_err(|e| {
                RpcError::internal(format!("the resource could not be serialized: {e}"))
            })?,
        };
        Ok(vec![ResourceContents::text(
            uri,
            mime.unwrap_or("application/json"),
            text,
        )])
    }
}

// Not listed under a wrong return type's error: its note lists what may be returned.
#[diagnostic::do_not_recommend]
impl IntoContents for ResourceContents {
    fn into_contents(self, _: &str, _: Option<&str>) -> Result<Vec<ResourceContents>, RpcError> {
        Ok(vec![self])
    }
}

// Not listed under a wrong return type's error: its note lists what may be returned.
#[diagnostic::do_not_recommend]
impl IntoContents for Vec<ResourceContents> {
    fn into_contents(self, _: &str, _: Option<&str>) -> Result<Vec<ResourceContents>, RpcError> {
        Ok(self)
    }
}

// Not listed under a wrong return type's error: its note lists what may be returned.
#[diagnostic::do_not_recommend]
impl IntoContents for ReadResourceResult {
    fn into_contents(self, _: &str, _: Option<&str>) -> Result<Vec<ResourceContents>, RpcError> {
        Ok(self.contents)
    }
}

impl<T: IntoContents> IntoContents for Option<T> {
    fn into_contents(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<Vec<ResourceContents>, RpcError> {
        match self {
            Some(value) => value.into_contents(uri, mime),
            None => Err(RpcError::resource_not_found(uri)),
        }
    }
}

/// Values a prompt function can return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a prompt",
    label = "not prompt messages",
    note = "return text, a Content block, a PromptMessage, Vec<PromptMessage>, Vec<Content>, GetPromptResult, or Result<T, E> of those"
)]
pub trait IntoPromptResult {
    /// The `prompts/get` result.
    fn into_prompt_result(self) -> GetPromptResult;
}

// Not listed under a wrong return type's error: its note lists what may be returned.
#[diagnostic::do_not_recommend]
impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> GetPromptResult {
        self
    }
}

// Not listed under a wrong return type's error: its note lists what may be returned.
#[diagnostic::do_not_recommend]
impl IntoPromptResult for PromptMessage {
    fn into_prompt_result(self) -> GetPromptResult {
        GetPromptResult::new([self])
    }
}

// Not listed under a wrong return type's error: its note lists what may be returned.
#[diagnostic::do_not_recommend]
impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> GetPromptResult {
        GetPromptResult::new(self)
    }
}

// Not listed under a wrong return type's error: its note lists what may be returned.
#[diagnostic::do_not_recommend]
impl IntoPromptResult for Vec<Content> {
    fn into_prompt_result(self) -> GetPromptResult {
        GetPromptResult::new(self.into_iter().map(PromptMessage::user))
    }
}

/// One block or text: a single user message.
macro_rules! user_message {
    ($($ty:ty),*) => {$(
        #[diagnostic::do_not_recommend]
        impl IntoPromptResult for $ty {
            fn into_prompt_result(self) -> GetPromptResult {
                GetPromptResult::new([PromptMessage::user(self)])
            }
        }
    )*};
}

user_message!(Content, String, &'static str);

/// Values a completer function can return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a completer",
    label = "not a completion",
    note = "return Vec<String>, Vec<&'static str>, Completion, or Result<T, E> of those"
)]
pub trait IntoCompletion {
    /// The completion (the core cuts it to 100 values, setting `total`/`hasMore`).
    fn into_completion(self) -> Result<Completion, RpcError>;
}

// The 100-value bound is enforced once, by the core, whatever the completer returns.
impl IntoCompletion for Completion {
    fn into_completion(self) -> Result<Completion, RpcError> {
        Ok(self)
    }
}

impl<S: Into<String>> IntoCompletion for Vec<S> {
    fn into_completion(self) -> Result<Completion, RpcError> {
        Ok(Completion::new(self))
    }
}

impl<T: IntoCompletion, E: Display> IntoCompletion for Result<T, E> {
    fn into_completion(self) -> Result<Completion, RpcError> {
        match self {
            Ok(value) => value.into_completion(),
            Err(e) => Err(RpcError::internal(format!("{e:#}"))),
        }
    }
}

// ---- error resolution used by generated code -------------------------------------------

/// How an error value of a resource or prompt function becomes a JSON-RPC error. `D` is
/// what must still be `Display` ([`RpcErrorMessage`]).
#[doc(hidden)]
pub struct RpcFailure<E, D = Checked> {
    pub render: fn(E) -> RpcError,
    check: PhantomData<fn() -> D>,
}

impl<E, D> RpcFailure<E, D> {
    fn new(render: fn(E) -> RpcError) -> Self {
        RpcFailure {
            render,
            check: PhantomData,
        }
    }

    #[doc(hidden)]
    pub fn displayable(&self) -> Tag<D> {
        Tag::new()
    }
}

#[doc(hidden)]
pub trait RpcFailureExplicit {
    type E;
    fn __mcp_rpc_failure(&self) -> RpcFailure<Self::E>;
}

impl RpcFailureExplicit for &&Tag<RpcError> {
    type E = RpcError;
    fn __mcp_rpc_failure(&self) -> RpcFailure<RpcError> {
        RpcFailure::new(|e| e)
    }
}

impl RpcFailureExplicit for &&Tag<ToolError> {
    type E = ToolError;
    fn __mcp_rpc_failure(&self) -> RpcFailure<ToolError> {
        RpcFailure::new(ToolError::into_rpc_error)
    }
}

#[doc(hidden)]
pub trait RpcFailureDisplay {
    type E;
    fn __mcp_rpc_failure(&self) -> RpcFailure<Self::E>;
}

impl<E: Display> RpcFailureDisplay for &Tag<E> {
    type E = E;
    fn __mcp_rpc_failure(&self) -> RpcFailure<E> {
        RpcFailure::new(|e| RpcError::internal(format!("{e:#}")))
    }
}

/// Any other error type: resolves, so that the check left to the generated code
/// ([`RpcErrorMessage`]) is the one error. Code that resolves here does not compile, so
/// `render` never runs.
#[doc(hidden)]
pub trait RpcFailureUnsupported {
    type E;
    fn __mcp_rpc_failure(&self) -> RpcFailure<Self::E, Self::E>;
}

impl<E> RpcFailureUnsupported for Tag<E> {
    type E = E;
    fn __mcp_rpc_failure(&self) -> RpcFailure<E, E> {
        RpcFailure::new(|_| {
            RpcError::internal(format!(
                "failed with a `{}`, which has no message",
                std::any::type_name::<E>()
            ))
        })
    }
}

/// A resource's or prompt's error type has a message (checked where no step of the
/// resolution takes it).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "the error type `{Self}` must implement `Display`",
    label = "`{Self}` has no message",
    note = "its message becomes the -32603 error the client receives; or return `RpcError` to choose the error"
)]
pub trait RpcErrorMessage: Sized {
    fn check(_: &Tag<Self>) {}
}

#[diagnostic::do_not_recommend]
impl<E: Display> RpcErrorMessage for E {}

#[cfg(test)]
mod tests {
    use super::tool::{tag_of, SplitPlain as _, SplitResult as _};
    use super::*;
    use serde_json::json;

    macro_rules! read {
        ($e:expr) => {{
            let out = $e;
            let split = (&&tag_of(&out)).__mcp_split();
            match (split.split)(out) {
                Ok(v) => IntoContents::into_contents(v, "x://1", None),
                Err(e) => Err(((&&&tag_of(&e)).__mcp_rpc_failure().render)(e)),
            }
        }};
    }

    #[test]
    fn resource_returns_pick_their_contents() {
        let text = read!(String::from("hi")).unwrap();
        assert_eq!(
            text,
            vec![ResourceContents::text("x://1", "text/plain", "hi")]
        );
        let bytes = read!(vec![1u8, 2, 3]).unwrap();
        assert_eq!(
            serde_json::to_value(&bytes).unwrap(),
            json!([{"uri":"x://1","mimeType":"application/octet-stream","blob":"AQID"}])
        );
        let json = read!(Json(json!({"a": 1}))).unwrap();
        assert_eq!(json[0].mime_type(), Some("application/json"));
        let missing = read!(None::<String>).unwrap_err();
        assert_eq!(
            (missing.code, missing.data),
            (-32602, Some(json!({"uri": "x://1"})))
        );
        let failed = read!(Err::<String, _>("disk on fire")).unwrap_err();
        assert_eq!(
            (failed.code, failed.message.as_str()),
            (-32603, "disk on fire")
        );
        let explicit = read!(Err::<String, _>(RpcError::invalid_params("bad"))).unwrap_err();
        assert_eq!(explicit.code, -32602);
        let business = read!(Err::<String, _>(ToolError::new("no such shelf"))).unwrap_err();
        assert_eq!(
            (business.code, business.message.as_str()),
            (-32603, "no such shelf")
        );
        let protocol = read!(Err::<String, _>(ToolError::protocol(
            RpcError::invalid_params("x")
        )))
        .unwrap_err();
        assert_eq!(protocol.code, -32602);
    }

    #[test]
    // The references are the generated code's: the resolution depends on them.
    #[allow(clippy::needless_borrow)]
    fn an_error_type_without_a_message_is_left_to_check() {
        // The `let _: Tag<..>` lines are the compiler's assertions: which type each
        // resolution leaves to the generated code's `RpcErrorMessage` check.
        struct Silent;
        let explicit = (&&&Tag::<RpcError>::new()).__mcp_rpc_failure();
        let _: Tag<Checked> = explicit.displayable();
        assert_eq!(
            (explicit.render)(RpcError::invalid_params("x")).code,
            -32602
        );
        let display = (&&&Tag::<String>::new()).__mcp_rpc_failure();
        let _: Tag<Checked> = display.displayable();
        assert_eq!((display.render)("down".into()).code, -32603);
        let silent = (&&&Tag::<Silent>::new()).__mcp_rpc_failure();
        let _: Tag<Silent> = silent.displayable();
    }

    #[test]
    fn prompt_and_completion_returns() {
        let r = "hello".into_prompt_result();
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"messages":[{"role":"user","content":{"type":"text","text":"hello"}}]})
        );
        let c = vec!["a", "b"].into_completion().unwrap();
        assert_eq!(c.values, vec!["a", "b"]);
        let e = Err::<Vec<String>, _>("down").into_completion().unwrap_err();
        assert_eq!(e.code, -32603);
    }
}
