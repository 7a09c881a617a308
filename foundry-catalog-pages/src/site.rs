//! The public site: its address, which makes a page path an absolute URL
//! (the canonical link, JSON-LD's `url`, the sitemap's `loc`), its name
//! and its language.

use std::fmt;

/// The public site: an absolute `http` or `https` URL with no query or
/// fragment (`https://catalog.example.com`, or with a path prefix,
/// `https://example.com/catalog`), or none, when the pages are built
/// without knowing where they will be served. Without a site, the
/// canonical link and JSON-LD's `url` are the bare `canonical_path`, and
/// there is no sitemap (the sitemap protocol takes absolute URLs only).
///
/// A site also has a [`SiteName`] ([`Site::named`]; [`DEFAULT_NAME`] unless set),
/// which the header, titles, `og:site_name` and the home page's JSON-LD
/// say, and a [`Language`] ([`Site::in_language`]; `en` unless set),
/// which `<html lang>` and `og:locale` say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    /// The URL without a trailing slash; empty when unknown.
    base: String,
    /// [`Site::name`].
    name: String,
    /// [`Site::language`].
    language: Language,
}

impl Default for Site {
    fn default() -> Site {
        Site { base: String::new(), name: DEFAULT_NAME.to_owned(), language: Language::default() }
    }
}

/// The site's name unless one is given (`--site-name`).
pub const DEFAULT_NAME: &str = "Product catalog";

/// The most characters of a site's name: it is in every page's title,
/// after the page's own.
pub const MAX_NAME: usize = 60;

/// Why a name over [`MAX_NAME`] characters is refused (a test holds the
/// number to the constant).
const TOO_LONG: &str = "it is over 60 characters, and every list page's title ends with it";

/// A site's name: 1 to [`MAX_NAME`] characters, not only spaces, no
/// control characters (spaces around it are dropped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteName(String);

impl SiteName {
    /// The name `name`, checked.
    pub fn new(name: &str) -> Result<SiteName, InvalidName> {
        let refuse = |reason| Err(InvalidName { name: name.to_owned(), reason });
        let trimmed = name.trim();
        if trimmed.is_empty() {
            return refuse("it is empty");
        }
        if trimmed.chars().count() > MAX_NAME {
            return refuse(TOO_LONG);
        }
        if trimmed.chars().any(char::is_control) {
            return refuse("it has a control character");
        }
        Ok(SiteName(trimmed.to_owned()))
    }
}

impl std::str::FromStr for SiteName {
    type Err = InvalidName;
    fn from_str(name: &str) -> Result<SiteName, InvalidName> {
        SiteName::new(name)
    }
}

/// Why a site name was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{name:?} is not a site name: {reason}; hint: give the name visitors know the site by, like \"Acme data catalog\""
)]
pub struct InvalidName {
    /// The text given.
    pub name: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

/// The language the site's own words are in, as a BCP 47 tag (`en`,
/// `en-GB`, `ar`, `zh-Hant-TW`): `<html lang>` says it, `<html dir>` is
/// its script's direction, and `og:locale` is its language and region
/// (`en_GB`). A product's own text is marked `dir="auto"` wherever it
/// is shown, so a Hebrew title on an English site reads right to left.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Language {
    tag: String,
}

impl Default for Language {
    fn default() -> Language {
        Language { tag: "en".to_owned() }
    }
}

