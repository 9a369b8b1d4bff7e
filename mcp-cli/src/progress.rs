//! What `mcp call` shows while the server works, on a terminal: a spinner from the start,
//! and a bar once the server reports progress (`notifications/progress`: how far, of how
//! much, and its message), drawn on stderr and cleared when the answer comes, so that
//! stdout holds the answer alone. Not on a terminal, nothing is drawn and no progress is
//! asked for: a script sees what it always saw.
//!
//! The server's message is server text: it is shown escaped ([`safe::line`]) and cut short,
//! never written raw. A question the server asks during the call suspends the drawing
//! while it is asked ([`suspended`]).

use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::Value;

use crate::safe;

/// The most characters of the server's message shown beside the bar.
const MESSAGE_CHARS: usize = 60;

/// The indicator of the call under way, for [`suspended`].
static CURRENT: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// The indicator of one call.
pub(crate) struct Indicator {
    bar: Option<ProgressBar>,
}

impl Indicator {
    /// A spinner on stderr when stderr is a terminal; else nothing.
    pub(crate) fn start(tool: &str) -> Indicator {
        if !std::io::stderr().is_terminal() {
            return Indicator { bar: None };
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        let indicator = Indicator::drawing(bar, tool);
        if let Some(bar) = &indicator.bar {
            bar.enable_steady_tick(Duration::from_millis(100));
        }
        indicator
    }

    /// An indicator drawing `bar` (a hidden one in tests).
    fn drawing(bar: ProgressBar, tool: &str) -> Indicator {
        bar.set_style(
            ProgressStyle::with_template("{spinner} {prefix} {elapsed} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.set_prefix(safe::line(tool).into_owned());
        if let Ok(mut current) = CURRENT.lock() {
            *current = Some(bar.clone());
        }
        Indicator { bar: Some(bar) }
    }

    /// What to give each progress notification's params to, when anything is drawn.
    pub(crate) fn sink(&self) -> Option<impl Fn(Value) + Send + Sync + 'static> {
        let bar = Arc::new(self.bar.clone()?);
        Some(move |params: Value| show(&bar, &params))
    }

    /// The answer came: the indicator goes.
    pub(crate) fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
        if let Ok(mut current) = CURRENT.lock() {
            *current = None;
        }
    }
}

/// One progress notification drawn: a bar once the server says of how much, the count
/// alone before, and its message escaped and cut short. Numbers the server sends that are
/// not counts (negative, fractional, absurd) are read as the nearest count.
fn show(bar: &ProgressBar, params: &Value) {
    let progress = params.get("progress").and_then(Value::as_f64);
    let total = params.get("total").and_then(Value::as_f64);
    if let Some(total) = total.filter(|t| t.is_finite() && *t > 0.0) {
        if bar.length().is_none() {
            bar.set_style(
                ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {elapsed} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
        }
        bar.set_length(count(total));
    }
    if let Some(progress) = progress {
        let position = count(progress);
        if bar.length().is_some_and(|length| position > length) {
            bar.set_length(position);
        }
        bar.set_position(position);
    }
    if let Some(message) = params.get("message").and_then(Value::as_str) {
        let shown: String = safe::line(message).chars().take(MESSAGE_CHARS).collect();
        bar.set_message(shown);
    }
}

/// A number the server sent, as a count: rounded, at least 0 (`as` saturates and reads
/// NaN as 0).
fn count(value: f64) -> u64 {
    value.round().max(0.0) as u64
}

/// Runs `ask` with the indicator of the call under way (if any) off the terminal, so that
/// a question and its answer are not drawn over.
pub(crate) fn suspended<T>(ask: impl FnOnce() -> T) -> T {
    let bar = CURRENT.lock().ok().and_then(|current| current.clone());
    match bar {
        Some(bar) => bar.suspend(ask),
        None => ask(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn hidden(tool: &str) -> (Indicator, ProgressBar) {
        let bar = ProgressBar::hidden();
        (Indicator::drawing(bar.clone(), tool), bar)
    }

    #[test]
    fn progress_notifications_move_the_bar() {
        let (indicator, bar) = hidden("export_report");
        let sink = indicator.sink().expect("drawing");
        sink(json!({"progress": 50, "message": "Exporting rows"}));
        assert_eq!(bar.position(), 50);
        assert_eq!(bar.length(), None, "no total yet: a count alone");
        sink(json!({"progress": 100, "total": 300, "message": "Exporting rows"}));
        assert_eq!((bar.position(), bar.length()), (100, Some(300)));
        assert_eq!(bar.message(), "Exporting rows");
        indicator.finish();
        assert!(bar.is_finished());
    }

    #[test]
    fn what_the_server_sends_is_shown_escaped_and_bounded() {
        let (indicator, bar) = hidden("x\u{1b}[2J");
        assert_eq!(bar.prefix(), "x\\x1b[2J");
        let sink = indicator.sink().expect("drawing");
        sink(
            json!({"progress": -5, "total": "many", "message": format!("\u{1b}]0;title\u{7}{}", "a".repeat(500))}),
        );
        assert_eq!(bar.position(), 0);
        assert!(!bar.message().contains('\u{1b}'));
        assert_eq!(bar.message().chars().count(), MESSAGE_CHARS);
        sink(json!({"progress": 1e300, "total": 10}));
        assert_eq!(bar.position(), u64::MAX, "saturated, not wrapped");
        assert_eq!(
            bar.length(),
            Some(u64::MAX),
            "the length follows a position past it"
        );
        sink(json!({"progress": f64::NAN}));
        indicator.finish();
    }

    #[test]
    fn nothing_is_drawn_off_a_terminal() {
        // The tests' stderr is captured, not a terminal.
        let indicator = Indicator::start("tool");
        assert!(indicator.sink().is_none());
        indicator.finish();
    }
}
