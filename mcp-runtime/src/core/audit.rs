//! The audit trail (`Server::audit`): one record for every `tools/call`, `resources/read`
//! and `prompts/get`, refused or not, written to a sink.
//!
//! It wraps the whole call rather than sitting among the layers: a call refused by
//! authorization, by its argument checks or as unknown never reaches a layer, and an audit
//! trail that left those out would miss what it is most often read for. Arguments are
//! recorded as the tool's schema allows: every value it marks secret (`#[redact]` on a
//! parameter, `writeOnly: true` or `format: "password"` anywhere in it) is replaced by
//! `"[redacted]"`, and the arguments of a call whose tool is unknown are not recorded at
//! all, since nothing says which of them are secret.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::clock::{millis, now_ms};
use crate::store::{Record, Store};

/// What one audited call was, and how it ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct AuditRecord {
    /// When it arrived, in milliseconds since the Unix epoch.
    pub at_ms: u64,
    /// How long it took to answer, in milliseconds.
    pub duration_ms: u64,
    /// Its JSON-RPC id.
    pub request_id: String,
    /// `tools/call`, `resources/read` or `prompts/get`.
    pub method: String,
    /// The tool's or prompt's name, or the resource's URI (as the caller sent it).
    pub target: String,
    /// The caller's subject, when the transport authenticated one.
    pub principal: Option<String>,
    /// The caller's tenant, when it has one.
    pub tenant: Option<String>,
    /// The arguments, with the values the tool's schema marks secret replaced by
    /// `"[redacted]"`; none for a resource read or an unknown tool.
    pub arguments: Option<Map<String, Value>>,
    /// `completed`, `input_required` (the call asks the client first), `task` or `failed`.
    pub outcome: String,
    /// For a failure, where it came from: `business` (the tool answered `isError`),
    /// `mcp` (refused: unknown, invalid, denied, limited) or `jsonrpc`.
    pub error_layer: Option<String>,
    /// The JSON-RPC error code of a refusal.
    pub error_code: Option<i64>,
}

/// Where audit records go. [`AuditLog`] writes them to the logs, [`StoreAudit`] to a
/// store (queryable in PostgreSQL); implement it to send them anywhere else. The call
/// waits for `record` before it is answered, so a record is written by the time its
/// caller sees the answer: keep it quick, and handle failures inside (a sink that cannot
/// write should log why; the call is answered either way).
pub trait AuditSink: Send + Sync + 'static {
    /// Keep `record`.
    fn record(&self, record: AuditRecord) -> impl Future<Output = ()> + Send;
}

/// Object-safe form of [`AuditSink`], as the server holds it.
trait DynSink: Send + Sync {
    fn record(&self, record: AuditRecord) -> BoxFuture<'_, ()>;
}

impl<S: AuditSink> DynSink for S {
    fn record(&self, record: AuditRecord) -> BoxFuture<'_, ()> {
        Box::pin(AuditSink::record(self, record))
    }
}

/// The server's audit trail: its sink.
#[derive(Clone)]
pub(crate) struct Audit(Arc<dyn DynSink>);

impl Audit {
    pub(crate) fn new(sink: impl AuditSink) -> Audit {
        Audit(Arc::new(sink))
    }

    pub(crate) async fn record(&self, record: AuditRecord) {
        self.0.record(record).await;
    }
}

/// A call being audited: what is known when it arrives.
pub(crate) struct Audited {
    started: Instant,
    at_ms: u64,
    method: &'static str,
    target: String,
    arguments: Option<Map<String, Value>>,
}

impl Audited {
    /// Start auditing a call of `method` on `target` with `arguments` (already redacted).
    pub(crate) fn start(
        method: &'static str,
        target: String,
        arguments: Option<Map<String, Value>>,
    ) -> Audited {
        Audited {
            started: Instant::now(),
            at_ms: now_ms(),
            method,
            target,
            arguments,
        }
    }

