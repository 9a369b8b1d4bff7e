//! Limits on what one message, one call and one caller may consume: JSON nesting depth,
//! argument size, concurrent calls and call rate per principal, and the time a handler
//! may run. Each refusal is an error the client can read and back off from; none of them
//! disturbs other requests.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use governor::clock::{Clock as _, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use serde_json::json;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::protocol::{codes, RpcError};

/// The limits a server enforces (see the `Server` builder methods that set each).
#[derive(Debug, Clone)]
pub struct Limits {
    /// Deepest accepted nesting of arrays and objects in one message (default 64).
    pub max_json_depth: usize,
    /// Largest accepted `arguments` object of a `tools/call` or `prompts/get`, as JSON
    /// bytes (default 1 MiB).
    pub max_argument_bytes: usize,
    /// Most calls (`tools/call`, `resources/read`, `prompts/get`) one principal may have
    /// running at once (default 64). Anonymous callers share one allowance.
    pub max_concurrent_calls: usize,
    /// Longest a handler may run before its call fails and its cancellation fires
    /// (default 5 minutes; `None` for no limit).
    pub call_timeout: Option<Duration>,
    /// Calls per principal over time (default: unlimited).
    pub rate: Option<RateLimit>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_json_depth: 64,
            max_argument_bytes: 1024 * 1024,
            max_concurrent_calls: 64,
            call_timeout: Some(Duration::from_secs(300)),
            rate: None,
        }
    }
}

/// How many calls one principal may make: a sustained rate with a burst allowance (a
/// generic cell rate algorithm, so calls are spread out, not counted per window).
///
/// ```
/// use mcp_runtime::policy::limits::RateLimit;
///
/// // 10 calls a second on average, up to 20 at once after a quiet spell.
/// let limit = RateLimit::per_second(10).burst(20);
/// # let _ = limit;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    period: Duration,
    burst: u32,
}

impl RateLimit {
    /// `calls` per second, with a burst of the same size (at least one call).
    pub fn per_second(calls: u32) -> Self {
        Self::per(Duration::from_secs(1), calls)
    }

    /// `calls` per minute, with a burst of the same size (at least one call).
    pub fn per_minute(calls: u32) -> Self {
        Self::per(Duration::from_secs(60), calls)
    }

    fn per(window: Duration, calls: u32) -> Self {
        let calls = calls.max(1);
        RateLimit {
            period: window / calls,
            burst: calls,
        }
    }

    /// Allow up to `calls` at once after a quiet spell (at least one).
    pub fn burst(mut self, calls: u32) -> Self {
        self.burst = calls.max(1);
        self
    }

    fn quota(&self) -> Option<Quota> {
        let burst = NonZeroU32::new(self.burst)?;
        Quota::with_period(self.period.max(Duration::from_nanos(1))).map(|q| q.allow_burst(burst))
    }
}

/// A tool's name and version: what a gate is kept under.
type ToolVersion = (&'static str, Option<&'static str>);

/// Key under which anonymous callers are counted.
const ANONYMOUS: &str = "";

/// The running enforcement of [`Limits`]: counters per principal.
pub(crate) struct Limiter {
    limits: Limits,
    /// Calls running per authenticated principal; a principal leaves the map with its
    /// last call, so the map holds only callers that have calls running.
    running: Arc<Mutex<HashMap<Arc<str>, usize>>>,
    /// Calls running for anonymous callers, who share one allowance. A server without
    /// authentication counts every call here: one atomic update each way, no lock, no
    /// hashing, no allocation.
    anonymous: Arc<AtomicUsize>,
    rate: Option<(DefaultKeyedRateLimiter<String>, RateLimit)>,
    /// The gates of tools with a concurrency limit of their own, by name and version,
    /// made at their first call.
    gates: Mutex<HashMap<ToolVersion, Arc<Gate>>>,
}

/// Holds one principal's slot while a call runs; dropping it frees the slot.
pub(crate) enum Slot {
    /// One of the anonymous callers' shared slots.
    Anonymous(Arc<AtomicUsize>),
    /// One of this principal's slots.
    Principal {
        running: Arc<Mutex<HashMap<Arc<str>, usize>>>,
        key: Arc<str>,
    },
}