/// Why a language tag was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{tag:?} is not a language tag: {reason}; hint: give a BCP 47 tag, like en, en-GB, ar or zh-Hant-TW")]
pub struct InvalidLanguage {
    /// The text given.
    pub tag: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

/// The languages whose scripts are written right to left (ISO 639 codes:
/// Arabic, Central Kurdish, Dhivehi, Persian, Hebrew, Pashto, Sindhi,
/// Syriac, Uyghur, Urdu, Yiddish).
const RIGHT_TO_LEFT: [&str; 11] = ["ar", "ckb", "dv", "fa", "he", "ps", "sd", "syr", "ug", "ur", "yi"];

/// The scripts written right to left (ISO 15924), for a tag that names
/// its script (`az-Arab`).
const RIGHT_TO_LEFT_SCRIPTS: [&str; 6] = ["arab", "hebr", "syrc", "thaa", "nkoo", "adlm"];

impl Language {
    /// The language `tag`: a language subtag of 2 or 3 letters, then
    /// subtags of 1 to 8 letters or digits, joined by `-` (RFC 5646's
    /// shape; the subtags are not looked up in the registry). Written as
    /// BCP 47 recommends: the language in lower case, a script
    /// capitalised, a region in upper case.
    pub fn new(tag: &str) -> Result<Language, InvalidLanguage> {
        let refuse = |reason| Err(InvalidLanguage { tag: tag.to_owned(), reason });
        let mut subtags = tag.split('-');
        let language = subtags.next().unwrap_or_default();
        if !(2..=3).contains(&language.len()) || !language.bytes().all(|b| b.is_ascii_alphabetic()) {
            return refuse("it does not start with a language code of 2 or 3 letters");
        }
        let mut written = language.to_ascii_lowercase();
        // After a single-character subtag (an extension, `-u-…`, or
        // private use, `-x-…`) nothing is a script or a region.
        let mut extended = false;
        for subtag in subtags {
            if subtag.is_empty() || subtag.len() > 8 || !subtag.bytes().all(|b| b.is_ascii_alphanumeric()) {
                return refuse("each part after the language is 1 to 8 letters or digits");
            }
            written.push('-');
            extended |= subtag.len() == 1;
            match subtag.len() {
                _ if extended => written.push_str(&subtag.to_ascii_lowercase()),
                4 if subtag.bytes().all(|b| b.is_ascii_alphabetic()) => {
                    written.push_str(&subtag[..1].to_ascii_uppercase());
                    written.push_str(&subtag[1..].to_ascii_lowercase());
                }
                2 if subtag.bytes().all(|b| b.is_ascii_alphabetic()) => written.push_str(&subtag.to_ascii_uppercase()),
                _ => written.push_str(&subtag.to_ascii_lowercase()),
            }
        }
        Ok(Language { tag: written })
    }

    /// The tag (`en-GB`).
    pub fn tag(&self) -> &str {
        &self.tag
    }

    /// The direction of its script: `rtl` for a right-to-left language
    /// or script, else `ltr`.
    pub fn direction(&self) -> &'static str {
        let mut subtags = self.tag.split('-');
        let language = subtags.next().unwrap_or_default();
        let script = subtags.next().filter(|s| s.len() == 4).map(str::to_ascii_lowercase);
        let rtl = match script {
            Some(script) => RIGHT_TO_LEFT_SCRIPTS.contains(&script.as_str()),
            None => RIGHT_TO_LEFT.contains(&language),
        };
        if rtl { "rtl" } else { "ltr" }
    }

    /// Its `og:locale`: the language and, when the tag has one, its region
    /// (`en_GB`; `en` for `en`), as the Open Graph protocol writes a
    /// locale.
    pub fn og_locale(&self) -> String {
        let mut subtags = self.tag.split('-');
        let language = subtags.next().unwrap_or_default();
        let region = subtags
            .take_while(|s| s.len() > 1)
            .find(|s| s.len() == 2 || (s.len() == 3 && s.bytes().all(|b| b.is_ascii_digit())));
        match region {
            Some(region) => format!("{language}_{region}"),
            None => language.to_owned(),
        }
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.tag)
    }
}

impl std::str::FromStr for Language {
    type Err = InvalidLanguage;
    fn from_str(tag: &str) -> Result<Language, InvalidLanguage> {
        Language::new(tag)
    }
}

/// Why a site URL was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{url:?} is not a site URL: {reason}; hint: give the public site's origin, like https://catalog.example.com")]
pub struct InvalidSite {
    /// The text given.
    pub url: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl Site {
    /// The site at `url` (RFC 3986, parsed by `iri-string`): `http` or
    /// `https`, a host, no query, no fragment, no user info. A trailing
    /// slash is dropped.
    pub fn new(url: &str) -> Result<Site, InvalidSite> {
        let refuse = |reason| Err(InvalidSite { url: url.to_owned(), reason });
        let Ok(uri) = iri_string::types::UriStr::new(url) else {
            return refuse("not a URI");
        };
        let scheme = uri.scheme_str();
        if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
            return refuse("the scheme is not http or https");
        }
        let Some(authority) = uri.authority_components() else {
            return refuse("it has no host");
        };
        if authority.host().is_empty() {
            return refuse("it has no host");
        }
        if authority.userinfo().is_some() {
            return refuse("it has user info");
        }
        if uri.query().is_some() {
            return refuse("it has a query");
        }
        if uri.fragment().is_some() {
            return refuse("it has a fragment");
        }
        Ok(Site { base: url.trim_end_matches('/').to_owned(), ..Site::default() })
    }

