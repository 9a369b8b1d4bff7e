//! The client's cache of results the server marked cacheable (`ttlMs` and `cacheScope`,
//! spec: server/utilities/caching): what it keeps, for whom, how long, and what drops it.
//!
//! Entries are keyed by the server (where it is and what this client declares to it), the
//! protocol version, the method and its params; a `private` entry also by a digest of the
//! credential that fetched it, so it is served to that credential only. Credentials are
//! never stored, only their SHA-256.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::Value;
use sha2::{Digest as _, Sha256};
use tokio::time::Instant;

/// The methods whose results carry cache hints.
const CACHED_METHODS: [&str; 6] = [
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
];

/// Entries a [`Cache`] holds unless told otherwise.
const DEFAULT_MAX_ENTRIES: usize = 1024;
/// Bytes (of results as JSON) a [`Cache`] holds unless told otherwise.
const DEFAULT_MAX_BYTES: usize = 16 * 1024 * 1024;
/// The longest a result stays fresh, whatever its `ttlMs`: the hint is not a promise that
/// the result never changes, and a long-running client should ask again at least daily.
const LONGEST_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// Results a client keeps by the server's cache hints, and serves again while fresh.
///
/// Every [`Client`](super::Client) has one: its own, made when it connects, unless the
/// builder was given one with [`ClientBuilder::cache`](super::ClientBuilder::cache).
/// Cloning a `Cache` gives another handle to the same entries.
///
/// What it keeps: the results of `server/discover` (the one a client gets when it
/// connects, too), `tools/list`, `prompts/list`, `resources/list`,
/// `resources/templates/list` (each page on its own, by its cursor) and `resources/read`
/// (by URI) whose `ttlMs` is a whole number above zero and whose `cacheScope` is `public` or
/// `private`. Not kept: results without both hints (handshake-era servers send none),
/// `ttlMs: 0`, `input_required` results, the results of requests that answered one
/// (multi round-trip retries, and requests that carry `inputResponses` or `requestState`),
/// and errors. A result stays fresh for its `ttlMs`, one day at most.
///
/// Who gets an entry: a request is served from the cache only if the same server (the same
/// URL, or the same command and arguments), with the same protocol version and the same
/// client declarations (capabilities, client info, log level), was asked the same method
/// with the same params. A `private` entry goes only to the same credential: every header
/// given to the builder ([`header`](super::ClientBuilder::header),
/// [`bearer`](super::ClientBuilder::bearer)) and to the request
/// ([`Request::header`](super::Request::header)); over stdio, the environment variables
/// set on the command. A `public` entry goes to any credential of that server. So one
/// `Cache` handed to the clients of several tenants (a gateway keeping a client per
/// tenant's credential) shares what the server called public and never what it called
/// private. A public entry reaches another credential without the server being asked
/// again, as the spec allows: share a `Cache` only among clients of servers trusted to
/// mark as public only what any of their callers may see.
///
/// What drops entries: their `ttlMs` passing; the server's `notifications/tools/list_changed`,
/// `notifications/prompts/list_changed` and `notifications/resources/list_changed` (the
/// lists concerned, every page, every credential), and `notifications/resources/updated`
/// (the reads of that URI), as the client receives them (a
/// [`Subscription`](super::Subscription) drops them before it yields the notification);
/// [`clear`](Cache::clear); and room: past 1024 entries or 16 MiB of results (as JSON) by
/// default, the oldest entries go first. [`Request::fresh`](super::Request::fresh) asks the server again and keeps the
/// new result.
///
/// The clock is tokio's, so a test with paused time can move it.
///
/// ```
/// use mcp_runtime::client::{Cache, Client};
///
/// // One cache for the clients of every tenant: the server's public lists are fetched
/// // once for all of them, private results stay with the tenant that fetched them.
/// let shared = Cache::new().max_entries(10_000);
/// let acme = Client::http("https://mcp.example.com/mcp").bearer("acme-token").cache(&shared);
/// let initech = Client::http("https://mcp.example.com/mcp").bearer("initech-token").cache(&shared);
/// # drop((acme, initech));
/// ```
#[derive(Clone)]
pub struct Cache {
    store: Arc<Mutex<Store>>,
}

