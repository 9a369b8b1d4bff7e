//! The builders' setters that only store their argument: written as a table, one row a
//! setter (its docs, its name and argument, and the field it sets to what), since their
//! bodies would differ only in that field.

/// `fn name(arg: Type) => field.path = value;` becomes
/// `pub fn name(mut self, arg: Type) -> Self { self.field.path = value; self }`, with the
/// row's attributes (its docs, a `cfg`) on the method.
macro_rules! setters {
    ($(
        $(#[$attr:meta])*
        fn $name:ident($arg:ident: $ty:ty) => $($field:ident).+ = $value:expr;
    )*) => {
        $(
            $(#[$attr])*
            pub fn $name(mut self, $arg: $ty) -> Self {
                self.$($field).+ = $value;
                self
            }
        )*
    };
}

pub(crate) use setters;
