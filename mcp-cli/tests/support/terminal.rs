//! What a hostile server sends, and a check of the exact bytes `mcp` writes for people:
//! nothing in them a terminal would act on. Shared by the unit tests (through `#[path]`)
//! and the tests of the binary.
//!
//! The check reads bytes, not the escaping code's idea of them, so it catches what that
//! code forgets.

/// A string with each trick a server might play on a terminal: clear the screen (ESC
/// `[2J`), retitle the window (OSC 0 ended by BEL), a link showing one text and leading
/// elsewhere (OSC 8 ended by ST), CR, BS, TAB, DEL, a C1 CSI (U+009B), a right-to-left
/// override, a bidi isolate and a byte order mark.
pub const HOSTILE: &str = "a\x1b[2Jb\x1b]0;t\x07c\x1b]8;;https://evil.example/\x1b\\d\x1b]8;;\x1b\\e\rf\x08g\th\x7fi\u{9b}j\u{202e}k\u{2066}l\u{feff}m";

/// How `mcp` shows [`HOSTILE`]: each control escaped, visible, harmless.
pub const HOSTILE_SHOWN: &str = r"a\x1b[2Jb\x1b]0;t\x07c\x1b]8;;https://evil.example/\x1b\d\x1b]8;;\x1b\e\rf\x08g\th\x7fi\u{9b}j\u{202e}k\u{2066}l\u{feff}m";

/// Panics, showing where, if `bytes` hold anything a terminal would act on rather than
/// show: a byte below 0x20 other than `\n`, DEL (0x7f), a C1 control in UTF-8 (0xC2 then
/// 0x80..=0x9F), or one of the bidirectional and invisible format characters.
pub fn assert_terminal_safe(bytes: &[u8]) {
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => panic!("not UTF-8 ({error}): {bytes:?}"),
    };
    for (at, pair) in bytes.windows(2).enumerate() {
        if pair[0] == 0xc2 && (0x80..=0x9f).contains(&pair[1]) {
            panic!("a C1 control at byte {at}: {text:?}");
        }
    }
    for (at, &byte) in bytes.iter().enumerate() {
        if (byte < 0x20 && byte != b'\n') || byte == 0x7f {
            panic!("control byte {byte:#04x} at byte {at}: {text:?}");
        }
    }
    for (at, c) in text.char_indices() {
        let format_control = matches!(
            c,
            '\u{61c}'
                | '\u{200b}' | '\u{200e}' | '\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{2069}'
                | '\u{feff}'
        );
        if format_control {
            panic!(
                "format control U+{:04X} at byte {at}: {text:?}",
                u32::from(c)
            );
        }
    }
}
