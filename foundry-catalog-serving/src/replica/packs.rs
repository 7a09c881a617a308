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
use std::time::Instant;

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
    folder: String,
    /// The packs the list names, each once (at most
    /// [`stored::MAX_OPEN_PACKS`]).
    packs: Vec<[u8; 32]>,
    /// Each range, in order: where it starts in the artifact, its pack
    /// (in `packs`), where in the pack, its length.
    ranges: Vec<(u64, u32, u64, u64)>,
    len: u64,
    /// When the pull's requests of packs must have ended: one
    /// `--origin-timeout` after the list was read, however many pieces.
    deadline: Instant,
}

/// A piece of a pack to ask for: the pack (in [`PackedOrigin`]'s), where
/// in it, how many bytes.
pub(crate) type PackPiece = (usize, u64, u64);

impl PackedOrigin {
    /// The packed artifact the pack list `list` (all its bytes, fetched
    /// from `list_url`) names, read as [`stored::list_from`] reads one, and
    /// as a file's packs are opened: at most [`stored::MAX_OPEN_PACKS`]
    /// packs, no range past 2^64 bytes of its pack. A list that fails its
    /// checks is an artifact error (not remembered as refused: nothing
    /// signed says so). Its pieces are asked by `deadline`.
    pub(crate) fn new(
        list: &[u8],
        list_url: &ureq::http::Uri,
        deadline: Instant,
    ) -> Result<PackedOrigin, ArtifactError> {
        let list = stored::list_from(list).map_err(malformed)?;
        let scheme = list_url.scheme_str().unwrap_or("http");
        let authority = list_url.authority().map_or("", |a| a.as_str());
        let path = list_url.path();
        let folder = &path[..path.rfind('/').map_or(0, |at| at + 1)];
        let folder = if folder.is_empty() { "/" } else { folder };
        let folder = format!("{scheme}://{authority}{folder}{}/", stored::PACKS_DIR);
        let (mut packs, mut known) = (Vec::new(), std::collections::BTreeMap::new());
        let mut ranges = Vec::with_capacity(list.ranges.len());
        let mut start = 0;
        for (pack, at, len) in list.ranges {
            if at.checked_add(len).is_none() {
                return Err(malformed(format!("a range of {len} bytes from {at}, past 2^64")));
            }
            let index = match known.get(&pack) {
                Some(&index) => index,
                None if packs.len() >= stored::MAX_OPEN_PACKS => {
                    return Err(malformed(format!("more than {} packs", stored::MAX_OPEN_PACKS)));
                }
                None => {
                    packs.push(pack);
                    known.insert(pack, packs.len() as u32 - 1);
                    packs.len() as u32 - 1
                }
            };
            ranges.push((start, index, at, len));
            start += len;
        }
        Ok(PackedOrigin { folder, packs, ranges, len: list.len, deadline })
    }

    /// The artifact's length.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// The URL of the pack `pack` (in its packs).
    fn url(&self, pack: usize) -> String {
        format!("{}{}", self.folder, stored::pack_name(&self.packs[pack]))
    }

    /// The first piece of a pack holding bytes `from..to` of the artifact
    /// (`to` at most its length): the ranges that follow it in the same
    /// pack, back to back, asked with it; none when `from..to` is empty.
    pub(crate) fn piece(&self, from: u64, to: u64) -> Option<PackPiece> {
        let to = to.min(self.len);
        if from >= to {
            return None;
        }
        let first = self.ranges.partition_point(|&(start, _, _, len)| start + len <= from);
        let &(start, pack, at, len) = self.ranges.get(first)?;
        let at = at + (from - start);
        let mut end = (start + len).min(to);
        // A range whose bytes follow in the same pack: where the piece,
        // read on, would be.
        for &(start, next, next_at, len) in &self.ranges[first + 1..] {
            if start >= to || next != pack || at.checked_add(start - from) != Some(next_at) {
                break;
            }
            end = (start + len).min(to);
        }
        Some((pack as usize, at, end - from))
    }
}

