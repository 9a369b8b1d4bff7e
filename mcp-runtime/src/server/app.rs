//! The built [`App`]: serving it on stdio, on any byte stream, or over Streamable HTTP,
//! the metrics endpoint, readiness, and draining on shutdown.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::ServiceExt as _;
use futures_util::future::BoxFuture;

use crate::core::{Core, ServerHandle};
use crate::policy::principal::Principal;
use crate::registry::BuildError;
use crate::transport::http::{HttpConfig, HttpEndpoint};
use crate::transport::stdio::StdioConfig;
use crate::Error;

use super::METRICS_ENV;

/// A built server, ready to serve on any transport. Cheap to clone.
#[derive(Clone)]
pub struct App {
    pub(crate) metrics_addr: Option<SocketAddr>,
    pub(crate) closing: tokio_util::sync::CancellationToken,
    pub(crate) core: Arc<Core>,
    pub(crate) http: Arc<HttpConfig>,
    pub(crate) stdio: StdioConfig,
    pub(crate) eras: crate::era::Eras,
    /// Handshake-era HTTP sessions, shared by every router of this app.
    #[cfg(feature = "legacy")]
    pub(crate) sessions: Arc<crate::transport::http::Sessions>,
}

impl App {
    /// The era-neutral core (for the in-process test clients).
    #[cfg(feature = "testing")]
    pub(crate) fn core(&self) -> &Arc<Core> {
        &self.core
    }

    /// A handle to change what this server serves while it runs (see [`ServerHandle`]).
    pub fn handle(&self) -> ServerHandle {
        self.core.server_handle()
    }

    /// The HTTP endpoint as an `axum::Router` serving `/mcp` (and `/healthz`, `/readyz`,
    /// and the protected-resource metadata with [`Server::oauth`](crate::Server::oauth)), to
    /// merge into an application of your own.
    ///
    /// Who calls: with a token verifier, the bearer token of each request; without one,
    /// the [`Principal`] a layer of your application inserted into the request's
    /// extensions (`request.extensions_mut().insert(principal)`), or nobody. Refusals for
    /// want of scopes are HTTP 403 with an `insufficient_scope` challenge either way (see
    /// [`Denied::insufficient_scope`](crate::Denied::insufficient_scope)). Serving the
    /// router yourself skips [`App::serve_http`]'s refusal of non-loopback addresses
    /// without a verifier: authenticating callers is then your application's job.
    pub fn router(&self) -> axum::Router {
        self.endpoint().router()
    }

    /// The HTTP endpoint over this app's state: [`App::router`] and what
    /// [`App::serve_http`] serves.
    fn endpoint(&self) -> HttpEndpoint {
        HttpEndpoint::new(
            self.core.clone(),
            &self.eras,
            #[cfg(feature = "legacy")]
            self.sessions.clone(),
            self.http.clone(),
            self.closing.clone(),
        )
    }

    /// Serve as `mode` says (from [`process::parse_args`](crate::process::parse_args)): stdio,
    /// HTTP at an address, or print the help text.
    pub async fn serve(&self, mode: crate::process::Mode) -> Result<(), Error> {
        let served = match mode {
            crate::process::Mode::Stdio => self.serve_stdio().await,
            crate::process::Mode::Http(addr) => self.serve_http(addr).await,
            crate::process::Mode::Help(text) => {
                eprintln!("{text}");
                Ok(())
            }
            crate::process::Mode::Health(addr) => crate::process::check_health(addr).await,
        };
        // The process is about to exit: the spans still in the exporter's batch go now.
        crate::process::flush_telemetry();
        served
    }

    /// Serve over this process's stdin and stdout until EOF.
    ///
    /// The caller is the one set with [`Server::stdio_principal`](crate::Server::stdio_principal), else the one the host
    /// names in the environment: `MCP_ACCESS_TOKEN` checked by the verifier given to
    /// [`Server::oauth`](crate::Server::oauth) or [`Server::verify_tokens`](crate::Server::verify_tokens)
    /// (an invalid token stops the server), or `MCP_PRINCIPAL`,
    /// `MCP_SCOPES` and `MCP_TENANT` ([`Principal::from_env`]).
    pub async fn serve_stdio(&self) -> Result<(), Error> {
        self.serve_stdio_boxed().await
    }

