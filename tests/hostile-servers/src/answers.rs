//! The client's answers to the server's own requests (the handshake era's questions),
//! each brought to the call that asked: a call's questions have ids `<tag>.<n>`, and the
//! tag names the call.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;
use tokio::sync::mpsc;

/// The calls waiting for answers, by tag.
#[derive(Default)]
pub struct Waiting {
    next: AtomicU64,
    calls: Mutex<HashMap<String, mpsc::UnboundedSender<Value>>>,
}

impl Waiting {
    /// Start waiting for the answers to a new call's questions.
    pub fn open(self: &Arc<Self>) -> Answers {
        let tag = format!("ask{}", self.next.fetch_add(1, Ordering::Relaxed) + 1);
        let (sender, receiver) = mpsc::unbounded_channel();
        self.lock().insert(tag.clone(), sender);
        Answers {
            tag,
            receiver,
            waiting: self.clone(),
        }
    }

    /// Bring a response of the client's to the call whose question it answers; one that
    /// answers nothing asked is dropped, as a stray answer should be.
    pub fn deliver(&self, response: Value) {
        let Some((tag, _)) = response["id"].as_str().and_then(|id| id.split_once('.')) else {
            return;
        };
        if let Some(sender) = self.lock().get(tag) {
            let _ = sender.send(response);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, mpsc::UnboundedSender<Value>>> {
        // The map stays consistent whatever panicked while holding it.
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The answers to one call's questions; dropping it stops the waiting.
pub struct Answers {
    tag: String,
    receiver: mpsc::UnboundedReceiver<Value>,
    waiting: Arc<Waiting>,
}

impl Answers {
    /// The id of question `number` of this call.
    pub fn id(&self, number: u64) -> String {
        format!("{}.{number}", self.tag)
    }

    /// Wait until `count` answers came: the last of them (`null` when none was asked).
    pub async fn collect(&mut self, count: u64) -> Value {
        let mut last = Value::Null;
        for _ in 0..count {
            match self.receiver.recv().await {
                Some(answer) => last = answer,
                // Never: this holds the map's sender until it is dropped.
                None => break,
            }
        }
        last
    }
}

impl Drop for Answers {
    fn drop(&mut self) {
        self.waiting.lock().remove(&self.tag);
    }
}
