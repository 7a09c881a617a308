//! A new artifact pulled as a delta of the last good one: its head
//! fetched in ranges (the blocks the last good one holds copied from it)
//! and checked, then its bodies copied or fetched as
//! [`crate::delta::Plan`] says, every range asked `If-Range` the new
//! artifact's ETag.

use std::io::{self, Write};

use ureq::ResponseExt;

use crate::artifact::{self, Artifact};
use crate::delta;

use super::download::{Counted, Download, create_download};
use super::failure::PullError;
use super::last_good::{LAYERED_MAX_SHARE, LastGood, delta_name};
use super::origin::{CheckHead, Fetched, Origin, PROBE, Response, content_range, etag_of, over_the_limit};
use super::packs::Remote;

/// A ranged request's answer.
pub(crate) enum Ranged {
    /// The bytes asked for.
    Bytes(Vec<u8>),
    /// The whole artifact (a 200).
    Whole(Box<Response>),
}

impl Origin {
    /// A new artifact pulled as a delta, from a 206 to its first bytes:
    /// its head fetched (a range or two more) and checked, then written as
    /// [`delta::Plan`] says: each product's and document's bytes copied
    /// from the last good file when their ETags are the same, the rest
    /// fetched in at most [`delta::Plan::MAX_RANGES`] ranges, each asked
    /// `If-Range` the new artifact's ETag. An origin that answers a range
    /// with the whole artifact (it changed since, or ignores `Range`)
    /// gives a whole download.
    pub(crate) fn pull_delta(
        &self,
        mut first: Response,
        etag: String,
        last_good: LastGood,
        max_len: u64,
        check: &CheckHead<'_>,
    ) -> Result<Fetched, PullError> {
        let old = &last_good.artifact;
        let Some((0, _, mut total)) = content_range(&first) else {
            return Err("the origin answered 206 without a range of the artifact".to_owned().into());
        };
        if total > max_len {
            return Err(over_the_limit(total, max_len).into());
        }
        let mut head = self.read_at_most(&mut first, PROBE)?;
        // A pack list: the artifact is the ranges of packs it names.
        let packed = match head.starts_with(&artifact::stored::PACK_LIST_MAGIC) {
            true => match self.packed_list(std::mem::take(&mut head), total, &etag, first.get_uri())? {
                Ok(packed) if packed.len() > max_len => return Err(over_the_limit(packed.len(), max_len).into()),
                Ok(packed) => {
                    total = packed.len();
                    self.packs_to(&packed, 0, PROBE.min(total), &mut head)?;
                    Some(packed)
                }
                Err(error) => return Ok(Fetched::Refused { etag: Some(etag), error }),
            },
            false => None,
        };
        let remote = Remote { etag: &etag, packed: packed.as_ref() };
        if head.len() as u64 == total {
            // The first range was the whole artifact.
            return self.write_whole(&head, etag);
        }
        let mut fetched = head.len() as u64;
        let refused = |error| Ok(Fetched::Refused { etag: Some(etag.clone()), error });
        let summary_len = loop {
            let needed = match artifact::Summary::len_needed(&head, total) {
                Ok(needed) => needed,
                Err(error) => return refused(error),
            };
            match needed {
                needed if needed > head.len() as u64 => {
                    let more = match self.range_or_whole(remote, head.len() as u64, needed, total, max_len, check)? {
                        Ok(more) => more,
                        Err(whole) => return Ok(whole),
                    };
                    fetched += more.len() as u64;
                    head.extend_from_slice(&more);
                }
                needed => break needed,
            }
        };
        // What the first ranges brought past the summary, used before anything is fetched again.
        let probed = head.split_off(summary_len as usize);
        // The summary judged (its signature, with verify keys) before the
        // rest of the head is fetched or memory taken for it.
        let summary = match artifact::Summary::parse(&head, total).and_then(|summary| check(&summary).map(|()| summary))
        {
            Ok(summary) => summary,
            Err(error) => return refused(error),
        };
        // The rest of the head: the blocks the last good artifact holds
        // copied from it, the others fetched; then checked whole.
        let head_plan = delta::Plan::head(&summary, old, delta::Plan::MAX_RANGES);
        // Memory is taken as each run comes (what was copied or received),
        // never for what the summary claims.
        for run in head_plan.runs() {
            head.try_reserve(usize::try_from(run.len).unwrap_or(usize::MAX)).map_err(|_| {
                PullError::local(format!("cannot take memory for a head of {} bytes", summary.head_len()))
            })?;
            match run.source {
                delta::Source::Old { at } => {
                    if !old.head_bytes_into(at, run.len, &mut head) {
                        // A block of it damaged on disk: not copied from again.
                        self.files.distrust_last_good();
                        return Err(PullError::local(
                            "the last good artifact's head is not what its index says; the next pull downloads the artifact whole".to_owned(),
                        ));
                    }
                }
                delta::Source::Origin if run.at + run.len <= summary_len + probed.len() as u64 => {
                    let from = (run.at - summary_len) as usize;
                    head.extend_from_slice(&probed[from..from + run.len as usize]);
                }
                delta::Source::Origin => {
                    let more = match self.range_or_whole(remote, run.at, run.at + run.len, total, max_len, check)? {
                        Ok(more) => more,
                        Err(whole) => return Ok(whole),
                    };
                    fetched += more.len() as u64;
                    head.extend_from_slice(&more);
                }
                // Made once the rest of the head is here.
                delta::Source::Made => head.resize(head.len() + run.len as usize, 0),
            }
        }
        if head_plan.runs().iter().any(|run| run.source == delta::Source::Made)
            && let Err(error) = Artifact::fill_directory(&mut head, total)
        {
            return refused(error);
        }
        let head = bytes::Bytes::from(head);
        // Blocks copied from a head that was checked are not hashed again
        // (a replica's last good head always is: read a block at a time,
        // or checked whole when it was pulled; the guard keeps it so).
        let copied_blocks = head_plan.copied_blocks(&summary);
        let known = |k: usize| old.head_checked() && copied_blocks.get(k) == Some(&true);
        let new =
            match Artifact::from_head(head.clone(), total).and_then(|new| new.check_blocks_but(&known).map(|()| new)) {
                Ok(new) => new,
                Err(error) => return refused(error),
            };
        let plan = delta::Plan::new(&new, old, delta::Plan::MAX_RANGES);
        // Layered over the base when that writes at most a share of the
        // artifact (the head's summary, directory and the blocks the base
        // does not hold, what is fetched, and what is copied from a delta
        // kept over the base); the whole file otherwise.
        let base_digest = &last_good.base_digest;
        let kept_delta = self.files.delta_over(base_digest);
        let copied: u64 = plan
            .runs()
            .iter()
            .filter_map(|run| match run.source {
                delta::Source::Old { at } => Some(old.bytes_to_copy(at, run.len, Some(old))),
                delta::Source::Origin | delta::Source::Made => None,
            })
            .sum::<io::Result<u64>>()
            .map_err(|e| PullError::local(format!("cannot copy from the last good artifact: {e}")))?;
        // Layered, the head's blocks the base holds are holes too.
        let head_writes = delta::head_writes(&new, Some(old));
        let head_written: u64 = head_writes.iter().map(|range| range.end - range.start).sum();
        let written = head_written + plan.fetched() + copied;
        let (share, of) = LAYERED_MAX_SHARE;
        let layered = delta_name(base_digest).is_some() && written.saturating_mul(of) <= total.saturating_mul(share);
        let head_writes = if layered { head_writes } else { delta::head_writes(&new, None) };
        let (path, mut file) = create_download(&self.state_dir, &self.downloads)
            .map_err(|e| PullError::local(format!("cannot write the download: {e}")))?;
        // Bytes copied from a last good file this process checked, unchanged
        // since, need no second check: only what is fetched does.
        let trusted = self.files.last_good_checked(kept_delta.as_deref());
        let fetched_ranges = trusted.then(|| {
            plan.runs()
                .iter()
                .filter(|run| run.source == delta::Source::Origin)
                .map(|run| (run.at, run.at + run.len))
                .collect()
        });
        let holes_for = layered.then_some(old);
        let base_digest = layered.then(|| base_digest.clone());
        let mut download = Download {
            path,
            etag: Some(etag.clone()),
            fetched: fetched_ranges,
            delta: true,
            base_digest,
            written: None,
        };
        let write_error = |e: io::Error| PullError::local(format!("cannot write the download: {e}"));
        delta::write_head(&head, &head_writes, &mut file).map_err(write_error)?;
        for run in plan.runs() {
            match run.source {
                delta::Source::Old { at } => {
                    old.copy_range(at, run.len, &mut file, holes_for)
                        .map_err(|e| PullError::local(format!("cannot copy from the last good artifact: {e}")))?;
                }
                delta::Source::Origin | delta::Source::Made => {
                    if let Some(response) = self.range_to(remote, run.at, run.at + run.len, total, &mut file)? {
                        drop(download);
                        let etag = etag_of(&response);
                        return self.whole(*response, etag, max_len, None, check);
                    }
                    fetched += run.len;
                }
            }
        }
        // A hole at the end is the file's length.
        file.set_len(total).and_then(|()| file.sync_all()).map_err(write_error)?;
        drop(file);
        // Its head as pulled and checked, its bodies where they were written.
        match delta::written(new, &download.path, old, &plan, layered) {
            Ok(written) => download.written = Some(Box::new(written)),
            Err(error) => return Err(PullError::local(format!("cannot open the download: {error}"))),
        }
        tracing::info!(
            origin = %self,
            fetched,
            artifact = total,
            written = if layered { written } else { total },
            layered,
            ranges = head_plan.ranges() + plan.ranges(),
            "pulled the origin's artifact as a delta of the last good one"
        );
        self.counters.count(total, true);
        Ok(Fetched::New(download))
    }

