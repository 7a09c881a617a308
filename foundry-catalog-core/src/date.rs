//! The `date` format: a calendar date written `YYYY-MM-DD`, years
//! 0001–9999.

use std::sync::LazyLock;

use time::format_description::BorrowedFormatItem;

/// The `YYYY-MM-DD` form (parsed once, without `time`'s macros: a crate of
/// generated types compiles no proc macro of `time`).
static FORMAT: LazyLock<Vec<BorrowedFormatItem<'static>>> =
    LazyLock::new(|| time::format_description::parse_borrowed::<1>("[year]-[month]-[day]").unwrap_or_default());

/// A calendar date in exactly the `YYYY-MM-DD` form (four-digit year).
pub fn parse(text: &str) -> Option<time::Date> {
    let date = time::Date::parse(text, &FORMAT).ok()?;
    // Only the plain four-digit-year form: the date must print back the same.
    (to_text(date)? == text).then_some(date)
}

/// The `YYYY-MM-DD` text of a date; `None` outside years 0001–9999
/// (year 0 is no year to Python's `date` nor to JSON Schema's `format: date`
/// there).
pub fn to_text(date: time::Date) -> Option<String> {
    (1..=9999).contains(&date.year()).then(|| date.format(&*FORMAT).ok()).flatten()
}
