//! The store of handshake-era HTTP sessions: each session's era state beside its streams
//! and running requests, bounded in number, ended when idle, and opened from a portable
//! (sealed) id on an instance that has not seen it yet.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::clock::now_ms;
use crate::core::{Core, FrameSink};
use crate::era::legacy::{LegacyConfig, Portable, Session};
use crate::policy::principal::Principal;
use crate::transport::in_flight::InFlight;

use super::event_log::EventLog;

/// Finished response streams kept per session for clients that come back for them.
const KEPT_STREAMS: usize = 16;

/// What a sealed session id is bound to.
pub(super) const SESSION_PURPOSE: &str = "mcp-session-id";

/// How long after `initialize` a session id can open its session on another instance.
const PORTABLE_FOR: Duration = Duration::from_secs(24 * 3600);

/// Longest portable id; a larger session (huge capabilities) gets a random, local id.
pub(super) const MAX_PORTABLE_ID: usize = 4096;

/// Ended session ids remembered so they do not open again here.
const MAX_ENDED: usize = 100_000;

/// Events kept on a session's own stream (list changes and resource updates, which a
/// client that missed some only needs to see once to list or read again).
const SESSION_STREAM_EVENTS: usize = 64;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A poisoned lock only means a task panicked mid-update; the data stays usable.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// One session as HTTP sees it: the era state plus its streams and running requests.
pub(super) struct HttpSession {
    pub(super) session: Arc<Session>,
    /// The session's own stream (id 0): list changes, resource updates, and requests to
    /// clients that do not take event streams on `POST`.
    pub(super) standalone: Arc<EventLog>,
    /// Response streams of `POST` requests, newest last.
    posts: Mutex<VecDeque<Arc<EventLog>>>,
    next_stream: AtomicU64,
    last_seen: Mutex<Instant>,
    /// Streams a client is connected to; a session with one is never idle.
    open_streams: AtomicUsize,
    pub(super) in_flight: InFlight,
}

impl HttpSession {
    /// A client connects to one of the session's streams: counted until the returned
    /// guard drops, so the session is not idle meanwhile.
    pub(super) fn connect(self: &Arc<Self>) -> Connected {
        self.open_streams.fetch_add(1, Ordering::Relaxed);
        Connected(self.clone())
    }

    fn touch(&self) {
        *lock(&self.last_seen) = Instant::now();
    }

    fn idle_for(&self) -> Duration {
        lock(&self.last_seen).elapsed()
    }

    fn is_busy(&self) -> bool {
        self.open_streams.load(Ordering::Relaxed) > 0 || !self.in_flight.is_empty()
    }

    pub(super) fn end(&self) {
        self.session.ended.cancel();
        self.in_flight.cancel_all();
        self.standalone.close();
    }

    pub(super) fn new_stream(&self, capacity: usize) -> Arc<EventLog> {
        let id = self.next_stream.fetch_add(1, Ordering::Relaxed);
        let log = Arc::new(EventLog::new(id, capacity));
        let mut posts = lock(&self.posts);
        posts.push_back(log.clone());
        // Forget the oldest finished streams beyond the limit; running ones stay.
        while posts.len() > KEPT_STREAMS {
            match posts.iter().position(|l| l.is_done()) {
                Some(i) => {
                    posts.remove(i);
                }
                None => break,
            }
        }
        log
    }

    pub(super) fn stream(&self, id: u64) -> Option<Arc<EventLog>> {
        if id == 0 {
            return Some(self.standalone.clone());
        }
        lock(&self.posts).iter().find(|l| l.stream() == id).cloned()
    }
}

/// Counts a connected stream for the session's idle check.
pub(super) struct Connected(Arc<HttpSession>);

impl Drop for Connected {
    fn drop(&mut self) {
        self.0.open_streams.fetch_sub(1, Ordering::Relaxed);
        self.0.touch();
    }
}

/// The live sessions by id (see `Sessions::map`).
type Live = HashMap<String, Arc<HttpSession>, foldhash::fast::RandomState>;

/// The session store: bounded, with idle expiry checked on use.
pub(crate) struct Sessions {
    pub(super) config: Arc<LegacyConfig>,
    /// The live sessions. Only ids a server made get in (drawn at random, or sealed with
    /// the store's key and opened before they are revived), so the map needs no defence
    /// against chosen keys and hashes with foldhash rather than SipHash. The ended ids
    /// below can come from clients and keep std's hasher.
    map: Mutex<Live>,
    /// Sessions ended here (DELETE, idle expiry, eviction), with when: their ids stay
    /// ended for as long as they could otherwise open again.
    ended: Mutex<HashMap<String, Instant>>,
    /// When expired sessions were last swept out.
    swept: Mutex<Instant>,
}

impl Sessions {
    /// An empty store ending sessions as `config` says.
    pub(crate) fn new(config: Arc<LegacyConfig>) -> Self {
        Sessions {
            config,
            map: Mutex::default(),
            ended: Mutex::default(),
            swept: Mutex::new(Instant::now()),
        }
    }

    fn expired(&self, entry: &HttpSession) -> bool {
        entry.idle_for() >= self.config.session_idle_timeout && !entry.is_busy()
    }

