//! Artifacts: large tool output kept in the server's store and handed to the model as a
//! `resource_link` (`artifact://<id>`) with its size, MIME type and SHA-256, instead of
//! inline.
//!
//! An artifact is written in parts of at most the configured part size (one record each,
//! the header last, so a visible header means a complete artifact) and expires with them.
//! `resources/read` of its URI, or of `artifact://<id>/part/<n>` for one part, checks the
//! caller again: the principal and tenant that made it, the authorization of the tool
//! that made it, and the expiry. Anyone else is told the resource does not exist.
//! Artifacts are never listed.

mod link;
mod spill;

use std::time::Duration;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use bytes::{Bytes, BytesMut};
use futures_util::stream::StreamExt;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::clock::{millis, now_ms};
use crate::policy::seal::random_token;
use crate::protocol::{ResourceContents, RpcError};
use crate::registry::spec::ARTIFACT_SCHEME as SCHEME;
use crate::store::{Records, StoreError};

use super::RequestContext;

pub(crate) use link::human_size;
use link::Source;
pub use link::{Artifact, ArtifactError, ArtifactLink};
pub(crate) use spill::spill_over;

/// How artifacts are kept and served (see the `Server` builder).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ArtifactConfig {
    /// How long an artifact can be read after it was made.
    pub(crate) ttl: Duration,
    /// The largest artifact stored, in bytes.
    pub(crate) max_bytes: u64,
    /// The most one `resources/read` serves, in bytes (before base64).
    pub(crate) part_bytes: usize,
    /// Tool results larger than this (serialized) become artifacts; `None`: never.
    pub(crate) inline_limit: Option<usize>,
}

impl Default for ArtifactConfig {
    fn default() -> Self {
        ArtifactConfig {
            ttl: Duration::from_secs(3600),
            max_bytes: 256 * 1024 * 1024,
            part_bytes: 1024 * 1024,
            inline_limit: Some(64 * 1024),
        }
    }
}

/// Who made an artifact: only they read it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Owner {
    subject: Option<String>,
    tenant: Option<String>,
}

impl Owner {
    fn of(ctx: &RequestContext) -> Owner {
        let principal = ctx.principal();
        Owner {
            subject: principal.map(|p| p.subject.clone()),
            tenant: principal.and_then(|p| p.tenant()).map(str::to_owned),
        }
    }
}

/// An artifact's header record.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Header {
    owner: Owner,
    /// The tool that made it: reading it needs what calling the tool needs.
    pub(crate) tool: String,
    link: ArtifactLink,
    /// Served as text (every part is UTF-8 and the MIME type is textual).
    text: bool,
}

impl Header {
    /// How long it can still be read.
    pub(crate) fn remaining(&self) -> Duration {
        humantime::parse_rfc3339(&self.link.expires_at)
            .ok()
            .and_then(|at| at.duration_since(std::time::SystemTime::now()).ok())
            .unwrap_or_default()
    }
}

/// One part, as stored: text as it is, bytes as base64 (served as such).
#[derive(Serialize, Deserialize)]
enum Part {
    #[serde(rename = "t")]
    Text(String),
    #[serde(rename = "b")]
    Blob(String),
}

/// What `resources/read` of an artifact URI asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    pub(crate) id: String,
    /// A part, or the whole artifact.
    pub(crate) part: Option<u64>,
}

impl Target {
    /// The artifact a URI names, when it is an artifact URI of the shape this server makes.
    pub(crate) fn parse(uri: &str) -> Option<Target> {
        let rest = uri.strip_prefix(SCHEME)?;
        let (id, part) = match rest.split_once("/part/") {
            Some((id, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
                (id, Some(n.parse().ok()?))
            }
            Some(_) => return None,
            None => (rest, None),
        };
        let valid = (16..=64).contains(&id.len())
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        valid.then(|| Target {
            id: id.to_owned(),
            part,
        })
    }
}

fn header_key(id: &str) -> String {
    format!("art:{id}")
}

fn part_key(id: &str, n: u64) -> String {
    format!("art:{id}:{n}")
}

/// Whether a MIME type names text.
fn textual(mime: &str) -> bool {
    let mime = mime
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    mime.starts_with("text/")
        || matches!(
            mime.as_str(),
            "application/json"
                | "application/xml"
                | "application/yaml"
                | "application/x-ndjson"
                | "application/javascript"
        )
        || mime.ends_with("+json")
        || mime.ends_with("+xml")
}

/// The server's artifacts. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Artifacts {
    records: Records,
    pub(crate) config: ArtifactConfig,
}