impl std::fmt::Debug for Cache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let store = self.lock();
        f.debug_struct("Cache")
            .field("entries", &store.entries.len())
            .field("bytes", &store.bytes)
            .field("max_entries", &store.max_entries)
            .field("max_bytes", &store.max_bytes)
            .finish()
    }
}

impl Default for Cache {
    fn default() -> Self {
        Cache::new()
    }
}

impl Cache {
    /// An empty cache holding at most 1024 entries and 16 MiB of results (measured as
    /// JSON).
    pub fn new() -> Cache {
        Cache {
            store: Arc::new(Mutex::new(Store {
                entries: HashMap::new(),
                order: BTreeMap::new(),
                next: 0,
                bytes: 0,
                max_entries: DEFAULT_MAX_ENTRIES,
                max_bytes: DEFAULT_MAX_BYTES,
            })),
        }
    }

    /// Hold at most `entries` results; a new one pushes the oldest out. `0` keeps nothing.
    pub fn max_entries(self, entries: usize) -> Cache {
        {
            let mut store = self.lock();
            store.max_entries = entries;
            store.make_room(0, 0);
        }
        self
    }

    /// Hold at most `bytes` of results (each measured as its JSON); a new one pushes the
    /// oldest out, and a result larger than `bytes` is not kept.
    pub fn max_bytes(self, bytes: usize) -> Cache {
        {
            let mut store = self.lock();
            store.max_bytes = bytes;
            store.make_room(0, 0);
        }
        self
    }

    /// How many results the cache holds (fresh or not yet noticed to be stale).
    pub fn len(&self) -> usize {
        self.lock().entries.len()
    }

    /// Whether the cache holds no result.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drop every entry, for every client that uses this cache.
    pub fn clear(&self) {
        let mut store = self.lock();
        store.entries.clear();
        store.order.clear();
        store.bytes = 0;
    }

    fn lock(&self) -> MutexGuard<'_, Store> {
        self.store
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

struct Store {
    entries: HashMap<Key, Entry>,
    /// Keys by insertion, oldest first: the order of eviction.
    order: BTreeMap<u64, Key>,
    next: u64,
    bytes: usize,
    max_entries: usize,
    max_bytes: usize,
}

#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    /// [`Bound::server`].
    server: Arc<str>,
    version: String,
    method: String,
    /// The caller's params, as JSON.
    params: String,
    /// The credential's digest for a `private` entry; `None` for a `public` one.
    credential: Option<[u8; 32]>,
}

struct Entry {
    result: Value,
    expires: Instant,
    seq: u64,
    bytes: usize,
    /// The URI of a `resources/read`, for `notifications/resources/updated`.
    uri: Option<String>,
}

impl Store {
    fn remove(&mut self, key: &Key) {
        if let Some(entry) = self.entries.remove(key) {
            self.order.remove(&entry.seq);
            self.bytes -= entry.bytes;
        }
    }

    /// Evict the oldest entries until `adding` more entries of `bytes` in all fit.
    fn make_room(&mut self, adding: usize, bytes: usize) {
        while !self.entries.is_empty()
            && (self.entries.len() + adding > self.max_entries
                || self.bytes + bytes > self.max_bytes)
        {
            let Some((_, key)) = self.order.pop_first() else {
                break;
            };
            if let Some(entry) = self.entries.remove(&key) {
                self.bytes -= entry.bytes;
            }
        }
    }

    fn retain(&mut self, keep: impl Fn(&Key, &Entry) -> bool) {
        let dropped: Vec<Key> = self
            .entries
            .iter()
            .filter(|(key, entry)| !keep(key, entry))
            .map(|(key, _)| key.clone())
            .collect();
        for key in &dropped {
            self.remove(key);
        }
    }
}

/// The hints of a result, when it is cacheable: how long, and whether private.
fn hints(result: &Value) -> Option<(Duration, bool)> {
    let ttl = result.get("ttlMs").and_then(Value::as_u64)?;
    if ttl == 0 {
        return None;
    }
    let private = match result.get("cacheScope").and_then(Value::as_str)? {
        "private" => true,
        "public" => false,
        _ => return None,
    };
    Some((Duration::from_millis(ttl).min(LONGEST_TTL), private))
}

