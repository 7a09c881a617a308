//! What a replica must fetch of a new artifact, given the one it has:
//! plans to write the new file from ranges of the old one and ranges
//! fetched from the origin, as rsync and zsync move only what changed.
//!
//! Both artifacts are of format version 4, the old one opened from its
//! file. A new one is pulled in three steps:
//!
//! 1. its summary ([`Summary`]: header, metadata, signature and block
//!    list), fetched first;
//! 2. the rest of its head, as [`Plan::head`] says: each block of index
//!    entries and table bytes is taken from the old artifact when the old
//!    one has a block with the same digest (the same bytes), and fetched
//!    otherwise; the head is then checked whole ([`Artifact::from_head`],
//!    and its signature; each block against its digest, but the blocks
//!    copied whole from a head that was checked, [`Plan::copied_blocks`]);
//! 3. its bodies, as [`Plan::new`] says: each product's bodies (and its
//!    page's) are one run of the new file, and so is each site
//!    document's; a run is taken from the old file when the old artifact
//!    has the same product (by slug) or document (by name) with the same
//!    ETags, in the same codings: an ETag is the SHA-256 of its body, so
//!    those are the same bytes. Every other run is fetched.
//!
//! Runs to fetch that lie close together are fetched as one range (the
//! bytes between them cost less than another request), and at most a
//! bounded number of ranges are asked for.
//!
//! A plan says where bytes come from, never what they are worth: the file
//! it writes is checked as a whole download is (its head, signature
//! included, then every body against its ETag) before it is served.
//!
//! A run taken from the old file need not be written at all when that
//! file stays: [`open_layered`] reads the new artifact's bodies from it
//! wherever it has them ([`Plan::layout`]), and each block of its head
//! that file holds, so a replica writes those runs and blocks as holes of
//! a sparse file ([`Artifact::copy_range`] with the base to leave holes
//! for, and [`head_writes`]).
//!
//! ```
//! use foundry_catalog_serving::artifact::{Artifact, Summary};
//! use foundry_catalog_serving::catalog::ResponseCatalog;
//! use foundry_catalog_serving::delta::{Plan, Source};
//! let bytes = ResponseCatalog::examples().artifact().to_vec();
//! let old = Artifact::parse(bytes.clone().into()).unwrap();
//! let summary = Summary::parse(&bytes, bytes.len() as u64).unwrap();
//! let head = Plan::head(&summary, &old, Plan::MAX_RANGES);
//! assert_eq!(head.fetched(), 0, "the same artifact: every block of the head is copied");
//! let new = Artifact::from_head(bytes.clone(), bytes.len() as u64).unwrap();
//! let plan = Plan::new(&new, &old, Plan::MAX_RANGES);
//! assert_eq!(plan.fetched(), 0, "the same artifact: every body is copied");
//! assert!(plan.runs().iter().all(|run| matches!(run.source, Source::Old { .. })));
//! ```

use std::collections::HashMap;

use crate::artifact::{Artifact, ArtifactError, Span, Summary, contiguous};

/// What the old artifact holds of a product or document: where its body
/// run is in the data region, and where its ETags are among all of them.
type Known = ((u64, u64), std::ops::Range<usize>);

/// Opens a layered artifact: the artifact file at `path`, of format 4,
/// whose bodies are read from `base` (an artifact opened from its file,
/// [`Artifact::open`]) wherever `base` has the same product or site
/// document with the same ETags ([`Plan::layout`]: an ETag is the SHA-256
/// of its body, so those are the same bytes), and from its own file
/// elsewhere; and each block of its head (index entries and table bytes)
/// that `base` holds with the same digest and lengths is read from
/// `base`'s file. Those ranges of its file are never read: a replica
/// writes them as holes (a sparse file, [`head_writes`]), so that a
/// one-product edit costs the disk that product's bytes, its block of the
/// head and the head's summary and slug directory, not a copy of every
/// body nor the whole head. Its head is read and checked as
/// [`Artifact::open`] checks it (each block against its digest, whichever
/// file holds it); its bodies
/// are read when asked for and checked against its own ETags by the
/// catalog that serves them, whichever file holds them.
pub fn open_layered(path: &std::path::Path, base: &Artifact, max_len: u64) -> Result<Artifact, ArtifactError> {
    Artifact::open_over(path, base, max_len, |artifact| {
        let plan = Plan::layout(artifact, base);
        let place = |run: &Run| match run.source {
            Source::Old { at } => Some(at),
            Source::Origin | Source::Made => None,
        };
        plan.runs().iter().map(|run| (run.at, run.len, place(run))).collect()
    })
}

