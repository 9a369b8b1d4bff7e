//! The response cache (`Server::cache_responses`): results of read-only tools and of
//! resource reads, kept in the server's store and served again to the callers the cache
//! scope allows.
//!
//! It runs as the innermost layer, right above the handler: after authorization and the
//! argument checks (a refused caller never reaches it), and below the server's own layers,
//! so audit and metrics layers see every call, hits included.
//!
//! An entry's key is a hash of the method, the target, the tool's version, the arguments
//! in canonical JSON, the scope (public, or the caller: tenant and subject, or anonymous)
//! and two generations: the server's and, for a resource, its URI's. Invalidating is
//! writing a new generation, so every instance sharing the store stops finding the old
//! entries at once without anyone listing keys; the old entries expire on their own.
//!
//! A change announced through `ServerHandle` happens synchronously, while the store is
//! written asynchronously: a change is queued and counted before the announcement
//! returns, and a lookup first waits for the changes being written and writes those still
//! queued (the cache is bypassed when another arrives meanwhile). So a call made after
//! the announcement never gets an entry from before it.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};
use tower::ServiceExt as _;

use crate::clock::{millis, now_ms};
use crate::protocol::cache::{CacheHints, CacheScope};
use crate::protocol::{CallToolResult, ReadResourceResult, RpcError};
use crate::registry::{TaskSupport, ToolDef};
use crate::store::{Records, StoreError};

use super::canonical::canonical_object;
use super::layers::{Call, CallKind, CallService, Innermost, Outcome};
use super::live::{Change, Invalidate};
use super::RequestContext;

/// The largest entry kept by default, serialized: 256 KiB.
const DEFAULT_MAX_ENTRY_BYTES: usize = 256 * 1024;

/// How long a generation record outlives the change that wrote it, beyond twice the
/// cache's time to live: the entries keyed by the generation before it must all have
/// expired before the record goes (and its generation reads as 0 again). The margin is for
/// clocks of instances that differ a little.
const GENERATION_MARGIN: Duration = Duration::from_secs(60);

/// A cache of responses: the results of read-only tools and of resource reads, served
/// again without running the handler while they are fresh. Give it to
/// [`Server::cache_responses`](crate::Server::cache_responses).
///
/// What is cached:
///
/// - a `tools/call` of a tool marked `read_only`, unless it takes idempotency keys, is
///   single-use (`once`) or may run as a task; only a complete result that is not an
///   error;
/// - a `resources/read`, for as long as the resource's own cache hints say (its `ttl`,
///   or the server's [`read_cache`](crate::Server::read_cache)), at most this cache's time
///   to live;
/// - never a call that carried the client's input or asked for it (a multi-round call),
///   a protocol error, or an entry larger than [`max_entry_bytes`](Self::max_entry_bytes).
///
/// Who shares an entry: a tool's result is private to its caller (the principal's subject
/// and tenant; anonymous callers share a key space of their own) unless the tool is named
/// in [`public_tools`](Self::public_tools); a resource follows its cache scope, as its
/// results tell clients (`#[resource(cache = private)]`; private for a resource that takes
/// a `Principal` or requires scopes; else the server's `read_cache`). Entries live in the server's [store](crate::store), so instances sharing one
/// share its entries too. `ServerHandle::resource_updated` drops the entries of that URI;
/// any change of the lists (tools, resources or prompts added or removed, tags disabled or
/// enabled) drops them all.
///
/// ```
/// use std::time::Duration;
///
/// use mcp_runtime::layers::ResponseCache;
/// use mcp_runtime::prelude::*;
///
/// /// Today's exchange rate.
/// #[tool(read_only)]
/// async fn rate(currency: String) -> String {
///     format!("1 EUR = 1.08 {currency}")
/// }
///
/// let server = Server::new("rates", "1.0.0").cache_responses(
///     ResponseCache::new(Duration::from_secs(60))
///         // The same for every caller.
///         .public_tools(["rate"]),
/// );
/// # let _ = server;
/// ```
#[derive(Debug, Clone)]
pub struct ResponseCache {
    ttl: Duration,
    public_tools: BTreeSet<String>,
    max_entry_bytes: usize,
}

impl ResponseCache {
    /// A cache keeping each entry at most `ttl` (a resource's own shorter `ttl` wins).
    pub fn new(ttl: Duration) -> Self {
        ResponseCache {
            ttl,
            public_tools: BTreeSet::new(),
            max_entry_bytes: DEFAULT_MAX_ENTRY_BYTES,
        }
    }