/// Cuts a body into parts of at most `limit` bytes; while the body may be text, at UTF-8
/// character boundaries.
struct Parts {
    limit: usize,
    text: bool,
    pending: BytesMut,
}

impl Parts {
    /// The next whole part, when `pending` holds one.
    fn next(&mut self, last: bool) -> Option<Part> {
        if self.pending.is_empty() || (!last && self.pending.len() < self.limit) {
            return None;
        }
        let mut cut = self.pending.len().min(self.limit);
        if self.text && cut < self.pending.len() {
            // Back up to the start of a character (at most 3 continuation bytes).
            let mut back = cut;
            while back > cut.saturating_sub(3)
                && self
                    .pending
                    .get(back)
                    .is_some_and(|b| (b & 0b1100_0000) == 0b1000_0000)
            {
                back -= 1;
            }
            if back > 0 {
                cut = back;
            }
        }
        // Encoded straight from the buffer: a part is never copied before it is written.
        let bytes = self.pending.split_to(cut);
        if self.text {
            match std::str::from_utf8(&bytes) {
                Ok(text) => return Some(Part::Text(text.to_owned())),
                Err(_) => self.text = false,
            }
        }
        Some(Part::Blob(STANDARD.encode(&bytes)))
    }
}

impl Artifacts {
    pub(crate) fn new(records: Records, config: ArtifactConfig) -> Artifacts {
        Artifacts { records, config }
    }

    /// Store `artifact` for the caller of `ctx`, made by `tool`.
    pub(crate) async fn save(
        &self,
        ctx: &RequestContext,
        tool: &str,
        artifact: Artifact,
    ) -> Result<ArtifactLink, String> {
        let id = random_token(18)?;
        let expires_at_ms = now_ms().saturating_add(millis(self.config.ttl));
        let mime = artifact
            .mime
            .unwrap_or_else(|| "application/octet-stream".to_owned());
        let mut parts = Parts {
            limit: self.config.part_bytes.max(4),
            text: textual(&mime),
            pending: BytesMut::new(),
        };
        let mut hash = Sha256::new();
        let mut size: u64 = 0;
        let mut written: u64 = 0;
        let outcome: Result<(), String> = async {
            let mut source = match artifact.source {
                // Fed in part-sized slices of the one buffer, never copied whole.
                Source::Bytes(bytes) => {
                    let step = parts.limit;
                    let slices: Vec<Result<Bytes, String>> = (0..bytes.len())
                        .step_by(step)
                        .map(|at| Ok(bytes.slice(at..(at + step).min(bytes.len()))))
                        .collect();
                    futures_util::stream::iter(slices).boxed()
                }
                Source::Stream(stream) => stream,
            };
            let mut done = false;
            while !done {
                match source.next().await {
                    Some(Ok(chunk)) => {
                        size = size.saturating_add(chunk.len() as u64);
                        if size > self.config.max_bytes {
                            return Err(format!(
                                "the artifact is larger than this server stores ({})",
                                human_size(self.config.max_bytes)
                            ));
                        }
                        hash.update(&chunk);
                        parts.pending.extend_from_slice(&chunk);
                    }
                    Some(Err(e)) => return Err(format!("the artifact's body failed: {e}")),
                    None => done = true,
                }
                while let Some(part) = parts.next(done) {
                    self.put(&part_key(&id, written), &part, expires_at_ms)
                        .await?;
                    written += 1;
                }
            }
            if written == 0 {
                let empty = if parts.text {
                    Part::Text(String::new())
                } else {
                    Part::Blob(String::new())
                };
                self.put(&part_key(&id, 0), &empty, expires_at_ms).await?;
                written = 1;
            }
            Ok(())
        }
        .await;
        if let Err(problem) = outcome {
            self.forget(&id, written).await;
            return Err(problem);
        }
        let link = ArtifactLink {
            uri: format!("{SCHEME}{id}"),
            name: artifact.name.unwrap_or_else(|| format!("{tool} result")),
            mime_type: mime,
            size,
            sha256: hex(&hash.finalize()),
            parts: written,
            expires_at: crate::clock::iso8601(expires_at_ms),
            summary: artifact.summary,
        };
        let header = Header {
            owner: Owner::of(ctx),
            tool: tool.to_owned(),
            link: link.clone(),
            text: parts.text,
        };
        match self
            .records
            .insert(&header_key(&id), &header, expires_at_ms)
            .await
        {
            Ok(true) => Ok(link),
            Ok(false) => {
                self.forget(&id, written).await;
                Err("an artifact id was drawn twice".to_owned())
            }
            Err(e) => {
                self.forget(&id, written).await;
                Err(e.to_string())
            }
        }
    }