impl Drop for Slot {
    fn drop(&mut self) {
        match self {
            Slot::Anonymous(count) => {
                // Admission incremented it, so it is at least one here.
                count.fetch_sub(1, Ordering::AcqRel);
            }
            Slot::Principal { running, key } => {
                let mut running = running.lock().unwrap_or_else(|p| p.into_inner());
                if let Some(count) = running.get_mut(key) {
                    *count = count.saturating_sub(1);
                    if *count == 0 {
                        running.remove(key);
                    }
                }
            }
        }
    }
}

impl Limiter {
    pub(crate) fn new(limits: Limits) -> Limiter {
        let rate = limits
            .rate
            .and_then(|r| r.quota().map(|q| (RateLimiter::keyed(q), r)));
        Limiter {
            limits,
            running: Arc::default(),
            anonymous: Arc::default(),
            rate,
            gates: Mutex::default(),
        }
    }

    /// The gate of the tool `name` (at `version`) letting `running` calls run at once and
    /// `queue` wait.
    pub(crate) fn gate(&self, (name, version): ToolVersion, running: u32, queue: u32) -> Arc<Gate> {
        let mut gates = self.gates.lock().unwrap_or_else(|p| p.into_inner());
        gates
            .entry((name, version))
            .or_insert_with(|| Arc::new(Gate::new(running, queue)))
            .clone()
    }

    pub(crate) fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Admit one call of `subject` (`None`: anonymous), or say why not.
    pub(crate) fn admit(
        &self,
        subject: Option<&str>,
        target: &Called<'_>,
    ) -> Result<Slot, RpcError> {
        let key = subject.unwrap_or(ANONYMOUS);
        if let Some((limiter, limit)) = &self.rate {
            if let Err(not_until) = limiter.check_key(&key.to_owned()) {
                let wait = not_until.wait_time_from(DefaultClock::default().now());
                let retry_ms = crate::clock::millis(wait).max(1);
                // Forget callers that have been quiet long enough to be back at full burst.
                if limiter.len() > 10_000 {
                    limiter.retain_recent();
                }
                return Err(RpcError::new(
                    codes::RATE_LIMITED,
                    format!(
                        "Rate limit exceeded: {target} was refused; this caller may make {} call(s) at once and one more every {} ms. Retry after {retry_ms} ms.",
                        limit.burst,
                        limit.period.as_millis().max(1)
                    ),
                )
                .with_data(json!({ "retryAfterMs": retry_ms, "reason": "rate" })));
            }
        }
        let max = self.limits.max_concurrent_calls;
        if key == ANONYMOUS {
            return match self
                .anonymous
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                    (n < max).then_some(n + 1)
                }) {
                Ok(_) => Ok(Slot::Anonymous(self.anonymous.clone())),
                Err(_) => Err(too_many_calls(target, max)),
            };
        }
        let mut running = self.running.lock().unwrap_or_else(|p| p.into_inner());
        // A caller with calls running already has its key here; reuse it, so the common
        // case allocates nothing.
        let key: Arc<str> = match running.get_key_value(key) {
            Some((existing, _)) => existing.clone(),
            None => Arc::from(key),
        };
        let count = running.entry(key.clone()).or_insert(0);
        if *count >= max {
            return Err(too_many_calls(target, max));
        }
        *count += 1;
        Ok(Slot::Principal {
            running: self.running.clone(),
            key,
        })
    }

    /// -32602 when `arguments` is larger than allowed.
    pub(crate) fn check_arguments(
        &self,
        target: &Called<'_>,
        arguments: &impl serde::Serialize,
    ) -> Result<(), RpcError> {
        let max = self.limits.max_argument_bytes;
        let size = json_size(arguments);
        if size > max {
            return Err(RpcError::invalid_params(format!(
                "The arguments of {target} are {size} bytes of JSON; this server accepts at most {max}"
            ))
            .with_data(json!({ "maxBytes": max, "bytes": size })));
        }
        Ok(())
    }

    /// The error for a call that ran out of time.
    pub(crate) fn timed_out(target: &Called<'_>, after: Duration) -> RpcError {
        RpcError::new(
            codes::REQUEST_TIMEOUT,
            format!(
                "{target} did not finish within {} s and was cancelled",
                after.as_secs_f64()
            ),
        )
        .with_data(json!({ "timeoutMs": crate::clock::millis(after) }))
    }
}

/// What a call runs, as limits, logs and errors name it (`tool add`, `resource x://1`):
/// written out only when a message needs it, so a call allocates nothing for its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Called<'a> {
    kind: &'static str,
    name: &'a str,
}

