//! Reading a Server-Sent Events stream, as the clients of this crate receive one: the
//! `data` of each event, in order, from chunks cut anywhere.
//!
//! The reader is fed what arrives and hands back complete events. Each byte is looked at
//! once, whatever the chunks' sizes (a reader that scanned its whole buffer again for every
//! chunk took minutes over one 64 MB event), and one event may hold at most a set number of
//! bytes: a line or an event past it is refused as soon as it grows past it, so a stream
//! that never ends an event holds no more than that in memory.

use std::collections::VecDeque;

/// An event, or a line of one, grew past the reader's limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EventTooLarge;

/// An incremental SSE reader with a bound on each event's size.
#[derive(Debug)]
pub(crate) struct SseReader {
    /// The line being read, up to (not including) its terminator.
    line: Vec<u8>,
    /// The `data` of the event being read: its `data:` lines joined by `\n`.
    data: Vec<u8>,
    /// Whether the event being read has a `data` field (an empty one counts).
    has_data: bool,
    /// Events read whole, not yet taken.
    ready: VecDeque<String>,
    /// The most bytes one event (its unfinished line and its data so far) may hold.
    max_event_bytes: usize,
}

impl SseReader {
    /// A reader that refuses any event of more than `max_event_bytes`.
    pub(crate) fn new(max_event_bytes: usize) -> SseReader {
        SseReader {
            line: Vec::new(),
            data: Vec::new(),
            has_data: false,
            ready: VecDeque::new(),
            max_event_bytes,
        }
    }

    /// Read `chunk`: the events it completes become available to
    /// [`next_event`](Self::next_event). `Err` when the event being read grows past the
    /// limit; the reader is then spent.
    pub(crate) fn feed(&mut self, mut chunk: &[u8]) -> Result<(), EventTooLarge> {
        while !chunk.is_empty() {
            let (head, rest, ended) = match memchr::memchr(b'\n', chunk) {
                Some(at) => {
                    let (head, rest) = chunk.split_at(at);
                    (head, rest.get(1..).unwrap_or_default(), true)
                }
                None => (chunk, &[][..], false),
            };
            if self.line.len() + self.data.len() + head.len() > self.max_event_bytes {
                return Err(EventTooLarge);
            }
            self.line.extend_from_slice(head);
            if ended {
                self.end_line();
            }
            chunk = rest;
        }
        Ok(())
    }

    /// The `data` of the next complete event, if one has been read. Events without data
    /// (comments, keep-alives) are never returned.
    pub(crate) fn next_event(&mut self) -> Option<String> {
        self.ready.pop_front()
    }

    /// One line is complete: a blank line ends the event, a `data` field adds to it, and
    /// comments and other fields (`event`, `id`, `retry`) are not needed by these clients.
    fn end_line(&mut self) {
        if self.line.last() == Some(&b'\r') {
            self.line.pop();
        }
        if self.line.is_empty() {
            if self.has_data {
                let data = std::mem::take(&mut self.data);
                self.ready.push_back(match String::from_utf8(data) {
                    Ok(text) => text,
                    Err(bytes) => String::from_utf8_lossy(bytes.as_bytes()).into_owned(),
                });
            }
            self.data.clear();
            self.has_data = false;
        } else if let Some(at) = data_offset(&self.line) {
            if self.has_data {
                self.data.push(b'\n');
                self.data
                    .extend_from_slice(self.line.get(at..).unwrap_or_default());
            } else {
                // An event's first data line becomes its data as it is, without a copy:
                // a large event is held once, not twice.
                self.line.drain(..at);
                std::mem::swap(&mut self.line, &mut self.data);
            }
            self.has_data = true;
        }
        self.line.clear();
    }
}

/// Where the value of a `data` field line starts (`data: x`, `data:x` or a bare `data`).
fn data_offset(line: &[u8]) -> Option<usize> {
    if line == b"data" {
        return Some(line.len());
    }
    let value = line.strip_prefix(b"data:")?;
    Some(line.len() - value.len() + usize::from(value.first() == Some(&b' ')))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(reader: &mut SseReader) -> Vec<String> {
        std::iter::from_fn(|| reader.next_event()).collect()
    }

    /// A reader of lines up to 1 KiB that has read `stream`.
    fn fed(stream: &[u8]) -> SseReader {
        let mut reader = SseReader::new(1024);
        reader.feed(stream).unwrap();
        reader
    }

    #[test]
    fn events_are_split_on_blank_lines_and_comments_skipped() {
        let mut reader = fed(b": keep-alive\n\ndata: {\"a\":1}\r\n\r\ndata: {\"b\"");
        assert_eq!(events(&mut reader), ["{\"a\":1}"]);
        reader.feed(b":2}\n\n").unwrap();
        assert_eq!(events(&mut reader), ["{\"b\":2}"]);
    }

    #[test]
    fn data_lines_are_joined_and_other_fields_ignored() {
        let mut reader =
            fed(b"event: message\nid: 7\ndata: {\"id\":1,\ndata:\"result\":{}}\nretry: 5\n\n");
        assert_eq!(events(&mut reader), ["{\"id\":1,\n\"result\":{}}"]);
    }

    #[test]
    fn any_chunking_gives_the_same_events() {
        let stream = b"data: one\n\n: c\ndata: two\ndata: lines\r\n\r\ndata\n\n";
        let mut whole = fed(stream);
        let expected = events(&mut whole);
        assert_eq!(expected, ["one", "two\nlines", ""]);
        for size in 1..stream.len() {
            let mut reader = SseReader::new(1024);
            let mut got = Vec::new();
            for chunk in stream.chunks(size) {
                reader.feed(chunk).unwrap();
                got.extend(events(&mut reader));
            }
            assert_eq!(got, expected, "chunks of {size}");
        }
    }

    #[test]
    fn an_event_past_the_limit_is_refused_as_it_grows() {
        // One line that never ends: refused once it passes the limit, whatever the chunks.
        let mut reader = SseReader::new(100);
        reader.feed(b"data: ").unwrap();
        let refused = (0..100).find_map(|_| reader.feed(b"aaaaaaaaaa").err());
        assert_eq!(refused, Some(EventTooLarge));
        // Many short lines of one event count together.
        let mut reader = SseReader::new(100);
        let refused = (0..100).find_map(|_| reader.feed(b"data: aaaaaaaa\n").err());
        assert_eq!(refused, Some(EventTooLarge));
        // An event just within the limit passes, and the next one starts from nothing.
        let mut reader = SseReader::new(10);
        reader.feed(b"data:0123\n\ndata:4567\n\n").unwrap();
        assert_eq!(events(&mut reader), ["0123", "4567"]);
    }

    #[test]
    fn a_large_event_in_small_chunks_is_read_whole() {
        let mut reader = SseReader::new(16 << 20);
        reader.feed(b"data: ").unwrap();
        let chunk = [b'a'; 1024];
        for _ in 0..8 * 1024 {
            reader.feed(&chunk).unwrap();
        }
        reader.feed(b"\n\n").unwrap();
        assert_eq!(reader.next_event().map(|e| e.len()), Some(8 << 20));
    }

    #[test]
    fn invalid_utf8_is_replaced_not_refused() {
        let mut reader = SseReader::new(64);
        reader.feed(b"data: \xff\n\n").unwrap();
        assert_eq!(events(&mut reader), ["\u{fffd}"]);
    }
}