    /// [`Origin::range`]'s bytes, or the whole artifact it answered with
    /// instead, downloaded ([`Origin::whole`]).
    pub(crate) fn range_or_whole(
        &self,
        remote: Remote<'_>,
        from: u64,
        to: u64,
        total: u64,
        max_len: u64,
        check: &CheckHead<'_>,
    ) -> Result<Result<Vec<u8>, Fetched>, PullError> {
        match self.range(remote, from, to, total)? {
            Ranged::Bytes(bytes) => Ok(Ok(bytes)),
            Ranged::Whole(response) => {
                let etag = etag_of(&response);
                self.whole(*response, etag, max_len, None, check).map(Err)
            }
        }
    }

    /// A whole artifact's bytes, in hand, into a new file of the state folder.
    pub(crate) fn write_whole(&self, bytes: &[u8], etag: String) -> Result<Fetched, PullError> {
        let (path, mut file) = create_download(&self.state_dir, &self.downloads)
            .map_err(|e| PullError::local(format!("cannot write the download: {e}")))?;
        let download = Download::whole(path, Some(etag));
        file.write_all(bytes)
            .and_then(|()| file.sync_all())
            .map_err(|e| PullError::local(format!("cannot write the download: {e}")))?;
        self.counters.count(bytes.len() as u64, false);
        Ok(Fetched::New(download))
    }