/// The artifact a replica wrote at `path` as `plan` says ([`Plan::new`]
/// of `new` over `old`: the head `new`, [`Artifact::from_head`], then the
/// bodies, each run copied from `old`'s files or fetched), its head taken
/// from memory, not read back. When `layered`, the runs `old` reads from
/// its base file were written as holes ([`Artifact::copy_range`] with
/// `old` as `holes_for`) and are read from that file, as
/// [`open_layered`] over that base would read them; otherwise the file
/// holds every body. Its bodies are checked against `new`'s ETags as a
/// catalog serves them, whichever file holds them.
pub fn written(
    new: Artifact,
    path: &std::path::Path,
    old: &Artifact,
    plan: &Plan,
    layered: bool,
) -> Result<Artifact, ArtifactError> {
    let from = |run: &Run| match run.source {
        Source::Old { at } => Some(at),
        Source::Origin | Source::Made => None,
    };
    new.attach(path, old, plan.runs().iter().map(|run| (run.at, run.len, from(run))), layered)
}

/// The ranges of `new`'s head (a head in memory, [`Artifact::from_head`])
/// a replica writes to its file, in order: all of it, but, with
/// `holes_for` (the artifact it pulled over), not the blocks of index
/// entries and table bytes that `holes_for`'s base file holds (the same
/// digest and lengths), which a layered artifact over that base reads
/// from there ([`open_layered`]): those are left as holes. The summary and
/// the slug directory are always written.
pub fn head_writes(new: &Artifact, holes_for: Option<&Artifact>) -> Vec<std::ops::Range<u64>> {
    let head_len = new.data_at() + new.table_len();
    let Some(base) = holes_for.and_then(Artifact::base_head) else { return std::iter::once(0..head_len).collect() };
    let (index_at, data_at) = (new.stored_index_at(), new.data_at());
    let blocks = new.blocks();
    let mut holes: Vec<(u64, u64)> = Vec::with_capacity(blocks.len() * 2);
    for (block, held) in blocks.iter().zip(base.holding(&blocks)) {
        if held.is_some() {
            holes.push((index_at + block.index.start, index_at + block.index.end));
            holes.push((data_at + block.table.start, data_at + block.table.end));
        }
    }
    holes.sort_unstable();
    let mut writes = Vec::new();
    let mut at = 0;
    for (start, end) in holes {
        if start > at {
            writes.push(at..start);
        }
        at = at.max(end);
    }
    if at < head_len {
        writes.push(at..head_len);
    }
    writes
}

/// Writes the ranges `writes` of `head` (an artifact's head, from its
/// first byte: [`head_writes`] says which) to `out` at their offsets,
/// leaving what lies between as holes, and moves `out`'s position to the
/// head's end, where its bodies follow. Returns the bytes written.
pub fn write_head(head: &[u8], writes: &[std::ops::Range<u64>], out: &mut std::fs::File) -> std::io::Result<u64> {
    use std::io::Seek;
    use std::os::unix::fs::FileExt;
    let mut written = 0;
    for range in writes {
        let bytes = usize::try_from(range.start)
            .ok()
            .zip(usize::try_from(range.end).ok())
            .and_then(|(from, to)| head.get(from..to))
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "a range outside the head"))?;
        out.write_all_at(bytes, range.start)?;
        written += bytes.len() as u64;
    }
    out.seek(std::io::SeekFrom::Start(head.len() as u64))?;
    Ok(written)
}

/// What `old` holds of a product or document named by `name`, whose body
/// run is `run` and whose ETags are at `spans`: its name, and its run and
/// ETags (pushed onto `tags`); `None`, pushing nothing, for spans not in
/// its table.
fn know<'a>(
    old: &'a Artifact,
    tags: &mut Vec<&'a [u8]>,
    name: Span,
    run: Option<(u64, u64)>,
    spans: impl Iterator<Item = Span>,
) -> Option<(&'a [u8], Known)> {
    let (name, run, first) = (old.bytes_of(name)?, run?, tags.len());
    for span in spans {
        match old.bytes_of(span) {
            Some(tag) => tags.push(tag),
            None => {
                tags.truncate(first);
                return None;
            }
        }
    }
    Some((name, (run, first..tags.len())))
}

