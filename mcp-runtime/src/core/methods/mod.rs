//! One module per method family; each adds its handler to [`Core`](super::Core).

mod completion;
pub(crate) mod lists;
pub(crate) mod params;
mod prompts;
mod resources;
pub(crate) mod subscriptions;
mod tasks;
mod tools;
