//! What the macros emit, and the catalog built from it once at start.
//!
//! `#[tool]`, `#[resource]` and `#[prompt]` expand to a `static` definition plus an
//! `inventory` submission. At `Server` build time the definitions are filtered, checked for
//! duplicates (and overlapping URI templates), turned into schemas and compiled validators,
//! sorted, and their list pages serialized ahead of time.
//!
//! The registry sits below the core and carries data, not behaviour. Its one arrow up is a
//! type-only contract: the function-pointer types of the generated glue name the
//! handler's `RequestContext` and the completer's `CompletionRequest` (checked by
//! `tests/layers.rs`).

/// What the catalog's checks and the server's selection read of a definition.
pub(crate) trait Defined {
    /// Its name.
    fn name(&self) -> &'static str;
    /// The module it is defined in (`module_path!()`), which `Server::only_module` picks.
    fn module_path(&self) -> &'static str;
    /// Where it is defined: `module (file:line)`; for one added at run time (at line 0),
    /// the builder method that added it, which its `file` names.
    fn place(&self) -> String;
}

/// What each kind of definition the macros emit comes with: its name and place (for
/// duplicate errors), its `inventory` entry, the trait of the item the macro places in the
/// type namespace beside the function, and the reference that item makes, so a list macro
/// (`tools![..]`, `resources![..]`, `prompts![..]`) can name functions by path.
macro_rules! registered {
    ($def:ident, $registration:ident, $item:ident, $reference:ident, $attribute:literal, $kinds:literal) => {
        impl $crate::registry::Defined for $def {
            fn name(&self) -> &'static str {
                self.name
            }

            fn module_path(&self) -> &'static str {
                self.module_path
            }

            fn place(&self) -> String {
                if self.line == 0 {
                    self.file.to_owned()
                } else {
                    format!("{} ({}:{})", self.module_path, self.file, self.line)
                }
            }
        }

        #[doc = concat!("An `inventory` entry pointing at a [`", stringify!($def), "`].")]
        #[doc(hidden)]
        pub struct $registration(pub &'static $def);

        inventory::collect!($registration);

        impl $registration {
            /// Every definition of this kind linked into the binary.
            pub(crate) fn all() -> impl Iterator<Item = &'static $def> {
                inventory::iter::<$registration>.into_iter().map(|r| r.0)
            }
        }

        #[doc = concat!("Implemented by the item `", $attribute, "` places beside the function, so `", $kinds, "![..]` can name ", $kinds, " by path.")]
        pub trait $item {
            /// The definition.
            fn def() -> &'static $def;
        }

        #[doc = concat!("A reference to one of the ", $kinds, ", as produced by `", $kinds, "![..]`.")]
        #[derive(Debug, Clone, Copy)]
        pub struct $reference(pub &'static $def);

        impl $reference {
            #[doc = concat!("The one named by the type `T` that `", $attribute, "` generated.")]
            pub fn of<T: $item>() -> Self {
                $reference(T::def())
            }
        }
    };
}

pub(crate) mod abridge;
mod build_error;
mod catalog;
pub(crate) mod dynamic;
mod listed;
mod listing;
mod prompt;
mod resource;
pub(crate) mod spec;
mod tool;
pub mod uri;
pub(crate) mod view;

pub(crate) use catalog::versions;
pub use catalog::{BuildError, Catalog, CatalogTool, Defs, ListPage, Listing};
pub(crate) use catalog::{CatalogPrompt, CatalogResource, ResourceAt};
pub use listed::Listed;
pub use prompt::{
    CompleteFuture, Completer, PromptDef, PromptFuture, PromptItem, PromptRef, PromptRegistration,
};
pub use resource::{
    ReadFuture, ReadRequest, ResourceDef, ResourceItem, ResourceRef, ResourceRegistration,
};
pub use spec::ParamSpec;
pub use tool::{
    ErrorDetail, InlineLimit, TaskSupport, ToolDef, ToolItem, ToolRef, ToolRegistration,
};
pub use view::{Permissions, ViewDef, Visibility};
