//! Shutdown: what a server does between "stop" and exit.
//!
//! Draining starts on SIGTERM/SIGINT (or [`App::shutdown`](crate::App::shutdown)).
//! Readiness turns false, so a load balancer stops sending new work. Calls already
//! running get a grace period to finish. When it runs out, the calls still running are
//! stopped: each answers once with a -31503 error that says the server shut down, and
//! a running task is failed with the same reason. None is answered twice and none is
//! left without an answer.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::protocol::{codes, RpcError};

/// How long running calls may take to finish after shutdown starts, unless configured.
pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(20);

/// The environment variable that sets the grace period, in milliseconds.
pub const GRACE_ENV: &str = "MCP_SHUTDOWN_GRACE_MS";

/// The grace period `MCP_SHUTDOWN_GRACE_MS` names, else the default.
pub(crate) fn grace_from_env() -> Result<Duration, String> {
    match std::env::var(GRACE_ENV) {
        Err(_) => Ok(DEFAULT_SHUTDOWN_GRACE),
        Ok(text) => text
            .trim()
            .parse::<u64>()
            .map(Duration::from_millis)
            .map_err(|_| {
                format!("{GRACE_ENV} must be a whole number of milliseconds, not {text:?}")
            }),
    }
}

/// One server's shutdown state, shared by its transports and its core.
pub(crate) struct Lifecycle {
    /// Fired when shutdown starts: readiness turns false and listeners close.
    draining: CancellationToken,
    /// Fired when the grace period is over: calls still running stop.
    stop: CancellationToken,
    running: AtomicUsize,
    idle: Notify,
    pub(crate) grace: Duration,
}

impl Lifecycle {
    pub(crate) fn new(grace: Duration) -> Self {
        Lifecycle {
            draining: CancellationToken::new(),
            stop: CancellationToken::new(),
            running: AtomicUsize::new(0),
            idle: Notify::new(),
            grace,
        }
    }

    /// Whether the server should get new work (false once draining has begun).
    pub(crate) fn is_ready(&self) -> bool {
        !self.draining.is_cancelled()
    }

    pub(crate) fn begin_draining(&self) {
        self.draining.cancel();
    }

    /// The token fired when shutdown starts.
    pub(crate) fn draining(&self) -> &CancellationToken {
        &self.draining
    }

    /// The token fired when the grace period is over.
    pub(crate) fn stop_token(&self) -> &CancellationToken {
        &self.stop
    }

    /// Stop every call still running now.
    pub(crate) fn stop(&self) {
        self.draining.cancel();
        self.stop.cancel();
    }

    /// Calls running now (handlers, not counting background tasks).
    pub(crate) fn running(&self) -> usize {
        self.running.load(Ordering::Acquire)
    }

    /// Count one running call until the guard drops.
    pub(crate) fn enter(&self) -> Running<'_> {
        self.running.fetch_add(1, Ordering::AcqRel);
        Running(self)
    }

    /// Wait until no call is running, at most `limit`; `true` when none is.
    pub(crate) async fn wait_idle(&self, limit: Duration) -> bool {
        let idle = async {
            loop {
                // Register before checking, so a call ending in between still wakes us.
                let notified = self.idle.notified();
                if self.running() == 0 {
                    return;
                }
                notified.await;
            }
        };
        tokio::time::timeout(limit, idle).await.is_ok()
    }
}

/// One running call; dropping it counts it out.
pub(crate) struct Running<'a>(&'a Lifecycle);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        if self.0.running.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

/// The answer of a call stopped by shutdown.
pub(crate) fn shut_down(target: &dyn std::fmt::Display) -> RpcError {
    RpcError::new(
        codes::SHUTTING_DOWN,
        format!("{target} was stopped because the server is shutting down; send it again (another instance may serve it)"),
    )
    .with_data(serde_json::json!({ "reason": "shutdown" }))
}
