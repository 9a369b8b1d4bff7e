//! The cases the server can play, the transports and eras each can be played over, and
//! the options of one run.

/// One way of misbehaving, picked by the first argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Case {
    Honest,
    HugeResult,
    Endless,
    RequestFlood,
    FloodUnread,
    CursorCycle,
    CursorEndless,
    HangInitialized,
    HangDelete,
    Hang,
    Keepalive,
    Trickle,
    ControlChars,
    Redirect,
    RedirectSame,
    DiscoverString,
    DiscoverBadShape,
    UnknownVersions,
    UnknownVersionsError,
    InitializeString,
    InitializeBadShape,
    WrongId,
    ManyQuestions,
    EndlessRounds,
    Annotations,
    UnpromptedQuestion,
    SubscriptionFlood,
    HugeDeclared,
    DenseResult,
    RedirectLoop,
}

/// Which transports a case can be served over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transports {
    Both,
    StdioOnly,
    HttpOnly,
}

/// The protocol era the honest part of the server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// 2026-07-28: `server/discover`, `resultType` on every result.
    Modern,
    /// The handshake era: `initialize`, sessions over HTTP, requests to the client.
    Legacy,
}

impl Case {
    pub const ALL: [Case; 30] = [
        Case::Honest,
        Case::HugeResult,
        Case::Endless,
        Case::RequestFlood,
        Case::FloodUnread,
        Case::CursorCycle,
        Case::CursorEndless,
        Case::HangInitialized,
        Case::HangDelete,
        Case::Hang,
        Case::Keepalive,
        Case::Trickle,
        Case::ControlChars,
        Case::Redirect,
        Case::RedirectSame,
        Case::DiscoverString,
        Case::DiscoverBadShape,
        Case::UnknownVersions,
        Case::UnknownVersionsError,
        Case::InitializeString,
        Case::InitializeBadShape,
        Case::WrongId,
        Case::ManyQuestions,
        Case::EndlessRounds,
        Case::Annotations,
        Case::UnpromptedQuestion,
        Case::SubscriptionFlood,
        Case::HugeDeclared,
        Case::DenseResult,
        Case::RedirectLoop,
    ];

    /// The case named `name` on the command line.
    pub fn parse(name: &str) -> Option<Case> {
        Case::ALL.into_iter().find(|case| case.name() == name)
    }

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Case::Honest => "honest",
            Case::HugeResult => "huge-result",
            Case::Endless => "endless",
            Case::RequestFlood => "request-flood",
            Case::FloodUnread => "flood-unread",
            Case::CursorCycle => "cursor-cycle",
            Case::CursorEndless => "cursor-endless",
            Case::HangInitialized => "hang-initialized",
            Case::HangDelete => "hang-delete",
            Case::Hang => "hang",
            Case::Keepalive => "keepalive",
            Case::Trickle => "trickle",
            Case::ControlChars => "control-chars",
            Case::Redirect => "redirect",
            Case::RedirectSame => "redirect-same",
            Case::DiscoverString => "discover-string",
            Case::DiscoverBadShape => "discover-bad-shape",
            Case::UnknownVersions => "unknown-versions",
            Case::UnknownVersionsError => "unknown-versions-error",
            Case::InitializeString => "initialize-string",
            Case::InitializeBadShape => "initialize-bad-shape",
            Case::WrongId => "wrong-id",
            Case::ManyQuestions => "many-questions",
            Case::EndlessRounds => "endless-rounds",
            Case::Annotations => "annotations",
            Case::UnpromptedQuestion => "unprompted-question",
            Case::SubscriptionFlood => "subscription-flood",
            Case::HugeDeclared => "huge-declared",
            Case::DenseResult => "dense-result",
            Case::RedirectLoop => "redirect-loop",
        }
    }

    /// The transports that can carry the misbehaviour: requests to the client outside of
    /// any stream only exist over stdio; redirects, status codes, held HTTP exchanges and
    /// SSE comments only over HTTP.
    pub fn transports(self) -> Transports {
        match self {
            Case::RequestFlood | Case::FloodUnread | Case::UnpromptedQuestion => {
                Transports::StdioOnly
            }
            Case::HangInitialized
            | Case::HangDelete
            | Case::Keepalive
            | Case::Redirect
            | Case::RedirectSame
            | Case::RedirectLoop
            | Case::HugeDeclared => Transports::HttpOnly,
            _ => Transports::Both,
        }
    }

    /// The eras the case can be played in; the first is played when `--era` is not given.
    pub fn eras(self) -> &'static [Era] {
        match self {
            Case::DiscoverString
            | Case::DiscoverBadShape
            | Case::UnknownVersions
            | Case::UnknownVersionsError
            | Case::EndlessRounds
            | Case::SubscriptionFlood => &[Era::Modern],
            Case::HangInitialized
            | Case::HangDelete
            | Case::InitializeString
            | Case::InitializeBadShape
            | Case::UnpromptedQuestion => &[Era::Legacy],
            _ => &[Era::Modern, Era::Legacy],
        }
    }
}

impl Era {
    pub fn parse(name: &str) -> Option<Era> {
        match name {
            "modern" => Some(Era::Modern),
            "legacy" => Some(Era::Legacy),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Era::Modern => "modern",
            Era::Legacy => "legacy",
        }
    }
}

/// What one run plays, from the command line and the environment.
#[derive(Debug, Clone)]
pub struct Options {
    pub case: Case,
    pub era: Era,
    /// The address to serve Streamable HTTP on; stdio when `None`.
    pub http: Option<String>,
    /// Over HTTP, answer requests with an SSE stream rather than a JSON body.
    pub sse: bool,
    /// Where `redirect` sends every request.
    pub redirect_to: Option<String>,
    /// `HOSTILE_BYTES`: the size of `huge-result`'s response.
    pub bytes: u64,
    /// `HOSTILE_COUNT`: how many messages or questions the flooding cases send.
    pub count: Option<u64>,
    /// `HOSTILE_401=1`: over HTTP, refuse every request with a hostile 401.
    pub refuse_401: bool,
    /// `HOSTILE_METHOD`: the one method (`tools/list` or `tools/call`) the cases that
    /// misbehave on both misbehave on; the other is answered honestly. Both when `None`.
    pub only_method: Option<String>,
}

impl Options {
    /// How many messages or questions, when `HOSTILE_COUNT` does not say.
    pub fn count_or(&self, default: u64) -> u64 {
        self.count.unwrap_or(default)
    }
}