/// A block of the new head that the old head holds: its entries, the
/// first of the old block's, and its body run in each data region.
pub(crate) struct SameBlock {
    entries: std::ops::Range<usize>,
    old: usize,
    at: u64,
    old_at: u64,
    len: u64,
}

/// The blocks of `new`'s head (in order) whose digest and lengths a block
/// of `old`'s head has, in artifacts of the same codings and pages: the
/// same stored index entries (body lengths) and table bytes (names and
/// ETags), so the same bodies, in one run in each file. Both are of
/// format 4, read from a file or its head.
pub(crate) fn same_blocks(new: &Artifact, old: &Artifact) -> Vec<SameBlock> {
    let (ours, theirs) = (new.metadata(), old.metadata());
    if ours.codings != theirs.codings || ours.pages.is_some() != theirs.pages.is_some() {
        return Vec::new();
    }
    let known: HashMap<_, _> = old.blocks().into_iter().map(|block| (block.digest, block)).collect();
    let len = |range: &std::ops::Range<u64>| range.end - range.start;
    let first_and_end =
        |range: &std::ops::Range<u64>| Some((usize::try_from(range.start).ok()?, usize::try_from(range.end).ok()?));
    new.blocks()
        .into_iter()
        .filter_map(|block| {
            let found = known.get(&block.digest)?;
            let lengths = |block: &crate::artifact::Block| [len(&block.entries), len(&block.index), len(&block.table)];
            if lengths(&block) != lengths(found) {
                return None;
            }
            let (first, end) = first_and_end(&block.entries)?;
            let (old_first, old_end) = first_and_end(&found.entries)?;
            let (at, to) = (new.body_start(first)?, new.body_start(end)?);
            let (old_at, old_to) = (old.body_start(old_first)?, old.body_start(old_end)?);
            // The same lengths, so the same run length: checked all the same.
            (to.checked_sub(at)? == old_to.checked_sub(old_at)?).then_some(SameBlock {
                entries: first..end,
                old: old_first,
                at,
                old_at,
                len: to - at,
            })
        })
        .collect()
}

/// Where a run of the new file's bytes comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The old file, from this offset.
    Old {
        /// The offset in the old file.
        at: u64,
    },
    /// The origin: a ranged request for the new file's bytes.
    Origin,
    /// Made from the rest of the head: the slug directory, which follows
    /// from the head's slugs ([`Artifact::fill_directory`]), and is checked
    /// against the digest the signed metadata gives it.
    Made,
}

/// A run of the new file's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    /// Where it starts in the new file.
    pub at: u64,
    /// Its length.
    pub len: u64,
    /// Where its bytes come from.
    pub source: Source,
}

/// How to write part of a new artifact file, after what was fetched
/// before ([`Plan::start`]): [`Plan::runs`] in order, which cover the
/// bytes up to [`Plan::end`] exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    runs: Vec<Run>,
    start: u64,
    end: u64,
}

impl Plan {
    /// The most ranges a plan asks the origin for, unless told otherwise:
    /// past it, the closest ranges are fetched as one.
    pub const MAX_RANGES: usize = 32;
    /// Runs to fetch this close together are fetched as one range.
    pub const GAP: u64 = 64 << 10;

