//! What a replica must fetch of a new artifact, given the one it has: a
//! plan to write the new file from ranges of the old one and ranges
//! fetched from the origin, as rsync and zsync move only what changed.
//!
//! Both artifacts are of format version 4: the new one known by its head
//! ([`Artifact::from_head`], fetched first and checked), the old one
//! opened from its file. Each product's bodies (and its page's) are one
//! run of the new file, and so is each site document's; a run is taken
//! from the old file when the old artifact has the same product (by slug)
//! or document (by name) with the same ETags, in the same codings: an ETag
//! is the SHA-256 of its body, so those are the same bytes. Every other
//! run is fetched. Runs to fetch that lie close together are fetched as
//! one range (the bytes between them cost less than another request), and
//! at most a bounded number of ranges are asked for.
//!
//! A plan says where bytes come from, never what they are worth: the file
//! it writes is checked as a whole download is (every body against its
//! ETag) before it is served.
//!
//! ```
//! use foundry_catalog_serving::artifact::Artifact;
//! use foundry_catalog_serving::catalog::ResponseCatalog;
//! use foundry_catalog_serving::delta::{Plan, Source};
//! let bytes = ResponseCatalog::examples().artifact().to_vec();
//! let old = Artifact::parse(bytes.clone().into()).unwrap();
//! let new = Artifact::from_head(&bytes, bytes.len() as u64).unwrap();
//! let plan = Plan::new(&new, &old, Plan::MAX_RANGES);
//! assert_eq!(plan.fetched(), 0, "the same artifact: every body is copied");
//! assert!(plan.runs().iter().all(|run| matches!(run.source, Source::Old { .. })));
//! ```

use std::collections::HashMap;

use crate::artifact::{Artifact, contiguous};

/// What the old artifact holds of a product or document: where its body
/// run is in the data region, and its ETags.
type Known = ((u64, u64), Vec<Vec<u8>>);

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
}

/// A run of the new file's bytes after its head.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    /// Where it starts in the new file.
    pub at: u64,
    /// Its length.
    pub len: u64,
    /// Where its bytes come from.
    pub source: Source,
}

/// How to write a new artifact file: its head (fetched already), then
/// [`Plan::runs`] in order, which cover the rest of the file exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    runs: Vec<Run>,
    head_len: u64,
    file_len: u64,
}

impl Plan {
    /// The most ranges a plan asks the origin for, unless told otherwise:
    /// past it, the closest ranges are fetched as one.
    pub const MAX_RANGES: usize = 32;
    /// Runs to fetch this close together are fetched as one range.
    pub const GAP: u64 = 64 << 10;

    /// The plan to write `new` (its head) from `old` and the origin,
    /// asking at most `max_ranges` ranges (at least one).
    pub fn new(new: &Artifact, old: &Artifact, max_ranges: usize) -> Plan {
        let head_len = new.data_at() + new.table_len().unwrap_or(0);
        let file_len = new.file_len();
        let same_layout = new.table_len().is_some() && old.table_len().is_some();
        let etags = |artifact: &Artifact, spans: &mut dyn Iterator<Item = crate::artifact::Span>| {
            spans.map(|span| artifact.bytes_of(span).map(<[u8]>::to_vec)).collect::<Option<Vec<Vec<u8>>>>()
        };
        // The old artifact's bodies, by slug and by document name, with their ETags.
        let mut products = HashMap::new();
        let mut documents = HashMap::new();
        if same_layout {
            for entry in old.entries() {
                let run = contiguous(entry.body_spans());
                let tags = etags(old, &mut entry.etag_spans());
                if let (Some(slug), Some(run), Some(tags)) = (old.bytes_of(entry.slug), run, tags) {
                    products.insert(slug, (run, tags));
                }
            }
            for document in old.documents() {
                let run = contiguous(document.body_spans());
                let tags = etags(old, &mut document.etag_spans());
                if let (Some(name), Some(run), Some(tags)) = (old.bytes_of(document.path), run, tags) {
                    documents.insert(name, (run, tags));
                }
            }
        }
        let (new_at, old_at) = (new.data_at(), old.data_at());
        let mut runs = Vec::with_capacity(new.len() + 8);
        let mut place = |run: Option<(u64, u64)>, found: Option<&Known>, tags: Option<Vec<Vec<u8>>>| {
            let Some((offset, len)) = run else { return };
            let source = match (found, tags) {
                (Some(((old_offset, old_len), old_tags)), Some(tags)) if *old_len == len && *old_tags == tags => {
                    Source::Old { at: old_at + old_offset }
                }
                _ => Source::Origin,
            };
            runs.push(Run { at: new_at + offset, len, source });
        };
        for entry in new.entries() {
            let found = new.bytes_of(entry.slug).and_then(|slug| products.get(slug));
            let tags = etags(new, &mut entry.etag_spans());
            place(contiguous(entry.body_spans()), found, tags);
        }
        for document in new.documents() {
            let found = new.bytes_of(document.path).and_then(|name| documents.get(name));
            place(contiguous(document.body_spans()), found, etags(new, &mut document.etag_spans()));
        }
        // A new artifact whose bodies do not tile (refused when it is
        // loaded) is fetched whole after its head.
        let tiled = runs.iter().try_fold(head_len, |end, run| (run.at == end).then_some(end + run.len));
        if tiled != Some(file_len) {
            runs = vec![Run { at: head_len, len: file_len - head_len, source: Source::Origin }];
        }
        let mut plan = Plan { runs, head_len, file_len };
        plan.coalesce(max_ranges.max(1));
        plan
    }

    /// Merges neighbours: runs copied from one place of the old file in
    /// turn, runs fetched in turn, and runs to fetch within [`Plan::GAP`]
    /// of each other (with what lies between); then, while more than
    /// `max_ranges` ranges are to be fetched, the two closest.
    fn coalesce(&mut self, max_ranges: usize) {
        let fetched: Vec<(u64, u64)> =
            self.runs.iter().filter(|run| run.source == Source::Origin).map(|run| (run.at, run.at + run.len)).collect();
        // The gaps between ranges to fetch, closed from the smallest up:
        // every gap within GAP, and the smallest ones past the bound.
        let mut gaps: Vec<(u64, usize)> = fetched.windows(2).enumerate().map(|(i, w)| (w[1].0 - w[0].1, i)).collect();
        gaps.sort_unstable();
        let must_close = fetched.len().saturating_sub(max_ranges);
        let mut closed = vec![false; fetched.len().saturating_sub(1)];
        for (n, (gap, i)) in gaps.into_iter().enumerate() {
            if gap <= Self::GAP || n < must_close {
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

    /// The runs after the head, in file order.
    pub fn runs(&self) -> &[Run] {
        &self.runs
    }

    /// The head's length: fetched before the plan was made.
    pub fn head_len(&self) -> u64 {
        self.head_len
    }

    /// The new file's length.
    pub fn file_len(&self) -> u64 {
        self.file_len
    }

    /// The bytes fetched from the origin after the head.
    pub fn fetched(&self) -> u64 {
        self.runs.iter().filter(|run| run.source == Source::Origin).map(|run| run.len).sum()
    }

    /// The ranges fetched from the origin after the head.
    pub fn ranges(&self) -> usize {
        self.runs.iter().filter(|run| run.source == Source::Origin).count()
    }
}