/// The artifact error of an origin's pack list that fails its checks.
fn malformed(why: impl std::fmt::Display) -> ArtifactError {
    ArtifactError::Malformed(format!("the origin's pack list: {why}"))
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
        let len = match stored::list_len(&first) {
            Ok(len) if len == total => len,
            Ok(len) => return Ok(Err(malformed(format!("{total} bytes, where its count of ranges says {len}")))),
            Err(e) => return Ok(Err(malformed(e))),
        };
        if (first.len() as u64) < len {
            let from = first.len() as u64;
            if self.range_to(Remote { etag, packed: None }, from, len, total, &mut first)?.is_some() {
                return Err(PullError::unreachable("the origin's pack list changed while it was read".to_owned()));
            }
        }
        Ok(PackedOrigin::new(&first, list_url, Instant::now() + self.timeout))
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
            Err(e) => return Ok(Err(malformed(e))),
        };
        let rest = len.saturating_sub(list.len() as u64);
        list.extend(self.first_bytes(reader, rest)?);
        match PackedOrigin::new(&list, list_url, Instant::now() + self.timeout) {
            Ok(packed) if packed.len() > max_len => Err(over_the_limit(packed.len(), max_len).into()),
            Ok(packed) => {
                let len = packed.len();
                Ok(Ok((PacksReader { origin: self, packed, at: 0, current: None }, len)))
            }
            Err(error) => Ok(Err(error)),
        }
    }

    /// Bytes `from..to` of the packed artifact (within it, not empty),
    /// written to `out` as they arrive: each piece a ranged `GET` of its
    /// pack, which must answer 206 with exactly that range.
    pub(crate) fn packs_to(
        &self,
        packed: &PackedOrigin,
        from: u64,
        to: u64,
        out: &mut impl Write,
    ) -> Result<(), PullError> {
        if from >= to || to > packed.len() {
            return Err(PullError::local(format!("bytes {from}..{to} of an artifact of {}", packed.len())));
        }
        let mut at = from;
        while let Some((pack, pack_at, len)) = packed.piece(at, to) {
            let url = packed.url(pack);
            let mut response = self.pack_range(packed, &url, pack_at, len)?;
            let reader = response.body_mut().with_config().limit(len.saturating_add(1)).reader();
            let copied = self.copy(Counted::new(reader, &self.counters.fetched), out, len)?;
            if copied != len {
                return Err(PullError::unreachable(format!(
                    "the download was cut: {copied} of {len} bytes of a range of {url}"
                )));
            }
            at += len;
        }
        Ok(())
    }

    /// The answer to a ranged `GET` of `len` bytes (at least one) of the
    /// pack at `url` from `at`: a 206 of that range, else an error naming
    /// the pack. It must have ended by `packed`'s deadline.
    fn pack_range(
        &self,
        packed: &PackedOrigin,
        url: &str,
        at: u64,
        len: u64,
    ) -> Result<super::origin::Response, PullError> {
        let left = packed.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(PullError::unreachable(format!(
                "no whole answer within {:?} (--origin-timeout) for the packs",
                self.timeout
            )));
        }
        let last = at + len - 1;
        let request = self.agent.get(url).header("Range", format!("bytes={at}-{last}"));
        let response = self.exchange(request.config().timeout_global(Some(left)).build())?;
        match response.status().as_u16() {
            206 if content_range(&response).is_some_and(|(first, end, _)| (first, end) == (at, last)) => Ok(response),
            206 => Err(format!("the origin answered bytes {at}-{last} of {url} with another range").into()),
            _ => Err(format!("the origin answered {} to bytes {at}-{last} of {url}", response.status()).into()),
        }
    }
}