    /// Tools whose results are the same for every caller, so one caller's result may be
    /// served to another. A paged tool stays private: its cursors are sealed to the caller.
    pub fn public_tools<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.public_tools.extend(names.into_iter().map(Into::into));
        self
    }

    /// The largest entry kept, in bytes of its JSON (default 256 KiB); a larger result is
    /// served but not cached.
    pub fn max_entry_bytes(mut self, bytes: usize) -> Self {
        self.max_entry_bytes = bytes;
        self
    }
}

/// How one call may be cached: for how long, for whom, and under which tool version.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cacheable {
    ttl: Duration,
    public: bool,
    version: Option<&'static str>,
}

/// The cache as the server runs it.
pub(crate) struct Cache {
    config: ResponseCache,
    records: Records,
    generations: Arc<Generations>,
}

impl Cache {
    pub(crate) fn new(config: ResponseCache, records: Records) -> Cache {
        let keep = config
            .ttl
            .saturating_mul(2)
            .saturating_add(GENERATION_MARGIN);
        Cache {
            generations: Arc::new(Generations {
                records: records.clone(),
                queue: Mutex::new(Vec::new()),
                unwritten: AtomicUsize::new(0),
                writing: tokio::sync::Mutex::new(()),
                keep,
            }),
            config,
            records,
        }
    }

    /// What invalidates this cache: told of every change the server announces.
    pub(crate) fn invalidator(&self) -> Arc<dyn Invalidate> {
        Arc::new(Invalidator(self.generations.clone()))
    }

    /// The cache as the innermost wrapper of one call it may keep, as `cacheable` says.
    pub(crate) fn innermost(self: &Arc<Self>, cacheable: Cacheable) -> Innermost {
        let cache = self.clone();
        Box::new(move |inner| cache.wrap(cacheable, inner))
    }

    /// How a call of the tool `def` may be cached, if at all.
    pub(crate) fn tool(
        &self,
        def: &ToolDef,
        paged: bool,
        ctx: &RequestContext,
    ) -> Option<Cacheable> {
        // A tool with side effects, one whose calls are recorded under keys or used up, or
        // one whose call may outlive the request (a task) is not answered from memory.
        if def.read_only != Some(true)
            || def.idempotency
            || def.once
            || def.task != TaskSupport::Forbidden
            || ctx.took_input()
            || self.config.ttl.is_zero()
        {
            return None;
        }
        Some(Cacheable {
            ttl: self.config.ttl,
            public: !paged && self.config.public_tools.contains(def.name),
            version: def.version,
        })
    }

    /// How a read with these cache hints may be cached, if at all.
    pub(crate) fn resource(&self, hints: CacheHints, ctx: &RequestContext) -> Option<Cacheable> {
        let ttl = hints.ttl.min(self.config.ttl);
        if ttl.is_zero() || ctx.took_input() {
            return None;
        }
        Some(Cacheable {
            ttl,
            public: hints.scope == CacheScope::Public,
            version: None,
        })
    }

    /// `inner`, answered from the cache when it holds the call's result.
    fn wrap(self: &Arc<Self>, cacheable: Cacheable, inner: CallService) -> CallService {
        let cache = self.clone();
        CallService::new(tower::service_fn(move |call: Call| {
            let (cache, inner) = (cache.clone(), inner.clone());
            async move { cache.serve(cacheable, call, inner).await }
        }))
    }

    async fn serve(
        &self,
        cacheable: Cacheable,
        call: Call,
        inner: CallService,
    ) -> Result<Outcome, RpcError> {
        // The entry's life starts when the generations are read: an entry made under one
        // is then sure to expire before the record of the next can (see `keep`).
        let looked_at = now_ms();
        let key = match self.key(&cacheable, &call).await {
            Ok(Some(key)) => key,
            // A change is being written: neither served nor kept until it is.
            Ok(None) => return inner.oneshot(call).await,
            Err(error) => {
                tracing::warn!(target = %call.target(), "the response cache is skipped: {error}");
                return inner.oneshot(call).await;
            }
        };
        match self.records.load::<Entry>(&key).await {
            Ok(Some(found)) => {
                if let Some(outcome) = found.value.into_outcome(call.kind()) {
                    tracing::debug!(
                        method = call.kind().method(),
                        target = %call.target(),
                        "served from the response cache"
                    );
                    return Ok(outcome);
                }
            }
            Ok(None) => {}
            // Another version's entry, say: a miss.
            Err(error) => {
                tracing::debug!(target = %call.target(), "a cached entry is unread: {error}")
            }
        }
        let (ctx, target) = (call.context().clone(), call.target().to_owned());
        let outcome = inner.oneshot(call).await?;
        // The handler may have asked the client for input while it ran.
        if !ctx.took_input() {
            let expires_at_ms = looked_at.saturating_add(millis(cacheable.ttl));
            self.keep(&key, &target, &outcome, expires_at_ms).await;
        }
        Ok(outcome)
    }

