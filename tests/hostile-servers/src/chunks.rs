//! Messages too large to hold, or without end, made a piece at a time as the peer takes
//! them: the server's memory stays small whatever size a case asks for.

use std::io::Write as _;

use bytes::Bytes;
use serde_json::Value;

/// One JSON-RPC message (or the start of one that never ends) as a sequence of pieces.
pub type Chunks = Box<dyn Iterator<Item = Bytes> + Send>;

/// The size of the pieces: large enough that writing them costs little, small enough to
/// keep nothing much in memory.
pub const CHUNK: usize = 64 * 1024;

/// Every piece of padding is a slice of this one buffer, so padding allocates nothing.
static PADDING: [u8; CHUNK] = [b'a'; CHUNK];

/// `length` bytes of `a`, or `a` forever when `None`.
fn padding(length: Option<u64>) -> impl Iterator<Item = Bytes> + Send {
    let mut left = length;
    std::iter::from_fn(move || {
        let size = match left {
            None => CHUNK,
            Some(0) => return None,
            Some(n) => n.min(CHUNK as u64) as usize,
        };
        if let Some(n) = &mut left {
            *n -= size as u64;
        }
        Some(Bytes::from_static(&PADDING[..size]))
    })
}

/// `huge-result`: a valid response of `bytes` bytes in all (more only when `bytes` is
/// smaller than its envelope), almost all of it one padding string.
pub fn huge(id: &Value, bytes: u64) -> Chunks {
    let head = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"resultType":"complete","tools":[],"content":[],"padding":""#
    );
    let tail: &'static [u8] = br#""}}"#;
    let fill = bytes.saturating_sub((head.len() + tail.len()) as u64);
    Box::new(
        std::iter::once(Bytes::from(head))
            .chain(padding(Some(fill)))
            .chain(std::iter::once(Bytes::from_static(tail))),
    )
}

/// `endless` and `trickle`: a response whose padding string never closes.
pub fn endless(id: &Value) -> Chunks {
    let head = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"padding":""#);
    Box::new(std::iter::once(Bytes::from(head)).chain(padding(None)))
}

/// `many-questions` in 2026-07-28: an `input_required` result asking `count` questions,
/// keys `q1`, `q2`, …, made a batch of questions at a time.
pub fn many_questions(id: &Value, count: u64) -> Chunks {
    let head = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"resultType":"input_required","requestState":"many","inputRequests":{{"#
    );
    let mut number = 0;
    let questions = std::iter::from_fn(move || {
        if number == count {
            return None;
        }
        let mut batch = Vec::with_capacity(CHUNK + 512);
        while number < count && batch.len() < CHUNK {
            number += 1;
            if number > 1 {
                batch.push(b',');
            }
            let question = serde_json::json!({
                "method": "elicitation/create",
                "params": crate::messages::yes_no_question(number),
            });
            // Writing into a Vec cannot fail.
            let _ = write!(batch, r#""q{number}":{question}"#);
        }
        Some(Bytes::from(batch))
    });
    Box::new(
        std::iter::once(Bytes::from(head))
            .chain(questions)
            .chain(std::iter::once(Bytes::from_static(b"}}}"))),
    )
}

/// `dense-result`: a response of about `bytes` bytes whose `tools` are `{"a":0}` over and
/// over: small as text, many times larger once read into values, one map each.
pub fn dense(id: &Value, bytes: u64) -> Chunks {
    const ITEM: &[u8] = br#"{"a":0},"#;
    let head =
        format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"resultType":"complete","tools":["#);
    let items = (bytes / ITEM.len() as u64).max(1);
    let per_chunk = (CHUNK / ITEM.len()) as u64;
    let batch = Bytes::from(ITEM.repeat(per_chunk as usize));
    let mut left = items - 1;
    let body = std::iter::from_fn(move || {
        if left == 0 {
            return None;
        }
        let take = left.min(per_chunk);
        left -= take;
        Some(batch.slice(..take as usize * ITEM.len()))
    });
    Box::new(
        std::iter::once(Bytes::from(head))
            .chain(body)
            .chain(std::iter::once(Bytes::from_static(br#"{"a":0}]}}"#))),
    )
}
