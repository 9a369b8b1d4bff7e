//! What the server answers each request, case by case, whatever the transport: the honest
//! baseline of the chosen era, and the case's misbehaviour where it takes over. The
//! transports carry out the answer (see [`Reply`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};

use crate::answers::Waiting;
use crate::cases::{Case, Era, Options};
use crate::chunks::{self, Chunks};
use crate::messages::{self as m, MODERN};

/// What a transport does with one request.
pub enum Reply {
    /// One JSON-RPC message.
    Message(Value),
    /// One message, written piece by piece as the peer takes it (it may never end).
    Chunks(Chunks),
    /// Nothing, ever: the request stays unanswered (over HTTP, held open).
    Hang,
    /// HTTP: an SSE stream of comments only, every 100 ms, forever.
    Keepalive,
    /// This message, one byte a second.
    Trickle(Chunks),
    /// Handshake-era questions: requests to the client first, the response after its
    /// answers (over HTTP, all on the call's SSE stream).
    Ask(Questions),
    /// Stdio: `count` requests to the client as fast as it takes them, then the reply.
    Flood { count: u64, then: Box<Reply> },
    /// Stdio: no more reading, ever; `ping` requests forever (or `count` of them), and
    /// the request never answered.
    FloodUnread { count: Option<u64> },
    /// Stdio: this reply, then a question the client did not ask for (no request of its
    /// is waiting any more), whose answer [`Reply::Unprompted`] reports.
    ThenAsk(Box<Reply>),
    /// Stdio: the client's answer to the question of [`Reply::ThenAsk`], as the text of
    /// the result of request `id` (waiting for it a while).
    Unprompted(Value),
    /// HTTP: a JSON body declared `length` bytes long (`Content-Length`), sent one byte a
    /// second.
    Declared { chunks: Chunks, length: u64 },
    /// A `subscriptions/listen` acknowledged, then `count` notifications for it as fast as
    /// the client takes them; the request is never answered.
    SubscriptionFlood {
        ack: Value,
        notification: Value,
        count: u64,
    },
}

/// The `elicitation/create` requests of one call, and its response once they are answered.
pub struct Questions {
    /// Each request's params, made as it is sent.
    pub params: Box<dyn Iterator<Item = Value> + Send>,
    pub count: u64,
    /// The response, given the last answer (the whole JSON-RPC response of the client).
    pub finish: Box<dyn FnOnce(Value) -> Value + Send>,
}

/// The server: the options of the run and the little it remembers.
pub struct Hostile {
    pub options: Options,
    /// Whether the one flood of `request-flood` or `flood-unread` has begun.
    flooded: AtomicBool,
    pub waiting: Arc<Waiting>,
}

impl Hostile {
    pub fn new(options: Options) -> Hostile {
        Hostile {
            options,
            flooded: AtomicBool::new(false),
            waiting: Arc::new(Waiting::default()),
        }
    }

    pub fn case(&self) -> Case {
        self.options.case
    }

    pub fn era(&self) -> Era {
        self.options.era
    }

    /// The reply to `request`, a message with a `method` and an `id`.
    pub fn answer(&self, request: &Value) -> Reply {
        let id = &request["id"];
        let method = request["method"].as_str().unwrap_or_default();
        let params = &request["params"];
        let reply = match self.take_over(id, method, params) {
            Some(reply) => reply,
            None => self.baseline(id, method, params),
        };
        match reply {
            // `wrong-id`: the opening exchange is honest, so a client gets as far as a call.
            Reply::Message(mut message)
                if self.case() == Case::WrongId
                    && !matches!(method, "server/discover" | "initialize") =>
            {
                message["id"] = another_id(id);
                Reply::Message(message)
            }
            reply => reply,
        }
    }

