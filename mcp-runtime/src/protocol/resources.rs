//! Resources: `Resource` and `ResourceTemplate` list entries and `resources/read` results.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Annotations, ResourceContents};

/// A `resources/list` entry: one concrete resource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// The resource's URI.
    pub uri: String,
    /// Programmatic name.
    pub name: String,
    /// Display title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type of its contents.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Size in bytes before base64 encoding, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Audience and priority hints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Extension data, such as a view's `ui` (how a host frames it).
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none", default)]
    pub meta: Option<Map<String, Value>>,
}

/// A `resources/templates/list` entry: a family of resources named by an RFC 6570 template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    /// The RFC 6570 URI template, e.g. `orders://{id}`.
    pub uri_template: String,
    /// Programmatic name.
    pub name: String,
    /// Display title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the family holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type shared by every match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Audience and priority hints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
}

/// The `contents` of a `resources/read` result.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ReadResourceResult {
    /// One or more contents (several for a directory-like resource).
    pub contents: Vec<ResourceContents>,
}
