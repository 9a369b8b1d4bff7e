//! `resources/read`: resolve the URI, authorize, run the reader, attach cache hints.

use serde_json::{json, Map, Value};

use crate::policy::auth::Action;
use crate::protocol::RpcError;

use crate::policy::cache::CacheHints;
use crate::registry::ReadRequest;

use super::super::dispatch::{guarded, Call, Core, Reply};

impl Core {
    pub(crate) async fn read_resource(&self, call: Call) -> Reply {
        let Call { ctx, params } = call;
        let uri = match params.get("uri") {
            Some(Value::String(uri)) => uri.clone(),
            _ => {
                return Reply::Error(RpcError::invalid_params(
                    "resources/read needs params.uri, the resource's URI as a string",
                ))
            }
        };
        if uri.len() > crate::registry::uri::MAX_URI_BYTES {
            return Reply::Error(
                RpcError::invalid_params(format!(
                    "The URI is {} bytes long; at most {} are accepted",
                    uri.len(),
                    crate::registry::uri::MAX_URI_BYTES
                ))
                .with_data(json!({ "maxBytes": crate::registry::uri::MAX_URI_BYTES })),
            );
        }
        let Some((resource, uri_params)) = self.catalog.resolve(&uri) else {
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
            params: uri_params,
        };
        let contents = match guarded(&uri, (def.read)(ctx, request)).await {
            Ok(contents) => contents,
            Err(error) => return Reply::Error(error),
        };
        let mut body = Map::new();
        body.insert(
            "contents".into(),
            serde_json::to_value(contents).unwrap_or_else(|_| json!([])),
        );
        let hints = CacheHints {
            ttl: def
                .ttl_ms
                .map(std::time::Duration::from_millis)
                .unwrap_or(self.read_cache.ttl),
            scope: def.cache_scope.unwrap_or(self.read_cache.scope),
        };
        Reply::Complete {
            body,
            cache: Some(hints),
        }
    }
}