    /// Store `outcome` under `key` when it is a whole, successful result small enough.
    async fn keep(&self, key: &str, target: &str, outcome: &Outcome, expires_at_ms: u64) {
        let entry = match outcome {
            Outcome::Tool(result) if !result.is_error => EntryRef::Tool(result),
            Outcome::Resource(result) => EntryRef::Resource(result),
            _ => return,
        };
        let body = match serde_json::value::to_raw_value(&entry) {
            Ok(body) => body,
            Err(error) => {
                tracing::debug!(target = %target, "a result is not cached: {error}");
                return;
            }
        };
        if body.get().len() > self.config.max_entry_bytes {
            tracing::debug!(
                target = %target,
                bytes = body.get().len(),
                "a result larger than the response cache keeps is not cached"
            );
            return;
        }
        // `false`: another call stored the same key first, under the same generations.
        if let Err(error) = self.records.insert(key, &body, expires_at_ms).await {
            tracing::warn!(target = %target, "a result could not be cached: {error}");
        }
    }

    /// The call's key, or `None` while a change is being written.
    async fn key(&self, cacheable: &Cacheable, call: &Call) -> Result<Option<String>, StoreError> {
        let uri = (call.kind() == CallKind::Resource).then(|| call.target());
        let Some((server, target)) = self.generations.current(uri).await? else {
            return Ok(None);
        };
        let mut hash = Sha256::new();
        // Each part with its length, so no two different sequences hash alike.
        let mut part = |bytes: &[u8]| {
            hash.update((bytes.len() as u64).to_be_bytes());
            hash.update(bytes);
        };
        part(call.kind().method().as_bytes());
        part(call.target().as_bytes());
        part(cacheable.version.unwrap_or("").as_bytes());
        let mut arguments = Vec::new();
        canonical_object(call.arguments(), &mut arguments);
        part(&arguments);
        match (cacheable.public, call.context().principal()) {
            (true, _) => part(b"public"),
            // Never the key of any principal's entry.
            (false, None) => part(b"anonymous"),
            (false, Some(principal)) => {
                part(b"private");
                part(principal.tenant().unwrap_or("").as_bytes());
                part(principal.subject.as_bytes());
            }
        }
        part(&server.to_be_bytes());
        part(&target.to_be_bytes());
        Ok(Some(format!("cache:{}", hex(&hash.finalize()))))
    }
}

/// A cached result, as stored.
#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum Entry {
    Tool(CallToolResult),
    Resource(ReadResourceResult),
}