impl<'a> Called<'a> {
    /// The `kind` (`tool`, `prompt`, `resource`, `completion of`) named `name`.
    pub(crate) fn new(kind: &'static str, name: &'a str) -> Self {
        Called { kind, name }
    }
}

impl std::fmt::Display for Called<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.kind, self.name)
    }
}

/// The refusal of a call beyond a caller's `max` concurrent calls.
/// One tool's own concurrency limit (`#[tool(concurrency = n, queue = m)]`): at most
/// `n` of its calls run at once on this instance, and at most `m` more wait for a turn,
/// first come first served; a call past both is refused at once. Shared by every
/// caller, because what it protects is the backend behind the tool.
pub(crate) struct Gate {
    turns: Arc<Semaphore>,
    running: u32,
    queue: u32,
    waiting: AtomicUsize,
}

/// A waiting call's place in the queue, given back when it gets its turn or gives up.
struct InLine<'a>(&'a AtomicUsize);

impl Drop for InLine<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Gate {
    pub(crate) fn new(running: u32, queue: u32) -> Gate {
        Gate {
            turns: Arc::new(Semaphore::new(running.max(1) as usize)),
            running: running.max(1),
            queue,
            waiting: AtomicUsize::new(0),
        }
    }

    /// A turn to run, waiting for one when every turn is taken and the queue has room
    /// (dropping the turn gives it to the next in line); refused when it has none.
    pub(crate) async fn enter(
        &self,
        target: &Called<'_>,
    ) -> Result<OwnedSemaphorePermit, RpcError> {
        if let Ok(turn) = self.turns.clone().try_acquire_owned() {
            return Ok(turn);
        }
        let queue = self.queue as usize;
        if self
            .waiting
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < queue).then_some(n + 1)
            })
            .is_err()
        {
            return Err(RpcError::new(
                codes::RATE_LIMITED,
                format!(
                    "{target} is busy: {} call(s) of it are running and {queue} waiting, as many as it takes at once. Retry when one has finished.",
                    self.running
                ),
            )
            .with_data(json!({
                "retryAfterMs": 100,
                "reason": "tool_concurrency",
                "maxConcurrent": self.running,
                "maxWaiting": queue
            })));
        }
        let _in_line = InLine(&self.waiting);
        // The semaphore is never closed, so waiting ends with a turn.
        self.turns
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| RpcError::internal(format!("{target} could not be given a turn to run")))
    }
}

fn too_many_calls(target: &Called<'_>, max: usize) -> RpcError {
    RpcError::new(
        codes::RATE_LIMITED,
        format!(
            "Too many concurrent calls: {target} was refused because this caller already has {max} call(s) running. Retry when one has finished."
        ),
    )
    .with_data(json!({ "retryAfterMs": 100, "reason": "concurrency", "maxConcurrent": max }))
}

/// Serialized size of a JSON value in bytes, without building the text.
pub(crate) fn json_size(value: &impl serde::Serialize) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 = self.0.saturating_add(buf.len());
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        Err(_) => usize::MAX,
    }
}