    /// The misbehaviour of the cases that answer listing and calling tools in their own way.
    fn take_over(&self, id: &Value, method: &str, params: &Value) -> Option<Reply> {
        if self.case() == Case::SubscriptionFlood && method == "subscriptions/listen" {
            return Some(Reply::SubscriptionFlood {
                ack: m::subscription_ack(id, &params["notifications"]),
                notification: m::subscription_notification(id),
                count: self.options.count_or(5_000),
            });
        }
        if !matches!(method, "tools/list" | "tools/call") {
            return None;
        }
        if self
            .options
            .only_method
            .as_deref()
            .is_some_and(|only| only != method)
        {
            return None;
        }
        let reply = match self.case() {
            Case::HugeResult => Reply::Chunks(chunks::huge(id, self.options.bytes)),
            // Well within a message's size limit as text: 4 MB unless HOSTILE_BYTES is less.
            Case::DenseResult => {
                Reply::Chunks(chunks::dense(id, self.options.bytes.min(4_000_000)))
            }
            Case::Endless => Reply::Chunks(chunks::endless(id)),
            Case::Hang => Reply::Hang,
            Case::Keepalive => Reply::Keepalive,
            Case::Trickle => Reply::Trickle(chunks::endless(id)),
            Case::HugeDeclared => Reply::Declared {
                chunks: chunks::huge(id, self.options.bytes),
                length: self.options.bytes,
            },
            Case::RequestFlood if !self.flooded.swap(true, Ordering::SeqCst) => Reply::Flood {
                count: self.options.count_or(300_000),
                then: Box::new(self.baseline(id, method, params)),
            },
            Case::FloodUnread if !self.flooded.swap(true, Ordering::SeqCst) => Reply::FloodUnread {
                count: self.options.count,
            },
            Case::UnpromptedQuestion if method == "tools/list" => {
                Reply::ThenAsk(Box::new(self.baseline(id, method, params)))
            }
            Case::UnpromptedQuestion => Reply::Unprompted(id.clone()),
            _ => return None,
        };
        Some(reply)
    }

    /// The honest baseline, with what each case changes in it.
    fn baseline(&self, id: &Value, method: &str, params: &Value) -> Reply {
        let modern = self.era() == Era::Modern;
        match method {
            "server/discover" if modern => self.discover(id, params),
            "initialize" if !modern => self.initialize(id),
            // What a server of 2026-07-28 only should say to a handshake: its version.
            "initialize" => Reply::Message(m::error(
                id,
                m::METHOD_NOT_FOUND,
                "Method not found: this server speaks 2026-07-28 only",
            )),
            "ping" | "logging/setLevel" if !modern => Reply::Message(m::response(id, json!({}))),
            "tools/list" => self.listing(id, params, "tools"),
            "tools/call" => self.call_tool(id, params),
            "resources/list" => self.listing(id, params, "resources"),
            "resources/templates/list" => self.listing(id, params, "resourceTemplates"),
            "prompts/list" => self.listing(id, params, "prompts"),
            "resources/read" => self.read_resource(id, params),
            "prompts/get" => self.get_prompt(id, params),
            _ => Reply::Message(m::error(id, m::METHOD_NOT_FOUND, "Method not found")),
        }
    }

    /// A result as this era shapes it: in 2026-07-28 it says it is complete.
    fn result(&self, id: &Value, mut result: Value) -> Reply {
        if let (Era::Modern, Value::Object(map)) = (self.era(), &mut result) {
            map.entry("resultType").or_insert(json!("complete"));
        }
        Reply::Message(m::response(id, result))
    }

    /// A cacheable result (a list page, a resource's contents): in 2026-07-28 it says for
    /// how long, and for whom; never, and only this client, so no test sees a cached page.
    fn cacheable(&self, id: &Value, mut result: Value) -> Reply {
        if self.era() == Era::Modern {
            result["ttlMs"] = json!(0);
            result["cacheScope"] = json!("private");
        }
        self.result(id, result)
    }

    fn discover(&self, id: &Value, params: &Value) -> Reply {
        let result = match self.case() {
            Case::DiscoverString => json!("ok"),
            Case::DiscoverBadShape => {
                json!({"resultType": "complete", "supportedVersions": MODERN, "capabilities": []})
            }
            Case::UnknownVersions => m::discover_result(&["1999-01-01"]),
            Case::UnknownVersionsError => {
                let requested = params
                    .pointer("/_meta/io.modelcontextprotocol~1protocolVersion")
                    .and_then(Value::as_str)
                    .unwrap_or(MODERN);
                return Reply::Message(m::error_with_data(
                    id,
                    m::UNSUPPORTED_VERSION,
                    "Unsupported protocol version",
                    json!({"supported": ["1999-01-01"], "requested": requested}),
                ));
            }
            Case::ControlChars => {
                let mut result = m::discover_result(&[MODERN]);
                result["instructions"] = json!(m::hostile_instructions());
                result["_meta"]["io.modelcontextprotocol/serverInfo"] = m::hostile_server_info();
                result
            }
            _ => m::discover_result(&[MODERN]),
        };
        Reply::Message(m::response(id, result))
    }