    /// End expired sessions: on every insert, and otherwise at most every quarter of the
    /// idle timeout, so sessions nobody comes back to do not linger with their tasks.
    fn sweep(&self, map: &mut Live, force: bool) {
        {
            let mut swept = lock(&self.swept);
            if !force && swept.elapsed() < self.config.session_idle_timeout / 4 {
                return;
            }
            *swept = Instant::now();
        }
        let expired: Vec<String> = map
            .iter()
            .filter(|(_, e)| self.expired(e))
            .map(|(k, _)| k.clone())
            .collect();
        for key in expired {
            if let Some(gone) = map.remove(&key) {
                tracing::debug!("a session expired after being idle");
                gone.end();
                self.remember_ended(key);
            }
        }
    }

    /// Keep `id` from opening again here.
    fn remember_ended(&self, id: String) {
        let mut ended = lock(&self.ended);
        if ended.len() >= MAX_ENDED {
            ended.retain(|_, at| at.elapsed() < PORTABLE_FOR);
            if ended.len() >= MAX_ENDED {
                // Still full: forget the oldest half rather than grow without bound.
                let mut ages: Vec<Instant> = ended.values().copied().collect();
                ages.sort_unstable();
                if let Some(cut) = ages.get(ages.len() / 2).copied() {
                    ended.retain(|_, at| *at > cut);
                }
            }
        }
        ended.insert(id, Instant::now());
    }

    fn was_ended(&self, id: &str) -> bool {
        lock(&self.ended).contains_key(id)
    }

    pub(super) fn insert(&self, id: String, entry: Arc<HttpSession>) {
        let mut map = lock(&self.map);
        self.sweep(&mut map, true);
        while map.len() >= self.config.max_sessions.max(1) {
            let oldest = map
                .iter()
                .max_by_key(|(_, e)| e.idle_for())
                .map(|(k, _)| k.clone());
            match oldest.and_then(|key| map.remove(&key).map(|gone| (key, gone))) {
                Some((key, gone)) => {
                    tracing::info!("session store full: ended the least recently used session");
                    gone.end();
                    self.remember_ended(key);
                }
                None => break,
            }
        }
        map.insert(id, entry);
    }

    /// Open the session a portable id names, unless it is open here already (then that
    /// one), ended here, expired, not this server's, or another principal's.
    pub(super) fn revive(
        &self,
        core: &Arc<Core>,
        id: &str,
        principal: Option<&Principal>,
    ) -> Option<Arc<HttpSession>> {
        if self.was_ended(id) {
            return None;
        }
        let plain = core
            .rounds
            .sealer()
            .open_with(SESSION_PURPOSE.as_bytes(), id, MAX_PORTABLE_ID)
            .ok()?;
        let portable: Portable = serde_json::from_slice(&plain).ok()?;
        let (session, opened_ms) = Session::restore(&self.config, portable)?;
        let age = now_ms().saturating_sub(opened_ms);
        if u128::from(age) > PORTABLE_FOR.as_millis() || !session.admits(principal) {
            return None;
        }
        let mut map = lock(&self.map);
        if let Some(existing) = map.get(id) {
            // Opened by a request that came in at the same moment.
            return Some(existing.clone());
        }
        let entry = open_entry(core, session);
        map.insert(id.to_owned(), entry.clone());
        drop(map);
        tracing::info!("handshake-era session opened here from its portable id");
        Some(entry)
    }

    /// The live session `id`, if it exists, has not idled out and belongs to `principal`.
    pub(super) fn get(&self, id: &str, principal: Option<&Principal>) -> Option<Arc<HttpSession>> {
        let mut map = lock(&self.map);
        self.sweep(&mut map, false);
        let entry = map.get(id)?.clone();
        if self.expired(&entry) {
            map.remove(id);
            drop(map);
            entry.end();
            self.remember_ended(id.to_owned());
            tracing::debug!("a session expired after being idle");
            return None;
        }
        if !entry.session.admits(principal) {
            tracing::warn!("refused a session id presented by another principal");
            return None;
        }
        entry.touch();
        Some(entry)
    }

    pub(super) fn remove(&self, id: &str) -> Option<Arc<HttpSession>> {
        let gone = lock(&self.map).remove(id);
        self.remember_ended(id.to_owned());
        gone
    }

    /// End every session (the server is shutting down).
    pub(crate) fn end_all(&self) {
        for (_, entry) in lock(&self.map).drain() {
            entry.end();
        }
    }
}

/// A session's HTTP side, with its forwarder of list changes started.
pub(super) fn open_entry(core: &Arc<Core>, session: Arc<Session>) -> Arc<HttpSession> {
    let entry = Arc::new(HttpSession {
        session: session.clone(),
        standalone: Arc::new(EventLog::new(0, SESSION_STREAM_EVENTS)),
        posts: Mutex::default(),
        next_stream: AtomicU64::new(1),
        last_seen: Mutex::new(Instant::now()),
        open_streams: AtomicUsize::new(0),
        in_flight: InFlight::default(),
    });
    tokio::spawn(session.forward_changes(core, entry.standalone.clone() as Arc<dyn FrameSink>));
    entry
}
