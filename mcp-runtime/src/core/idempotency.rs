//! Idempotency keys: `#[tool(idempotency)]`.
//!
//! Such a tool publishes an optional `idempotencyKey` argument. A call that carries one is
//! recorded in the server's store, under the tool, the caller (principal and tenant) and
//! the key, as *running* (with a lease its instance renews) before the handler runs; its
//! outcome replaces the record when the handler returns. A retry with the same key then:
//!
//! - gets the recorded outcome back, without the handler running again, when its
//!   arguments are the same;
//! - is refused (`idempotency_conflict`) when they differ;
//! - waits for a running first call, up to a bound, then answers `in_progress`;
//! - is answered `outcome_unknown` when the first call's instance died before recording
//!   an outcome: the write may or may not have happened, so it is never run again.
//!
//! Refusals before the handler (invalid arguments, authorization, a bad `requestState`)
//! record nothing, so a corrected retry runs; so does an `input_required` round, whose
//! next round claims the key again.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Duration;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::clock::{millis, now_ms};
use crate::protocol::{CallToolResult, RpcError};
use crate::store::{Records, StoreError};

use super::failure::business_error;
use super::RequestContext;

use crate::registry::spec::{IDEMPOTENCY_KEY, MAX_IDEMPOTENCY_KEY_CHARS};

/// How idempotency records are kept (see the `Server` builder).
#[derive(Debug, Clone, Copy)]
pub(crate) struct IdempotencyConfig {
    /// How long an outcome is kept after the call that made it.
    pub(crate) ttl: Duration,
    /// How long a retry waits for a running first call.
    pub(crate) wait: Duration,
}

impl Default for IdempotencyConfig {
    fn default() -> Self {
        IdempotencyConfig {
            ttl: Duration::from_secs(24 * 3600),
            wait: Duration::from_secs(10),
        }
    }
}

/// Take the key out of a call's arguments (the handler never sees it): `None` without
/// one, or what is wrong with it, for the model to fix.
pub(crate) fn take_key(arguments: &mut Map<String, Value>) -> Result<Option<String>, String> {
    match arguments.remove(IDEMPOTENCY_KEY) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(key))
            if (1..=MAX_IDEMPOTENCY_KEY_CHARS).contains(&key.len())
                && key.bytes().all(|b| b.is_ascii_graphic()) =>
        {
            Ok(Some(key))
        }
        Some(_) => Err(format!(
            "argument /{IDEMPOTENCY_KEY}: must be a string of 1 to {MAX_IDEMPOTENCY_KEY_CHARS} visible ASCII characters (no spaces), such as a UUID"
        )),
    }
}

/// One key's record.
#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    /// Digest of the arguments it was first used with.
    arguments: String,
    /// When the first call started, milliseconds since the epoch.
    started_at_ms: u64,
    #[serde(flatten)]
    state: State,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
enum State {
    /// A call runs on `owner`, which renews its lease.
    Running { owner: String, lease_until_ms: u64 },
    /// The call's result: its JSON text, so that a retry gets the very bytes the first
    /// call did (structured content is kept as the text it was sent as). A record
    /// written as a JSON object, as earlier versions did, reads too.
    Done { result: Value },
    /// The call became this task (the `CreateTaskResult` given out).
    Task { task: Map<String, Value> },
    /// The call's instance stopped before recording an outcome.
    Unknown,
}

/// The idempotency records of one server. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Idempotency {
    records: Records,
    config: IdempotencyConfig,
    lease: Duration,
    /// This process, as lease owner.
    instance: Arc<str>,
}

/// What a call under a key does.
pub(crate) enum Begin {
    /// Run the handler; report how it went to the claim.
    Run(Claim),
    /// Answer this without running it.
    Answer(Answer),
}

/// The answer to a call under a key that does not run.
pub(crate) enum Answer {
    /// This tool result: the recorded one, or a refusal (`idempotency_conflict`,
    /// `in_progress`, `outcome_unknown`).
    Result(CallToolResult),
    /// The task the first call became.
    Task(Map<String, Value>),
    /// The record cannot be read or written.
    Error(RpcError),
}

