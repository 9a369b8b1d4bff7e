//! The stdio transport: one JSON-RPC message a line on stdin and on stdout; the server's
//! own notes go to stderr. Every request is answered by a task of its own, so stdin keeps
//! being read while an answer is slow, endless, or waits for the client's answers.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, BufWriter, Stdout};
use tokio::sync::Mutex;
use tokio::task::JoinSet;

use crate::answer::{Hostile, Questions, Reply};
use crate::cases::Case;
use crate::chunks::{Chunks, CHUNK};
use crate::messages as m;

/// The code of a client's refusal to answer more requests at once.
const RATE_LIMITED: i64 = -31429;

/// Stdout, one message at a time: a message is written whole before another begins.
struct Output {
    writer: Mutex<BufWriter<Stdout>>,
}

type Writer<'a> = tokio::sync::MutexGuard<'a, BufWriter<Stdout>>;

/// The client has closed stdout: nobody is left to misbehave towards.
fn gone() -> ! {
    std::process::exit(0)
}

async fn write(writer: &mut Writer<'_>, bytes: &[u8]) {
    if writer.write_all(bytes).await.is_err() {
        gone();
    }
}

async fn flush(writer: &mut Writer<'_>) {
    if writer.flush().await.is_err() {
        gone();
    }
}

/// One message and its newline, unflushed: callers writing many flush once at the end.
async fn write_message(writer: &mut Writer<'_>, message: &Value) {
    write(writer, format!("{message}\n").as_bytes()).await;
}

impl Output {
    async fn message(&self, message: &Value) {
        let mut writer = self.writer.lock().await;
        write_message(&mut writer, message).await;
        flush(&mut writer).await;
    }
}

/// Serve on stdin and stdout until stdin ends.
pub async fn serve(hostile: Arc<Hostile>) {
    let output = Arc::new(Output {
        writer: Mutex::new(BufWriter::with_capacity(CHUNK, tokio::io::stdout())),
    });
    let mut input = BufReader::new(tokio::io::stdin());
    // Replies that end by themselves, finished before the server exits; and replies that
    // wait for the client's answers, pointless once stdin has ended.
    let mut finishing = JoinSet::new();
    let mut asking = JoinSet::new();
    let mut flood_replies: u64 = 0;
    // Of those, the ones refused because the client was answering too many at once.
    let mut flood_busy: u64 = 0;
    // `unprompted-question`: the answers to the question nobody asked for.
    let unprompted = Arc::new(Mutex::new(None));
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let message: Value = match serde_json::from_slice(&line) {
            Ok(message) => message,
            Err(_) => {
                let error = m::error(&Value::Null, m::PARSE_ERROR, "Parse error");
                output.message(&error).await;
                continue;
            }
        };
        if message.get("method").is_none() {
            // A response of the client's, to a request of the server's.
            if is_flood_id(&message["id"]) {
                flood_replies += 1;
                if m::error_code(&message) == Some(RATE_LIMITED) {
                    flood_busy += 1;
                }
            } else {
                hostile.waiting.deliver(message);
            }
            continue;
        }
        if message.get("id").is_none() {
            // Notifications get no answer; a subscription's cancellation is noted, for the
            // tests of `subscription-flood`.
            if hostile.case() == Case::SubscriptionFlood
                && message["method"] == "notifications/cancelled"
            {
                eprintln!(
                    "subscription-flood: cancelled {}",
                    message["params"]["requestId"]
                );
            }
            continue;
        }
        match hostile.answer(&message) {
            Reply::FloodUnread { count } => {
                // Right here, so stdin is never read again.
                flood_unread(&output, count).await;
                std::future::pending::<()>().await;
            }
            Reply::Ask(questions) => {
                asking.spawn(ask(output.clone(), hostile.clone(), questions));
            }
            Reply::ThenAsk(reply) => {
                let answers = hostile.waiting.open();
                let question = m::request(
                    &answers.id(1),
                    "elicitation/create",
                    m::unprompted_question(),
                );
                // The answer and the question in one write, so the client reads them
                // together: its request is answered before the question arrives.
                let mut writer = output.writer.lock().await;
                if let Reply::Message(message) = *reply {
                    write_message(&mut writer, &message).await;
                }
                write_message(&mut writer, &question).await;
                flush(&mut writer).await;
                drop(writer);
                *unprompted.lock().await = Some(answers);
            }
            Reply::Unprompted(id) => {
                let unprompted = unprompted.clone();
                let output = output.clone();
                asking.spawn(async move {
                    let waited = match unprompted.lock().await.take() {
                        Some(mut answers) => {
                            tokio::time::timeout(Duration::from_secs(10), answers.collect(1))
                                .await
                                .ok()
                        }
                        None => None,
                    };
                    let text = waited.map_or_else(|| "no answer".to_owned(), |a| a.to_string());
                    output
                        .message(&m::response(
                            &id,
                            json!({"content": [{"type": "text", "text": text}]}),
                        ))
                        .await;
                });
            }
            reply => {
                finishing.spawn(perform(output.clone(), reply));
            }
        }
    }
    if hostile.case() == Case::RequestFlood {
        eprintln!(
            "request-flood: {flood_replies} replies to the flood, {flood_busy} refused as too many at once"
        );
    }
    asking.abort_all();
    while finishing.join_next().await.is_some() {}
}