/// Whether a request may be answered from the cache, or its result kept.
pub(crate) fn cacheable(method: &str, params: &Value) -> bool {
    CACHED_METHODS.contains(&method)
        && params.get("inputResponses").is_none()
        && params.get("requestState").is_none()
}

fn digest(parts: &[&[u8]]) -> [u8; 32] {
    let mut hasher = Sha256::new();
    for part in parts {
        // Length-prefixed, so ("ab", "c") and ("a", "bc") differ.
        hasher.update((part.len() as u64).to_be_bytes());
        hasher.update(part);
    }
    hasher.finalize().into()
}

/// One client's view of a [`Cache`]: its server and its credential.
#[derive(Clone)]
pub(crate) struct Bound {
    cache: Cache,
    /// Where the server is and what the client declares to it (capabilities, client info,
    /// log level): a server may answer differently to different declarations.
    server: Arc<str>,
    credential: [u8; 32],
}

/// Where a client's server is, as the cache tells servers apart: the URL, or the command.
pub(crate) fn http_server(url: &str) -> String {
    format!("http {url}")
}

/// The command of a stdio server, as the cache tells servers apart.
pub(crate) fn stdio_server(command: &tokio::process::Command) -> String {
    let command = command.as_std();
    let mut parts = vec![command.get_program().to_string_lossy().into_owned()];
    parts.extend(command.get_args().map(|a| a.to_string_lossy().into_owned()));
    if let Some(dir) = command.get_current_dir() {
        parts.push(format!("(in {})", dir.display()));
    }
    format!("stdio {}", serde_json::Value::from(parts))
}

/// The digest of a credential given as name/value pairs, in any order.
fn credential<'a>(pairs: impl Iterator<Item = (&'a [u8], &'a [u8])>) -> [u8; 32] {
    let mut pairs: Vec<(&[u8], &[u8])> = pairs.collect();
    pairs.sort();
    let parts: Vec<&[u8]> = pairs.iter().flat_map(|(n, v)| [*n, *v]).collect();
    digest(&parts)
}

/// The credential of an HTTP client: every header it was given.
pub(crate) fn http_credential(headers: &http::HeaderMap) -> [u8; 32] {
    credential(
        headers
            .iter()
            .map(|(name, value)| (name.as_str().as_bytes(), value.as_bytes())),
    )
}

/// The credential of a stdio client: the environment variables set (or removed) on the
/// command, where a stdio server finds its credentials.
pub(crate) fn stdio_credential(command: &tokio::process::Command) -> [u8; 32] {
    credential(command.as_std().get_envs().map(|(name, value)| {
        (
            name.as_encoded_bytes(),
            value.map_or(&b"\0unset"[..], |v| v.as_encoded_bytes()),
        )
    }))
}

impl Bound {
    /// `cache` as seen by a client of `server` declaring `declared` (its `_meta` without
    /// the protocol version), with `credential`.
    pub(crate) fn new(cache: Cache, server: &str, declared: &Value, credential: [u8; 32]) -> Bound {
        Bound {
            cache,
            server: format!("{server}\n{declared}").into(),
            credential,
        }
    }

    fn key(
        &self,
        version: &str,
        method: &str,
        params: &Value,
        private: bool,
        extra: &[(String, String)],
    ) -> Key {
        let credential = private.then(|| {
            if extra.is_empty() {
                self.credential
            } else {
                let mut parts: Vec<&[u8]> = vec![&self.credential];
                for (name, value) in extra {
                    parts.push(name.as_bytes());
                    parts.push(value.as_bytes());
                }
                digest(&parts)
            }
        });
        Key {
            server: self.server.clone(),
            version: version.to_owned(),
            method: method.to_owned(),
            params: params.to_string(),
            credential,
        }
    }

    /// A fresh result for `method` with the caller's `params`, sent with the request's own
    /// `headers`: this credential's private one, else a public one.
    pub(crate) fn lookup(
        &self,
        version: &str,
        method: &str,
        params: &Value,
        headers: &[(String, String)],
    ) -> Option<Value> {
        if !cacheable(method, params) {
            return None;
        }
        let now = Instant::now();
        let mut store = self.cache.lock();
        for private in [true, false] {
            let key = self.key(version, method, params, private, headers);
            match store.entries.get(&key) {
                Some(entry) if entry.expires > now => return Some(entry.result.clone()),
                Some(_) => store.remove(&key),
                None => {}
            }
        }
        None
    }