/// How a claimed call ended, for its record.
pub(crate) enum Settled {
    /// With this result (`isError` ones included): kept for retries.
    Result(CallToolResult),
    /// As this task: retries get the same task.
    Task(Map<String, Value>),
    /// Before the handler did anything, or needing the client's input first: the record
    /// goes, so the next call under the key runs.
    Release,
    /// The handler was stopped midway (a panic, a timeout, shutdown): what it did is not
    /// known, so the key answers `outcome_unknown` from now on.
    Unknown,
}

impl Idempotency {
    pub(crate) fn new(
        records: Records,
        config: IdempotencyConfig,
        lease: Duration,
        instance: String,
    ) -> Idempotency {
        Idempotency {
            records,
            config,
            lease,
            instance: instance.into(),
        }
    }

    /// Claim `key` for a call of `tool` with `arguments`, or the answer it gets instead.
    pub(crate) async fn begin(
        &self,
        ctx: &RequestContext,
        tool: &str,
        key: &str,
        arguments: &Map<String, Value>,
    ) -> Begin {
        let record = record_key(ctx, tool, key);
        let digest = digest(arguments);
        let deadline = now_ms().saturating_add(millis(self.config.wait));
        let mut pause = Duration::from_millis(25);
        loop {
            match self.step(&record, &digest, tool, key).await {
                Ok(Some(begin)) => return begin,
                Ok(None) if now_ms() >= deadline => {
                    return Begin::Answer(refusal(
                        "in_progress",
                        format!(
                            "A call of {tool} with idempotency key `{key}` is still running. Call again with the same key and arguments in a few seconds to get its outcome; do not switch to a new key, or the operation may happen twice."
                        ),
                    ))
                }
                Ok(None) => {
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(Duration::from_millis(250));
                }
                Err(e) => {
                    tracing::error!(tool, "idempotency record unavailable: {e}");
                    return Begin::Answer(Answer::Error(RpcError::internal(
                        "Internal error: the server cannot check this idempotency key (its store is unavailable), so the call did not run; try again shortly with the same key",
                    )));
                }
            }
        }
    }

    /// One look at the record: claim it, answer from it, or `None` to wait for a
    /// running call.
    async fn step(
        &self,
        record: &str,
        digest: &str,
        tool: &str,
        key: &str,
    ) -> Result<Option<Begin>, StoreError> {
        let now = now_ms();
        let Some(found) = self.records.load::<Entry>(record).await? else {
            let entry = Entry {
                arguments: digest.to_owned(),
                started_at_ms: now,
                state: State::Running {
                    owner: self.instance.to_string(),
                    lease_until_ms: now.saturating_add(millis(self.lease)),
                },
            };
            let claimed = self
                .records
                .insert(record, &entry, self.expiry(now))
                .await?;
            return Ok(claimed.then(|| {
                Begin::Run(Claim {
                    idempotency: self.clone(),
                    record: record.to_owned(),
                    progress: Arc::default(),
                    settled: false,
                })
            }));
        };
        let entry = found.value;
        if entry.arguments != digest {
            return Ok(Some(Begin::Answer(refusal(
                "idempotency_conflict",
                format!(
                    "The idempotency key `{key}` was already used for a call of {tool} with different arguments. Use a new key for a new operation, or repeat the original arguments to get that call's outcome."
                ),
            ))));
        }
        match entry.state {
            State::Done { result } => Ok(Some(Begin::Answer(match recorded(result) {
                Ok(result) => Answer::Result(result),
                Err(e) => {
                    tracing::error!(tool, "a recorded outcome does not decode: {e}");
                    Answer::Error(RpcError::internal(
                            "Internal error: the outcome recorded under this idempotency key cannot be read",
                        ))
                }
            }))),
            State::Task { task } => Ok(Some(Begin::Answer(Answer::Task(task)))),
            State::Unknown => Ok(Some(Begin::Answer(unknown(tool, key, entry.started_at_ms)))),
            State::Running { lease_until_ms, .. } if lease_until_ms < now => {
                // Its instance stopped renewing: it died (or lost the store) mid-call.
                let started_at_ms = entry.started_at_ms;
                let marked = self
                    .records
                    .replace(
                        record,
                        found.version,
                        &Entry {
                            state: State::Unknown,
                            ..entry
                        },
                        found.expires_at_ms,
                    )
                    .await?;
                if !marked {
                    // Someone else decided first: look again.
                    return Ok(None);
                }
                tracing::warn!(tool, "a call under an idempotency key was left unfinished by its instance; its outcome is unknown");
                Ok(Some(Begin::Answer(unknown(tool, key, started_at_ms))))
            }
            State::Running { .. } => Ok(None),
        }
    }