    /// The plan to write the rest of the head `summary` summarises, from
    /// `old` (its copies in memory of its index and table:
    /// [`Artifact::head_bytes`]) and the origin, asking at most
    /// `max_ranges` ranges (at least one): each of the new head's blocks
    /// of index entries, then each of its blocks of table bytes, is taken
    /// from the old artifact's block with the same digest and lengths, if
    /// it has one.
    pub fn head(summary: &Summary, old: &Artifact, max_ranges: usize) -> Plan {
        let (old_index, old_table) = (old.stored_index_at(), old.data_at());
        let (mut index, mut table) = (Vec::new(), Vec::new());
        // The slug directory: the old one when its digest is the new
        // one's, else made from the new head's slugs, never fetched.
        let same_directory = old.has_directory(&summary.metadata().directory_sha256, summary.directory_len());
        index.push(Run {
            at: summary.len(),
            len: summary.directory_len(),
            source: if same_directory { Source::Old { at: old.directory_at() } } else { Source::Made },
        });
        for (block, found) in summary.blocks().iter().zip(old.holding(summary.blocks())) {
            let source = |at: Option<u64>| at.map_or(Source::Origin, |at| Source::Old { at });
            index.push(Run {
                at: summary.len() + summary.directory_len() + block.index.start,
                len: block.index.end - block.index.start,
                source: source(found.as_ref().map(|(index, _)| old_index + index.start)),
            });
            table.push(Run {
                at: summary.table_at() + block.table.start,
                len: block.table.end - block.table.start,
                source: source(found.map(|(_, table)| old_table + table.start)),
            });
        }
        let runs = index.into_iter().chain(table).filter(|run| run.len > 0).collect();
        let mut plan = Plan { runs, start: summary.len(), end: summary.head_len() };
        plan.coalesce(max_ranges.max(1), Self::GAP);
        plan
    }

    /// The plan to write the bodies of `new` (its head) from `old` and the
    /// origin, asking at most `max_ranges` ranges (at least one).
    pub fn new(new: &Artifact, old: &Artifact, max_ranges: usize) -> Plan {
        let mut plan = Self::matched(new, old);
        plan.coalesce(max_ranges.max(1), Self::GAP);
        plan
    }

    /// Where each of `new`'s bodies is in `old`, exactly: a run is
    /// [`Source::Old`] when `old` has the same product or document with the
    /// same ETags (the same bytes), else [`Source::Origin`], with no range
    /// bound and no gap closed (neighbours from the same place are one
    /// run). What a layered artifact reads from its base
    /// ([`open_layered`]).
    pub fn layout(new: &Artifact, old: &Artifact) -> Plan {
        let mut plan = Self::matched(new, old);
        plan.coalesce(usize::MAX, 0);
        plan
    }

    /// Every body run of `new`, each from `old` when it has it, uncoalesced.
    fn matched(new: &Artifact, old: &Artifact) -> Plan {
        Self::matched_by(new, old, true)
    }

