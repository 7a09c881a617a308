//! The wire shape of the read interface: every object of the product
//! record (docs/records.md, "The record, declared once") as a
//! table of its keys in table order, each with its JSON shape and format
//! and its role (stored, derived, or built from the record type).
//!
//! The tables are not written here. Each object is declared once, with
//! `wire_object!`, next to its Rust type (in [`crate::product`] and
//! [`crate::preview`]); that one declaration gives the struct, its
//! serializer (derived keys computed, keys in table order), its
//! deserializer, the product manifest's struct, and the table
//! (`<Type>::KEYS`) from which the validator's key and format checks
//! ([`crate::conformance`]) and the JSON Schemas ([`crate::json_schema`])
//! follow.

/// What a string must look like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Any text.
    Text,
    /// A product slug (see [`crate::Slug`]).
    Slug,
    /// A `lowercase_underscore` identifier: marketplace keys, record labels.
    Key,
    /// UTC with microseconds: `YYYY-MM-DDTHH:MM:SS.ffffffZ`.
    UtcMicros,
    /// ISO 8601 with a numeric offset.
    OffsetTime,
    /// An absolute http(s) URL.
    AbsoluteUrl,
    /// An ISO 4217 code.
    Currency,
    /// Lowercase hex, 64 or 40 characters.
    HexDigest,
    /// A page path `/<route>/<slug>`.
    CanonicalPath,
    /// `/api/public/foundry/products/<slug>`.
    ApiPath,
    /// `products/generated/<slug>/product.json` or `<scheme>://actors/<publisher>/<slug>`.
    ManifestPath,
}

impl Format {
    /// Checks `text`; the message says what is wrong.
    pub fn check(self, text: &str) -> Result<(), String> {
        let ok = match self {
            Format::Text => true,
            Format::Slug => return crate::Slug::new(text).map(drop).map_err(|e| e.to_string()),
            Format::Key => crate::is_lowercase_underscore(text),
            Format::UtcMicros => return text.parse::<crate::UtcTimestamp>().map(drop).map_err(|e| e.to_string()),
            Format::OffsetTime => return crate::OffsetTimestamp::new(text).map(drop).map_err(|e| e.to_string()),
            Format::AbsoluteUrl => crate::is_absolute_url(text),
            Format::Currency => return crate::Currency::new(text).map(drop).map_err(|e| e.to_string()),
            Format::HexDigest => {
                matches!(text.len(), 40 | 64) && text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            }
            Format::CanonicalPath => {
                text.strip_prefix('/').and_then(|rest| rest.split_once('/')).is_some_and(|(route, slug)| {
                    route.parse::<crate::locations::Route>().is_ok() && crate::Slug::check(slug).is_ok()
                })
            }
            Format::ApiPath => text
                .strip_prefix(crate::locations::API_PATH_PREFIX)
                .is_some_and(|slug| crate::Slug::check(slug).is_ok()),
            Format::ManifestPath => manifest_path_slug(text).is_some(),
        };
        if ok { Ok(()) } else { Err(format!("{text:?} is not {}", self.describe())) }
    }

