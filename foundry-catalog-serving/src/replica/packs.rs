//! A packed origin: the artifact's URL serves a pack list (`build
//! --packs`, published as built), and the artifact's bytes are ranges of
//! packs in the folder `fcpacks/` beside it (see the `artifact` module's
//! "Packed artifacts"). A replica reads the list (small: 28 bytes and 48 a
//! range), then asks each range of the artifact it needs of the packs
//! holding it, one `Range` request a piece of a pack. A pack is named by
//! the SHA-256 of its bytes and never changed once written, so no
//! `If-Range` is asked: the list's ETag tells versions apart, as a one-file
//! artifact's does. Every byte is checked downstream as a one-file
//! origin's are (the head's CRC-32, its blocks against the signed block
//! list, each body against its ETag), and the replica writes its own
//! artifact in one file, as from any origin.

use std::io::{self, Read, Write};

use crate::artifact::{ArtifactError, stored};

use super::download::Counted;
use super::failure::PullError;
use super::origin::{Origin, content_range, over_the_limit};

/// The artifact at the origin that ranges are asked of: its ETag and, for
/// a packed one, where its bytes are.
#[derive(Clone, Copy)]
pub(crate) struct Remote<'a> {
    pub(crate) etag: &'a str,
    pub(crate) packed: Option<&'a PackedOrigin>,
}

/// Where a packed artifact's bytes are at its origin.
#[derive(Debug)]
pub(crate) struct PackedOrigin {
    /// The packs' folder, `…/fcpacks/`, beside the list's URL (the last
    /// one of any redirect).
    packs: String,
    /// Each range, in order: where it starts in the artifact, its pack,
    /// where in the pack, its length.
    ranges: Vec<(u64, [u8; 32], u64, u64)>,
    len: u64,
}

/// A piece of a pack to ask for: its URL, where in it, how many bytes.
pub(crate) type PackPiece = (String, u64, u64);

impl PackedOrigin {
    /// The packed artifact the pack list `list` (all its bytes, fetched
    /// from `list_url`) names, read as [`stored::list_from`] reads one: a
    /// list that fails its checks is an artifact error (not remembered as
    /// refused: nothing signed says so).
    pub(crate) fn new(list: &[u8], list_url: &ureq::http::Uri) -> Result<PackedOrigin, ArtifactError> {
        let list =
            stored::list_from(list).map_err(|e| ArtifactError::Malformed(format!("the origin's pack list: {e}")))?;
        let scheme = list_url.scheme_str().unwrap_or("http");
        let authority = list_url.authority().map_or("", |a| a.as_str());
        let path = list_url.path();
        let folder = &path[..path.rfind('/').map_or(0, |at| at + 1)];
        let folder = if folder.is_empty() { "/" } else { folder };
        let packs = format!("{scheme}://{authority}{folder}{}/", stored::PACKS_DIR);
        let mut start = 0;
        let ranges = list
            .ranges
            .into_iter()
            .map(|(pack, at, len)| {
                let range = (start, pack, at, len);
                start += len;
                range
            })
            .collect();
        Ok(PackedOrigin { packs, ranges, len: list.len })
    }

    /// The artifact's length.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// The pieces of packs holding bytes `from..to` of the artifact, in
    /// order; ranges that follow each other in one pack are asked as one.
    pub(crate) fn pieces(&self, from: u64, to: u64) -> Vec<PackPiece> {
        let to = to.min(self.len);
        let first = self.ranges.partition_point(|&(start, _, _, len)| start + len <= from);
        let mut pieces: Vec<([u8; 32], u64, u64)> = Vec::new();
        for &(start, pack, at, len) in self.ranges[first..].iter().take_while(|&&(start, ..)| start < to) {
            let skip = from.saturating_sub(start);
            let (at, len) = (at + skip, (start + len).min(to) - start - skip);
            match pieces.last_mut() {
                Some((last, last_at, last_len)) if *last == pack && *last_at + *last_len == at => *last_len += len,
                _ => pieces.push((pack, at, len)),
            }
        }
        pieces
            .into_iter()
            .map(|(pack, at, len)| (format!("{}{}", self.packs, stored::pack_name(&pack)), at, len))
            .collect()
    }
}