    fn expiry(&self, from: u64) -> u64 {
        from.saturating_add(millis(self.config.ttl))
    }
}

/// The record's key: a digest of the tool, the caller and the key, so keys of different
/// tools, principals and tenants never meet, and the stored key has a fixed length.
fn record_key(ctx: &RequestContext, tool: &str, key: &str) -> String {
    let principal = ctx.principal();
    let mut hash = Sha256::new();
    super::canonical::hash_caller(&mut hash, tool, principal);
    hash.update(key.as_bytes());
    hash.update([0]);
    // Anonymous and a principal with an empty name stay apart.
    hash.update([u8::from(principal.is_some())]);
    format!("idem:{}", URL_SAFE_NO_PAD.encode(hash.finalize()))
}

/// A digest of the arguments, the same whatever order their keys came in.
/// The result a record holds: its JSON text, or (written by an earlier version) the
/// result as a JSON object.
fn recorded(result: Value) -> Result<CallToolResult, serde_json::Error> {
    match result {
        Value::String(text) => serde_json::from_str(&text),
        other => serde_json::from_value(other),
    }
}

fn digest(arguments: &Map<String, Value>) -> String {
    let mut canonical = Vec::with_capacity(64);
    super::canonical::canonical_object(arguments, &mut canonical);
    URL_SAFE_NO_PAD.encode(Sha256::digest(&canonical))
}

fn refusal(code: &str, message: String) -> Answer {
    Answer::Result(business_error(code, message))
}

fn unknown(tool: &str, key: &str, started_at_ms: u64) -> Answer {
    refusal(
        "outcome_unknown",
        format!(
            "A call of {tool} with idempotency key `{key}` started at {} but its outcome was never recorded: the server running it stopped midway, so the operation may or may not have happened. Check the current state before doing anything else; if it did not happen, call again with a new idempotency key.",
            crate::clock::iso8601(started_at_ms)
        ),
    )
}

/// A claimed key: the handler may run. Report its end with [`Claim::settle`]. A claim
/// dropped without that (the call was abandoned: its HTTP client went away, which cancels
/// it) settles by itself: released when its handler had not started, `outcome_unknown`
/// when it had.
pub(crate) struct Claim {
    idempotency: Idempotency,
    record: String,
    /// How far the handler got (0: not started, so nothing can have happened), set by the
    /// call's future.
    progress: Arc<AtomicU8>,
    /// Settled by [`Claim::settle`]; dropping it then records nothing more.
    settled: bool,
}

impl Claim {
    /// Where the call's future marks how far the handler got.
    pub(crate) fn progress(&self) -> Arc<AtomicU8> {
        self.progress.clone()
    }

    /// How far the handler got.
    pub(crate) fn handler_progress(&self) -> u8 {
        self.progress.load(Ordering::Acquire)
    }