    /// [`Plan::matched`], taking the blocks both heads hold whole when
    /// `by_block` (else entry by entry: the same plan, coalesced).
    pub(crate) fn matched_by(new: &Artifact, old: &Artifact, by_block: bool) -> Plan {
        let head_len = new.data_at() + new.table_len();
        let file_len = new.file_len();
        let products = new.len();
        let entries = products + new.documents_len();
        // The blocks of the new head that the old head holds (the same
        // stored entries and table bytes: the same names, ETags and body
        // lengths), each one run of bodies; every other entry on its own.
        let blocks = if by_block { same_blocks(new, old) } else { Vec::new() };
        let mut old_blocks: Vec<&SameBlock> = blocks.iter().collect();
        old_blocks.sort_unstable_by_key(|block| block.old);
        // Every ETag of the old artifact outside those blocks, borrowed
        // from its table, in one buffer; each product and document by slug
        // or name: its body run and where its ETags are in that buffer.
        let mut tags: Vec<&[u8]> = Vec::new();
        let mut known_products: HashMap<&[u8], Known> = HashMap::new();
        let mut known_documents: HashMap<&[u8], Known> = HashMap::new();
        let old_products = old.len();
        let mut taken = old_blocks.iter().map(|block| block.old..block.old + block.entries.len()).peekable();
        let mut n = 0;
        while n < old_products + old.documents_len() {
            // A block the new head repeats is taken once.
            while taken.next_if(|range| range.start < n).is_some() {}
            if let Some(range) = taken.next_if(|range| range.start == n) {
                n = range.end;
                continue;
            }
            if n < old_products {
                let Some(entry) = old.entry(n) else { break };
                let known = know(old, &mut tags, entry.slug, contiguous(entry.body_spans()), entry.etag_spans());
                known_products.extend(known);
            } else {
                let Some(document) = old.document(n - old_products) else { break };
                let (run, spans) = (contiguous(document.body_spans()), document.etag_spans());
                known_documents.extend(know(old, &mut tags, document.path, run, spans));
            }
            n += 1;
        }
        let (new_at, old_at) = (new.data_at(), old.data_at());
        let mut runs = Vec::with_capacity(blocks.len() + 64);
        let place = |run: Option<(u64, u64)>, found: Option<&Known>, spans: &mut dyn Iterator<Item = Span>| {
            let (offset, len) = run?;
            let source = match found {
                Some(&((old_offset, old_len), ref known)) if old_len == len => {
                    let mut known = tags[known.clone()].iter();
                    let same = Iterator::all(&mut &mut *spans, |span| {
                        new.bytes_of(span).is_some_and(|tag| known.next() == Some(&tag))
                    }) && known.next().is_none();
                    if same { Source::Old { at: old_at + old_offset } } else { Source::Origin }
                }
                _ => Source::Origin,
            };
            Some(Run { at: new_at + offset, len, source })
        };
        let mut blocks = blocks.iter().peekable();
        let mut n = 0;
        while n < entries {
            if let Some(block) = blocks.next_if(|block| block.entries.start == n) {
                if block.len > 0 {
                    runs.push(Run {
                        at: new_at + block.at,
                        len: block.len,
                        source: Source::Old { at: old_at + block.old_at },
                    });
                }
                n = block.entries.end;
                continue;
            }
            if n < products {
                let Some(entry) = new.entry(n) else { break };
                let found = new.bytes_of(entry.slug).and_then(|slug| known_products.get(slug));
                runs.extend(place(contiguous(entry.body_spans()), found, &mut entry.etag_spans()));
            } else {
                let Some(document) = new.document(n - products) else { break };
                let found = new.bytes_of(document.path).and_then(|name| known_documents.get(name));
                runs.extend(place(contiguous(document.body_spans()), found, &mut document.etag_spans()));
            }
            n += 1;
        }
        // A new artifact whose bodies do not tile (refused when it is
        // loaded) is fetched whole after its head.
        let tiled = runs.iter().try_fold(head_len, |end, run| (run.at == end).then_some(end + run.len));
        if tiled != Some(file_len) {
            runs = vec![Run { at: head_len, len: file_len - head_len, source: Source::Origin }];
        }
        Plan { runs, start: head_len, end: file_len }
    }

    /// Merges neighbours: runs copied from one place of the old file in
    /// turn, runs fetched in turn, and runs to fetch within `gap` of each
    /// other (with what lies between); then, while more than `max_ranges`
    /// ranges are to be fetched, the two closest.
    pub(crate) fn coalesce(&mut self, max_ranges: usize, gap: u64) {
        let fetched: Vec<(u64, u64)> =
            self.runs.iter().filter(|run| run.source == Source::Origin).map(|run| (run.at, run.at + run.len)).collect();
        // The gaps between ranges to fetch, closed from the smallest up:
        // every gap within GAP, and the smallest ones past the bound.
        let mut gaps: Vec<(u64, usize)> = fetched.windows(2).enumerate().map(|(i, w)| (w[1].0 - w[0].1, i)).collect();
        gaps.sort_unstable();
        let must_close = fetched.len().saturating_sub(max_ranges);
        let mut closed = vec![false; fetched.len().saturating_sub(1)];
        let within = gap;
        for (n, (gap, i)) in gaps.into_iter().enumerate() {
            if gap <= within || n < must_close {
                closed[i] = true;
            }
        }
        let mut ranges: Vec<(u64, u64)> = Vec::new();
        for (i, &(start, end)) in fetched.iter().enumerate() {
            match ranges.last_mut() {
                Some(last) if i > 0 && closed[i - 1] => last.1 = end,
                _ => ranges.push((start, end)),
            }
        }
        // The runs again: the ranges to fetch, and what is copied between them.
        let mut runs: Vec<Run> = Vec::with_capacity(self.runs.len());
        let mut ranges = ranges.into_iter().peekable();
        for run in &self.runs {
            let end = run.at + run.len;
            if let Some(&(start, stop)) = ranges.peek()
                && run.at >= start
            {
                if end >= stop {
                    runs.push(Run { at: start, len: stop - start, source: Source::Origin });
                    ranges.next();
                }
                continue;
            }
            match (runs.last_mut(), run.source) {
                (Some(Run { at, len, source: Source::Old { at: from } }), Source::Old { at: next })
                    if *at + *len == run.at && *from + *len == next =>
                {
                    *len += run.len;
                }
                _ => runs.push(*run),
            }
        }
        self.runs = runs;
    }