    async fn put(&self, key: &str, part: &Part, expires_at_ms: u64) -> Result<(), String> {
        match self.records.insert(key, part, expires_at_ms).await {
            Ok(true) => Ok(()),
            Ok(false) => Err("an artifact id was drawn twice".to_owned()),
            Err(e) => Err(e.to_string()),
        }
    }

    /// Delete the first `parts` parts of an artifact that was not finished.
    async fn forget(&self, id: &str, parts: u64) {
        for n in 0..parts {
            if let Err(e) = self.records.remove(&part_key(id, n), 1).await {
                tracing::warn!("could not delete a part of an unfinished artifact: {e}");
                return;
            }
        }
    }

    /// Why an artifact link may name nothing here, for people: where this server keeps
    /// its artifacts is this process's memory, for want of a store named.
    pub(crate) fn not_here(&self, uri: &str) -> RpcError {
        if !self.records.is_in_process() {
            return RpcError::resource_not_found(uri);
        }
        RpcError::new(
            crate::protocol::codes::INVALID_PARAMS,
            format!(
                "Resource not found: no artifact of yours has this URI here. It may have \
                 expired, or been made by another server process: this one keeps its \
                 artifacts in memory, as {} is not set, so they do not outlive it; set {} \
                 to share them between processes",
                crate::store::STORE_ENV,
                crate::store::STORE_ENV
            ),
        )
        .with_data(serde_json::json!({ "uri": uri }))
    }

    /// The header of the artifact `target` names, when the caller of `ctx` may see it.
    pub(crate) async fn header(
        &self,
        ctx: &RequestContext,
        target: &Target,
    ) -> Result<Option<Header>, StoreError> {
        let Some(loaded) = self.records.load::<Header>(&header_key(&target.id)).await? else {
            return Ok(None);
        };
        Ok((loaded.value.owner == Owner::of(ctx)).then_some(loaded.value))
    }

