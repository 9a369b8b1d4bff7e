//! What a client accepts from a server before it refuses: the size of a message, the
//! pages of a listing, the rounds and questions of a call, the server's own requests at
//! once. A server is as untrusted as any client a server answers, so every one of these is
//! bounded by default.

/// Bounds on what a server may send to a [`Client`](super::Client), on by default; give
/// other ones with [`ClientBuilder::limits`](super::ClientBuilder::limits).
///
/// Past a limit the operation fails with [`ClientError::LimitExceeded`](super::ClientError)
/// naming it (a transport-layer error), and the client has kept no more than the limit of
/// it in memory. Time is bounded separately: every operation has a deadline,
/// [`ClientBuilder::timeout`](super::ClientBuilder::timeout).
///
/// | limit | default | what it bounds |
/// |---|---|---|
/// | [`max_message_bytes`](Limits::max_message_bytes) | 16 MiB | one message: a line over stdio, an HTTP response body, one SSE event; its text, and what its JSON takes once read |
/// | [`max_list_bytes`](Limits::max_list_bytes) | 32 MiB | the items of one listing, all its pages together, weighed the same way |
/// | [`max_pages`](Limits::max_pages) | 1,000 | the pages of one listing |
/// | [`max_rounds`](Limits::max_rounds) | 16 | the `input_required` rounds of one request |
/// | [`max_questions`](Limits::max_questions) | 16 | the questions of one round |
/// | [`max_server_requests`](Limits::max_server_requests) | 16 | the server's requests (handshake era) being answered at once |
///
/// A listing also fails when the server gives a cursor it gave before in the same listing,
/// which would page forever. Over stdio, a line past `max_message_bytes` ends the
/// connection (the rest of the stream cannot be read in step any more); over HTTP only that
/// response is dropped. A server request beyond `max_server_requests` is refused at once
/// with a JSON-RPC error (-31429) instead of waiting.
///
/// ```
/// use mcp_runtime::client::{Client, Limits};
///
/// let builder = Client::http("http://127.0.0.1:8080/mcp")
///     .limits(Limits::new().max_message_bytes(4 << 20).max_pages(50));
/// # drop(builder);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub(crate) message_bytes: usize,
    pub(crate) list_bytes: usize,
    pub(crate) pages: usize,
    pub(crate) rounds: usize,
    pub(crate) questions: usize,
    pub(crate) server_requests: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            message_bytes: 16 << 20,
            list_bytes: 32 << 20,
            pages: 1000,
            rounds: 16,
            questions: 16,
            server_requests: 16,
        }
    }
}

impl Limits {
    /// The default limits (see the table above).
    pub fn new() -> Limits {
        Limits::default()
    }

    /// The largest message the client reads: a line over stdio, an HTTP response body (a
    /// `Content-Length` above it is refused before the body is read), one event of an SSE
    /// stream. A message is also weighed before it is parsed, by what its JSON values would
    /// take in memory (a megabyte of small objects takes tens once read): one that would
    /// take more is refused too. Default: 16 MiB.
    pub fn max_message_bytes(mut self, bytes: usize) -> Limits {
        self.message_bytes = bytes;
        self
    }

    /// The most bytes the items of one listing may take in memory together, all pages
    /// counted, weighed as messages are. Default: 32 MiB.
    pub fn max_list_bytes(mut self, bytes: usize) -> Limits {
        self.list_bytes = bytes;
        self
    }

    /// The most pages one listing may have. Default: 1,000.
    pub fn max_pages(mut self, pages: usize) -> Limits {
        self.pages = pages;
        self
    }

    /// The most `input_required` rounds one request answers before it gives up.
    /// Default: 16.
    pub fn max_rounds(mut self, rounds: usize) -> Limits {
        self.rounds = rounds;
        self
    }

    /// The most questions one `input_required` round may ask; a round asking more is
    /// refused before any is put to a handler. Default: 16.
    pub fn max_questions(mut self, questions: usize) -> Limits {
        self.questions = questions;
        self
    }

    /// The most requests of the server (handshake era: questions, pings) the client
    /// answers at once; one more is refused with a JSON-RPC error (-31429) without waiting.
    /// Default: 16.
    pub fn max_server_requests(mut self, requests: usize) -> Limits {
        self.server_requests = requests;
        self
    }

    /// Each limit the tighter of `self`'s and `other`'s.
    pub(crate) fn tightest(self, other: Limits) -> Limits {
        Limits {
            message_bytes: self.message_bytes.min(other.message_bytes),
            list_bytes: self.list_bytes.min(other.list_bytes),
            pages: self.pages.min(other.pages),
            rounds: self.rounds.min(other.rounds),
            questions: self.questions.min(other.questions),
            server_requests: self.server_requests.min(other.server_requests),
        }
    }
}

/// The time one operation has left: a request with all its rounds, a listing with all its
/// pages, a connection with its probe and handshake. Only the time spent waiting on the
/// server is counted against it.
pub(crate) struct Deadline {
    /// The whole deadline, as errors name it.
    total: std::time::Duration,
    left: std::time::Duration,
}

impl Deadline {
    pub(crate) fn new(total: std::time::Duration) -> Deadline {
        Deadline { total, left: total }
    }

    /// The time left.
    pub(crate) fn left(&self) -> std::time::Duration {
        self.left
    }

    /// Wait for `work` (on the server) within the time left, which it then uses up: past
    /// it, `work` is dropped (which cancels it) and the operation fails with
    /// [`ClientError::Timeout`](super::ClientError::Timeout) naming `method`.
    pub(crate) async fn wait<T>(
        &mut self,
        method: &str,
        work: impl std::future::Future<Output = Result<T, super::ClientError>>,
    ) -> Result<T, super::ClientError> {
        self.wait_within(None, method, work).await
    }

    /// [`wait`](Self::wait), for at most `within` when that is shorter than the time left;
    /// the timeout then names `within`.
    pub(crate) async fn wait_within<T>(
        &mut self,
        within: Option<std::time::Duration>,
        method: &str,
        work: impl std::future::Future<Output = Result<T, super::ClientError>>,
    ) -> Result<T, super::ClientError> {
        let (bound, after) = match within {
            Some(within) if within < self.left => (within, within),
            _ => (self.left, self.total),
        };
        let started = tokio::time::Instant::now();
        let outcome = tokio::time::timeout(bound, work).await;
        self.left = self.left.saturating_sub(started.elapsed());
        outcome.unwrap_or_else(|_| {
            Err(super::ClientError::Timeout {
                method: method.to_owned(),
                after,
            })
        })
    }
}