    fn initialize(&self, id: &Value) -> Reply {
        let result = match self.case() {
            Case::InitializeString => json!("ok"),
            Case::InitializeBadShape => {
                json!({"protocolVersion": m::LEGACY, "capabilities": "all"})
            }
            Case::ControlChars => {
                let mut result = m::initialize_result();
                result["instructions"] = json!(m::hostile_instructions());
                result["serverInfo"] = m::hostile_server_info();
                result
            }
            _ => m::initialize_result(),
        };
        Reply::Message(m::response(id, result))
    }

    /// `tools/list`, `resources/list`, `resources/templates/list`, `prompts/list`: the
    /// list named `key` in the result.
    fn listing(&self, id: &Value, params: &Value, key: &str) -> Reply {
        let cursor = params["cursor"].as_str();
        let paged = matches!(self.case(), Case::CursorCycle | Case::CursorEndless);
        if paged {
            let Some((number, next)) = self.page(cursor) else {
                return Reply::Message(m::error(id, m::INVALID_PARAMS, "Invalid cursor"));
            };
            let item = match key {
                "tools" => m::numbered_tool(number),
                "resources" => m::numbered_resource(number),
                "resourceTemplates" => m::numbered_template(number),
                _ => m::numbered_prompt(number),
            };
            return self.cacheable(id, json!({key: [item], "nextCursor": next}));
        }
        if cursor.is_some() {
            // The one page of a list has no next one to name.
            return Reply::Message(m::error(id, m::INVALID_PARAMS, "Invalid cursor"));
        }
        let items = match (self.case(), key) {
            (Case::ControlChars, "tools") => m::hostile_tools(),
            (Case::Annotations, "tools") => json!([m::lying_tool()]),
            (_, "tools") => json!([m::echo_tool()]),
            (Case::ControlChars, "resources") => json!([m::hostile_resource()]),
            (Case::ControlChars, "resourceTemplates") => json!([m::hostile_template()]),
            (Case::ControlChars, "prompts") => json!([m::hostile_prompt()]),
            _ => json!([]),
        };
        self.cacheable(id, json!({key: items}))
    }

    /// The `cursor-*` cases: the number of the page `cursor` names, and its `nextCursor`;
    /// `None` for a cursor the server never gave.
    fn page(&self, cursor: Option<&str>) -> Option<(u64, String)> {
        match (self.case(), cursor) {
            (Case::CursorCycle, None) => Some((1, "A".into())),
            (Case::CursorCycle, Some("A")) => Some((2, "B".into())),
            (Case::CursorCycle, Some("B")) => Some((3, "A".into())),
            (Case::CursorEndless, None) => Some((1, "1".into())),
            (Case::CursorEndless, Some(n)) => {
                let n: u64 = n.parse().ok()?;
                let next = n.checked_add(1)?;
                Some((next, next.to_string()))
            }
            _ => None,
        }
    }