    /// Whether each block of the head `summary` summarises (in order) is
    /// copied whole from the old head by this plan ([`Plan::head`] for
    /// that summary): its index entries and its table bytes both lie in
    /// runs taken from the old head, which are taken only from a block
    /// with the same digest and lengths (runs fetched in one range with
    /// their neighbours are not). Such a block holds the bytes the old
    /// head's block holds: checked there, they need no second hash.
    pub fn copied_blocks(&self, summary: &Summary) -> Vec<bool> {
        let index_at = summary.len() + summary.directory_len();
        let table_at = summary.table_at();
        let from_old = |from: u64, to: u64| {
            if from == to {
                return true;
            }
            let k = self.runs.partition_point(|run| run.at + run.len <= from);
            self.runs
                .get(k)
                .is_some_and(|run| matches!(run.source, Source::Old { .. }) && run.at <= from && to <= run.at + run.len)
        };
        summary
            .blocks()
            .iter()
            .map(|block| {
                from_old(index_at + block.index.start, index_at + block.index.end)
                    && from_old(table_at + block.table.start, table_at + block.table.end)
            })
            .collect()
    }

    /// The runs, in file order.
    pub fn runs(&self) -> &[Run] {
        &self.runs
    }

    /// Where its runs start: the bytes before were fetched before the
    /// plan was made (the summary, or the whole head).
    pub fn start(&self) -> u64 {
        self.start
    }

    /// Where its runs end: the head's end, or the file's.
    pub fn end(&self) -> u64 {
        self.end
    }

    /// The bytes it fetches from the origin.
    pub fn fetched(&self) -> u64 {
        self.runs.iter().filter(|run| run.source == Source::Origin).map(|run| run.len).sum()
    }

    /// The ranges it fetches from the origin.
    pub fn ranges(&self) -> usize {
        self.runs.iter().filter(|run| run.source == Source::Origin).count()
    }
}

#[cfg(test)]
mod tests {
    use super::{Plan, Run, Source};

    fn plan(runs: &[(u64, u64, Option<u64>)]) -> Plan {
        let runs: Vec<Run> = runs
            .iter()
            .map(|&(at, len, from)| Run { at, len, source: from.map_or(Source::Origin, |at| Source::Old { at }) })
            .collect();
        let end = runs.last().map_or(0, |run| run.at + run.len);
        Plan { runs, start: 0, end }
    }

    /// Neighbouring runs become one: origin runs that touch are one range
    /// (and ones within the gap, with the bytes between fetched too), and
    /// old runs that continue each other in both files are one copy; old
    /// runs from places apart in the old file stay two.
    #[test]
    fn neighbouring_runs_are_coalesced() {
        let mut touching =
            plan(&[(0, 10, None), (10, 10, None), (20, 5, Some(100)), (25, 5, Some(105)), (30, 5, Some(0))]);
        touching.coalesce(usize::MAX, 0);
        assert_eq!(
            touching.runs(),
            [
                Run { at: 0, len: 20, source: Source::Origin },
                Run { at: 20, len: 10, source: Source::Old { at: 100 } },
                Run { at: 30, len: 5, source: Source::Old { at: 0 } },
            ]
        );
        assert_eq!((touching.ranges(), touching.fetched()), (1, 20));
        // Two ranges 5 bytes apart: one range within a gap of 5, two within 4.
        let runs = [(0, 10, None), (10, 5, Some(50)), (15, 10, None)];
        let mut close = plan(&runs);
        close.coalesce(usize::MAX, 5);
        assert_eq!(close.runs(), [Run { at: 0, len: 25, source: Source::Origin }]);
        let mut apart = plan(&runs);
        apart.coalesce(usize::MAX, 4);
        assert_eq!(apart.ranges(), 2);
        // At most one range: the closest gaps are closed first.
        let mut bounded = plan(&[(0, 1, None), (1, 9, Some(0)), (10, 1, None), (11, 2, Some(20)), (13, 1, None)]);
        bounded.coalesce(1, 0);
        assert_eq!(bounded.runs(), [Run { at: 0, len: 14, source: Source::Origin }]);
    }
}
