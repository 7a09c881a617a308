//! The `date` format: a calendar date written `YYYY-MM-DD`, years
//! 0001–9999.

/// The `YYYY-MM-DD` form.
pub const FORMAT: &[time::format_description::BorrowedFormatItem<'static>] =
    time::macros::format_description!("[year]-[month]-[day]");

/// A calendar date in exactly the `YYYY-MM-DD` form (four-digit year).
pub fn parse(text: &str) -> Option<time::Date> {
    let date = time::Date::parse(text, FORMAT).ok()?;
    // Only the plain four-digit-year form: the date must print back the same.
    (to_text(date)? == text).then_some(date)
}

/// The `YYYY-MM-DD` text of a date; `None` outside years 0001–9999
/// (year 0 is no year to Python's `date` nor to JSON Schema's `format: date`
/// there).
pub fn to_text(date: time::Date) -> Option<String> {
    (1..=9999).contains(&date.year()).then(|| date.format(FORMAT).ok()).flatten()
}
