//! ISO 4217 currency codes (`pricing_hint.currency`), checked against the
//! `iso_currency` list.

use std::fmt;

/// A three-letter ISO 4217 currency code, such as `EUR`.
///
/// ```
/// use foundry_catalog::Currency;
/// assert!(Currency::new("EUR").is_ok());
/// assert!(Currency::new("XYZ").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Currency(String);

/// A string that is not an ISO 4217 code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not an ISO 4217 currency code; hint: use a code such as \"EUR\"")]
pub struct InvalidCurrency(pub String);

impl Currency {
    /// Checks the code against the ISO 4217 list.
    pub fn new(code: impl Into<String>) -> Result<Currency, InvalidCurrency> {
        let code = code.into();
        if iso_currency::Currency::from_code(&code).is_some() { Ok(Currency(code)) } else { Err(InvalidCurrency(code)) }
    }

    /// Every ISO 4217 code `iso_currency` knows, sorted (for the JSON
    /// Schemas' `enum`): every three-letter uppercase text tried against
    /// the list, since the list's own iterator needs `strum` (and `syn` 2).
    pub fn all_codes() -> Vec<String> {
        let letters = b'A'..=b'Z';
        let mut codes = Vec::new();
        for a in letters.clone() {
            for b in letters.clone() {
                for c in letters.clone() {
                    let code = String::from_utf8_lossy(&[a, b, c]).into_owned();
                    if iso_currency::Currency::from_code(&code).is_some() {
                        codes.push(code);
                    }
                }
            }
        }
        codes
    }

    /// The code.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::str::FromStr for Currency {
    type Err = InvalidCurrency;
    fn from_str(code: &str) -> Result<Self, Self::Err> {
        Currency::new(code)
    }
}

impl fmt::Display for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

foundry_catalog_core::serde_via_str!(Currency);