    // Boxed and never inlined: the serving future (transport, eras, core) is compiled
    // once, here, instead of again in every server crate that awaits it.
    #[inline(never)]
    fn serve_stdio_boxed(&self) -> BoxFuture<'_, Result<(), Error>> {
        Box::pin(async move {
            let mut app = self.clone();
            if app.stdio.principal.is_none() {
                app.stdio.principal = self.principal_from_env().await?;
            }
            // Pipes (as a host spawns servers) are read and written without a blocking thread
            // per operation; a terminal or a file falls back to tokio's blocking stdio.
            self.start_metrics().await?;
            // SIGTERM or Ctrl-C ends the input as EOF does; the grace period follows.
            let core = self.core.clone();
            let signal = async move {
                crate::process::shutdown_signal().await;
                core.lifecycle.begin_draining();
            };
            #[cfg(unix)]
            let served = match crate::transport::stdio::pipes() {
                Some((input, output)) => app.serve_stream(input, output, signal).await,
                None => {
                    app.serve_stream(tokio::io::stdin(), tokio::io::stdout(), signal)
                        .await
                }
            };
            #[cfg(not(unix))]
            let served = app
                .serve_stream(tokio::io::stdin(), tokio::io::stdout(), signal)
                .await;
            // The calls of the connection have answered or been stopped; tasks running in
            // the background get the grace period too.
            if let Some(runtime) = &self.core.tasks {
                runtime.shutdown(self.core.lifecycle.grace).await;
            }
            served
        })
    }

    async fn principal_from_env(&self) -> Result<Option<Principal>, Error> {
        let token = std::env::var(crate::policy::principal::TOKEN_ENV).ok();
        self.principal_from_token(token).await
    }

    /// The stdio caller `token` (`MCP_ACCESS_TOKEN`) stands for, checked by the server's
    /// verifier; without a token, the caller the environment names.
    async fn principal_from_token(
        &self,
        token: Option<String>,
    ) -> Result<Option<Principal>, Error> {
        let token = token.filter(|t| !t.trim().is_empty());
        match (token, &self.http.auth) {
            (Some(token), Some(auth)) => auth.verify(token.trim()).await.map(Some).map_err(|e| {
                Error::Build(vec![BuildError::Config(format!(
                    "{}: the access token was refused: {e}",
                    crate::policy::principal::TOKEN_ENV
                ))])
            }),
            (Some(_), None) => Err(Error::Build(vec![BuildError::Config(format!(
                "{} is set, but the server has no token verifier to check it (Server::oauth or Server::verify_tokens)",
                crate::policy::principal::TOKEN_ENV
            ))])),
            (None, _) => {
                if let Some(mistake) = Principal::missing_subject(|name| std::env::var(name).ok()) {
                    return Err(Error::Build(vec![BuildError::Config(mistake)]));
                }
                Ok(Principal::from_env())
            }
        }
    }

    /// Serve newline-delimited JSON-RPC over any byte stream pair (the stdio framing): a
    /// child process's pipes, a Unix socket, an SSH channel, an in-memory pipe in tests.
    ///
    /// **The peer gets the trust of stdio's local user.** The framing has no place for
    /// credentials, so whoever holds the other end calls, for the whole connection, as the
    /// caller set with [`Server::stdio_principal`](crate::Server::stdio_principal), or
    /// anonymously; nothing it sends changes that. Unlike [`App::serve_http`], this cannot
    /// tell a stream from this machine from one from the network, so it cannot refuse a
    /// remote peer as `serve_http` refuses a non-loopback address (as `axum::serve`, it
    /// serves what it is given): hand it only streams whose other end you have
    /// authenticated at the transport (TLS client certificates, SSH, a Unix socket's peer
    /// credentials), and serve callers you cannot authenticate that way over HTTP, where
    /// each request's token is checked.
    ///
    /// A server that checks its callers' tokens ([`Server::oauth`](crate::Server::oauth),
    /// [`Server::verify_tokens`](crate::Server::verify_tokens)) has said no call goes
    /// unauthenticated, so it refuses to serve a stream for which no caller is named
    /// (`Error::Build`, before anything is read): name the peer you authenticated with
    /// [`Server::stdio_principal`](crate::Server::stdio_principal).
    pub async fn serve_io<R, W>(&self, reader: R, writer: W) -> Result<(), Error>
    where
        R: tokio::io::AsyncRead + Unpin + Send,
        W: tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        if self.http.auth.is_some() && self.stdio.principal.is_none() {
            return Err(Error::Build(vec![BuildError::Config(
                "refusing to serve a byte stream without a caller: this server checks its callers' tokens (Server::oauth or Server::verify_tokens), and a byte stream carries none, so whoever holds its other end would call anonymously. Authenticate the peer at the transport and name it with Server::stdio_principal(..), or serve it over HTTP (App::serve_http, App::router), where each request's token is checked".into(),
            )]));
        }
        self.serve_stream(reader, writer, std::future::pending())
            .await
    }

    /// Serve one byte stream pair until EOF or `shutdown`, then drain. The caller is the
    /// stdio principal, as the host of a stdio server names it; the in-process test
    /// clients, which play that host, serve through here too.
    pub(crate) async fn serve_stream<R, W>(
        &self,
        reader: R,
        writer: W,
        shutdown: impl std::future::Future<Output = ()>,
    ) -> Result<(), Error>
    where
        R: tokio::io::AsyncRead + Unpin + Send,
        W: tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        crate::transport::stdio::serve(
            self.core.clone(),
            self.eras.clone(),
            &self.stdio,
            (reader, writer),
            shutdown,
        )
        .await
        .map_err(Error::Io)
    }

    /// Serve Streamable HTTP at `http://addr/mcp` until Ctrl-C or SIGTERM. Every path
    /// answers as it does in [`App::router`].
    ///
    /// Refuses to start on an address other than loopback without a token verifier
    /// ([`Server::oauth`](crate::Server::oauth), or [`Server::verify_tokens`](crate::Server::verify_tokens)
    /// for API keys), unless [`Server::allow_unauthenticated_remote`](crate::Server::allow_unauthenticated_remote) says a gateway
    /// in front authenticates callers.
    pub async fn serve_http(&self, addr: SocketAddr) -> Result<(), Error> {
        self.serve_http_boxed(addr).await
    }

    // Boxed and never inlined: the serving future (transport, eras, core) is compiled
    // once, here, instead of again in every server crate that awaits it.
    #[inline(never)]
    fn serve_http_boxed(&self, addr: SocketAddr) -> BoxFuture<'_, Result<(), Error>> {
        Box::pin(async move {
            if !addr.ip().is_loopback()
                && self.http.auth.is_none()
                && !self.http.allow_unauthenticated_remote
            {
                return Err(Error::Build(vec![BuildError::Config(format!(
                    "refusing to serve {addr} without authentication: anyone who can reach it could call every tool. Configure a token verifier with Server::oauth(..) (OAuth) or Server::verify_tokens(..) (API keys), bind to 127.0.0.1, or call Server::allow_unauthenticated_remote() when a gateway in front authenticates callers"
                ))]));
            }
            let loopback_names = HttpConfig::default().allowed_hosts;
            if !addr.ip().is_loopback()
                && self
                    .http
                    .allowed_hosts
                    .iter()
                    .all(|h| loopback_names.contains(h))
            {
                tracing::warn!("serving on {addr}, but only loopback host names are allowed in Host and Origin: set Server::allowed_hosts to the names clients use");
            }
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .map_err(Error::Io)?;
            let local = listener.local_addr().map_err(Error::Io)?;
            self.start_metrics().await?;
            tracing::info!("serving MCP over Streamable HTTP at http://{local}/mcp");
            let lifecycle = self.core.lifecycle.clone();
            let signal = tokio::spawn(async move {
                crate::process::shutdown_signal().await;
                lifecycle.begin_draining();
            });
            // Once shutdown starts (a signal, or App::shutdown), the drain runs beside the
            // server: calls get the grace period and are then stopped, so the connections
            // the listener waits for do end.
            let draining = self.core.lifecycle.draining().clone();
            let app = self.clone();
            let drain = tokio::spawn(async move {
                app.core.lifecycle.draining().cancelled().await;
                app.drain().await;
            });
            // Requests and answers are small and strictly alternate on a connection; Nagle's
            // algorithm would only hold an answer back waiting for an acknowledgement.
            let listener = axum::serve::ListenerExt::tap_io(listener, |stream| {
                if let Err(error) = stream.set_nodelay(true) {
                    tracing::debug!(%error, "could not set TCP_NODELAY");
                }
            });
            let served = axum::serve(listener, self.endpoint().service().into_make_service())
                .with_graceful_shutdown(draining.clone().cancelled_owned())
                .await
                .map_err(Error::Io);
            signal.abort();
            if draining.is_cancelled() {
                // Tasks may still be storing their outcomes.
                let _ = drain.await;
                tracing::info!("shut down");
            } else {
                drain.abort();
            }
            served
        })
    }

    /// Shut down gracefully, as SIGTERM does: readiness (`/readyz`) turns false, HTTP
    /// stops accepting connections, subscriptions and handshake-era sessions end, and
    /// calls and tasks already running get the grace period ([`Server::shutdown_grace`](crate::Server::shutdown_grace)).
    /// Calls still running then are stopped and answer with -31503; tasks still running
    /// fail with the same reason. Returns when all of that is done.
    pub async fn shutdown(&self) {
        self.core.lifecycle.begin_draining();
        self.drain().await;
    }

    /// The request metrics in the OpenMetrics text format (what Prometheus scrapes), or
    /// `None` when they are off ([`Server::metrics_endpoint`](crate::Server::metrics_endpoint)).
    pub fn metrics(&self) -> Option<String> {
        self.core
            .metrics
            .as_ref()
            .map(|metrics| metrics.render(self.core.lifecycle.running()))
    }

    /// Bind the metrics listener, if one is configured, and serve it in the background
    /// until shutdown begins.
    async fn start_metrics(&self) -> Result<(), Error> {
        let Some(addr) = self.metrics_addr else {
            return Ok(());
        };
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| {
            Error::Io(std::io::Error::new(
                e.kind(),
                format!("the metrics endpoint cannot listen on {addr} ({METRICS_ENV}): {e}"),
            ))
        })?;
        let local = listener.local_addr().map_err(Error::Io)?;
        tracing::info!("serving metrics at http://{local}/metrics");
        let app = self.clone();
        let scrape = move || {
            let app = app.clone();
            async move {
                (
                    [(
                        axum::http::header::CONTENT_TYPE,
                        "application/openmetrics-text; version=1.0.0; charset=utf-8",
                    )],
                    app.metrics().unwrap_or_default(),
                )
            }
        };
        let router = axum::Router::new().route("/metrics", axum::routing::get(scrape));
        let draining = self.core.lifecycle.draining().clone();
        tokio::spawn(async move {
            let served = axum::serve(listener, router)
                .with_graceful_shutdown(draining.cancelled_owned())
                .await;
            if let Err(e) = served {
                tracing::error!("the metrics listener failed: {e}");
            }
        });
        Ok(())
    }

    /// Whether this server takes new work: true until shutdown starts.
    pub fn is_ready(&self) -> bool {
        self.core.lifecycle.is_ready()
    }

    async fn drain(&self) {
        // Long-lived streams would hold the shutdown open: end them.
        self.close_subscriptions();
        let lifecycle = &self.core.lifecycle;
        let grace = lifecycle.grace;
        let calls = async {
            if !lifecycle.wait_idle(grace).await {
                tracing::warn!(
                    running = lifecycle.running(),
                    "calls still running {} s after shutdown began; stopping them",
                    grace.as_secs_f64()
                );
                lifecycle.stop();
                lifecycle.wait_idle(std::time::Duration::from_secs(1)).await;
            }
        };
        let tasks = async {
            if let Some(runtime) = &self.core.tasks {
                runtime.shutdown(grace).await;
            }
        };
        tokio::join!(calls, tasks);
    }

    /// End every open `subscriptions/listen` stream on HTTP with its closing result, and
    /// every handshake-era session with its streams (for a graceful shutdown of a router
    /// nested in your own server; `serve_http` does it on Ctrl-C and SIGTERM).
    pub fn close_subscriptions(&self) {
        self.closing.cancel();
        #[cfg(feature = "legacy")]
        self.sessions.end_all();
    }
}

#[cfg(test)]
mod tests {
    use crate::policy::api_keys::ApiKeys;
    use crate::{Principal, Server};

    #[tokio::test]
    async fn on_stdio_an_api_key_names_the_caller() {
        let keys = ApiKeys::new()
            .key(
                "desk-3f9a1c7e5b2d8064",
                Principal::new("desktop").with_scopes(["notes:read"]),
            )
            .unwrap();
        let app = Server::new("t", "1")
            .only_module("no::such::module")
            .verify_tokens(keys)
            .build()
            .unwrap();
        let named = app
            .principal_from_token(Some(" desk-3f9a1c7e5b2d8064\n".into()))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(named.subject, "desktop");
        assert!(named.has_scope("notes:read"));
        let refused = app
            .principal_from_token(Some("desk-3f9a1c7e5b2d8065".into()))
            .await
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains("MCP_ACCESS_TOKEN: the access token was refused: unknown API key"),
            "{refused}"
        );
    }
}