    /// What the format is, in words.
    pub const fn describe(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Slug => "a slug (lowercase words joined by hyphens)",
            Format::Key => "a lowercase_underscore identifier",
            Format::UtcMicros => "a UTC timestamp with microseconds (YYYY-MM-DDTHH:MM:SS.ffffffZ)",
            Format::OffsetTime => "an ISO 8601 timestamp with a numeric UTC offset",
            Format::AbsoluteUrl => "an absolute http(s) URL",
            Format::Currency => "an ISO 4217 currency code",
            Format::HexDigest => "a lowercase hex digest of 64 or 40 characters",
            Format::CanonicalPath => "a page path /<route>/<slug>",
            Format::ApiPath => "a path /api/public/foundry/products/<slug>",
            Format::ManifestPath => {
                "a manifest path products/generated/<slug>/product.json or <scheme>://actors/<publisher>/<slug>"
            }
        }
    }

    /// The same rule as a JSON Schema `pattern`, where one can say it (the
    /// tests check both agree on the catalog and on broken values). Every
    /// pattern means the same in ECMA-262, Python `re` and Rust `regex`.
    pub fn pattern(self) -> Option<String> {
        const SLUG_BODY: &str = "[a-z0-9]+(-[a-z0-9]+)*";
        const DATE: &str = "[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])";
        const TIME: &str = "([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]";
        Some(match self {
            Format::Text => return None,
            Format::Slug => crate::format::SLUG_PATTERN.to_owned(),
            Format::Key => crate::format::LOWERCASE_UNDERSCORE_PATTERN.to_owned(),
            Format::UtcMicros => format!("^{DATE}T{TIME}\\.[0-9]{{6}}Z$"),
            Format::OffsetTime => format!("^{DATE}T{TIME}(\\.[0-9]+)?[+-]([01][0-9]|2[0-3]):[0-5][0-9]$"),
            Format::AbsoluteUrl => crate::format::ABSOLUTE_URL_PATTERN.to_owned(),
            Format::Currency => "^[A-Z]{3}$".to_owned(),
            Format::HexDigest => "^([0-9a-f]{40}|[0-9a-f]{64})$".to_owned(),
            Format::CanonicalPath => format!("^/({})/{SLUG_BODY}$", crate::locations::Route::VALUES.join("|")),
            Format::ApiPath => format!("^{}{SLUG_BODY}$", crate::locations::API_PATH_PREFIX),
            Format::ManifestPath => format!(
                "^(products/generated/{SLUG_BODY}/product\\.json|[a-z][a-z0-9+.-]*://actors/([A-Za-z0-9_.-]*[A-Za-z0-9_-][A-Za-z0-9_.-]*|\\.\\.\\.+)/{SLUG_BODY})$"
            ),
        })
    }

    /// The `format` annotation that goes with the pattern, where JSON
    /// Schema names one.
    pub const fn annotation(self) -> Option<&'static str> {
        match self {
            Format::UtcMicros | Format::OffsetTime => Some("date-time"),
            Format::AbsoluteUrl => Some("uri"),
            _ => None,
        }
    }
}

/// The slug a manifest path ends in, when the path has one of the two
/// shown shapes (`products/generated/<slug>/product.json`,
/// `<scheme>://actors/<publisher>/<slug>`).
pub(crate) fn manifest_path_slug(path: &str) -> Option<&str> {
    let slug = match path.strip_prefix("products/generated/").and_then(|rest| rest.strip_suffix("/product.json")) {
        Some(slug) => slug,
        None => {
            let (scheme, rest) = path.split_once("://actors/")?;
            let (publisher, slug) = rest.split_once('/')?;
            crate::locations::ManifestLocation::actor(scheme, publisher).ok()?;
            slug
        }
    };
    crate::Slug::check(slug).is_ok().then_some(slug)
}

/// The JSON shape of a value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// A string of this format.
    Str(Format),
    /// `true` or `false`.
    Bool,
    /// An integer: a number with no fractional part, however written
    /// (`3` and `3.0` alike, as JSON Schema counts them).
    Integer,
    /// A non-negative integer (a count or length).
    Count,
    /// This exact string.
    Const(&'static str),
    /// One of these strings.
    OneOf(&'static [&'static str]),
    /// The inner shape, or `null`.
    Nullable(&'static Shape),
    /// An array of the inner shape.
    Array(&'static Shape),
    /// Anything (item shapes the spec does not show).
    Any,
    /// An object with exactly these keys, in this order, named by its
    /// Rust type (the name the JSON Schemas give its definition).
    Object(&'static str, &'static [Field]),
    /// An object with any keys (sample rows, whose keys depend on the record type).
    OpenObject,
}

/// Where a key's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Written in the product manifest and stored once.
    Stored,
    /// Stored, and may be left out of a manifest (an empty array or null).
    Optional,
    /// Computed from other values when serializing; never stored, never
    /// written in a manifest.
    Derived,
    /// Stored in the record but built from the product's record type
    /// (`sample`, `schema_preview`); never written in a manifest.
    Built,
}