    /// The contents `target` asks for, of the artifact whose header is `header`.
    pub(crate) async fn read(
        &self,
        uri: &str,
        header: &Header,
        target: &Target,
    ) -> Result<ResourceContents, RpcError> {
        let link = &header.link;
        let n = match target.part {
            Some(n) if n < link.parts => n,
            Some(_) => return Err(RpcError::resource_not_found(uri)),
            None if link.parts > 1 => {
                return Err(RpcError::invalid_params(format!(
                    "{uri} is {}, more than one read serves ({}): read it in {} parts, {} to {}",
                    human_size(link.size),
                    human_size(self.config.part_bytes as u64),
                    link.parts,
                    link.part_uri(0),
                    link.part_uri(link.parts - 1)
                ))
                .with_data(serde_json::json!({
                    "uri": uri,
                    "size": link.size,
                    "parts": link.parts,
                    "firstPart": link.part_uri(0),
                })));
            }
            None => 0,
        };
        let part = self
            .records
            .load::<Part>(&part_key(&target.id, n))
            .await
            .map_err(|e| {
                tracing::error!("an artifact part could not be read: {e}");
                RpcError::internal("the artifact could not be read")
            })?
            // Parts go with their header; one missing means the artifact just expired.
            .ok_or_else(|| RpcError::resource_not_found(uri))?;
        let mime_type = Some(link.mime_type.clone());
        Ok(match (part.value, header.text) {
            (Part::Text(text), true) => ResourceContents::Text {
                uri: uri.to_owned(),
                mime_type,
                text,
            },
            (Part::Text(text), false) => ResourceContents::Blob {
                uri: uri.to_owned(),
                mime_type,
                blob: STANDARD.encode(text.as_bytes()),
            },
            (Part::Blob(blob), _) => ResourceContents::Blob {
                uri: uri.to_owned(),
                mime_type,
                blob,
            },
        })
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl RequestContext {
    /// Store `artifact` in the server's store and get the link to hand the model: return
    /// it (an [`ArtifactLink`] is a tool result), or put [`ArtifactLink::content`] in a
    /// result of your own.
    ///
    /// Only the caller that made it (the same principal and tenant) can read it back, and
    /// only while the tool that made it would still be authorized for them; it expires
    /// after the server's `artifact_ttl` (one hour unless set). Fails when the request is
    /// not a tool call, the body is larger than the server's `artifact_max_size`, the
    /// body's stream fails, or the store does.
    pub async fn save_artifact(&self, artifact: Artifact) -> Result<ArtifactLink, ArtifactError> {
        let refuse = |message: &str| ArtifactError {
            message: format!("The artifact could not be stored: {message}"),
        };
        let Some(artifacts) = self.state::<Artifacts>() else {
            return Err(refuse("this server keeps no artifacts"));
        };
        let tool = match (self.method(), self.name()) {
            ("tools/call", Some(tool)) => tool.to_owned(),
            _ => return Err(refuse("artifacts are made by tool calls only")),
        };
        artifacts
            .save(self, &tool, artifact)
            .await
            .map_err(|problem| {
                tracing::warn!(tool = %tool, "an artifact could not be stored: {problem}");
                refuse(&problem)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn artifact_uris_parse_strictly() {
        let id = "abcdefghijklmnopqrstuvwx";
        assert_eq!(
            Target::parse(&format!("artifact://{id}")),
            Some(Target {
                id: id.into(),
                part: None
            })
        );
        assert_eq!(
            Target::parse(&format!("artifact://{id}/part/12")).map(|t| t.part),
            Some(Some(12))
        );
        for bad in [
            "artifact://short".to_owned(),
            format!("artifact://{id}/part/"),
            format!("artifact://{id}/part/-1"),
            format!("artifact://{id}/other"),
            format!("artifact://{id}/part/99999999999999999999999"),
            format!("file://{id}"),
        ] {
            assert_eq!(Target::parse(&bad), None, "{bad}");
        }
    }

    #[test]
    fn text_parts_end_at_character_boundaries() {
        let text = "é".repeat(10); // 20 bytes, two per character
        let mut parts = Parts {
            limit: 5,
            text: true,
            pending: BytesMut::from(text.as_bytes()),
        };
        let mut joined = String::new();
        while let Some(part) = parts.next(true) {
            match part {
                Part::Text(t) => {
                    assert!(t.len() <= 5);
                    joined.push_str(&t);
                }
                Part::Blob(_) => panic!("text became a blob"),
            }
        }
        assert_eq!(joined, text);
    }

    #[test]
    fn sizes_read_like_sizes() {
        assert_eq!(human_size(12), "12 bytes");
        assert_eq!(human_size(64 * 1024), "64 KiB");
        assert_eq!(human_size(1536 * 1024), "1.5 MiB");
        assert!(textual("text/csv; charset=utf-8"));
        assert!(textual("application/vnd.api+json"));
        assert!(!textual("image/png"));
    }
}
