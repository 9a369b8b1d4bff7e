//! One module per method family; each adds its handler to [`Core`](super::Core).

mod completion;
mod prompts;
mod resources;
pub(crate) mod subscriptions;
mod tasks;
mod tools;