/// [`Entry`] borrowed, to store without copying the result.
#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
enum EntryRef<'a> {
    Tool(&'a CallToolResult),
    Resource(&'a ReadResourceResult),
}

impl Entry {
    fn into_outcome(self, kind: CallKind) -> Option<Outcome> {
        match (self, kind) {
            (Entry::Tool(result), CallKind::Tool) => Some(Outcome::Tool(result)),
            (Entry::Resource(result), CallKind::Resource) => Some(Outcome::Resource(result)),
            _ => None,
        }
    }
}

/// The server's changes, as they reach the generations.
struct Invalidator(Arc<Generations>);

impl Invalidate for Invalidator {
    fn changed(&self, change: &Change) {
        self.0.changed(change);
    }
}

/// The generations in the keys, kept in the store: one for the whole server, one per
/// resource URI. A new one is a random number, so a generation never comes back.
pub(crate) struct Generations {
    records: Records,
    /// Changes announced and not yet taken for writing.
    queue: Mutex<Vec<Bump>>,
    /// Changes announced and not yet written (queued or being written).
    unwritten: AtomicUsize,
    /// Held while changes are written, so a lookup waits for those in flight.
    writing: tokio::sync::Mutex<()>,
    /// How long a generation record lives after its last change.
    keep: Duration,
}

/// One change to write.
enum Bump {
    /// Every entry (a list changed).
    All,
    /// The entries of one resource URI.
    Uri(String),
}

const SERVER_GENERATION: &str = "cache-gen:server";

fn uri_generation(uri: &str) -> String {
    format!("cache-gen:uri:{}", hex(&Sha256::digest(uri.as_bytes())))
}

impl Generations {
    /// Note `change`, and write it to the store in the background (the next lookup writes
    /// it first when there is no runtime to do so).
    pub(crate) fn changed(self: &Arc<Self>, change: &Change) {
        let bump = match change {
            Change::ResourceUpdated(uri) => Bump::Uri(uri.clone()),
            Change::Tools | Change::Prompts | Change::Resources => Bump::All,
        };
        // Counted before it is queued: a lookup never sees it queued and not counted.
        self.unwritten.fetch_add(1, Ordering::SeqCst);
        self.queue
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(bump);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let generations = self.clone();
            runtime.spawn(async move { generations.write_queued().await });
        }
    }

    /// Write every queued change, after those being written.
    async fn write_queued(&self) {
        // Nothing to wait for on almost every call.
        if self.unwritten.load(Ordering::SeqCst) == 0 {
            return;
        }
        let _writing = self.writing.lock().await;
        loop {
            let next = self.queue.lock().unwrap_or_else(|p| p.into_inner()).pop();
            let Some(bump) = next else {
                return;
            };
            let key = match &bump {
                Bump::All => SERVER_GENERATION.to_owned(),
                Bump::Uri(uri) => uri_generation(uri),
            };
            if let Err(error) = self.renew(&key).await {
                // Its entries then live out their time to live.
                tracing::error!("the response cache could not record a change: {error}");
            }
            self.unwritten.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// Give the record under `key` a new generation.
    async fn renew(&self, key: &str) -> Result<(), StoreError> {
        let expires_at_ms = now_ms().saturating_add(millis(self.keep));
        let next = fresh();
        // A write that loses to another lands after this change too, which is all the
        // change needs: once is enough.
        match self.records.load::<u64>(key).await? {
            None => self.records.insert(key, &next, expires_at_ms).await?,
            Some(found) => {
                self.records
                    .replace(key, found.version, &next, expires_at_ms)
                    .await?
            }
        };
        Ok(())
    }

    /// The server's generation and the one of `uri` (0 for none), or `None` when a change
    /// arrived while those before it were written.
    async fn current(&self, uri: Option<&str>) -> Result<Option<(u64, u64)>, StoreError> {
        self.write_queued().await;
        if self.unwritten.load(Ordering::SeqCst) > 0 {
            return Ok(None);
        }
        let server = self.load(SERVER_GENERATION).await?;
        let target = match uri {
            Some(uri) => self.load(&uri_generation(uri)).await?,
            None => 0,
        };
        Ok(Some((server, target)))
    }

    async fn load(&self, key: &str) -> Result<u64, StoreError> {
        Ok(self
            .records
            .load::<u64>(key)
            .await?
            .map_or(0, |found| found.value))
    }
}

/// A generation not used before: random, or from the clock and a counter when the system
/// has no randomness to give.
fn fresh() -> u64 {
    let mut bytes = [0u8; 8];
    if getrandom::fill(&mut bytes).is_ok() {
        // Never 0, which stands for "no change yet".
        return u64::from_be_bytes(bytes).max(1);
    }
    static COUNTER: AtomicUsize = AtomicUsize::new(1);
    now_ms()
        .wrapping_mul(1_000_003)
        .wrapping_add(COUNTER.fetch_add(1, Ordering::Relaxed) as u64)
        .max(1)
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryStore;

    fn generations() -> Arc<Generations> {
        let records = Records::new(Arc::new(MemoryStore::new()));
        Cache::new(ResponseCache::new(Duration::from_secs(60)), records)
            .generations
            .clone()
    }

    async fn current(generations: &Generations, uri: &str) -> (u64, u64) {
        generations
            .current(Some(uri))
            .await
            .expect("the memory store answers")
            .expect("no change is being written")
    }

    #[tokio::test]
    async fn a_change_is_written_before_the_next_lookup_and_touches_only_its_own() {
        let generations = generations();
        assert_eq!(current(&generations, "a://1").await, (0, 0));
        generations.changed(&Change::ResourceUpdated("a://1".into()));
        // Read at once, before the background write could run: the lookup writes it.
        let (server, one) = current(&generations, "a://1").await;
        assert_eq!(server, 0);
        assert_ne!(one, 0);
        assert_eq!(current(&generations, "a://2").await, (0, 0));
        generations.changed(&Change::Prompts);
        let (server, still) = current(&generations, "a://1").await;
        assert_ne!(server, 0);
        assert_eq!(still, one);
    }

    #[test]
    fn a_change_without_a_runtime_waits_for_the_next_lookup() {
        let generations = generations();
        generations.changed(&Change::Tools);
        assert_eq!(generations.unwritten.load(Ordering::SeqCst), 1);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        let (server, _) = runtime.block_on(current(&generations, "a://1"));
        assert_ne!(server, 0);
        assert_eq!(generations.unwritten.load(Ordering::SeqCst), 0);
    }
}
