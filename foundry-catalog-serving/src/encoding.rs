//! Content codings: the pre-compressed representations of each body and
//! the choice among them by `Accept-Encoding` (RFC 9110 §12.5.3).
//!
//! With the `compression` feature (foundry-catalog-server turns it on),
//! each body is served three ways, compressed once when the catalog is
//! built: as is, gzip (level 6, `flate2` on the `zlib-rs` backend) and
//! brotli (quality 5, window 22, `brotli`). Both compressors are
//! deterministic, so the same catalog gives the same bytes, and each
//! representation has its own strong ETag. An artifact stores the gzip
//! and brotli bodies; the body as is, which only a client sending no
//! `Accept-Encoding` gets, is its gzip body inflated when first asked for
//! (about 8 µs for a 7 kB body), checked against its own ETag and kept, as
//! nginx's `gzip_static always` with `gunzip on` serves it.
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
    use std::io::Write;
    match coding {
        ContentCoding::Identity => body.to_vec(),
        ContentCoding::Gzip => {
            let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(GZIP_LEVEL));
            // Writing to a Vec cannot fail.
            let _ = encoder.write_all(body);
            encoder.finish().unwrap_or_default()
        }
        ContentCoding::Br => recycling::brotli(body, BROTLI_QUALITY, BROTLI_WINDOW),
    }
}

/// Brotli with the encoder's hash table recycled between bodies.
///
/// The profile of a catalog build (BENCHMARKS.md, "Where a build spends
/// its time") put 13 % of it in zeroing memory for brotli: every encoder
/// allocates its match-finder's hash buckets (2 MiB at quality 5, window
/// 22), and the `brotli` crate's standard allocator zeroes every
/// allocation, where C brotli mallocs them: the match finder only reads a
/// bucket slot it has written during the same compression (the per-bucket
/// counts, which it does zero, bound what it reads). So the large `u32`
/// allocations are taken from a per-thread pool as the last body left
/// them, and everything else from the standard allocator. The output is
/// byte for byte the standard allocator's (`tests::recycled_buckets_give_the_same_bytes`
/// checks it on bodies of many sizes, the pool dirtied by other bodies first).
#[cfg(feature = "compression")]
mod recycling {
    use std::cell::RefCell;
    use std::io::Write;

    use brotli::enc::{Allocator, CombiningAllocator, StandardAlloc};

    /// Allocations of `u32` at least this long are recycled: the hash
    /// buckets (2^14 or more buckets of 2^4 slots at the qualities that
    /// use them); smaller ones are zeroed as before.
    const RECYCLED: usize = 1 << 16;
    /// Buffers a thread keeps.
    const KEPT: usize = 4;

    thread_local! {
        static POOL: RefCell<Vec<Box<[u32]>>> = const { RefCell::new(Vec::new()) };
    }

    /// `u32` allocations from the thread's pool.
    #[derive(Default)]
    pub(super) struct Recycling;

    impl Allocator<u32> for Recycling {
        type AllocatedMemory = <StandardAlloc as Allocator<u32>>::AllocatedMemory;

        fn alloc_cell(&mut self, len: usize) -> Self::AllocatedMemory {
            if len >= RECYCLED {
                let reused = POOL.with_borrow_mut(|pool| {
                    let at = pool.iter().position(|b| b.len() == len)?;
                    Some(pool.swap_remove(at))
                });
                if let Some(buffer) = reused {
                    return buffer.into_vec().into();
                }
            }
            vec![0; len].into()
        }

        fn free_cell(&mut self, data: Self::AllocatedMemory) {
            let buffer: Box<[u32]> = data.into();
            if buffer.len() >= RECYCLED {
                POOL.with_borrow_mut(|pool| {
                    if pool.len() < KEPT {
                        pool.push(buffer);
                    }
                });
            }
        }
    }

    /// `body` compressed with brotli at `quality` and window `lgwin`.
    pub(super) fn brotli(body: &[u8], quality: u32, lgwin: u32) -> Vec<u8> {
        let s = StandardAlloc::default;
        let alloc = CombiningAllocator::new(
            s(),
            s(),
            s(),
            Recycling,
            s(),
            s(),
            s(),
            s(),
            s(),
            s(),
            s(),
            s(),
            s(),
            s(),
            s(),
            s(),
            s(),
            s(),
        );
        let buffer = <StandardAlloc as Allocator<u8>>::alloc_cell(&mut StandardAlloc::default(), 4096);
        let mut out = Vec::new();
        {
            let mut encoder =
                brotli::enc::writer::CompressorWriterCustomAlloc::new(&mut out, buffer, alloc, quality, lgwin);
            // Writing to a Vec cannot fail.
            let _ = encoder.write_all(body);
        }
        out
    }

    #[cfg(test)]
    mod tests {
        /// The standard allocator's bytes, as `brotli::CompressorWriter` makes them.
        fn standard(body: &[u8]) -> Vec<u8> {
            use std::io::Write;
            let mut out = Vec::new();
            {
                let mut encoder = brotli::CompressorWriter::new(
                    &mut out,
                    4096,
                    super::super::BROTLI_QUALITY,
                    super::super::BROTLI_WINDOW,
                );
                let _ = encoder.write_all(body);
            }
            out
        }

        #[test]
        fn recycled_buckets_give_the_same_bytes() {
            // Bodies of many sizes and contents, each compressed after
            // others have left the pool's buffers full of their matches.
            let mut bodies: Vec<Vec<u8>> =
                foundry_catalog::examples::MANIFESTS.iter().map(|(_, t)| t.as_bytes().to_vec()).collect();
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
            for round in 0..3 {
                for body in &bodies {
                    let recycled = super::brotli(body, super::super::BROTLI_QUALITY, super::super::BROTLI_WINDOW);
                    assert_eq!(recycled, standard(body), "round {round}, {} bytes", body.len());
                }
            }
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