/// One key of an object.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Field {
    /// The key.
    pub name: &'static str,
    /// Its shape.
    pub shape: Shape,
    /// Where its value comes from.
    pub role: Role,
    /// What it is (from the spec's notes).
    pub doc: &'static str,
}

/// Declares one object of the wire format, once, and derives from it:
///
/// - the struct, holding every key whose role is not `derived`, with
///   `#[serde(rename = "<key>")]` (and `#[serde(default)]` for `optional`);
///   the caller's attributes (docs, derives, `deny_unknown_fields`) go on it;
/// - `Serialize`, writing every key in declaration order and computing each
///   `derived` key by calling the method of that name;
/// - `<Type>::KEYS`, the table of [`Field`]s (key, shape, role, doc), and
///   `<Type>::SHAPE`, the object's [`Shape`] named by the type;
/// - optionally a manifest struct: its own keys (`<Manifest>::KEYS`) and
///   every `stored` and `optional` key of the object, with
///   `to_record(&self, <built values>)` moving them into the object.
///
/// Each entry is one doc line, the wire key, the role (`stored`,
/// `optional`, `derived`, `built`), the Rust member (a field, or for
/// `derived` the method) with its type, and the shape.
macro_rules! wire_object {
    (
        $(#[$attr:meta])*
        pub struct $name:ident {
            $( #[doc = $doc:literal] $key:literal => $role:ident $member:ident : $ty:ty = $shape:expr ),+ $(,)?
        }
        $(
            $(#[$mattr:meta])*
            pub struct $manifest:ident {
                $( #[doc = $mdoc:literal] $mkey:literal => $mrole:ident $mmember:ident : $mty:ty = $mshape:expr ),+ $(,)?
            }
        )?
    ) => {
        $crate::shape::wire_object!(@munch
            [$(#[$attr])* pub struct $name]
            [$( [$(#[$mattr])* pub struct $manifest] )?]
            [] [] [] []
            $($( (manifest $mrole $mkey $mmember [$mty] $mdoc) )+)?
            $( (record $role $key $member [$ty] $doc) )+
        );

        impl $name {
            /// Every key of this object, in the spec's table order.
            pub(crate) const KEYS: &'static [$crate::shape::Field] = &[
                $( $crate::shape::Field {
                    name: $key,
                    shape: $shape,
                    role: $crate::shape::wire_object!(@role $role),
                    doc: $doc.trim_ascii(),
                } ),+
            ];

            /// This object's shape: [`Self::KEYS`], named by the type.
            pub(crate) const SHAPE: $crate::shape::Shape = $crate::shape::Shape::Object(stringify!($name), Self::KEYS);
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                let mut state = ::serde::Serializer::serialize_struct(serializer, stringify!($name), Self::KEYS.len())?;
                $( $crate::shape::wire_object!(@serialize state self $role $key $member [$ty]); )+
                ::serde::ser::SerializeStruct::end(state)
            }
        }

        $(
            impl $manifest {
                /// The keys only a manifest has; its other keys are the
                /// stored and optional keys of the record.
                pub const KEYS: &'static [$crate::shape::Field] = &[
                    $( $crate::shape::Field {
                        name: $mkey,
                        shape: $mshape,
                        role: $crate::shape::wire_object!(@role $mrole),
                        doc: $mdoc.trim_ascii(),
                    } ),+
                ];
            }
        )?
    };

    // Sorting each entry into the struct fields (f), the manifest fields
    // (m), the keys a manifest hands to the record (mv) and the built
    // values (b).
    (@munch $head:tt $mhead:tt [$($f:tt)*] [$($m:tt)*] $mv:tt $b:tt
        (manifest stored $key:literal $member:ident [$ty:ty] $doc:literal) $($rest:tt)*) => {
        $crate::shape::wire_object!(@munch $head $mhead [$($f)*]
            [$($m)* #[doc = $doc] #[serde(rename = $key)] pub $member: $ty,] $mv $b $($rest)*);
    };
    (@munch $head:tt $mhead:tt [$($f:tt)*] [$($m:tt)*] $mv:tt $b:tt
        (manifest optional $key:literal $member:ident [$ty:ty] $doc:literal) $($rest:tt)*) => {
        $crate::shape::wire_object!(@munch $head $mhead [$($f)*]
            [$($m)* #[doc = $doc] #[serde(rename = $key, default)] pub $member: $ty,] $mv $b $($rest)*);
    };
    (@munch $head:tt $mhead:tt [$($f:tt)*] [$($m:tt)*] [$($mv:tt)*] $b:tt
        (record stored $key:literal $member:ident [$ty:ty] $doc:literal) $($rest:tt)*) => {
        $crate::shape::wire_object!(@munch $head $mhead
            [$($f)* #[doc = $doc] #[serde(rename = $key)] pub $member: $ty,]
            [$($m)* #[doc = $doc] #[serde(rename = $key)] pub $member: $ty,]
            [$($mv)* $member] $b $($rest)*);
    };
    (@munch $head:tt $mhead:tt [$($f:tt)*] [$($m:tt)*] [$($mv:tt)*] $b:tt
        (record optional $key:literal $member:ident [$ty:ty] $doc:literal) $($rest:tt)*) => {
        $crate::shape::wire_object!(@munch $head $mhead
            [$($f)* #[doc = $doc] #[serde(rename = $key, default)] pub $member: $ty,]
            [$($m)* #[doc = $doc] #[serde(rename = $key, default)] pub $member: $ty,]
            [$($mv)* $member] $b $($rest)*);
    };
    (@munch $head:tt $mhead:tt [$($f:tt)*] $m:tt $mv:tt [$($b:tt)*]
        (record built $key:literal $member:ident [$ty:ty] $doc:literal) $($rest:tt)*) => {
        $crate::shape::wire_object!(@munch $head $mhead
            [$($f)* #[doc = $doc] #[serde(rename = $key)] pub $member: $ty,]
            $m $mv [$($b)* ($member [$ty])] $($rest)*);
    };
    (@munch $head:tt $mhead:tt $f:tt $m:tt $mv:tt $b:tt
        (record derived $key:literal $member:ident [$ty:ty] $doc:literal) $($rest:tt)*) => {
        $crate::shape::wire_object!(@munch $head $mhead $f $m $mv $b $($rest)*);
    };
    // Done: the struct alone.
    (@munch [$($head:tt)*] [] [$($f:tt)*] $m:tt $mv:tt $b:tt) => {
        $($head)* { $($f)* }
    };
    // Done: the struct and its manifest.
    (@munch [$($head:tt)*] [[$($mhead:tt)*]] [$($f:tt)*] [$($m:tt)*] [$($mv:ident)*] [$( ($bm:ident [$bt:ty]) )*]) => {
        $($head)* { $($f)* }

        $($mhead)* { $($m)* }

        $crate::shape::wire_object!(@to_record [$($head)*] [$($mhead)*] [$($mv)*] [$( ($bm [$bt]) )*]);
    };
    (@to_record [$(#[$attr:meta])* pub struct $name:ident] [$(#[$mattr:meta])* pub struct $manifest:ident]
        [$($mv:ident)*] [$( ($bm:ident [$bt:ty]) )*]) => {
        impl $manifest {
            /// The record: this manifest's stored values, and the values
            /// built from its record type.
            pub(crate) fn to_record(&self, $($bm: $bt),*) -> $name {
                $name { $($mv: ::std::clone::Clone::clone(&self.$mv),)* $($bm,)* }
            }
        }
    };

    (@role stored) => { $crate::shape::Role::Stored };
    (@role optional) => { $crate::shape::Role::Optional };
    (@role derived) => { $crate::shape::Role::Derived };
    (@role built) => { $crate::shape::Role::Built };

    (@serialize $state:ident $this:ident derived $key:literal $member:ident [$ty:ty]) => {{
        let value: $ty = $this.$member();
        ::serde::ser::SerializeStruct::serialize_field(&mut $state, $key, &value)?;
    }};
    (@serialize $state:ident $this:ident $role:ident $key:literal $member:ident [$ty:ty]) => {
        ::serde::ser::SerializeStruct::serialize_field(&mut $state, $key, &$this.$member)?;
    };
}
pub(crate) use wire_object;
