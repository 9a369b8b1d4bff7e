//! `resources/read`: resolve the URI, authorize, run the reader, attach cache hints.

use serde_json::{json, Map, Value};

use crate::policy::auth::Action;
use crate::policy::limits::Called;
use crate::protocol::cache::{CacheHints, CacheScope};
use crate::protocol::{ReadResourceResult, RpcError};
use crate::registry::uri::MAX_URI_BYTES;
use crate::registry::ReadRequest;

use super::super::artifacts::Target;
use super::super::dispatch::{Call, Core, Reply};
use super::super::input::Binding;
use super::super::layers::{CallKind, Outcome};
use super::super::live::Snapshot;
use super::super::RequestContext;
use super::params::{complete_reply, take_string_param};

impl Core {
    pub(crate) async fn read_resource(&self, call: Call) -> Reply {
        let Call {
            ctx,
            mut params,
            target: resolved,
        } = call;
        let uri = match take_string_param(
            &mut params,
            "uri",
            "resources/read needs params.uri, the resource's URI as a string",
        ) {
            Ok(uri) => uri,
            Err(reply) => return reply,
        };
        if uri.len() > MAX_URI_BYTES {
            return Reply::Error(
                RpcError::invalid_params(format!(
                    "The URI is {} bytes long; at most {MAX_URI_BYTES} are accepted",
                    uri.len()
                ))
                .with_data(json!({ "maxBytes": MAX_URI_BYTES })),
            );
        }
        if let Some(target) = Target::parse(&uri) {
            return self
                .read_artifact(resolved.snapshot(), &ctx, &uri, &target)
                .await;
        }
        // A resource the caller may not see does not exist for it.
        let Some((resource, uri_params)) = resolved
            .resource()
            .filter(|(resource, _)| self.sees(&ctx, &resource.listed()))
        else {
            return Reply::Error(RpcError::resource_not_found(&uri));
        };
        let def = resource.def;
        if let Err(reply) = self
            .check(
                &ctx,
                &Action::ReadResource {
                    resource: def,
                    uri: &uri,
                },
                ("resource", &uri),
            )
            .await
        {
            return reply;
        }
        let request = ReadRequest {
            uri: uri.clone(),
            params: uri_params.clone(),
        };
        let binding = Binding::when_needed(&ctx, &params, || {
            Binding::new(
                "resources/read",
                &uri,
                &serde_json::Map::new(),
                ctx.principal_subject(),
            )
        });
        if let Err(error) = self.rounds.open(&ctx, &mut params, binding.as_ref(), false) {
            return Reply::Error(error);
        }
        // A read that took answers from the user is not a plain read of the URI: its
        // result is private to this caller and not to be reused.
        let hints = if ctx.round() > 0 {
            CacheHints {
                ttl: std::time::Duration::ZERO,
                scope: CacheScope::Private,
            }
        } else {
            CacheHints {
                ttl: def
                    .ttl_ms
                    .map(std::time::Duration::from_millis)
                    .unwrap_or(self.read_cache.ttl),
                // A read that depends on who asks is never shared, whatever the default.
                scope: def.cache_scope.unwrap_or(if resource.private {
                    CacheScope::Private
                } else {
                    self.read_cache.scope
                }),
            }
        };
        // The response cache keeps a read as its hints tell clients to.
        let cached = self.response_cache.as_ref().and_then(|cache| {
            let cacheable = cache.resource(hints, &ctx)?;
            Some(cache.innermost(cacheable))
        });
        let read = resource.read(ctx.clone(), request);
        let read = self.layers.around(
            (CallKind::Resource, &uri, None, def.tags),
            cached,
            &ctx,
            Box::pin(async move { read.await.map(|contents| ReadResourceResult { contents }) }),
            Outcome::Resource,
            |outcome| match outcome {
                Outcome::Resource(result) => Some(result),
                _ => None,
            },
        );
        let outcome = self
            .run(&ctx, &Called::new("resource", &uri), read)
            .await
            .map(|read| read.contents);
        let failed = outcome.is_err();
        self.finish_round(&ctx, binding.as_ref(), failed, || match outcome {
            Ok(contents) => {
                let reply =
                    complete_reply(ReadResourceResult { contents }, "resource", Some(hints));
                match def.view {
                    Some(view) => with_view_meta(reply, &view),
                    None => reply,
                }
            }
            Err(error) => Reply::Error(error),
        })
    }
}

impl Core {
    /// `resources/read` of an artifact or one of its parts: only its maker (principal and
    /// tenant) sees it, and only while the tool that made it would still be authorized.
    /// Everyone else, and everyone after it expired, is told it does not exist.
    async fn read_artifact(
        &self,
        snapshot: &Snapshot,
        ctx: &RequestContext,
        uri: &str,
        target: &Target,
    ) -> Reply {
        let header = match self.artifacts.header(ctx, target).await {
            Ok(Some(header)) => header,
            Ok(None) => return Reply::Error(self.artifacts.not_here(uri)),
            Err(e) => {
                tracing::error!(uri = %uri, "an artifact could not be looked up: {e}");
                return Reply::Error(RpcError::internal("the artifact could not be read"));
            }
        };
        // A tool no longer served makes its artifacts unreadable, as its calls are.
        let Some(tool) = snapshot.catalog.get(&header.tool) else {
            return Reply::Error(RpcError::resource_not_found(uri));
        };
        let action = Action::ReadArtifact {
            tool: tool.def,
            uri,
        };
        if let Err(reply) = self.check(ctx, &action, ("resource", uri)).await {
            return reply;
        }
        let _slot = match self
            .limiter
            .admit(ctx.principal_subject(), &Called::new("resource", uri))
        {
            Ok(slot) => slot,
            Err(error) => return Reply::Error(error),
        };
        match self.artifacts.read(uri, &header, target).await {
            Ok(contents) => complete_reply(
                ReadResourceResult {
                    contents: vec![contents],
                },
                "resource",
                // Unchanging while it lasts, and private to its maker.
                Some(CacheHints {
                    ttl: header.remaining(),
                    scope: CacheScope::Private,
                }),
            ),
            Err(error) => Reply::Error(error),
        }
    }
}

/// A view's read: every content carries `_meta.ui` (its CSP, permissions, domain and
/// border), where the MCP Apps extension reads it, and the one MIME type the extension
/// defines for views, whatever the function returned.
fn with_view_meta(reply: Reply, view: &crate::registry::ViewDef) -> Reply {
    let Reply::Result { mut body, cache } = reply else {
        return reply;
    };
    if let Some(Value::Array(contents)) = body.get_mut("contents") {
        for content in contents.iter_mut().filter_map(Value::as_object_mut) {
            content.insert(
                "mimeType".into(),
                json!(crate::protocol::extensions::UI_MIME),
            );
            let meta = content
                .entry("_meta")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(meta) = meta {
                meta.insert("ui".into(), view.ui_meta());
            }
        }
    }
    Reply::Result { body, cache }
}
