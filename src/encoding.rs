//! Content codings: the pre-compressed representations of each body and
//! the choice among them by `Accept-Encoding` (RFC 9110 §12.5.3).
//!
//! With the `compression` feature (foundry-catalog-server turns it on),
//! each body is stored three times, compressed once when the catalog is
//! built: as is, gzip (level 6, `flate2` on the `zlib-rs` backend) and
//! brotli (quality 5, window 22, `brotli`). Both compressors are
//! deterministic, so the same catalog gives the same bytes, and each
//! representation has its own strong ETag.
//!
//! The settings, side by side on a 6,978-byte body (median, `cargo bench
//! -p foundry-catalog-benches --bench serve -- encode_settings`): brotli
//! quality 5 gives 1,647 bytes in 0.20 ms, quality 11 gives 1,472 bytes in
//! 17 ms (at 100,000 products, 10 s of build against 14 min); gzip level
//! 6 gives 1,805 bytes in 68 µs, level 9 gives 1,811 bytes in 127 µs. An
//! artifact is built once, offline, so a slower quality would only cost
//! build time; the same settings serve the in-memory build of a folder,
//! where start-up time counts.

foundry_catalog_core::wire_enum! {
    /// A content coding a body is stored in.
    pub enum ContentCoding {
        /// Brotli.
        Br = "br",
        /// Gzip.
        Gzip = "gzip",
        /// The body as is.
        Identity = "identity",
    }
}

/// Brotli quality (0–11); see the module documentation for why 5.
#[cfg(feature = "compression")]
const BROTLI_QUALITY: u32 = 5;
/// Brotli window, as a power of two.
#[cfg(feature = "compression")]
const BROTLI_WINDOW: u32 = 22;
/// Gzip level; see the module documentation for why 6.
#[cfg(feature = "compression")]
const GZIP_LEVEL: u32 = 6;

/// The codings a catalog stores: all three with the `compression`
/// feature, identity alone without it.
pub(crate) const fn available() -> &'static [ContentCoding] {
    if cfg!(feature = "compression") { ContentCoding::ALL } else { &[ContentCoding::Identity] }
}

impl ContentCoding {
    /// The coding's bytes of `body`; `None` for a compressed coding when
    /// the `compression` feature is off.
    pub fn encode(self, body: &[u8]) -> Option<Vec<u8>> {
        match self {
            ContentCoding::Identity => Some(body.to_vec()),
            #[cfg(feature = "compression")]
            coding => Some(compress(coding, body)),
            #[cfg(not(feature = "compression"))]
            _ => None,
        }
    }

    /// `Content-Encoding`: none for identity.
    pub const fn header(self) -> Option<&'static str> {
        match self {
            ContentCoding::Identity => None,
            coding => Some(coding.as_str()),
        }
    }
}

#[cfg(feature = "compression")]
fn compress(coding: ContentCoding, body: &[u8]) -> Vec<u8> {
    use std::io::Write;
    match coding {
        ContentCoding::Identity => body.to_vec(),
        ContentCoding::Gzip => {
            let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(GZIP_LEVEL));
            // Writing to a Vec cannot fail.
            let _ = encoder.write_all(body);
            encoder.finish().unwrap_or_default()
        }
        ContentCoding::Br => {
            let mut out = Vec::new();
            {
                let mut encoder = brotli::CompressorWriter::new(&mut out, 4096, BROTLI_QUALITY, BROTLI_WINDOW);
                let _ = encoder.write_all(body);
            }
            out
        }
    }
}

/// The coding to send for an `Accept-Encoding` value (`None`: the header
/// was not sent), among the codings `stored` (a catalog's
/// [`crate::catalog::ResponseCatalog::codings`]), or `None` when none of
/// them is acceptable (406).
///
/// The highest q-value wins; on a tie the smaller representation (brotli,
/// then gzip, then identity). A coding the header does not name gets the
/// q-value of `*` if there is one; identity is acceptable unless
/// `identity;q=0`, or `*;q=0` without an `identity` entry, excludes it.
/// Without the header, or with an empty one, the body goes as is.
pub(crate) fn negotiate(accept_encoding: Option<&[u8]>, stored: &[ContentCoding]) -> Option<ContentCoding> {
    let Some(header) = accept_encoding else {
        return Some(ContentCoding::Identity);
    };
    let mut star = None;
    let mut listed = [None; 3];
    // Bytes, not text: a coding name is a token (ASCII); anything else
    // names no coding we have.
    for element in header.split(|&b| b == b',') {
        let mut parts = element.split(|&b| b == b';');
        let coding = trim_ows(parts.next().unwrap_or_default());
        if coding.is_empty() {
            continue;
        }
        // A weight that does not parse makes the element void.
        let Some(q) = parts.try_fold(1000, |q, param| weight(trim_ows(param)).map(|w| w.unwrap_or(q))) else {
            continue;
        };
        if coding == b"*" {
            star = Some(q);
        } else if coding.eq_ignore_ascii_case(b"x-gzip") {
            listed[1] = Some(q);
        } else if let Some(slot) =
            ContentCoding::ALL.iter().position(|c| c.as_str().as_bytes().eq_ignore_ascii_case(coding))
        {
            listed[slot] = Some(q);
        }
    }
    let q = |slot: usize, coding: ContentCoding| match (listed.get(slot).copied().flatten(), star) {
        (Some(q), _) | (None, Some(q)) => q,
        (None, None) if coding == ContentCoding::Identity => 1,
        (None, None) => 0,
    };
    let mut best: Option<(u16, ContentCoding)> = None;
    for (slot, &coding) in ContentCoding::ALL.iter().enumerate() {
        if !stored.contains(&coding) {
            continue;
        }
        let q = q(slot, coding);
        if q > 0 && best.is_none_or(|(b, _)| q > b) {
            best = Some((q, coding));
        }
    }
    best.map(|(_, coding)| coding)
}

/// A parameter's weight in thousandths: `Some(Some(q))` for a valid
/// `q=…`, `Some(None)` for another parameter (ignored), `None` for a
/// malformed weight.
fn weight(param: &[u8]) -> Option<Option<u16>> {
    let Some(value) = param.strip_prefix(b"q=").or_else(|| param.strip_prefix(b"Q=")) else {
        return Some(None);
    };
    let (whole, fraction) = match value.iter().position(|&b| b == b'.') {
        Some(dot) => (&value[..dot], &value[dot + 1..]),
        None => (value, &[][..]),
    };
    if fraction.len() > 3 || !fraction.iter().all(u8::is_ascii_digit) {
        return None;
    }
    // Thousandths: "0.5" is 500, "0.25" is 250.
    let thousandths =
        fraction.iter().copied().chain(std::iter::repeat(b'0')).take(3).fold(0u16, |n, b| n * 10 + u16::from(b - b'0'));
    match whole {
        b"0" => Some(Some(thousandths)),
        b"1" if thousandths == 0 => Some(Some(1000)),
        _ => None,
    }
}

/// `value` without the optional whitespace (spaces and tabs, RFC 9110
/// §5.6.3) around it.
pub(crate) fn trim_ows(value: &[u8]) -> &[u8] {
    let start = value.iter().position(|b| !matches!(b, b' ' | b'\t')).unwrap_or(value.len());
    let end = value.iter().rposition(|b| !matches!(b, b' ' | b'\t')).map_or(start, |i| i + 1);
    value.get(start..end).unwrap_or_default()
}
