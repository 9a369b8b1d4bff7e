//! Newline-delimited framing of stdio: reading one bounded line at a time, writing frames
//! in bursts, and the process's own stdin and stdout as non-blocking pipes.

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// Queue `message` for the writer.
pub(super) async fn send(tx: &mpsc::Sender<Vec<u8>>, message: &Value) {
    let _ = tx.send(to_frame(message)).await;
}

/// A message as one frame's bytes.
fn to_frame(message: &Value) -> Vec<u8> {
    serde_json::to_vec(message).unwrap_or_else(|e| {
        tracing::error!("could not serialize a response: {e}");
        Vec::new()
    })
}

/// This process's stdin and stdout as non-blocking pipes, when they are pipes.
#[cfg(unix)]
pub(crate) fn pipes() -> Option<(
    tokio::net::unix::pipe::Receiver,
    tokio::net::unix::pipe::Sender,
)> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::FileTypeExt as _;
    let input = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    let output = std::io::stdout().as_fd().try_clone_to_owned().ok()?;
    // Both must be pipes before either is touched: making one non-blocking changes the
    // file description itself, which the blocking fallback would then read with EAGAIN.
    let is_pipe = |fd: &std::os::fd::OwnedFd| {
        fd.try_clone()
            .map(std::fs::File::from)
            .and_then(|file| file.metadata())
            .is_ok_and(|meta| meta.file_type().is_fifo())
    };
    if !is_pipe(&input) || !is_pipe(&output) {
        return None;
    }
    let input = tokio::net::unix::pipe::Receiver::from_owned_fd(input).ok()?;
    let output = tokio::net::unix::pipe::Sender::from_owned_fd(output).ok()?;
    Some((input, output))
}

/// Write each frame with its newline, until every sender is gone.
pub(super) async fn write_frames<W: AsyncWrite + Unpin>(
    writer: W,
    mut rx: mpsc::Receiver<Vec<u8>>,
) -> std::io::Result<()> {
    // Frames queued together leave in one write.
    let mut writer = tokio::io::BufWriter::with_capacity(64 * 1024, writer);
    while let Some(mut frame) = rx.recv().await {
        frame.push(b'\n');
        writer.write_all(&frame).await?;
        // Flush only when nothing else is queued, so bursts go out in one write.
        if rx.is_empty() {
            writer.flush().await?;
        }
    }
    writer.flush().await?;
    Ok(())
}

/// How far one call of [`read_line`] got.
pub(super) enum Line {
    /// What was read is used up before the end of the line.
    Partial,
    Complete,
    TooLong,
    Eof,
}

/// A line as far as it has been read.
#[derive(Default)]
pub(super) struct PartialLine {
    /// Its bytes so far, without the newline.
    pub(super) bytes: Vec<u8>,
    /// It outgrew the limit: its bytes are dropped and the rest is skipped.
    too_long: bool,
}

impl PartialLine {
    /// Start the next line, keeping the buffer's capacity.
    pub(super) fn clear(&mut self) {
        self.bytes.clear();
        self.too_long = false;
    }
}

/// Read on into `line` up to the end of a line, or until what was read from `reader` is
/// used up (`Partial`: call again to go on), never holding more than `max` bytes. The
/// caller clears `line` after a `Complete` or `TooLong`.
pub(super) async fn read_line<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    line: &mut PartialLine,
    max: usize,
) -> std::io::Result<Line> {
    let buf = reader.fill_buf().await?;
    if buf.is_empty() {
        return Ok(if line.too_long {
            Line::TooLong
        } else if !line.bytes.is_empty() {
            Line::Complete
        } else {
            Line::Eof
        });
    }
    let (chunk, found, used) = match memchr::memchr(b'\n', buf) {
        Some(i) => (buf.get(..i).unwrap_or_default(), true, i + 1),
        None => (buf, false, buf.len()),
    };
    if !line.too_long {
        if line.bytes.len() + chunk.len() > max {
            line.too_long = true;
            line.bytes.clear();
        } else {
            line.bytes.extend_from_slice(chunk);
        }
    }
    reader.consume(used);
    if !found {
        return Ok(Line::Partial);
    }
    if line.bytes.last() == Some(&b'\r') {
        line.bytes.pop();
    }
    Ok(if line.too_long {
        Line::TooLong
    } else {
        Line::Complete
    })
}