    /// Keep `result` (the final result of a request's first round) if its hints allow.
    pub(crate) fn store(
        &self,
        version: &str,
        method: &str,
        params: &Value,
        headers: &[(String, String)],
        result: &Value,
    ) {
        if !cacheable(method, params) {
            return;
        }
        let Some((ttl, private)) = hints(result) else {
            return;
        };
        let Some(expires) = Instant::now().checked_add(ttl) else {
            return;
        };
        let bytes = result.to_string().len();
        let key = self.key(version, method, params, private, headers);
        let uri = (method == "resources/read")
            .then(|| params.get("uri").and_then(Value::as_str).map(str::to_owned))
            .flatten();
        let mut store = self.cache.lock();
        store.remove(&key);
        // Whichever scope the server gives now, the other one's entry is stale.
        store.remove(&self.key(version, method, params, !private, headers));
        if bytes > store.max_bytes || store.max_entries == 0 {
            return;
        }
        store.make_room(1, bytes);
        let seq = store.next;
        store.next += 1;
        store.order.insert(seq, key.clone());
        store.bytes += bytes;
        store.entries.insert(
            key,
            Entry {
                result: result.clone(),
                expires,
                seq,
                bytes,
                uri,
            },
        );
    }

    /// Drop what a notification from the server says has changed.
    pub(crate) fn notified(&self, notification: &Value) {
        let method = notification.get("method").and_then(Value::as_str);
        let lists: &[&str] = match method {
            Some("notifications/tools/list_changed") => &["tools/list"],
            Some("notifications/prompts/list_changed") => &["prompts/list"],
            Some("notifications/resources/list_changed") => {
                &["resources/list", "resources/templates/list"]
            }
            Some("notifications/resources/updated") => {
                let Some(uri) = notification.pointer("/params/uri").and_then(Value::as_str) else {
                    return;
                };
                self.cache.lock().retain(|key, entry| {
                    key.server != self.server || entry.uri.as_deref() != Some(uri)
                });
                return;
            }
            _ => return,
        };
        self.cache
            .lock()
            .retain(|key, _| key.server != self.server || !lists.contains(&key.method.as_str()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bound(cache: &Cache, server: &str, credential: &str) -> Bound {
        Bound::new(
            cache.clone(),
            server,
            &json!({}),
            super::credential([(&b"authorization"[..], credential.as_bytes())].into_iter()),
        )
    }

    fn page(ttl: u64, scope: &str) -> Value {
        json!({"tools": [], "ttlMs": ttl, "cacheScope": scope})
    }

    const V: &str = "2026-07-28";

    fn keep(client: &Bound, method: &str, params: Value, result: Value) {
        client.store(V, method, &params, &[], &result);
    }

    fn find(client: &Bound, method: &str, params: Value) -> Option<Value> {
        client.lookup(V, method, &params, &[])
    }

    #[tokio::test(start_paused = true)]
    async fn an_entry_is_fresh_for_its_ttl_and_stale_after() {
        let cache = Cache::new();
        let client = bound(&cache, "http a", "A");
        keep(&client, "tools/list", json!({}), page(1000, "public"));
        tokio::time::advance(Duration::from_millis(999)).await;
        assert!(find(&client, "tools/list", json!({})).is_some());
        tokio::time::advance(Duration::from_millis(1)).await;
        assert!(find(&client, "tools/list", json!({})).is_none());
        // The stale entry is gone, not only hidden.
        assert!(cache.is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn a_ttl_past_one_day_counts_as_one_day() {
        let cache = Cache::new();
        let client = bound(&cache, "http a", "A");
        keep(&client, "tools/list", json!({}), page(u64::MAX, "public"));
        tokio::time::advance(LONGEST_TTL - Duration::from_millis(1)).await;
        assert!(find(&client, "tools/list", json!({})).is_some());
        tokio::time::advance(Duration::from_millis(1)).await;
        assert!(find(&client, "tools/list", json!({})).is_none());
    }

    // S-237, S-238: `ttlMs` is an integer >= 0 and `cacheScope` is public or private;
    // anything else is no hint at all.
    #[tokio::test]
    async fn results_without_usable_hints_are_not_kept() {
        let cache = Cache::new();
        let client = bound(&cache, "http a", "A");
        for result in [
            json!({"tools": []}),
            json!({"tools": [], "ttlMs": 1000}),
            json!({"tools": [], "cacheScope": "public"}),
            json!({"tools": [], "ttlMs": 0, "cacheScope": "public"}),
            json!({"tools": [], "ttlMs": -5, "cacheScope": "public"}),
            json!({"tools": [], "ttlMs": 1.5, "cacheScope": "public"}),
            json!({"tools": [], "ttlMs": 1000, "cacheScope": "everyone"}),
        ] {
            keep(&client, "tools/list", json!({}), result);
        }
        assert!(cache.is_empty());
    }

    #[tokio::test]
    async fn only_the_cacheable_methods_and_first_rounds_are_kept() {
        let cache = Cache::new();
        let client = bound(&cache, "http a", "A");
        keep(
            &client,
            "tools/call",
            json!({"name": "x"}),
            page(1000, "public"),
        );
        keep(
            &client,
            "prompts/get",
            json!({"name": "x"}),
            page(1000, "public"),
        );
        keep(
            &client,
            "resources/read",
            json!({"uri": "a://b", "inputResponses": {}}),
            page(1000, "public"),
        );
        keep(
            &client,
            "resources/read",
            json!({"uri": "a://b", "requestState": "s"}),
            page(1000, "public"),
        );
        assert!(cache.is_empty());
        for method in CACHED_METHODS {
            keep(&client, method, json!({}), page(1000, "public"));
            assert!(find(&client, method, json!({})).is_some(), "{method}");
        }
    }

    #[tokio::test]
    async fn private_entries_stay_with_their_credential_and_public_ones_are_shared() {
        let cache = Cache::new();
        let a = bound(&cache, "http a", "A");
        let b = bound(&cache, "http a", "B");
        keep(
            &a,
            "resources/read",
            json!({"uri": "x://mine"}),
            page(1000, "private"),
        );
        keep(
            &a,
            "resources/read",
            json!({"uri": "x://all"}),
            page(1000, "public"),
        );
        assert!(find(&a, "resources/read", json!({"uri": "x://mine"})).is_some());
        assert!(find(&b, "resources/read", json!({"uri": "x://mine"})).is_none());
        assert!(find(&b, "resources/read", json!({"uri": "x://all"})).is_some());
        // A request's own headers are part of its credential.
        let other = [("authorization".to_owned(), "Bearer C".to_owned())];
        assert!(a
            .lookup(V, "resources/read", &json!({"uri": "x://mine"}), &other)
            .is_none());
        // Another server sees nothing of this one's, public or not.
        let elsewhere = bound(&cache, "http b", "A");
        assert!(find(&elsewhere, "resources/read", json!({"uri": "x://all"})).is_none());
    }

    #[tokio::test]
    async fn entries_differ_by_params_and_version() {
        let cache = Cache::new();
        let client = bound(&cache, "http a", "A");
        keep(
            &client,
            "tools/list",
            json!({"cursor": "p2"}),
            page(1000, "public"),
        );
        assert!(find(&client, "tools/list", json!({})).is_none());
        assert!(find(&client, "tools/list", json!({"cursor": "p2"})).is_some());
        assert!(client
            .lookup("2027-01-01", "tools/list", &json!({"cursor": "p2"}), &[])
            .is_none());
    }

    #[tokio::test]
    async fn by_default_a_cache_holds_1024_entries_and_16_mib() {
        let cache = Cache::new();
        let client = bound(&cache, "http a", "A");
        for cursor in 0..=DEFAULT_MAX_ENTRIES {
            keep(
                &client,
                "tools/list",
                json!({"cursor": cursor}),
                page(1000, "public"),
            );
        }
        assert_eq!(cache.len(), 1024);
        assert!(find(&client, "tools/list", json!({"cursor": 0})).is_none());
        assert!(find(&client, "tools/list", json!({"cursor": 1})).is_some());

        let cache = Cache::new();
        let client = bound(&cache, "http a", "A");
        let big = json!({"tools": ["x".repeat(9 << 20)], "ttlMs": 1000, "cacheScope": "public"});
        keep(&client, "tools/list", json!({"cursor": 1}), big.clone());
        keep(&client, "tools/list", json!({"cursor": 2}), big);
        assert_eq!(cache.len(), 1);
        assert!(find(&client, "tools/list", json!({"cursor": 2})).is_some());
    }

    #[tokio::test]
    async fn the_oldest_entries_make_room_for_new_ones() {
        let cache = Cache::new().max_entries(2);
        let client = bound(&cache, "http a", "A");
        for cursor in ["1", "2", "3"] {
            keep(
                &client,
                "tools/list",
                json!({"cursor": cursor}),
                page(1000, "public"),
            );
        }
        assert_eq!(cache.len(), 2);
        assert!(find(&client, "tools/list", json!({"cursor": "1"})).is_none());
        assert!(find(&client, "tools/list", json!({"cursor": "3"})).is_some());

        let size = page(1000, "public").to_string().len();
        let cache = Cache::new().max_bytes(2 * size);
        let client = bound(&cache, "http a", "A");
        for cursor in ["1", "2", "3"] {
            keep(
                &client,
                "tools/list",
                json!({"cursor": cursor}),
                page(1000, "public"),
            );
        }
        assert_eq!(cache.len(), 2);
        assert!(find(&client, "tools/list", json!({"cursor": "1"})).is_none());
        // A result larger than the whole cache is not kept, and evicts nothing.
        let big = json!({"tools": ["x".repeat(3 * size)], "ttlMs": 1000, "cacheScope": "public"});
        keep(&client, "tools/list", json!({"cursor": "4"}), big);
        assert_eq!(cache.len(), 2);
        // Shrinking a cache in use evicts at once.
        let cache = cache.max_entries(1);
        assert_eq!(cache.len(), 1);
        let cache = cache.max_entries(0);
        keep(
            &client,
            "tools/list",
            json!({"cursor": "5"}),
            page(1000, "public"),
        );
        assert!(cache.is_empty());
    }

    #[tokio::test]
    async fn a_new_result_replaces_the_entry_of_either_scope() {
        let cache = Cache::new();
        let client = bound(&cache, "http a", "A");
        keep(&client, "tools/list", json!({}), page(1000, "private"));
        keep(&client, "tools/list", json!({}), page(2000, "public"));
        assert_eq!(cache.len(), 1);
        let found = find(&client, "tools/list", json!({})).unwrap_or_default();
        assert_eq!(found["cacheScope"], "public");
    }

    #[tokio::test]
    async fn notifications_drop_what_changed_on_that_server_only() {
        let cache = Cache::new();
        let a = bound(&cache, "http a", "A");
        let a2 = bound(&cache, "http a", "B");
        let other = bound(&cache, "http b", "A");
        for client in [&a, &a2, &other] {
            for method in CACHED_METHODS {
                keep(client, method, json!({}), page(1000, "private"));
            }
            keep(
                client,
                "tools/list",
                json!({"cursor": "2"}),
                page(1000, "private"),
            );
            keep(
                client,
                "resources/read",
                json!({"uri": "x://1"}),
                page(1000, "private"),
            );
            keep(
                client,
                "resources/read",
                json!({"uri": "x://2"}),
                page(1000, "public"),
            );
        }
        let cached =
            |client: &Bound, method: &str, params: Value| find(client, method, params).is_some();

        a.notified(&json!({"method": "notifications/tools/list_changed"}));
        for client in [&a, &a2] {
            assert!(!cached(client, "tools/list", json!({})));
            assert!(!cached(client, "tools/list", json!({"cursor": "2"})));
            assert!(cached(client, "prompts/list", json!({})));
        }
        assert!(cached(&other, "tools/list", json!({})));

        a.notified(&json!({"method": "notifications/prompts/list_changed"}));
        assert!(!cached(&a, "prompts/list", json!({})));
        assert!(cached(&a, "resources/list", json!({})));

        a.notified(&json!({"method": "notifications/resources/list_changed"}));
        assert!(!cached(&a, "resources/list", json!({})));
        assert!(!cached(&a, "resources/templates/list", json!({})));
        assert!(cached(&a, "resources/read", json!({"uri": "x://1"})));

        a.notified(
            &json!({"method": "notifications/resources/updated", "params": {"uri": "x://1"}}),
        );
        assert!(!cached(&a, "resources/read", json!({"uri": "x://1"})));
        assert!(!cached(&a2, "resources/read", json!({"uri": "x://1"})));
        assert!(cached(&a, "resources/read", json!({"uri": "x://2"})));
        assert!(cached(&other, "resources/read", json!({"uri": "x://1"})));
        assert!(cached(&a, "server/discover", json!({})));
    }

    #[tokio::test]
    async fn clear_empties_the_cache_for_every_client() {
        let cache = Cache::new();
        let a = bound(&cache, "http a", "A");
        let b = bound(&cache, "http b", "B");
        keep(&a, "tools/list", json!({}), page(1000, "public"));
        keep(&b, "tools/list", json!({}), page(1000, "private"));
        cache.clear();
        assert!(cache.is_empty());
        assert!(find(&a, "tools/list", json!({})).is_none());
    }

    #[tokio::test]
    async fn change_notifications_the_transports_pass_on_reach_the_cache() {
        let cache = Cache::new();
        let client = bound(&cache, "http a", "A");
        keep(&client, "tools/list", json!({}), page(1000, "public"));
        keep(
            &client,
            "resources/read",
            json!({"uri": "x://1"}),
            page(1000, "public"),
        );
        let invalidate = client.clone();
        let host = super::super::wire::Host {
            changed: Some(Arc::new(move |n: Value| invalidate.notified(&n))),
            ..Default::default()
        };
        // Other notifications change nothing.
        host.notified(
            &json!({"method": "notifications/message", "params": {}}),
            None,
        );
        assert_eq!(cache.len(), 2);
        host.notified(&json!({"method": "notifications/tools/list_changed"}), None);
        assert!(find(&client, "tools/list", json!({})).is_none());
        host.notified(
            &json!({"method": "notifications/resources/updated", "params": {"uri": "x://1"}}),
            None,
        );
        assert!(cache.is_empty());
    }

    #[tokio::test]
    async fn credentials_are_every_builder_header_or_the_commands_environment() {
        let headers = |pairs: &[(&'static str, &'static str)]| {
            let mut map = http::HeaderMap::new();
            for (name, value) in pairs {
                map.insert(*name, http::HeaderValue::from_static(value));
            }
            http_credential(&map)
        };
        let a = headers(&[("authorization", "Bearer a"), ("x-api-key", "k")]);
        assert_eq!(
            a,
            headers(&[("x-api-key", "k"), ("authorization", "Bearer a")])
        );
        assert_ne!(
            a,
            headers(&[("authorization", "Bearer a"), ("x-api-key", "j")])
        );
        assert_ne!(a, headers(&[("authorization", "Bearer a")]));

        let command = |env: &[(&str, &str)]| {
            let mut command = tokio::process::Command::new("server");
            command.arg("--stdio").envs(env.iter().copied());
            command
        };
        let alice = command(&[("API_TOKEN", "alice")]);
        let bob = command(&[("API_TOKEN", "bob")]);
        assert_eq!(stdio_server(&alice), stdio_server(&bob));
        assert_ne!(stdio_credential(&alice), stdio_credential(&bob));
        let mut unset = command(&[]);
        unset.env_remove("API_TOKEN");
        assert_ne!(stdio_credential(&unset), stdio_credential(&command(&[])));
        let mut verbose = command(&[]);
        verbose.arg("--verbose");
        assert_ne!(stdio_server(&command(&[])), stdio_server(&verbose));
        let mut elsewhere = command(&[("API_TOKEN", "alice")]);
        elsewhere.current_dir("/srv");
        assert_ne!(stdio_server(&alice), stdio_server(&elsewhere));

        // Clients with the same server and credential but other declarations share nothing.
        let cache = Cache::new();
        let plain = Bound::new(cache.clone(), "http a", &json!({}), a);
        let sampling = Bound::new(cache.clone(), "http a", &json!({"sampling": {}}), a);
        keep(&plain, "tools/list", json!({}), page(1000, "public"));
        assert!(find(&sampling, "tools/list", json!({})).is_none());
    }
}
