//! Absolute http(s) URLs, parsed by `iri-string` (RFC 3986).

/// Whether `text` is an absolute http(s) URL with a host and no user
/// information (RFC 3986, parsed by `iri-string`). Fixture URL bases,
/// listing URLs and availability URLs all follow this one rule. User
/// information (`https://user:pass@host/`) is refused: RFC 3986 §3.2.1
/// deprecates a password there, and `https://trusted.example@evil.example/`
/// shows one host and links to another.
///
/// ```
/// use foundry_catalog_core::is_absolute_url;
/// assert!(is_absolute_url("https://registry.example.org/records?page=2"));
/// assert!(!is_absolute_url("registry.example.org/records"));
/// assert!(!is_absolute_url("https://exa mple.org/"));
/// assert!(!is_absolute_url("https://user:pass@registry.example.org/"));
/// assert!(!is_absolute_url("https://registry.example.org@evil.example/"));
/// ```
pub fn is_absolute_url(text: &str) -> bool {
    let Ok(uri) = iri_string::types::UriStr::new(text) else { return false };
    let scheme = uri.scheme_str();
    (scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https"))
        && uri
            .authority_components()
            .is_some_and(|authority| !authority.host().is_empty() && authority.userinfo().is_none())
}
