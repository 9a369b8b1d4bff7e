//! Content blocks shared by tool results and prompt messages (text, image, audio, resource
//! links, embedded resources) and the contents of a resource read.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Who a piece of content is meant for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The human using the host.
    User,
    /// The model.
    Assistant,
}

/// Display hints on content blocks and resources.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// Intended audience.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// Importance from 0.0 to 1.0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// ISO 8601 timestamp of the last change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

/// The body of an embedded resource: text or base64 blob.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ResourceContents {
    /// Text contents.
    Text {
        /// The resource URI.
        uri: String,
        /// MIME type.
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The text.
        text: String,
    },
    /// Binary contents, base64 encoded on the wire.
    Blob {
        /// The resource URI.
        uri: String,
        /// MIME type.
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// Base64 of the bytes.
        blob: String,
    },
}

impl ResourceContents {
    /// Text contents of `uri`.
    pub fn text(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        ResourceContents::Text {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            text: text.into(),
        }
    }

    /// Binary contents of `uri`, base64-encoded here.
    pub fn blob(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        bytes: impl AsRef<[u8]>,
    ) -> Self {
        ResourceContents::Blob {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            blob: b64(bytes.as_ref()),
        }
    }

    /// The URI these contents belong to.
    pub fn uri(&self) -> &str {
        match self {
            ResourceContents::Text { uri, .. } | ResourceContents::Blob { uri, .. } => uri,
        }
    }

    /// The MIME type, when set.
    pub fn mime_type(&self) -> Option<&str> {
        match self {
            ResourceContents::Text { mime_type, .. } | ResourceContents::Blob { mime_type, .. } => {
                mime_type.as_deref()
            }
        }
    }
}

/// A `resource` content block: a resource's contents inline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedResource {
    /// The contents.
    pub resource: ResourceContents,
    /// Hints, on the outer block as the schema places them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
}

/// A `resource_link` content block: a pointer the client may read later. It carries the
/// same fields as a `resources/list` entry.
pub type ResourceLink = super::Resource;

/// One content block.
///
/// What the schema leaves a plain string is checked when a handler returns a block, in a
/// tool result or a prompt message, before anything is sent: every `uri` is an absolute
/// URI, a `mimeType` is a MIME type (an image's `image/…`, an audio's `audio/…`), `data`
/// and `blob` are base64, and `_meta` keys follow the protocol's grammar outside the
/// prefixes it reserves. A block that breaks one fails that call with -32603 naming the
/// handler and the block, and is logged. The builders here encode bytes themselves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Content {
    /// Plain text.
    Text {
        /// The text.
        text: String,
        /// Hints.
        #[serde(skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
        /// Extension data.
        #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<Map<String, Value>>,
    },
    /// An image, base64 encoded.
    Image {
        /// Base64 of the image bytes.
        data: String,
        /// MIME type, e.g. `image/png`.
        #[serde(rename = "mimeType")]
        mime_type: String,
        /// Hints.
        #[serde(skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
    },
    /// Audio, base64 encoded.
    Audio {
        /// Base64 of the audio bytes.
        data: String,
        /// MIME type, e.g. `audio/wav`.
        #[serde(rename = "mimeType")]
        mime_type: String,
        /// Hints.
        #[serde(skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
    },
    /// A link to a resource.
    ResourceLink(ResourceLink),
    /// A resource's contents inline.
    Resource(EmbeddedResource),
}

impl Content {
    /// The block as its `Serialize` writes it, a text block's strings moved rather than
    /// copied (every tool result has one; other blocks go through `Serialize`).
    #[cfg_attr(not(any(feature = "legacy", feature = "testing")), allow(dead_code))]
    pub(crate) fn into_value(self) -> Result<Value, serde_json::Error> {
        match self {
            Content::Text {
                text,
                annotations: None,
                meta,
            } => {
                let mut block = Map::new();
                block.insert("type".to_owned(), Value::String("text".to_owned()));
                block.insert("text".to_owned(), Value::String(text));
                if let Some(meta) = meta {
                    block.insert("_meta".to_owned(), Value::Object(meta));
                }
                Ok(Value::Object(block))
            }
            other => serde_json::to_value(other),
        }
    }

    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text {
            text: text.into(),
            annotations: None,
            meta: None,
        }
    }

    /// An image block from raw bytes (base64-encoded here).
    pub fn image(bytes: impl AsRef<[u8]>, mime_type: impl Into<String>) -> Self {
        Content::Image {
            data: b64(bytes.as_ref()),
            mime_type: mime_type.into(),
            annotations: None,
        }
    }

    /// An audio block from raw bytes (base64-encoded here).
    pub fn audio(bytes: impl AsRef<[u8]>, mime_type: impl Into<String>) -> Self {
        Content::Audio {
            data: b64(bytes.as_ref()),
            mime_type: mime_type.into(),
            annotations: None,
        }
    }

    /// An embedded text resource.
    pub fn embedded_text(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        Content::embedded(ResourceContents::text(uri, mime_type, text))
    }

    /// An embedded binary resource (base64-encoded here).
    pub fn embedded_blob(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        bytes: impl AsRef<[u8]>,
    ) -> Self {
        Content::embedded(ResourceContents::blob(uri, mime_type, bytes))
    }

    /// `resource` embedded, without annotations.
    fn embedded(resource: ResourceContents) -> Self {
        Content::Resource(EmbeddedResource {
            resource,
            annotations: None,
        })
    }

    /// A resource link with a URI and a name.
    pub fn link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Content::ResourceLink(ResourceLink {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
            meta: None,
        })
    }

    /// Attach annotations to any block.
    pub fn with_annotations(mut self, value: Annotations) -> Self {
        match &mut self {
            Content::Text { annotations, .. }
            | Content::Image { annotations, .. }
            | Content::Audio { annotations, .. } => *annotations = Some(value),
            Content::ResourceLink(link) => link.annotations = Some(value),
            Content::Resource(res) => res.annotations = Some(value),
        }
        self
    }
}

impl From<String> for Content {
    fn from(text: String) -> Self {
        Content::text(text)
    }
}

impl From<&str> for Content {
    fn from(text: &str) -> Self {
        Content::text(text)
    }
}

impl From<ResourceContents> for Content {
    fn from(resource: ResourceContents) -> Self {
        Content::Resource(EmbeddedResource {
            resource,
            annotations: None,
        })
    }
}

impl From<ResourceLink> for Content {
    fn from(link: ResourceLink) -> Self {
        Content::ResourceLink(link)
    }
}

fn b64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_have_the_schema_shapes() {
        assert_eq!(
            serde_json::to_value(Content::text("hi")).unwrap(),
            json!({"type":"text","text":"hi"})
        );
        assert_eq!(
            serde_json::to_value(Content::image([1u8, 2, 3], "image/png")).unwrap(),
            json!({"type":"image","data":"AQID","mimeType":"image/png"})
        );
        // S-228: an embedded resource carries its URI, MIME type and text.
        assert_eq!(
            serde_json::to_value(Content::embedded_text("test://x", "text/plain", "t")).unwrap(),
            json!({"type":"resource","resource":{"uri":"test://x","mimeType":"text/plain","text":"t"}})
        );
        assert_eq!(
            serde_json::to_value(Content::link("orders://1", "order 1")).unwrap(),
            json!({"type":"resource_link","uri":"orders://1","name":"order 1"})
        );
    }
}
