//! Reading a JSON object's member names as keys: the envelope's, the params' and
//! `_meta`'s readers share it, so a name is compared where it lies in the input and copied
//! only where a key keeps it.

/// A member name read as a key, without copying the name where the key keeps none.
pub(crate) trait MemberName: Sized {
    /// The key of a name read where it lies in the input.
    fn borrowed(name: &str) -> Self;
    /// The key of a name the deserializer had to copy (one with escapes): kept as it is,
    /// where the key keeps the name.
    fn owned(name: String) -> Self {
        Self::borrowed(&name)
    }
}

/// Read a member name as the key `T` (the `Deserialize` of a [`MemberName`]).
pub(crate) fn member_name<'de, T: MemberName, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<T, D::Error> {
    struct NameVisitor<T>(std::marker::PhantomData<T>);
    impl<T: MemberName> serde::de::Visitor<'_> for NameVisitor<T> {
        type Value = T;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a member name")
        }
        fn visit_str<E>(self, name: &str) -> Result<T, E> {
            Ok(T::borrowed(name))
        }
        fn visit_string<E>(self, name: String) -> Result<T, E> {
            Ok(T::owned(name))
        }
    }
    deserializer.deserialize_str(NameVisitor(std::marker::PhantomData))
}
