//! Content codings: the pre-compressed representations of each body and
//! the choice among them by `Accept-Encoding` (RFC 9110 §12.5.3).
//!
//! With the `compression` feature (foundry-catalog-server turns it on),
//! each body is served three ways, compressed once when the catalog is
//! built: as is, gzip (level 6, libdeflate through `libdeflater`) and
//! brotli (quality 5, window 22, C brotli through `brotlic`). Both
//! compressors are deterministic (libdeflate gives the same bytes on every
//! CPU architecture; C brotli's are its Rust port's, byte for byte, at
//! these settings), so the same catalog gives the same bytes, and each
//! representation has its own strong ETag. An artifact stores the gzip
//! and brotli bodies; the body as is, which only a client sending no
//! `Accept-Encoding` gets, is its gzip body inflated (by `flate2` on
//! zlib-rs) when first asked for (about 8 µs for a 7 kB body), checked
//! against its own ETag and kept, as nginx's `gzip_static always` with
//! `gunzip on` serves it.
//!
//! Compressing is most of a cold build's CPU, so the compressors are
//! chosen by speed at fixed settings, and the settings by what they give.
//! Side by side on one product's body (6,978 bytes) and page (18,093),
//! compressed in turn (median of 20, `cargo bench -p
//! foundry-catalog-benches --bench serve -- encode_settings`, the 2-core
//! VM, 2026-11-30):
//!
//! | setting | body + page | time |
//! |---|---|---|
//! | brotli 5, C (the catalog's) | 1,647 + 4,058 bytes | 294 µs |
//! | brotli 5, the Rust port | the same bytes | 367 µs |
//! | brotli 4, C | 1,751 + 4,357 bytes | 196 µs |
//! | brotli 11, C | 1,471 + 3,610 bytes | 19.1 ms |
//! | gzip 6, libdeflate (the catalog's) | 1,797 + 4,411 bytes | 73 µs |
//! | gzip 6, zlib-rs | 1,805 + 4,413 bytes | 109 µs |
//! | gzip 9, libdeflate | 1,792 + 4,392 bytes | 82 µs |
//!
//! Brotli 11 would cost a build of 100,000 products half an hour more CPU
//! for 11 % fewer bytes; brotli 4 saves a third of brotli's time for 7 %
//! more bytes of every page served. An artifact is built once, offline,
//! and served many times; the same settings serve the in-memory build of
//! a folder, where start-up time counts.

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
const BROTLI_QUALITY: brotlic::Quality = match brotlic::Quality::new(5) {
    Ok(quality) => quality,
    Err(_) => panic!("a brotli quality is 0 to 11"),
};
/// Brotli window, as a power of two.
#[cfg(feature = "compression")]
const BROTLI_WINDOW: brotlic::WindowSize = match brotlic::WindowSize::new(22) {
    Ok(window) => window,
    Err(_) => panic!("a brotli window is 10 to 24 bits"),
};
/// Gzip level (libdeflate's 0–12); see the module documentation for why 6.
#[cfg(feature = "compression")]
const GZIP_LEVEL: libdeflater::CompressionLvl = match libdeflater::CompressionLvl::new(6) {
    Ok(level) => level,
    Err(_) => panic!("a libdeflate level is 0 to 12"),
};

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

/// The body a gzip body holds, when it is `len` bytes: what an artifact
/// serves as is where it stores only gzip (never more than `len` bytes
/// are inflated, whatever the gzip says). `None` for a stream that does
/// not inflate to exactly `len` bytes.
pub(crate) fn gunzip(gzip: &[u8], len: u32) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut body = Vec::new();
    body.try_reserve_exact(len as usize).ok()?;
    let decoder = flate2::read::GzDecoder::new(gzip);
    decoder.take(u64::from(len) + 1).read_to_end(&mut body).ok()?;
    (body.len() == len as usize).then_some(body)
}

#[cfg(feature = "compression")]
fn compress(coding: ContentCoding, body: &[u8]) -> Vec<u8> {
    match coding {
        ContentCoding::Identity => body.to_vec(),
        ContentCoding::Gzip => gzip(body),
        ContentCoding::Br => brotli(body),
    }
}

