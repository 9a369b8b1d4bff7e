//! Server text made safe to write to a terminal.
//!
//! Everything a server sends is data, but a terminal obeys some of it: ESC starts control
//! sequences that clear the screen, retitle the window or turn text into a link to another
//! address (OSC 8); CR and BS overwrite what is already shown; the bidirectional controls
//! reorder what is shown, and the invisible ones hide characters. So every server string
//! `mcp` writes in human mode goes through [`line`] or [`text`] first, which show those
//! characters escaped and visible (`\x1b`, `\r`, `\u{9b}`, `\u{202e}`) instead of writing
//! them. `--json` output does not: it is the server's answer as JSON, exact.
//!
//! The escapes are for people to see, not to be read back: a backslash the server sent is
//! written as it is, so the server's `\x1b` (four characters) and an escaped ESC look the
//! same. What matters is that neither reaches the terminal as ESC.

use std::borrow::Cow;
use std::fmt::Write as _;

/// A field shown on one line (a name, a title, a URI, an error message): every control
/// character is escaped, the newline too (`\n`), so a server cannot add lines that look
/// like `mcp`'s own.
pub fn line(text: &str) -> Cow<'_, str> {
    escape(text, false)
}

/// A body shown as it is (a tool's text result, a resource's text, a prompt's message,
/// the server's instructions): newlines stay line breaks, every other control character
/// is escaped, `\t` and `\r` included.
pub fn text(text: &str) -> Cow<'_, str> {
    escape(text, true)
}

fn escape(text: &str, keep_newlines: bool) -> Cow<'_, str> {
    let unsafe_char = |c: char| !(keep_newlines && c == '\n') && needs_escape(c);
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if !unsafe_char(c) {
            out.push(c);
            continue;
        }
        let _ = match c {
            '\n' => out.write_str("\\n"),
            '\r' => out.write_str("\\r"),
            '\t' => out.write_str("\\t"),
            '\0'..='\x7f' => write!(out, "\\x{:02x}", u32::from(c)),
            _ => write!(out, "\\u{{{:x}}}", u32::from(c)),
        };
    }
    Cow::Owned(out)
}

/// Whether a terminal might act on `c` rather than show it: C0 controls (ESC, BEL, BS,
/// CR, TAB, the newline...), DEL, C1 controls (U+009B is CSI on some terminals), and the
/// bidirectional and invisible format characters. The zero-width joiner and non-joiner
/// (U+200D, U+200C) are not among them: emoji sequences and the scripts that need them
/// show as they should.
fn needs_escape(c: char) -> bool {
    matches!(
        c,
        '\0'..='\x1f'
            | '\x7f'..='\u{9f}'
            | '\u{61c}'
            | '\u{200b}' | '\u{200e}' | '\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{feff}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terminal::assert_terminal_safe;

    /// Each sequence a server might send to take over the terminal, and how it is shown.
    const HOSTILE: &[(&str, &str)] = &[
        ("\x1b[2J", "\\x1b[2J"),
        ("\x1b]0;owned\x07", "\\x1b]0;owned\\x07"),
        (
            "\x1b]8;;https://evil.example/\x1b\\docs\x1b]8;;\x1b\\",
            "\\x1b]8;;https://evil.example/\\x1b\\docs\\x1b]8;;\\x1b\\",
        ),
        ("paid\rrefused", "paid\\rrefused"),
        ("yes\x08\x08\x08no", "yes\\x08\\x08\\x08no"),
        ("a\tb", "a\\tb"),
        ("rub\x7fout", "rub\\x7fout"),
        ("\u{9b}2J", "\\u{9b}2J"),
        ("\u{85}next", "\\u{85}next"),
        ("abc\u{202e}fdp.exe", "abc\\u{202e}fdp.exe"),
        ("\u{2066}isolate\u{2069}", "\\u{2066}isolate\\u{2069}"),
        ("\u{feff}bom", "\\u{feff}bom"),
        ("zero\u{200b}width", "zero\\u{200b}width"),
        ("arabic\u{61c}mark", "arabic\\u{61c}mark"),
        ("word\u{2060}joiner", "word\\u{2060}joiner"),
        ("nul\0", "nul\\x00"),
    ];

    #[test]
    fn control_sequences_are_shown_escaped_on_one_line() {
        for (raw, shown) in HOSTILE {
            let got = line(raw);
            assert_eq!(got, *shown, "{raw:?}");
            assert_terminal_safe(got.as_bytes());
        }
    }

    #[test]
    fn control_sequences_are_shown_escaped_in_a_body() {
        for (raw, shown) in HOSTILE {
            let got = text(raw);
            assert_eq!(got, *shown, "{raw:?}");
            assert_terminal_safe(got.as_bytes());
        }
    }

    #[test]
    fn a_newline_is_escaped_on_one_line_and_kept_in_a_body() {
        let forged = "add  Adds.\nmcp: all checks passed\r\n";
        assert_eq!(line(forged), "add  Adds.\\nmcp: all checks passed\\r\\n");
        assert_eq!(text(forged), "add  Adds.\nmcp: all checks passed\\r\n");
    }

    #[test]
    fn the_terminal_check_refuses_what_a_terminal_would_act_on() {
        let controls = [
            "\x1b", "\x07", "\x08", "\r", "\t", "\0", "\x7f", "\u{85}", "\u{9b}", "\u{61c}",
            "\u{200b}", "\u{200f}", "\u{202a}", "\u{202e}", "\u{2060}", "\u{2064}", "\u{2066}",
            "\u{2069}", "\u{feff}",
        ];
        for control in controls {
            let bytes = format!("ok{control}ok").into_bytes();
            let refused = std::panic::catch_unwind(|| assert_terminal_safe(&bytes));
            assert!(refused.is_err(), "{control:?} passed");
        }
        assert_terminal_safe("lines\nÉté 東京 🦀 \\x1b \u{a0}\n".as_bytes());
    }

    #[test]
    fn ordinary_text_is_untouched() {
        // A family emoji and a Persian word are joined by U+200D and U+200C.
        let ordinary = "Crème brûlée, 東京, Ελληνικά, עברית, 🦀🎉, 👩\u{200d}👩\u{200d}👧, می\u{200c}خواهم, \\x1b, \"quoted\" 100%";
        assert!(matches!(line(ordinary), Cow::Borrowed(s) if s == ordinary));
        assert!(matches!(text(ordinary), Cow::Borrowed(s) if s == ordinary));
    }
}
