//! The connection to one server, over whichever transport it was reached by: the one
//! place that knows both, so each transport depends only on what they share (`wire`).

use std::sync::Arc;

use serde_json::Value;

use super::error::ClientError;
use super::wire::{Call, Listening};
use super::{http, stdio};

/// The connection to one server.
pub(crate) enum Wire {
    Stdio(Box<stdio::Pipe>),
    Http(Arc<http::Endpoint>),
}

impl Wire {
    /// Send `call` and wait for its response message (`Value::Null` for a notification).
    pub(crate) async fn send(&self, call: Call<'_>) -> Result<Value, ClientError> {
        match self {
            Wire::Stdio(pipe) => pipe.send(call).await,
            Wire::Http(endpoint) => http::Endpoint::send(endpoint, call).await,
        }
    }

    /// Open a `subscriptions/listen` request.
    pub(crate) async fn listen(&self, call: Call<'_>) -> Result<Listening, ClientError> {
        match self {
            Wire::Stdio(pipe) => pipe.listen(call).await,
            Wire::Http(endpoint) => http::Endpoint::listen(endpoint, call).await,
        }
    }

    /// The connection speaks 2026-07-28 from now on (the transports refuse what that
    /// revision does not have).
    pub(crate) fn speak_modern(&self) {
        if let Wire::Stdio(pipe) = self {
            pipe.speak_modern();
        }
    }

    pub(crate) fn transport(&self) -> &'static str {
        match self {
            Wire::Stdio(_) => "stdio",
            Wire::Http(_) => "http",
        }
    }

    pub(crate) async fn close(&self) {
        match self {
            Wire::Stdio(pipe) => pipe.close().await,
            Wire::Http(endpoint) => endpoint.close().await,
        }
    }
}
