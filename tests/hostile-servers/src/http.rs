//! The Streamable HTTP transport at `/mcp`: POST for messages, DELETE to end a
//! handshake-era session, 405 to anything else; the refusals (`HOSTILE_401`), redirects
//! and held exchanges that only HTTP can express.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::State;
use axum::http::header::{CACHE_CONTROL, CONTENT_LENGTH, CONTENT_TYPE, LOCATION, WWW_AUTHENTICATE};
use axum::http::{HeaderName, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use axum::Router;
use bytes::Bytes;
use futures_util::stream::{self, Stream};
use mcp_hostile_servers::{ANNOUNCEMENT, HOSTILE};
use serde_json::{json, Value};
use tokio::sync::mpsc;

use crate::answer::{Hostile, Questions, Reply};
use crate::cases::{Case, Era};
use crate::chunks::Chunks;
use crate::messages as m;

/// What every exchange needs: the server, and the headers made once at start.
struct Endpoint {
    hostile: Arc<Hostile>,
    /// `redirect`: the `--redirect-to` URL.
    redirect_to: Option<HeaderValue>,
}

/// Serve Streamable HTTP on `addr` until the process is stopped.
pub async fn serve(hostile: Arc<Hostile>, addr: &str) -> Result<(), String> {
    let redirect_to = match &hostile.options.redirect_to {
        Some(url) => Some(
            HeaderValue::from_str(url)
                .map_err(|_| format!("--redirect-to {url:?} cannot be a header value"))?,
        ),
        None => None,
    };
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let local = listener
        .local_addr()
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let endpoint = Arc::new(Endpoint {
        hostile,
        redirect_to,
    });
    let router = Router::new()
        .route("/mcp", any(first_path))
        .route("/mcp2", any(second_path))
        .with_state(endpoint);
    eprintln!("{ANNOUNCEMENT}http://{local}/mcp");
    axum::serve(listener, router)
        .await
        .map_err(|e| format!("serving HTTP: {e}"))
}

async fn first_path(
    State(endpoint): State<Arc<Endpoint>>,
    method: Method,
    body: Bytes,
) -> Response {
    let hostile = &endpoint.hostile;
    if hostile.options.refuse_401 {
        return unauthorized();
    }
    match (hostile.case(), &endpoint.redirect_to) {
        (Case::Redirect, Some(url)) => return redirect(url.clone()),
        (Case::RedirectSame, _) => return redirect(HeaderValue::from_static("/mcp2")),
        (Case::RedirectLoop, _) => return redirect(HeaderValue::from_static("/mcp")),
        _ => {}
    }
    exchange(hostile, method, body).await
}

/// `/mcp2`: where `redirect-same` sends its clients, serving the honest baseline.
async fn second_path(
    State(endpoint): State<Arc<Endpoint>>,
    method: Method,
    body: Bytes,
) -> Response {
    let hostile = &endpoint.hostile;
    if hostile.options.refuse_401 {
        return unauthorized();
    }
    if hostile.case() != Case::RedirectSame {
        return StatusCode::NOT_FOUND.into_response();
    }
    exchange(hostile, method, body).await
}

/// A 307: the client may repeat the POST, body and all, at `location`.
fn redirect(location: HeaderValue) -> Response {
    (StatusCode::TEMPORARY_REDIRECT, [(LOCATION, location)]).into_response()
}

/// `HOSTILE_401`: a challenge whose description is the hostile text, as much of it as a
/// header can carry (no control characters; quotes and backslashes escaped; the bytes of
/// non-ASCII characters kept, as obs-text), and a body that carries all of it.
fn unauthorized() -> Response {
    let mut description = String::new();
    for c in HOSTILE.chars() {
        match c {
            '"' | '\\' => {
                description.push('\\');
                description.push(c);
            }
            c if c.is_ascii_control() => {}
            c => description.push(c),
        }
    }
    let challenge = format!(r#"Bearer error="invalid_token", error_description="{description}""#);
    let challenge = HeaderValue::from_bytes(challenge.as_bytes())
        .unwrap_or_else(|_| HeaderValue::from_static(r#"Bearer error="invalid_token""#));
    let body = json!({"error": "invalid_token", "error_description": HOSTILE});
    (
        StatusCode::UNAUTHORIZED,
        [
            (WWW_AUTHENTICATE, challenge),
            (CONTENT_TYPE, HeaderValue::from_static("application/json")),
        ],
        body.to_string(),
    )
        .into_response()
}

/// One exchange at an endpoint that serves MCP.
async fn exchange(hostile: &Arc<Hostile>, method: Method, body: Bytes) -> Response {
    let legacy = hostile.era() == Era::Legacy;
    match method {
        Method::POST => post(hostile, body).await,
        Method::DELETE if legacy && hostile.case() == Case::HangDelete => hold().await,
        Method::DELETE if legacy => StatusCode::NO_CONTENT.into_response(),
        _ => (
            StatusCode::METHOD_NOT_ALLOWED,
            [(axum::http::header::ALLOW, HeaderValue::from_static("POST"))],
        )
            .into_response(),
    }
}

/// Never answer: the exchange stays open, without a status line, until the client gives up.
async fn hold() -> Response {
    std::future::pending().await
}

async fn post(hostile: &Arc<Hostile>, body: Bytes) -> Response {
    let message: Value = match serde_json::from_slice(&body) {
        Ok(message @ Value::Object(_)) => message,
        Ok(_) => {
            let error = m::error(&Value::Null, m::INVALID_REQUEST, "Invalid request");
            return json_response(StatusCode::BAD_REQUEST, &error);
        }
        Err(_) => {
            let error = m::error(&Value::Null, m::PARSE_ERROR, "Parse error");
            return json_response(StatusCode::BAD_REQUEST, &error);
        }
    };
    let Some(method) = message["method"].as_str().map(str::to_owned) else {
        // A response of the client's, to a question on a call's stream.
        hostile.waiting.deliver(message);
        return StatusCode::ACCEPTED.into_response();
    };
    if message.get("id").is_none() {
        if hostile.case() == Case::HangInitialized && method == "notifications/initialized" {
            return hold().await;
        }
        return StatusCode::ACCEPTED.into_response();
    }
    let mut response = respond(hostile, &message, hostile.answer(&message)).await;
    if hostile.era() == Era::Legacy && method == "initialize" {
        response.headers_mut().insert(
            HeaderName::from_static("mcp-session-id"),
            HeaderValue::from_static("hostile-session"),
        );
    }
    response
}

/// Carry out `reply` to `request` as an HTTP response.
async fn respond(hostile: &Arc<Hostile>, request: &Value, reply: Reply) -> Response {
    let sse = hostile.options.sse;
    match reply {
        Reply::Message(message) => {
            let status = status_of(&message, hostile.era());
            // An SSE stream only ever comes with a 200; a refusal is a JSON body.
            if sse && status == StatusCode::OK {
                sse_response(Body::from(event(&message)))
            } else {
                json_response(status, &message)
            }
        }
        Reply::Chunks(chunks) if sse => {
            let event = std::iter::once(Bytes::from_static(b"data: "))
                .chain(chunks)
                .chain(std::iter::once(Bytes::from_static(b"\n\n")));
            sse_response(Body::from_stream(stream_of(Box::new(event))))
        }
        Reply::Chunks(chunks) => json_stream(Body::from_stream(stream_of(chunks))),
        Reply::Hang => hold().await,
        Reply::Keepalive => sse_response(Body::from_stream(keepalive())),
        Reply::Trickle(chunks) => json_stream(Body::from_stream(trickle(chunks))),
        Reply::Declared { chunks, length } => {
            let mut response = json_stream(Body::from_stream(trickle(chunks)));
            response
                .headers_mut()
                .insert(CONTENT_LENGTH, HeaderValue::from(length));
            response
        }
        Reply::Ask(questions) => sse_response(Body::from_stream(ask(hostile.clone(), questions))),
        // `main` refuses the stdio-only cases over HTTP; a request that got here anyway is
        // not served.
        Reply::SubscriptionFlood {
            ack,
            notification,
            count,
        } => {
            let events = std::iter::once(event(&ack))
                .chain(std::iter::repeat_n(
                    event(&notification),
                    usize::try_from(count).unwrap_or(usize::MAX),
                ))
                .map(Ok::<_, Infallible>);
            // The flood, then the stream stays open: a subscription the server never ends.
            let flood = futures_util::StreamExt::chain(
                futures_util::stream::iter(events),
                futures_util::stream::pending(),
            );
            sse_response(Body::from_stream(flood))
        }
        Reply::Flood { .. }
        | Reply::FloodUnread { .. }
        | Reply::ThenAsk(_)
        | Reply::Unprompted(_) => {
            let error = m::error(&request["id"], m::INTERNAL_ERROR, "Not over HTTP");
            json_response(StatusCode::INTERNAL_SERVER_ERROR, &error)
        }
    }
}

/// The HTTP status a message goes with: the 2026-07-28 rules, and a handshake-era server
/// refusing a method it does not know (`server/discover` among them) with a 400.
fn status_of(message: &Value, era: Era) -> StatusCode {
    match m::error_code(message) {
        Some(m::METHOD_NOT_FOUND) if era == Era::Modern => StatusCode::NOT_FOUND,
        Some(
            m::METHOD_NOT_FOUND | m::UNSUPPORTED_VERSION | m::PARSE_ERROR | m::INVALID_REQUEST,
        ) => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

fn json_response(status: StatusCode, message: &Value) -> Response {
    (
        status,
        [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
        message.to_string(),
    )
        .into_response()
}

/// A JSON body without a Content-Length: sent chunked, as long as the stream lasts.
fn json_stream(body: Body) -> Response {
    (
        [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
        body,
    )
        .into_response()
}

fn sse_response(body: Body) -> Response {
    (
        [
            (CONTENT_TYPE, HeaderValue::from_static("text/event-stream")),
            (CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        body,
    )
        .into_response()
}

/// One SSE event carrying `message` (compact JSON holds no newline, so one `data:` line).
fn event(message: &Value) -> Bytes {
    Bytes::from(format!("data: {message}\n\n"))
}

/// The pieces as a body stream: hyper asks for the next piece only once it has written
/// the last, and drops the stream when the client goes away.
fn stream_of(chunks: Chunks) -> impl Stream<Item = Result<Bytes, Infallible>> + Send {
    stream::iter(chunks.map(Ok))
}

/// `keepalive`: SSE comments, every 100 ms, and nothing else.
fn keepalive() -> impl Stream<Item = Result<Bytes, Infallible>> + Send {
    let ticks = tokio::time::interval(Duration::from_millis(100));
    stream::unfold(ticks, |mut ticks| async move {
        ticks.tick().await;
        Some((Ok(Bytes::from_static(b": keepalive\n\n")), ticks))
    })
}

/// `trickle`: the message one byte a second.
fn trickle(chunks: Chunks) -> impl Stream<Item = Result<Bytes, Infallible>> + Send {
    let bytes = chunks.flat_map(|chunk| (0..chunk.len()).map(move |at| chunk.slice(at..at + 1)));
    stream::unfold((bytes, true), |(mut bytes, first)| async move {
        if !first {
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        let byte = bytes.next()?;
        Some((Ok(byte), (bytes, false)))
    })
}

/// Handshake-era questions on the call's SSE stream: the requests, then, once the client
/// has posted an answer to each, the response.
fn ask(
    hostile: Arc<Hostile>,
    questions: Questions,
) -> impl Stream<Item = Result<Bytes, Infallible>> + Send {
    // A few events in flight at most: the task waits while the client is not reading.
    let (events, receiver) = mpsc::channel::<Bytes>(4);
    tokio::spawn(async move {
        let mut answers = hostile.waiting.open();
        for (number, params) in (1..).zip(questions.params) {
            let request = m::request(&answers.id(number), "elicitation/create", params);
            if events.send(event(&request)).await.is_err() {
                return;
            }
        }
        let last = tokio::select! {
            last = answers.collect(questions.count) => last,
            // The client went away without answering.
            () = events.closed() => return,
        };
        let _ = events.send(event(&(questions.finish)(last))).await;
    });
    stream::unfold(receiver, |mut receiver| async move {
        let event = receiver.recv().await?;
        Some((Ok(event), receiver))
    })
}