/// `body` in gzip at [`GZIP_LEVEL`], by the thread's libdeflate compressor
/// (made once a thread: its match finder's tables are reused).
#[cfg(feature = "compression")]
fn gzip(body: &[u8]) -> Vec<u8> {
    use std::cell::RefCell;
    thread_local! {
        static COMPRESSOR: RefCell<Option<libdeflater::Compressor>> = const { RefCell::new(None) };
    }
    COMPRESSOR.with_borrow_mut(|compressor| {
        let compressor = compressor.get_or_insert_with(|| libdeflater::Compressor::new(GZIP_LEVEL));
        let mut out = vec![0; compressor.gzip_compress_bound(body.len())];
        // The bound is libdeflate's own for this input: the output fits.
        let len = compressor.gzip_compress(body, &mut out).unwrap_or_default();
        out.truncate(len);
        out
    })
}

/// `body` in brotli at [`BROTLI_QUALITY`] and [`BROTLI_WINDOW`], by C
/// brotli (an encoder a body: C brotli has no reset).
#[cfg(feature = "compression")]
fn brotli(body: &[u8]) -> Vec<u8> {
    use std::io::Write;
    // Both settings are in range and set alone, so the options build (a
    // failed build would compress at brotli's defaults, still brotli);
    // writing to a Vec cannot fail.
    let encoder = brotlic::BrotliEncoderOptions::new()
        .quality(BROTLI_QUALITY)
        .window_size(BROTLI_WINDOW)
        .build()
        .unwrap_or_default();
    let mut writer = brotlic::CompressorWriter::with_encoder(encoder, Vec::with_capacity(body.len() / 3));
    let _ = writer.write_all(body);
    writer.into_inner().unwrap_or_default()
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

#[cfg(all(test, feature = "compression"))]
mod tests {
    use std::io::Read;

    use super::ContentCoding;

    /// Bodies of many sizes: the example manifests, pseudo-random text
    /// from empty to 300 kB, and 1 MB of one repeated phrase (matches
    /// across the whole window).
    fn bodies() -> Vec<Vec<u8>> {
        let mut bodies: Vec<Vec<u8>> =
            foundry_catalog::examples::MANIFESTS.iter().map(|(_, text)| text.as_bytes().to_vec()).collect();
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for len in [0, 1, 17, 300, 4096, 70_000, 300_000] {
            let text = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    b"abcde {}\":,0123456789"[(state % 20) as usize]
                })
                .collect();
            bodies.push(text);
        }
        bodies.push(b"Deterministic fixture 2, ".repeat(40_000));
        bodies
    }

    /// What another implementation makes of `bytes`: flate2 (zlib-rs)
    /// for gzip, the pure-Rust `brotli` decoder for brotli.
    fn decoded(coding: ContentCoding, bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        match coding {
            ContentCoding::Gzip => flate2::read::GzDecoder::new(bytes).read_to_end(&mut out).expect("gzip"),
            ContentCoding::Br => brotli::Decompressor::new(bytes, 4096).read_to_end(&mut out).expect("brotli"),
            ContentCoding::Identity => return bytes.to_vec(),
        };
        out
    }

    /// Each coding's bytes decode, by a decoder of another implementation,
    /// to the body; and the same body gives the same bytes again, on
    /// another thread and after other bodies (a thread's reused gzip
    /// compressor carries nothing from one body to the next).
    #[test]
    fn every_coding_decodes_to_the_body_and_gives_the_same_bytes_every_time() {
        let bodies = bodies();
        for &coding in ContentCoding::ALL {
            let here: Vec<Vec<u8>> = bodies.iter().map(|body| coding.encode(body).expect("compression")).collect();
            for (body, bytes) in bodies.iter().zip(&here) {
                assert_eq!(&decoded(coding, bytes), body, "{coding}, {} bytes", body.len());
            }
            let there: Vec<Vec<u8>> = std::thread::scope(|scope| {
                scope
                    .spawn(|| bodies.iter().rev().map(|body| coding.encode(body).expect("compression")).collect())
                    .join()
                    .expect("the other thread")
            });
            assert!(here.iter().eq(there.iter().rev()), "{coding}: the same bytes on another thread, in another order");
        }
    }

    /// C brotli's bytes are its Rust port's at the catalog's settings (what
    /// the module documentation says, and what kept every brotli body of
    /// an artifact the same when the compressor changed).
    #[test]
    fn brotli_gives_the_rust_ports_bytes() {
        use std::io::Write;
        for body in bodies() {
            let mut port = Vec::new();
            {
                let (quality, window) = (super::BROTLI_QUALITY.level(), super::BROTLI_WINDOW.bits());
                let mut writer = brotli::CompressorWriter::new(&mut port, 4096, quality.into(), window.into());
                writer.write_all(&body).expect("in memory");
            }
            assert!(ContentCoding::Br.encode(&body).expect("compression") == port, "{} bytes", body.len());
        }
    }
}