/// Whether `id` is one of `request-flood`'s: `f` and a number.
fn is_flood_id(id: &Value) -> bool {
    id.as_str()
        .and_then(|id| id.strip_prefix('f'))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Carry out a reply that needs nothing more from the client.
async fn perform(output: Arc<Output>, reply: Reply) {
    match reply {
        Reply::Message(message) => output.message(&message).await,
        Reply::Chunks(chunks) => {
            let mut writer = output.writer.lock().await;
            for chunk in chunks {
                write(&mut writer, &chunk).await;
            }
            write(&mut writer, b"\n").await;
            flush(&mut writer).await;
        }
        Reply::Trickle(chunks) | Reply::Declared { chunks, .. } => trickle(&output, chunks).await,
        Reply::Flood { count, then } => {
            {
                let mut writer = output.writer.lock().await;
                for number in 1..=count {
                    write_message(&mut writer, &m::flood_request(number)).await;
                }
                flush(&mut writer).await;
            }
            Box::pin(perform(output, *then)).await;
        }
        // Stdio has no SSE comment to keep a line alive with (and `main` refuses the case).
        Reply::Hang | Reply::Keepalive => {}
        Reply::SubscriptionFlood {
            ack,
            notification,
            count,
        } => {
            let mut writer = output.writer.lock().await;
            write_message(&mut writer, &ack).await;
            for _ in 0..count {
                write_message(&mut writer, &notification).await;
            }
            flush(&mut writer).await;
        }
        // `serve` carries these out itself.
        Reply::Ask(_) | Reply::FloodUnread { .. } | Reply::ThenAsk(_) | Reply::Unprompted(_) => {}
    }
}

/// One byte a second, flushed each time, for as long as the message lasts.
async fn trickle(output: &Output, chunks: Chunks) {
    let mut writer = output.writer.lock().await;
    for chunk in chunks {
        for byte in chunk.iter() {
            write(&mut writer, &[*byte]).await;
            flush(&mut writer).await;
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }
    write(&mut writer, b"\n").await;
    flush(&mut writer).await;
}

/// Handshake-era questions: the requests, then the response once all are answered.
async fn ask(output: Arc<Output>, hostile: Arc<Hostile>, questions: Questions) {
    let mut answers = hostile.waiting.open();
    {
        let mut writer = output.writer.lock().await;
        for (number, params) in (1..).zip(questions.params) {
            let request = m::request(&answers.id(number), "elicitation/create", params);
            write_message(&mut writer, &request).await;
        }
        flush(&mut writer).await;
    }
    let last = answers.collect(questions.count).await;
    output.message(&(questions.finish)(last)).await;
}

/// `flood-unread`: `ping` after `ping`, `count` of them or forever.
async fn flood_unread(output: &Output, count: Option<u64>) {
    let mut writer = output.writer.lock().await;
    let mut number = 0;
    while count.is_none_or(|count| number < count) {
        number += 1;
        write_message(&mut writer, &m::flood_ping(number)).await;
    }
    flush(&mut writer).await;
}
