//! Text as HTML or XML character data and attribute values: `&`, `<`,
//! `>`, `"` and `'` escaped, nothing else (as Jinja2's MarkupSafe does;
//! `&#39;` is read the same by HTML and XML). The templates' autoescaping
//! and the sitemap both write text through it.

use std::borrow::Cow;

/// `text` escaped; borrowed when there is nothing to escape.
pub(crate) fn escape(text: &str) -> Cow<'_, str> {
    if !text.contains(['&', '<', '>', '"', '\'']) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn the_five_characters_and_nothing_else() {
        assert_eq!(escape(r#"a&b<c>d"e'f/g"#), "a&amp;b&lt;c&gt;d&quot;e&#39;f/g");
        // Each alone too: a text holding only one of them must not take
        // the path that copies a text holding none.
        for (c, escaped) in [('&', "&amp;"), ('<', "&lt;"), ('>', "&gt;"), ('"', "&quot;"), ('\'', "&#39;")] {
            assert_eq!(escape(&format!("it{c}s")), format!("it{escaped}s"), "{c}");
        }
        assert!(matches!(escape("https://example.com/a-b"), std::borrow::Cow::Borrowed(_)));
    }
}
