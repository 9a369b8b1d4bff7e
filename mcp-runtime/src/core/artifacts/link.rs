//! What a tool hands over: an [`Artifact`] to store, the [`ArtifactLink`] it gets back,
//! and the [`ArtifactError`] when it cannot be stored.

use std::fmt::Display;

use bytes::Bytes;
use futures_util::stream::{BoxStream, StreamExt};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};

use crate::core::returns::tool::IntoToolResult;
use crate::core::{Rejected, ToolError};
use crate::protocol::{CallToolResult, Content, ResourceLink, StructuredContent};

pub(super) enum Source {
    Bytes(Bytes),
    Stream(BoxStream<'static, Result<Bytes, String>>),
}

/// A large body a tool hands out by reference: stored by the server, read by the client
/// with `resources/read` when (and if) it needs it.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::{Artifact, ArtifactLink};
///
/// /// Exports an account's transactions as CSV.
/// #[tool(read_only)]
/// async fn export(account: String, ctx: RequestContext) -> Result<ArtifactLink, ToolError> {
///     let csv = format!("id,account,amount\n1,{account},100\n");
///     let link = ctx
///         .save_artifact(
///             Artifact::bytes(csv)
///                 .mime("text/csv")
///                 .name("transactions.csv")
///                 .summary("1 transaction"),
///         )
///         .await?;
///     Ok(link)
/// }
/// ```
pub struct Artifact {
    pub(super) source: Source,
    pub(super) mime: Option<String>,
    pub(super) name: Option<String>,
    pub(super) summary: Option<String>,
}

impl std::fmt::Debug for Artifact {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Artifact")
            .field("mime", &self.mime)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl Artifact {
    /// Text (MIME type `text/plain` unless set); read back as text.
    pub fn text(text: impl Into<String>) -> Self {
        Artifact {
            source: Source::Bytes(Bytes::from(text.into())),
            mime: Some("text/plain".into()),
            name: None,
            summary: None,
        }
    }

    /// Bytes (MIME type `application/octet-stream` unless set). Read back as text when
    /// the MIME type is textual (`text/*`, JSON, XML, YAML) and the bytes are UTF-8, else
    /// as base64 `blob` contents.
    pub fn bytes(bytes: impl Into<Bytes>) -> Self {
        Artifact {
            source: Source::Bytes(bytes.into()),
            mime: None,
            name: None,
            summary: None,
        }
    }

    /// Bytes as they are produced, so the whole body never has to be in memory at once
    /// (a stream of database rows, a file). An item that is an error stops the artifact,
    /// and the parts already written are deleted.
    pub fn stream<S, B, E>(stream: S) -> Self
    where
        S: futures_util::Stream<Item = Result<B, E>> + Send + 'static,
        B: Into<Bytes>,
        E: Display,
    {
        Artifact {
            source: Source::Stream(
                stream
                    .map(|item| item.map(Into::into).map_err(|e| e.to_string()))
                    .boxed(),
            ),
            mime: None,
            name: None,
            summary: None,
        }
    }

    /// The MIME type clients are told.
    pub fn mime(mut self, mime: impl Into<String>) -> Self {
        self.mime = Some(mime.into());
        self
    }

    /// The name shown for the link (such as a file name).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// One line the model reads instead of the body (such as "4,013 rows").
    pub fn summary(mut self, summary: impl Into<String>) -> Self {
        self.summary = Some(summary.into());
        self
    }
}

/// A stored artifact, as the tool result names it: `structuredContent` of a tool that
/// returns it, and the fields of its `resource_link` block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactLink {
    /// `artifact://<id>`: read it with `resources/read`.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// Its MIME type.
    pub mime_type: String,
    /// Its size in bytes.
    pub size: u64,
    /// SHA-256 of its bytes, lower-case hex.
    pub sha256: String,
    /// How many parts it is read in; more than one means `uri` itself is too large for
    /// one read and each `<uri>/part/<n>`, `n` from 0, is read instead.
    pub parts: u64,
    /// When it can no longer be read (RFC 3339).
    pub expires_at: String,
    /// What it holds, in a line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
}

impl ArtifactLink {
    /// The URI of part `n` (from 0).
    pub fn part_uri(&self, n: u64) -> String {
        format!("{}/part/{n}", self.uri)
    }

    /// What to tell the model about it, in a sentence or two.
    pub fn describe(&self) -> String {
        let mut text = match &self.summary {
            Some(summary) => format!("{summary}. "),
            None => String::new(),
        };
        text.push_str(&format!(
            "Stored as {} ({}, {}, SHA-256 {}) until {}; ",
            self.uri,
            self.mime_type,
            human_size(self.size),
            self.sha256,
            self.expires_at
        ));
        if self.parts > 1 {
            text.push_str(&format!(
                "read it with resources/read in {} parts, {} to {}.",
                self.parts,
                self.part_uri(0),
                self.part_uri(self.parts - 1)
            ));
        } else {
            text.push_str("read it with resources/read.");
        }
        text
    }

    /// The `resource_link` content block.
    pub fn content(&self) -> Content {
        Content::ResourceLink(ResourceLink {
            uri: self.uri.clone(),
            name: self.name.clone(),
            title: None,
            description: Some(self.describe()),
            mime_type: Some(self.mime_type.clone()),
            size: Some(self.size),
            annotations: None,
            meta: None,
        })
    }
}

impl IntoToolResult for ArtifactLink {
    fn output_schema(generator: &mut SchemaGenerator) -> Option<Schema> {
        Some(ArtifactLink::json_schema(generator))
    }

    fn into_tool_result(self) -> CallToolResult {
        match StructuredContent::new(&self) {
            Ok(value) => CallToolResult {
                content: vec![Content::text(self.describe()), self.content()],
                structured_content: Some(value),
                ..Default::default()
            },
            Err(e) => {
                CallToolResult::error(format!("The tool's result could not be serialized: {e}"))
            }
        }
    }
}

/// A size as people read it.
pub(crate) fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    let unit = UNITS.get(unit).copied().unwrap_or("TiB");
    if value < 10.0 {
        format!("{value:.1} {unit}")
    } else {
        format!("{value:.0} {unit}")
    }
}

/// Why an artifact was not stored: the request is not a tool call, the body is larger
/// than the server's `artifact_max_size`, its stream failed, or the store did. `?`
/// turns it into a [`ToolError`] or a [`Rejected`] (code `artifact_not_stored`): a tool
/// error result the model reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArtifactError {
    pub(super) message: String,
}

impl std::fmt::Display for ArtifactError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ArtifactError {}

impl From<ArtifactError> for ToolError {
    fn from(error: ArtifactError) -> Self {
        ToolError::new(error.message)
    }
}

impl<E> From<ArtifactError> for Rejected<E> {
    fn from(error: ArtifactError) -> Self {
        Rejected::new("artifact_not_stored", error.message)
    }
}
