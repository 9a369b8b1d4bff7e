//! What the `hostile` fixture server and the tests that drive it must agree on: the
//! hostile text the `control-chars` case puts in every string it sends, and the phrase it
//! announces its HTTP endpoint with.

/// Text a terminal or a log viewer would act on if it were printed as it is: it clears the
/// screen, retitles the window, hides a link to another site behind the word "click",
/// starts a line of its own that looks like the program's output (CR LF), sets a colour
/// with the one-byte C1 CSI, turns the text that follows right to left, and ends with a
/// backspace and a DEL.
pub const HOSTILE: &str = "\u{1b}[2J\u{1b}]0;pwned\u{7}\u{1b}]8;;https://evil.example/\u{1b}\\click\u{1b}]8;;\u{1b}\\\r\nforged line\u{9b}31m\u{202e}\u{8}\u{7f}";

/// The words the server writes on stderr, followed by its endpoint's URL, once it listens
/// over HTTP: tests find the URL by them.
pub const ANNOUNCEMENT: &str = "serving MCP over Streamable HTTP at ";

/// The URL the `ask_url` tool of `control-chars` asks the user to open: its user-name part
/// makes it look like a bank's, and a terminal escape follows the path.
pub const HOSTILE_URL: &str = "https://bank.example@evil.example/login\u{1b}]8;;x\u{7}";