    /// Run `work`, renewing the claim's lease until it ends.
    pub(crate) async fn renewing<T>(&self, work: impl std::future::Future<Output = T>) -> T {
        let lease = self.idempotency.lease;
        tokio::pin!(work);
        let mut renew = tokio::time::interval((lease / 3).max(Duration::from_millis(50)));
        renew.tick().await;
        loop {
            tokio::select! {
                out = &mut work => return out,
                _ = renew.tick() => self.renew().await,
            }
        }
    }

    async fn renew(&self) {
        let owner = self.idempotency.instance.clone();
        let until = now_ms().saturating_add(millis(self.idempotency.lease));
        let renewed = self
            .idempotency
            .records
            .modify(&self.record, |entry: &mut Entry, _| {
                match &mut entry.state {
                    State::Running {
                        owner: holder,
                        lease_until_ms,
                    } if **holder == *owner => {
                        *lease_until_ms = until;
                        true
                    }
                    _ => false,
                }
            })
            .await;
        if let Err(e) = renewed {
            // Keep working; the next renewal tries again.
            tracing::warn!("could not renew an idempotency lease: {e}");
        }
    }

    /// Record how the call ended.
    pub(crate) async fn settle(mut self, settled: Settled) {
        self.settled = true;
        record(&self.idempotency, &self.record, settled).await;
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        if self.settled {
            return;
        }
        // Abandoned mid-call. Say so now, rather than leave retries waiting for the lease
        // to run out.
        let settled = match self.progress.load(Ordering::Acquire) {
            0 => Settled::Release,
            _ => Settled::Unknown,
        };
        let (idempotency, key) = (self.idempotency.clone(), self.record.clone());
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move { record(&idempotency, &key, settled).await });
        }
    }
}

/// Record how the call under `key` ended, if this instance still holds it.
async fn record(idempotency: &Idempotency, key: &str, settled: Settled) {
    let owner = idempotency.instance.clone();
    let held = |entry: &Entry| matches!(&entry.state, State::Running { owner: holder, .. } if **holder == *owner);
    let outcome = match settled {
        Settled::Release => {
            let removed = match idempotency.records.load::<Entry>(key).await {
                Ok(Some(found)) if held(&found.value) => idempotency
                    .records
                    .remove(key, found.version)
                    .await
                    .map(|_| ()),
                Ok(_) => Ok(()),
                Err(e) => Err(e),
            };
            if let Err(e) = removed {
                // The lease runs out; a retry then gets `outcome_unknown`.
                tracing::warn!("could not release an idempotency key: {e}");
            }
            return;
        }
        Settled::Result(result) => match serde_json::to_string(&result) {
            Ok(text) => State::Done {
                result: Value::String(text),
            },
            Err(e) => {
                tracing::error!("a tool result does not serialize for its record: {e}");
                State::Unknown
            }
        },
        Settled::Task(task) => State::Task { task },
        Settled::Unknown => State::Unknown,
    };
    let expiry = idempotency.expiry(now_ms());
    let mut landed = false;
    let stored = idempotency
        .records
        .modify(key, |entry: &mut Entry, expires| {
            landed = held(entry);
            if landed {
                entry.state = outcome.clone();
                *expires = expiry;
            }
            landed
        })
        .await;
    match stored {
        Ok(Some(_)) if landed => {}
        Ok(_) => tracing::warn!(
            "an idempotency record changed under its call (its lease ran out); its outcome was not recorded"
        ),
        Err(e) => tracing::error!(
            "could not record the outcome of a call under an idempotency key: {e}"
        ),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_recorded_result_reads_from_its_text_and_from_an_older_record() {
        let text = r#"{"content":[{"type":"text","text":"paid"}],"structuredContent":{"payee":"a","amount_cents":5}}"#;
        let from_text = recorded(Value::String(text.to_owned())).unwrap();
        // The text comes back as it was written, members in their order.
        assert_eq!(serde_json::to_string(&from_text).unwrap(), text);
        let older = recorded(serde_json::from_str::<Value>(text).unwrap()).unwrap();
        assert_eq!(older, from_text);
        assert!(recorded(json!(7)).is_err());
    }
}