/// A whole download's reader of a packed artifact ([`Origin::listed_artifact`]):
/// each piece of a pack asked as the one before is read (never held in
/// memory), and read to exactly its length (a piece cut short is an
/// error, never the next one's bytes in its place). Its errors are the
/// origin's (as a one-file download's).
pub(crate) struct PacksReader<'a> {
    origin: &'a Origin,
    packed: PackedOrigin,
    /// Where the next piece starts in the artifact.
    at: u64,
    /// The piece being read, how many of its bytes are left, and its URL.
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
                    let Some((pack, at, len)) = self.packed.piece(self.at, self.packed.len()) else { return Ok(0) };
                    let url = self.packed.url(pack);
                    let response =
                        self.origin.pack_range(&self.packed, &url, at, len).map_err(|e| io::Error::other(e.message))?;
                    let reader = response.into_body().into_with_config().limit(len.saturating_add(1)).reader();
                    self.at += len;
                    self.current = Some((reader, len, url));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn origin_of(ranges: &[([u8; 32], u64, u64)], url: &str) -> PackedOrigin {
        let list = stored::list_bytes(ranges).expect("a list");
        PackedOrigin::new(&list, &url.parse().expect("a URL"), Instant::now()).expect("read")
    }

    /// Every piece holding `from..to`, in order: its URL, where, how long.
    fn pieces(packed: &PackedOrigin, from: u64, to: u64) -> Vec<(String, u64, u64)> {
        let (mut at, mut pieces) = (from, Vec::new());
        while let Some((pack, pack_at, len)) = packed.piece(at, to) {
            pieces.push((packed.url(pack), pack_at, len));
            at += len;
        }
        pieces
    }

    #[test]
    fn pieces_are_the_ranges_of_packs_holding_the_bytes_asked() {
        let (a, b) = ([1; 32], [2; 32]);
        // a[100..110], a[110..120] (joined with the first), b[0..5],
        // a[0..10], a[20..25] (not joined: not where a[0..10] ends).
        let ranges = [(a, 100, 10), (a, 110, 10), (b, 0, 5), (a, 0, 10), (a, 20, 5)];
        let packed = origin_of(&ranges, "https://cdn.example/x/catalog.fcat?v=1");
        let url = |pack: &[u8; 32]| format!("https://cdn.example/x/fcpacks/{}", stored::pack_name(pack));
        assert_eq!(packed.len(), 40);
        let whole = [(url(&a), 100, 20), (url(&b), 0, 5), (url(&a), 0, 10), (url(&a), 20, 5)];
        assert_eq!(pieces(&packed, 0, 40), whole);
        assert_eq!(pieces(&packed, 5, 22), [(url(&a), 105, 15), (url(&b), 0, 2)]);
        assert_eq!(pieces(&packed, 12, 14), [(url(&a), 112, 2)]);
        assert_eq!(pieces(&packed, 22, 23), [(url(&b), 2, 1)]);
        assert_eq!(pieces(&packed, 25, 99), [(url(&a), 0, 10), (url(&a), 20, 5)], "cut at the artifact's end");
        assert_eq!(pieces(&packed, 40, 45), []);
        assert_eq!(pieces(&packed, 7, 7), [], "nothing asked, no piece");
        let root = origin_of(&[(a, 0, 1)], "http://127.0.0.1:8080/catalog.fcat");
        assert_eq!(pieces(&root, 0, 1), [(format!("http://127.0.0.1:8080/fcpacks/{}", stored::pack_name(&a)), 0, 1)]);
    }

    #[test]
    fn a_pulls_requests_of_packs_end_by_its_deadline() {
        let (a, b) = ([1; 32], [2; 32]);
        let list = stored::list_bytes(&[(a, 0, 10), (b, 0, 10)]).expect("a list");
        let url = "http://127.0.0.1:9/catalog.fcat".parse().expect("a URL");
        let timeout = std::time::Duration::from_secs(7);
        let origin = Origin::new("http://127.0.0.1:9/catalog.fcat", Path::new("unused"), timeout, timeout);
        // Its deadline passed: no request is made, whatever is asked.
        let packed = PackedOrigin::new(&list, &url, Instant::now()).expect("read");
        let error = origin.packs_to(&packed, 0, 20, &mut Vec::new()).expect_err("past its deadline");
        assert!(error.message.contains("(--origin-timeout)") && error.message.contains("7s"), "{error}");
        // Before it: asked (of a port nothing listens on).
        let packed = PackedOrigin::new(&list, &url, Instant::now() + timeout).expect("read");
        let error = origin.packs_to(&packed, 0, 20, &mut Vec::new()).expect_err("nothing there");
        assert!(error.message.contains("cannot reach the origin"), "{error}");
        // Nothing, or past the artifact's end: not asked.
        assert!(origin.packs_to(&packed, 5, 5, &mut Vec::new()).is_err());
        assert!(origin.packs_to(&packed, 5, 21, &mut Vec::new()).is_err());
    }

    #[test]
    fn a_list_that_fails_its_checks_is_an_artifact_error() {
        let url = "http://h/catalog.fcat".parse().expect("a URL");
        let refused = |ranges: &[([u8; 32], u64, u64)], cut: usize| {
            let list = stored::list_bytes(ranges).expect("a list");
            matches!(
                PackedOrigin::new(&list[..list.len() - cut], &url, Instant::now()),
                Err(ArtifactError::Malformed(_))
            )
        };
        let mut list = stored::list_bytes(&[([1; 32], 0, 10)]).expect("a list");
        list[20] ^= 1;
        assert!(matches!(PackedOrigin::new(&list, &url, Instant::now()), Err(ArtifactError::Malformed(_))), "its CRC");
        assert!(refused(&[([1; 32], 0, 10)], 2), "cut short");
        assert!(refused(&[([1; 32], u64::MAX - 5, 10)], 0), "a range past 2^64 bytes of its pack");
        // At most as many packs as a file's list may name.
        let packs = |n: usize| {
            let pack = |k: usize| {
                let mut pack = [1; 32];
                pack[..2].copy_from_slice(&(k as u16).to_le_bytes());
                pack
            };
            (0..n).map(|k| (pack(k), 0, 1)).collect::<Vec<_>>()
        };
        assert!(!refused(&packs(stored::MAX_OPEN_PACKS), 0));
        assert!(refused(&packs(stored::MAX_OPEN_PACKS + 1), 0));
    }
}