    /// This site, named `name`.
    #[must_use]
    pub fn named(mut self, name: SiteName) -> Site {
        self.name = name.0;
        self
    }

    /// This site with the name and language given, if given (what
    /// `--site-name` and `--site-language` set).
    #[must_use]
    pub fn with_settings(self, name: Option<&SiteName>, language: Option<&Language>) -> Site {
        let site = match name {
            Some(name) => self.named(name.clone()),
            None => self,
        };
        match language {
            Some(language) => site.in_language(language.clone()),
            None => site,
        }
    }

    /// This site, its own words in `language`.
    #[must_use]
    pub fn in_language(mut self, language: Language) -> Site {
        self.language = language;
        self
    }

    /// The site's name ([`DEFAULT_NAME`] unless [`Site::named`]).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The language of the site's own words (`en` unless
    /// [`Site::in_language`]).
    pub fn language(&self) -> &Language {
        &self.language
    }

    /// No known site: links are paths.
    pub fn unknown() -> Site {
        Site::default()
    }

    /// Whether the site's URL is known.
    pub fn is_known(&self) -> bool {
        !self.base.is_empty()
    }

    /// The URL of `path` (which starts with `/`) on this site; the path
    /// itself when the site is unknown.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

impl fmt::Display for Site {
    /// The site's URL, or `unknown`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.is_known() { &self.base } else { "unknown" })
    }
}

#[cfg(test)]
mod tests {
    use super::Site;

    #[test]
    fn only_http_origins_and_paths_are_sites() {
        assert_eq!(Site::new("https://example.com/").unwrap().url("/datasets/x"), "https://example.com/datasets/x");
        assert_eq!(Site::new("http://127.0.0.1:8080/shop").unwrap().url("/a/b"), "http://127.0.0.1:8080/shop/a/b");
        for bad in [
            "ftp://example.com",
            "https://",
            "example.com",
            "https://a.example?x=1",
            "https://a.example#top",
            "https://u@a.example",
            "https://a b",
        ] {
            assert!(Site::new(bad).is_err(), "{bad}");
        }
        assert_eq!(Site::unknown().url("/datasets/x"), "/datasets/x");
    }

    #[test]
    fn a_site_is_named_with_words_a_title_can_end_with() {
        use super::SiteName;
        assert_eq!(Site::unknown().name(), "Product catalog");
        assert_eq!(Site::unknown().named(SiteName::new("  Acme data  ").unwrap()).name(), "Acme data");
        assert_eq!(Site::unknown().named(SiteName::new("كتالوج المنتجات").unwrap()).name(), "كتالوج المنتجات");
        assert!(SiteName::new(&"x".repeat(super::MAX_NAME)).is_ok());
        assert!(super::TOO_LONG.contains(&format!(" {} ", super::MAX_NAME)), "the refusal names the limit");
        for bad in ["", "   ", "a\nb", &"x".repeat(61)] {
            assert!(SiteName::new(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn languages_are_bcp_47_tags_with_their_direction_and_locale() {
        let cases = [
            ("en", "en", "ltr", "en"),
            ("EN-gb", "en-GB", "ltr", "en_GB"),
            ("ar", "ar", "rtl", "ar"),
            ("he-IL", "he-IL", "rtl", "he_IL"),
            ("fa", "fa", "rtl", "fa"),
            ("zh-hant-tw", "zh-Hant-TW", "ltr", "zh_TW"),
            ("az-arab", "az-Arab", "rtl", "az"),
            ("es-419", "es-419", "ltr", "es_419"),
            ("sr-Latn", "sr-Latn", "ltr", "sr"),
            // An extension's subtags are neither a script nor a region.
            ("en-u-ca-gregory", "en-u-ca-gregory", "ltr", "en"),
            ("de-CH-x-phonebk", "de-CH-x-phonebk", "ltr", "de_CH"),
        ];
        for (given, tag, direction, locale) in cases {
            let language = super::Language::new(given).unwrap();
            assert_eq!((language.tag(), language.direction(), language.og_locale().as_str()), (tag, direction, locale));
        }
        for bad in ["", "e", "english", "en_GB", "en-", "en--GB", "en-GBGBGBGBG", "1en", "en-G B"] {
            assert!(super::Language::new(bad).is_err(), "{bad:?}");
        }
    }
}
