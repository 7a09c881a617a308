//! The site's Atom feed (RFC 4287) of its most recently updated products,
//! at [`PATH`]: a feed reader, or a visitor's browser, follows the catalog
//! without a crawl.
//!
//! It lists the [`SIZE`] newest products a search engine may index (the
//! cards of [`crate::list`]: noindex pages are in no feed), newest first,
//! each with its title, summary, page and `last_updated_at` as `updated`
//! (never the build's clock: the feed's own `updated` is its newest
//! entry's). Ids are the pages' URLs, which never change for a product, so
//! a reader shows an edited product as updated, not as new. Like the
//! sitemap, it needs the site's URL (Atom's ids and links are absolute):
//! a site without one has no feed.

use crate::Site;
use crate::list::{Cards, newest_first};
use crate::markup::escape;

/// The feed's path.
pub const PATH: &str = "/feed.atom";

/// Its `Content-Type`.
pub const CONTENT_TYPE: &str = "application/atom+xml";

/// How many products the feed lists: the most recently updated, across
/// routes (a reader polling hourly misses none unless more than 50 are
/// updated in an hour).
pub const SIZE: usize = 50;

/// The feed of `cards` on `site`; none when the site's URL is unknown.
pub fn atom(site: &Site, cards: &Cards) -> Option<String> {
    if !site.is_known() {
        return None;
    }
    let entries = newest_first(cards.iter(), SIZE);
    let home = site.url(crate::list::HOME_PATH);
    let name = text(site.name());
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    xml.push_str(&format!(
        "<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:lang=\"{}\">\n",
        escape(site.language().tag())
    ));
    xml.push_str(&format!("  <title>{name}</title>\n"));
    xml.push_str("  <subtitle>The most recently updated products</subtitle>\n");
    xml.push_str(&format!("  <id>{}</id>\n", escape(&home)));
    xml.push_str(&format!("  <link rel=\"self\" type=\"{CONTENT_TYPE}\" href=\"{}\"/>\n", escape(&site.url(PATH))));
    xml.push_str(&format!("  <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>\n", escape(&home)));
    // An empty catalog has no newest product: the Unix epoch, the one
    // date that claims nothing.
    let updated = entries.first().map_or("1970-01-01T00:00:00Z", |card| card.lastmod.as_str());
    xml.push_str(&format!("  <updated>{}</updated>\n", escape(updated)));
    xml.push_str(&format!("  <author>\n    <name>{name}</name>\n  </author>\n"));
    for card in entries {
        let url = escape(&site.url(&card.path)).into_owned();
        xml.push_str(&format!(
            "  <entry>\n    <title>{}</title>\n    <link rel=\"alternate\" type=\"text/html\" href=\"{url}\"/>\n    \
             <id>{url}</id>\n    <updated>{}</updated>\n    <summary>{}</summary>\n  </entry>\n",
            text(&card.title),
            escape(&card.lastmod),
            text(&card.summary),
        ));
    }
    xml.push_str("</feed>\n");
    Some(xml)
}

/// `value` as XML 1.0 character data: escaped, and each character XML
/// 1.0 cannot hold (C0 controls but tab and line breaks, U+FFFE, U+FFFF)
/// as U+FFFD, so that no record makes the feed ill-formed.
fn text(value: &str) -> String {
    let allowed = |c: char| matches!(c, '\t' | '\n' | '\r') || (c >= ' ' && c != '\u{FFFE}' && c != '\u{FFFF}');
    let clean: String = value.chars().map(|c| if allowed(c) { c } else { '\u{FFFD}' }).collect();
    escape(&clean).into_owned()
}

#[cfg(test)]
mod tests {
    use super::{Cards, atom};
    use crate::Site;
    use crate::list::Card;

    fn card(path: &str, title: &str, lastmod: &str) -> Card {
        Card {
            path: path.to_owned(),
            title: title.to_owned(),
            summary: "S".to_owned(),
            lastmod: lastmod.to_owned(),
            terms: Vec::new(),
        }
    }

    #[test]
    fn a_site_without_a_url_has_no_feed() {
        assert_eq!(atom(&Site::unknown(), &Cards::new([card("/actors/a", "A", "2026-01-01T00:00:00+00:00")])), None);
    }

    /// Newest first, across routes, at most `SIZE`; a control character
    /// cannot make it ill-formed, markup cannot leave its element.
    #[test]
    fn the_newest_products_newest_first() {
        let site = Site::new("https://catalog.example.com").unwrap();
        let mut cards: Vec<Card> = (0..60)
            .map(|n| card(&format!("/actors/a-{n:02}"), "A", &format!("2026-01-01T00:{n:02}:00+00:00")))
            .collect();
        cards.push(card("/datasets/d", "<b>\u{1}&", "2026-02-01T00:00:00+01:00"));
        let feed = atom(&site, &Cards::new(cards)).unwrap();
        assert_eq!(feed.matches("<entry>").count(), super::SIZE);
        let first = feed.find("/datasets/d").unwrap();
        assert!(first < feed.find("/actors/a-59").unwrap());
        assert!(feed.find("/actors/a-59").unwrap() < feed.find("/actors/a-58").unwrap());
        assert!(!feed.contains("/actors/a-09\""), "the oldest are left out");
        assert!(feed.contains("<title>&lt;b&gt;\u{FFFD}&amp;</title>"));
        assert!(feed.contains("  <updated>2026-02-01T00:00:00+01:00</updated>\n  <author>"));
    }
}