    /// Bytes `from..to` of the artifact `remote` (its ETag `remote.etag`), asked with
    /// `If-Range`: a 206 of exactly that range, or the whole artifact (a
    /// 200: it changed since, or the origin ignores `Range`). Of a packed
    /// artifact, its bytes asked of the packs holding them.
    pub(crate) fn range(&self, remote: Remote<'_>, from: u64, to: u64, total: u64) -> Result<Ranged, PullError> {
        let mut bytes = Vec::new();
        let ranged = self.range_to(remote, from, to, total, &mut bytes)?;
        Ok(ranged.map_or(Ranged::Bytes(bytes), Ranged::Whole))
    }

    /// [`Origin::range`], its bytes written to `out` as they arrive (a
    /// range of bodies can be most of the artifact: it is never held in
    /// memory); `Some` with the whole artifact's response instead. Of a
    /// packed artifact, [`Origin::packs_to`].
    pub(crate) fn range_to(
        &self,
        remote: Remote<'_>,
        from: u64,
        to: u64,
        total: u64,
        out: &mut impl Write,
    ) -> Result<Option<Box<Response>>, PullError> {
        let Remote { etag, packed } = remote;
        if let Some(packed) = packed {
            return self.packs_to(packed, from, to, out).map(|()| None);
        }
        let request =
            self.agent.get(&self.url).header("Range", format!("bytes={from}-{}", to - 1)).header("If-Range", etag);
        let mut response = self.exchange(request)?;
        match response.status().as_u16() {
            206 if content_range(&response) == Some((from, to - 1, total)) => {
                let len = to - from;
                let reader = response.body_mut().with_config().limit(len.saturating_add(1)).reader();
                let reader = Counted::new(reader, &self.counters.fetched);
                let copied = self.copy(reader, out, len)?;
                if copied != len {
                    return Err(PullError::unreachable(format!(
                        "the download was cut: {copied} of {len} bytes of a range"
                    )));
                }
                Ok(None)
            }
            206 => Err(format!("the origin answered bytes {from}-{} with another range", to - 1).into()),
            200 => Ok(Some(Box::new(response))),
            _ => Err(format!("the origin answered {}", response.status()).into()),
        }
    }
}
