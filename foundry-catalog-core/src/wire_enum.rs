//! [`wire_enum!`]: an enum whose wire spellings are written once.

/// A string that is none of an enum's wire spellings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownValue {
    /// The rejected text.
    pub text: String,
    /// Every accepted spelling.
    pub expected: &'static [&'static str],
}

impl std::fmt::Display for UnknownValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let UnknownValue { text, expected } = self;
        write!(f, "{text:?} is not one of {}; hint: use one of the values listed", expected.join(", "))
    }
}

impl std::error::Error for UnknownValue {}

/// Declares a fieldless enum with one wire spelling per variant, written
/// once, and derives everything else from it:
///
/// - `ALL` (every variant) and `VALUES` (every spelling), in declaration
///   order, usable in constants such as JSON Schema `enum` lists;
/// - `const fn as_str`, [`Display`](std::fmt::Display) and
///   [`FromStr`](std::str::FromStr) (error: [`UnknownValue`]);
/// - serde's `Serialize` and `Deserialize` (through `#[serde(rename)]` with
///   the same literal, so error messages are serde's own).
///
/// The crate that uses it needs `serde` (with `derive`) as a dependency.
///
/// ```
/// foundry_catalog_core::wire_enum! {
///     /// How a parcel travels.
///     pub enum Carriage {
///         /// By road.
///         Road = "road",
///         /// By rail.
///         Rail = "rail_freight",
///     }
/// }
/// assert_eq!(Carriage::Rail.as_str(), "rail_freight");
/// assert_eq!(Carriage::VALUES, ["road", "rail_freight"]);
/// assert_eq!("road".parse::<Carriage>(), Ok(Carriage::Road));
/// assert!("air".parse::<Carriage>().is_err());
/// ```
#[macro_export]
macro_rules! wire_enum {
    (
        $(#[$attr:meta])*
        pub enum $name:ident {
            $( $(#[doc = $doc:literal])* $variant:ident = $wire:literal ),+ $(,)?
        }
    ) => {
        $(#[$attr])*
        #[derive(
            ::std::fmt::Debug,
            ::std::clone::Clone,
            ::std::marker::Copy,
            ::std::cmp::PartialEq,
            ::std::cmp::Eq,
            ::std::cmp::PartialOrd,
            ::std::cmp::Ord,
            ::std::hash::Hash,
            ::serde::Serialize,
            ::serde::Deserialize,
        )]
        pub enum $name {
            $( $(#[doc = $doc])* #[serde(rename = $wire)] $variant ),+
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// Every wire spelling, in declaration order.
            pub const VALUES: &'static [&'static str] = &[$($wire),+];

            /// The wire spelling.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $wire),+
                }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = $crate::UnknownValue;

            fn from_str(text: &str) -> ::std::result::Result<Self, Self::Err> {
                match text {
                    $($wire => ::std::result::Result::Ok($name::$variant),)+
                    _ => ::std::result::Result::Err($crate::UnknownValue {
                        text: text.to_owned(),
                        expected: Self::VALUES,
                    }),
                }
            }
        }
    };
}

/// Serializes a type as the string its [`Display`](std::fmt::Display)
/// writes, and deserializes it through its [`FromStr`](std::str::FromStr)
/// (whose error becomes the serde error): for checked text types such as
/// [`Slug`](crate::Slug) and the timestamps, so a value that does not
/// parse never deserializes. The crate that uses it needs `serde`.
///
/// ```
/// #[derive(Debug, PartialEq)]
/// struct Upper(String);
/// impl std::fmt::Display for Upper {
///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { f.write_str(&self.0) }
/// }
/// impl std::str::FromStr for Upper {
///     type Err = String;
///     fn from_str(s: &str) -> Result<Self, String> {
///         if s.chars().all(|c| c.is_ascii_uppercase()) { Ok(Upper(s.to_owned())) } else { Err(format!("{s:?} is not upper case")) }
///     }
/// }
/// foundry_catalog_core::serde_via_str!(Upper);
/// assert_eq!(serde_json::from_str::<Upper>("\"EUR\"").unwrap(), Upper("EUR".to_owned()));
/// assert!(serde_json::from_str::<Upper>("\"eur\"").is_err());
/// ```
#[macro_export]
macro_rules! serde_via_str {
    ($ty:ty) => {
        impl ::serde::Serialize for $ty {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                let text = <::std::borrow::Cow<'de, str> as ::serde::Deserialize>::deserialize(deserializer)?;
                text.parse().map_err(::serde::de::Error::custom)
            }
        }
    };
}