impl Origin {
    /// The packed artifact whose pack list (of `total` bytes at the
    /// origin, its ETag `etag`, fetched from `list_url`) starts with
    /// `first`: the rest of the list asked as a range (`If-Range`). An
    /// artifact error for a list that fails its checks.
    pub(crate) fn packed_list(
        &self,
        mut first: Vec<u8>,
        total: u64,
        etag: &str,
        list_url: &ureq::http::Uri,
    ) -> Result<Result<PackedOrigin, ArtifactError>, PullError> {
        let malformed = |e: io::Error| ArtifactError::Malformed(format!("the origin's pack list: {e}"));
        let len = match stored::list_len(&first) {
            Ok(len) if len == total => len,
            Ok(len) => {
                return Ok(Err(malformed(io::Error::other(format!(
                    "{total} bytes, where its count of ranges says {len}"
                )))));
            }
            Err(e) => return Ok(Err(malformed(e))),
        };
        if (first.len() as u64) < len {
            let from = first.len() as u64;
            if self.range_to(Remote { etag, packed: None }, from, len, total, &mut first)?.is_some() {
                return Err(PullError::unreachable("the origin's pack list changed while it was read".to_owned()));
            }
        }
        Ok(PackedOrigin::new(&first, list_url))
    }

    /// The artifact the pack list whose first bytes are `list` names, the
    /// rest of the list read from `reader` (a whole answer of `announced`
    /// bytes, when said): a reader of its bytes from its packs, and its
    /// length. An artifact error for a list that fails its checks (or is
    /// cut short); an error for an artifact over `max_len`.
    pub(crate) fn listed_artifact(
        &self,
        mut list: Vec<u8>,
        reader: impl Read,
        announced: Option<u64>,
        list_url: &ureq::http::Uri,
        max_len: u64,
    ) -> Result<Result<(PacksReader<'_>, u64), ArtifactError>, PullError> {
        let len = match stored::list_len(&list) {
            Ok(len) if announced.is_none_or(|announced| announced == len) => len,
            Ok(len) => {
                return Err(format!("the origin's pack list is {announced:?} bytes, and its count says {len}").into());
            }
            Err(e) => return Ok(Err(ArtifactError::Malformed(format!("the origin's pack list: {e}")))),
        };
        let rest = len.saturating_sub(list.len() as u64);
        list.extend(self.first_bytes(reader, rest)?);
        match PackedOrigin::new(&list, list_url) {
            Ok(packed) if packed.len() > max_len => Err(over_the_limit(packed.len(), max_len).into()),
            Ok(packed) => Ok(Ok((self.packs_reader(&packed, 0, packed.len()), packed.len()))),
            Err(error) => Ok(Err(error)),
        }
    }

    /// Bytes `from..to` of the packed artifact, written to `out` as they
    /// arrive: each piece a ranged `GET` of its pack, which must answer
    /// 206 with exactly that range.
    pub(crate) fn packs_to(
        &self,
        packed: &PackedOrigin,
        from: u64,
        to: u64,
        out: &mut impl Write,
    ) -> Result<(), PullError> {
        for (url, at, len) in packed.pieces(from, to) {
            let mut response = self.pack_range(&url, at, len)?;
            let reader = response.body_mut().with_config().limit(len.saturating_add(1)).reader();
            let copied = self.copy(Counted::new(reader, &self.counters.fetched), out, len)?;
            if copied != len {
                return Err(PullError::unreachable(format!(
                    "the download was cut: {copied} of {len} bytes of a range of {url}"
                )));
            }
        }
        Ok(())
    }

    /// A reader of bytes `from..to` of the packed artifact, asking each
    /// piece as the one before is read (a whole download: never held in
    /// memory). Its errors are the origin's (as a one-file download's).
    pub(crate) fn packs_reader<'a>(&'a self, packed: &PackedOrigin, from: u64, to: u64) -> PacksReader<'a> {
        PacksReader { origin: self, pieces: packed.pieces(from, to).into_iter(), current: None }
    }

    /// The answer to a ranged `GET` of `len` bytes of the pack at `url`
    /// from `at`: a 206 of that range, else an error naming the pack.
    fn pack_range(&self, url: &str, at: u64, len: u64) -> Result<super::origin::Response, PullError> {
        let last = at + len - 1;
        let response = self.exchange(self.agent.get(url).header("Range", format!("bytes={at}-{last}")))?;
        match response.status().as_u16() {
            206 if content_range(&response).is_some_and(|(first, end, _)| (first, end) == (at, last)) => Ok(response),
            206 => Err(format!("the origin answered bytes {at}-{last} of {url} with another range").into()),
            _ => Err(format!("the origin answered {} to bytes {at}-{last} of {url}", response.status()).into()),
        }
    }
}