    fn call_tool(&self, id: &Value, params: &Value) -> Reply {
        let name = params["name"].as_str().unwrap_or_default();
        let arguments = &params["arguments"];
        let retried = params.get("inputResponses").is_some();
        match (self.case(), name) {
            (Case::ManyQuestions, _) => self.many_questions(id),
            (Case::EndlessRounds, _) => self.endless_round(id, params),
            (Case::Annotations, "drop_database") => self.result(id, m::text("dropped")),
            (Case::ControlChars, "fail") => {
                let mut result = m::text(mcp_hostile_servers::HOSTILE);
                result["isError"] = json!(true);
                self.result(id, result)
            }
            (Case::ControlChars, "rpc_error") => Reply::Message(m::error_with_data(
                id,
                m::INTERNAL_ERROR,
                &format!("Internal error {}", mcp_hostile_servers::HOSTILE),
                json!({"detail": mcp_hostile_servers::HOSTILE}),
            )),
            (Case::ControlChars, "ask" | "ask_url") => {
                let question = if name == "ask" {
                    m::hostile_form_question()
                } else {
                    m::hostile_url_question()
                };
                match self.era() {
                    Era::Modern if retried => {
                        self.result(id, m::hostile_echo(&params["inputResponses"]["q"]))
                    }
                    Era::Modern => Reply::Message(m::response(
                        id,
                        json!({
                            "resultType": "input_required",
                            "inputRequests": {
                                "q": {"method": "elicitation/create", "params": question},
                            },
                            "requestState": format!("state {}", mcp_hostile_servers::HOSTILE),
                        }),
                    )),
                    Era::Legacy => {
                        let id = id.clone();
                        Reply::Ask(Questions {
                            params: Box::new(std::iter::once(question)),
                            count: 1,
                            finish: Box::new(move |answer| {
                                let answer = match answer.get("result") {
                                    Some(result) => result.clone(),
                                    None => answer["error"].clone(),
                                };
                                m::response(&id, m::hostile_echo(&answer))
                            }),
                        })
                    }
                }
            }
            (Case::ControlChars, evil) if evil.starts_with("evil") => {
                self.result(id, m::text(mcp_hostile_servers::HOSTILE))
            }
            (_, "echo") => {
                let text = arguments["text"].as_str().unwrap_or_default();
                self.result(id, m::text(text))
            }
            _ => Reply::Message(m::error(id, m::INVALID_PARAMS, "Unknown tool")),
        }
    }

    /// `many-questions`: every call asks `HOSTILE_COUNT` questions, retried or not.
    fn many_questions(&self, id: &Value) -> Reply {
        let count = self.options.count_or(10_000);
        match self.era() {
            Era::Modern => Reply::Chunks(chunks::many_questions(id, count)),
            Era::Legacy => {
                let id = id.clone();
                Reply::Ask(Questions {
                    params: Box::new((1..=count).map(m::yes_no_question)),
                    count,
                    finish: Box::new(move |_| {
                        m::response(&id, m::text(&format!("{count} questions answered")))
                    }),
                })
            }
        }
    }

    /// `endless-rounds`: every call, retried or not, is answered with one more question
    /// and a new state; the number of the round comes from the state the client sent back.
    fn endless_round(&self, id: &Value, params: &Value) -> Reply {
        let round = params["requestState"]
            .as_str()
            .and_then(|state| state.strip_prefix('s'))
            .and_then(|n| n.parse::<u64>().ok())
            .map_or(1, |n| n.saturating_add(1));
        Reply::Message(m::response(
            id,
            json!({
                "resultType": "input_required",
                "inputRequests": {
                    format!("q{round}"): {
                        "method": "elicitation/create",
                        "params": m::yes_no_question(round),
                    },
                },
                "requestState": format!("s{round}"),
            }),
        ))
    }

    fn read_resource(&self, id: &Value, params: &Value) -> Reply {
        if self.case() == Case::ControlChars {
            return self.cacheable(id, m::hostile_contents(&params["uri"]));
        }
        match self.era() {
            Era::Modern => Reply::Message(m::error(id, m::INVALID_PARAMS, "Resource not found")),
            Era::Legacy => {
                Reply::Message(m::error(id, m::RESOURCE_NOT_FOUND, "Resource not found"))
            }
        }
    }

    fn get_prompt(&self, id: &Value, _params: &Value) -> Reply {
        if self.case() == Case::ControlChars {
            return self.result(id, m::hostile_prompt_result());
        }
        Reply::Message(m::error(id, m::INVALID_PARAMS, "Unknown prompt"))
    }
}

/// `wrong-id`: an id the client never sent, of the same JSON type as the one it did.
fn another_id(id: &Value) -> Value {
    match id {
        Value::String(text) => json!(format!("{text}x")),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(n), ..) => json!(n.saturating_add(1000)),
            (None, Some(n), _) => json!(n.saturating_add(1000)),
            (.., Some(n)) => json!(n + 1000.0),
            _ => json!(1000),
        },
        _ => json!("wrong"),
    }
}
