//! Absolute http(s) URLs, parsed by `fluent-uri` (RFC 3986).

/// Whether `text` is an absolute http(s) URL with a host (RFC 3986, parsed
/// by `fluent-uri`). Fixture URL bases, listing URLs and availability URLs
/// all follow this one rule.
///
/// ```
/// use foundry_catalog_core::is_absolute_url;
/// assert!(is_absolute_url("https://registry.example.org/records?page=2"));
/// assert!(!is_absolute_url("registry.example.org/records"));
/// assert!(!is_absolute_url("https://exa mple.org/"));
/// ```
pub fn is_absolute_url(text: &str) -> bool {
    fluent_uri::Uri::parse(text).is_ok_and(|uri| {
        matches!(uri.scheme().as_str().to_ascii_lowercase().as_str(), "http" | "https")
            && uri.authority().is_some_and(|a| !a.host().is_empty())
    })
}