/// [`Origin::packs_reader`]: the pieces of packs read in turn, each
/// exactly its length (a piece cut short is an error, never the next
/// one's bytes in its place).
pub(crate) struct PacksReader<'a> {
    origin: &'a Origin,
    pieces: std::vec::IntoIter<PackPiece>,
    /// The piece being read, and how many of its bytes are left.
    current: Option<(ureq::BodyReader<'static>, u64, String)>,
}

impl Read for PacksReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match &mut self.current {
                Some((_, 0, _)) => self.current = None,
                Some((reader, left, url)) => {
                    let want = buf.len().min(usize::try_from(*left).unwrap_or(usize::MAX));
                    let read = reader.read(&mut buf[..want])?;
                    if read == 0 && want > 0 {
                        return Err(io::Error::new(
                            io::ErrorKind::UnexpectedEof,
                            format!("the answer for {url} was cut, {left} bytes short"),
                        ));
                    }
                    *left -= read as u64;
                    self.origin.counters.fetched.fetch_add(read as u64, std::sync::atomic::Ordering::Relaxed);
                    return Ok(read);
                }
                None => {
                    let Some((url, at, len)) = self.pieces.next() else { return Ok(0) };
                    let response = self.origin.pack_range(&url, at, len).map_err(|e| io::Error::other(e.message))?;
                    let reader = response.into_body().into_with_config().limit(len.saturating_add(1)).reader();
                    self.current = Some((reader, len, url));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin_of(ranges: &[([u8; 32], u64, u64)], url: &str) -> PackedOrigin {
        let list = stored::list_bytes(ranges).expect("a list");
        PackedOrigin::new(&list, &url.parse().expect("a URL")).expect("read")
    }

    #[test]
    fn pieces_are_the_ranges_of_packs_holding_the_bytes_asked() {
        let (a, b) = ([1; 32], [2; 32]);
        // a[100..110], a[110..120] (joined with the first), b[0..5], a[0..10].
        let packed =
            origin_of(&[(a, 100, 10), (a, 110, 10), (b, 0, 5), (a, 0, 10)], "https://cdn.example/x/catalog.fcat?v=1");
        let url = |pack: &[u8; 32]| format!("https://cdn.example/x/fcpacks/{}", stored::pack_name(pack));
        assert_eq!(packed.len(), 35);
        assert_eq!(packed.pieces(0, 35), [(url(&a), 100, 20), (url(&b), 0, 5), (url(&a), 0, 10)]);
        assert_eq!(packed.pieces(5, 22), [(url(&a), 105, 15), (url(&b), 0, 2)]);
        assert_eq!(packed.pieces(22, 23), [(url(&b), 2, 1)]);
        assert_eq!(packed.pieces(25, 99), [(url(&a), 0, 10)], "cut at the artifact's end");
        assert_eq!(packed.pieces(35, 40), []);
        let root = origin_of(&[(a, 0, 1)], "http://127.0.0.1:8080/catalog.fcat");
        assert_eq!(root.pieces(0, 1), [(format!("http://127.0.0.1:8080/fcpacks/{}", stored::pack_name(&a)), 0, 1)]);
    }

    #[test]
    fn a_list_that_fails_its_checks_is_an_artifact_error() {
        let mut list = stored::list_bytes(&[([1; 32], 0, 10)]).expect("a list");
        list[20] ^= 1;
        let url = "http://h/catalog.fcat".parse().expect("a URL");
        assert!(matches!(PackedOrigin::new(&list, &url), Err(ArtifactError::Malformed(_))));
        assert!(matches!(PackedOrigin::new(&list[..30], &url), Err(ArtifactError::Malformed(_))));
    }
}