/// `Err` with a -32600 error when the JSON text nests arrays and objects deeper than
/// `max`. Scans the bytes without parsing them, so a hostile message is refused before a
/// parser recurses into it.
pub(crate) fn check_depth(bytes: &[u8], max: usize) -> Result<(), RpcError> {
    // Fewer opening brackets than the limit, strings included, cannot nest deeper than it;
    // counting them is a vectorised pass, far cheaper than the scan below. `[` and `{`
    // differ only in bit 0x20, and byte-sized counters over runs of at most 255 bytes
    // (which cannot overflow) let the compiler count 16 or 32 bytes per instruction.
    let openers: usize = bytes
        .chunks(255)
        .map(|run| {
            let count = run
                .iter()
                .fold(0u8, |n, &b| n.wrapping_add(u8::from(b | 0x20 == b'{')));
            usize::from(count)
        })
        .sum();
    if openers <= max {
        return Ok(());
    }
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in bytes {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return Err(RpcError::invalid_request(format!(
                        "The message nests arrays and objects more than {max} levels deep; this server accepts at most {max}"
                    ))
                    .with_data(json!({ "maxDepth": max })));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_is_counted_outside_strings() {
        assert!(check_depth(br#"{"a":[[1]]}"#, 3).is_ok());
        assert!(check_depth(br#"{"a":[[[1]]]}"#, 3).is_err());
        assert!(check_depth(br#"{"a":"[[[[[[\"[[[["}"#, 1).is_ok());
        let deep = "[".repeat(100_000);
        let error = check_depth(deep.as_bytes(), 64).unwrap_err();
        assert_eq!(error.code, codes::INVALID_REQUEST);
    }

    #[test]
    fn sizes_match_serialization() {
        use serde_json::Value;
        let v: Value = json!({"a": "é", "b": [1, 2.5, null]});
        assert_eq!(json_size(&v), serde_json::to_vec(&v).unwrap().len());
    }

    #[test]
    fn concurrency_slots_are_per_principal_and_freed() {
        let limiter = Limiter::new(Limits {
            max_concurrent_calls: 2,
            ..Limits::default()
        });
        let a1 = limiter.admit(Some("a"), &Called::new("tool", "t")).unwrap();
        let a2 = limiter.admit(Some("a"), &Called::new("tool", "t")).unwrap();
        let refused = limiter
            .admit(Some("a"), &Called::new("tool", "t"))
            .err()
            .unwrap();
        assert_eq!(refused.code, codes::RATE_LIMITED);
        assert!(limiter.admit(Some("b"), &Called::new("tool", "t")).is_ok());
        drop(a1);
        assert!(limiter.admit(Some("a"), &Called::new("tool", "t")).is_ok());
        // The last slot of a principal takes its entry with it.
        drop(a2);
        assert!(limiter.running.lock().unwrap().get("a").is_none());
    }

    #[test]
    fn anonymous_callers_share_one_allowance() {
        let limiter = Limiter::new(Limits {
            max_concurrent_calls: 2,
            ..Limits::default()
        });
        let first = limiter.admit(None, &Called::new("tool", "t")).unwrap();
        // A principal whose subject is empty is counted with the anonymous callers.
        let second = limiter.admit(Some(""), &Called::new("tool", "t")).unwrap();
        let refused = limiter
            .admit(None, &Called::new("tool", "add"))
            .err()
            .unwrap();
        assert_eq!(refused.code, codes::RATE_LIMITED);
        assert!(refused.message.contains("tool add"));
        assert_eq!(refused.data.unwrap()["reason"], "concurrency");
        // Named principals have allowances of their own.
        assert!(limiter.admit(Some("a"), &Called::new("tool", "t")).is_ok());
        drop(first);
        let third = limiter.admit(None, &Called::new("tool", "t")).unwrap();
        drop((second, third));
        assert_eq!(limiter.anonymous.load(Ordering::Acquire), 0);
    }

    #[test]
    fn anonymous_slots_stay_within_the_limit_across_threads() {
        let limiter = Arc::new(Limiter::new(Limits {
            max_concurrent_calls: 3,
            ..Limits::default()
        }));
        let peak = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let (limiter, peak) = (limiter.clone(), peak.clone());
                std::thread::spawn(move || {
                    for _ in 0..2_000 {
                        if let Ok(slot) = limiter.admit(None, &Called::new("tool", "t")) {
                            let now = limiter.anonymous.load(Ordering::Acquire);
                            peak.fetch_max(now, Ordering::AcqRel);
                            drop(slot);
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert!(peak.load(Ordering::Acquire) <= 3);
        assert!(peak.load(Ordering::Acquire) >= 1);
        assert_eq!(limiter.anonymous.load(Ordering::Acquire), 0);
    }

    #[test]
    fn rate_limit_refuses_then_recovers() {
        // One call every 500 ms: the third call is refused unless half a second passes
        // between the first and the third, which a loaded test machine does not stretch
        // three in-memory calls to (a 1 ms period did, on CI).
        let limiter = Limiter::new(Limits {
            rate: Some(RateLimit::per_second(2).burst(2)),
            ..Limits::default()
        });
        assert!(limiter.admit(Some("a"), &Called::new("tool", "t")).is_ok());
        assert!(limiter.admit(Some("a"), &Called::new("tool", "t")).is_ok());
        let refused = limiter
            .admit(Some("a"), &Called::new("tool", "t"))
            .err()
            .unwrap();
        assert_eq!(refused.code, codes::RATE_LIMITED);
        let wait = refused.data.unwrap()["retryAfterMs"].as_u64().unwrap();
        assert!((1..=500).contains(&wait), "{wait}");
        assert!(limiter.admit(Some("b"), &Called::new("tool", "t")).is_ok());
        std::thread::sleep(Duration::from_millis(wait + 5));
        assert!(limiter.admit(Some("a"), &Called::new("tool", "t")).is_ok());
    }
}
