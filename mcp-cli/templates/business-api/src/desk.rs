//! The support desk the tools put in front of callers: tickets in memory, here. Put your
//! own database or API client in its place; the tools reach it as `State<Desk>`.

use std::collections::BTreeMap;
use std::sync::Mutex;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a ticket stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Someone is waiting for an answer.
    Open,
    /// Done with.
    Closed,
}

/// A support ticket.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Ticket {
    /// The ticket's number.
    pub id: u64,
    /// What it is about, in one line.
    pub title: String,
    /// Where it stands.
    pub status: Status,
}

/// The tickets, by number.
pub struct Desk {
    tickets: Mutex<BTreeMap<u64, Ticket>>,
}

impl Desk {
    /// A desk with `count` open tickets to try the tools on.
    pub fn sample(count: u64) -> Desk {
        let tickets = (1..=count)
            .map(|id| {
                let ticket = Ticket {
                    id,
                    title: format!("Question number {id}"),
                    status: Status::Open,
                };
                (id, ticket)
            })
            .collect();
        Desk {
            tickets: Mutex::new(tickets),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Ticket>> {
        self.tickets.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Up to `limit` tickets with a number above `after`, in `status` if given, in order.
    pub fn list(&self, status: Option<Status>, after: u64, limit: usize) -> Vec<Ticket> {
        self.lock()
            .range(after + 1..)
            .map(|(_, ticket)| ticket)
            .filter(|ticket| status.is_none_or(|s| ticket.status == s))
            .take(limit)
            .cloned()
            .collect()
    }

    /// One ticket.
    pub fn get(&self, id: u64) -> Option<Ticket> {
        self.lock().get(&id).cloned()
    }

    /// A new open ticket.
    pub fn open(&self, title: String) -> Ticket {
        let mut tickets = self.lock();
        let id = tickets.keys().next_back().map_or(1, |last| last + 1);
        let ticket = Ticket {
            id,
            title,
            status: Status::Open,
        };
        tickets.insert(id, ticket.clone());
        ticket
    }

    /// Close a ticket: `false` when there is none of that number.
    pub fn close(&self, id: u64) -> bool {
        match self.lock().get_mut(&id) {
            Some(ticket) => {
                ticket.status = Status::Closed;
                true
            }
            None => false,
        }
    }
}