    /// The record of the call, ended as `ending` says, made by `ctx`'s caller.
    pub(crate) fn finish(
        self,
        ctx: &super::RequestContext,
        ending: &impl crate::observe::Ending,
    ) -> AuditRecord {
        let outcome = ending.outcome();
        let layer = outcome.error_layer();
        AuditRecord {
            at_ms: self.at_ms,
            duration_ms: millis(self.started.elapsed()),
            request_id: ctx.request_id().to_string(),
            method: self.method.to_owned(),
            target: self.target,
            principal: ctx.principal().map(|p| p.subject.clone()),
            tenant: ctx.principal().and_then(|p| p.tenant()).map(str::to_owned),
            arguments: self.arguments,
            outcome: outcome.label().to_owned(),
            error_layer: (!layer.is_empty()).then(|| layer.to_owned()),
            error_code: ending.error().map(|e| e.code),
        }
    }
}

/// Audit records as log events: one `INFO` event per call, target `mcp_runtime::audit`,
/// with the record's fields (`name` is its target; the arguments as JSON, already
/// redacted).
#[derive(Debug, Clone, Copy, Default)]
pub struct AuditLog;

impl AuditSink for AuditLog {
    async fn record(&self, record: AuditRecord) {
        let arguments = record
            .arguments
            .as_ref()
            .and_then(|a| serde_json::to_string(a).ok());
        tracing::info!(
            target: "mcp_runtime::audit",
            at_ms = record.at_ms,
            duration_ms = record.duration_ms,
            request_id = %record.request_id,
            method = %record.method,
            name = %record.target,
            principal = record.principal.as_deref(),
            tenant = record.tenant.as_deref(),
            arguments = arguments.as_deref(),
            outcome = %record.outcome,
            error_layer = record.error_layer.as_deref(),
            error_code = record.error_code,
            "audit"
        );
    }
}

/// Audit records kept in a [store](crate::store), each as a record whose key starts
/// with `audit:` and whose body is the [`AuditRecord`] as JSON, for `retention` (90 days
/// unless set). In PostgreSQL, for instance:
///
/// ```sql
/// SELECT body::jsonb FROM mcp_records
///  WHERE id LIKE 'audit:%' AND body::jsonb->>'tenant' = 'acme'
///  ORDER BY id;
/// ```
///
/// Keys sort by time (`audit:{at_ms}:{request id}:{random}`). A record that cannot be
/// written is logged as an error, with the call's target and request id.
pub struct StoreAudit<S> {
    store: S,
    retention: Duration,
}

impl<S: Store> StoreAudit<S> {
    /// Keep audit records in `store` (often the one the server keeps its own records in,
    /// opened a second time).
    pub fn new(store: S) -> Self {
        StoreAudit {
            store,
            retention: Duration::from_secs(90 * 24 * 60 * 60),
        }
    }

    /// How long each record is kept.
    pub fn retention(mut self, retention: Duration) -> Self {
        self.retention = retention;
        self
    }
}

impl<S> std::fmt::Debug for StoreAudit<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreAudit")
            .field("retention", &self.retention)
            .finish_non_exhaustive()
    }
}

impl<S: Store> AuditSink for StoreAudit<S> {
    async fn record(&self, record: AuditRecord) {
        let mut nonce = [0u8; 6];
        if getrandom::fill(&mut nonce).is_err() {
            // Without randomness two records of one id in one millisecond could collide;
            // the time and id still tell nearly all apart.
            nonce = [0; 6];
        }
        let nonce: String = nonce.iter().map(|b| format!("{b:02x}")).collect();
        let key = format!("audit:{:013}:{}:{nonce}", record.at_ms, record.request_id);
        let body = match serde_json::to_string(&record) {
            Ok(body) => body,
            Err(e) => {
                tracing::error!(name = %record.target, request_id = %record.request_id, "an audit record could not be written: {e}");
                return;
            }
        };
        let now = now_ms();
        let stored = Record {
            key,
            version: 1,
            expires_at_ms: now.saturating_add(millis(self.retention)),
            body,
        };
        match self.store.insert(&stored, now).await {
            Ok(true) => {}
            Ok(false) => tracing::error!(
                name = %record.target,
                request_id = %record.request_id,
                "an audit record could not be written: its key was taken"
            ),
            Err(e) => tracing::error!(
                name = %record.target,
                request_id = %record.request_id,
                "an audit record could not be written: {e}"
            ),
        }
    }
}
