//! One pull: what the origin answered, judged. A new artifact is
//! checked whole (every body against its ETag, its release against the
//! highest sequence served) before it is kept and served; a delta that
//! fails its check is asked for whole at once; only what an artifact's
//! signed head says of it is remembered under its ETag; at start, the
//! last good artifact is served when the origin cannot be reached, is
//! unchanged or holds what is refused, and set aside when it is older
//! than what was served.

use std::path::{Path, PathBuf};

use crate::artifact::{ArtifactError, Summary};
use crate::catalog::{CatalogError, CatalogErrors, OpenOptions, ResponseCatalog};

use super::Error;
use super::download::Download;
use super::failure::{Failure, PullError, is_verdict};
use super::origin::{Fetched, Origin};
use super::release::{Releases, SEQUENCE_FILE_HINT};

/// A new catalog from the origin, or `None` when the one being served is
/// current. At start, an unchanged origin or one that cannot be reached
/// gives the last good artifact of the state folder.
///
/// A delta whose bodies fail their check (a range corrupted or changed on
/// the way, or the last good file damaged on disk) is not held against
/// the artifact: the artifact is asked for whole at once, and judged by
/// itself. Only what the artifact's signed head says of it (see
/// [`is_verdict`]) is remembered under its ETag.
pub(super) fn pull(
    origin: &Origin,
    open: &OpenOptions,
    releases: &Releases,
    current: Option<&ResponseCatalog>,
) -> Result<Option<ResponseCatalog>, Error> {
    let last_good = origin.files.last_good();
    // A new artifact's summary (its signature, its release) is judged
    // before the rest of its head is fetched.
    let check = |summary: &Summary| {
        open.check_summary(summary)?;
        // Its release too: an older or expired artifact costs its summary.
        releases.admit(summary.metadata(), current.map(ResponseCatalog::metadata))
    };
    // A start with a last good artifact waits little for the origin: that
    // artifact is served meanwhile, and polling goes on.
    let answer_within = (current.is_none() && last_good.is_some()).then_some(super::origin::START_ANSWER);
    let have = current.is_some() || last_good.is_some();
    let mut fetched = origin.fetch(open.max_len, have, answer_within, &check);
    let from_last_good = |last_good: &Path| {
        let file = last_good.display().to_string();
        let catalog = origin.files.open_last_good(open)?;
        // Kept only once its sequence was recorded (see below): one above
        // the record means the record was lowered by hand.
        if let (Some(sequence), Some(highest)) = (catalog.metadata().sequence, releases.highest())
            && sequence > highest
        {
            return Err(problem(
                &releases.file_name(),
                format!(
                    "holds sequence {highest}, below that of the last good artifact ({sequence}), which was served: it was lowered by hand; {SEQUENCE_FILE_HINT}"
                ),
            ));
        }
        releases.admitted(catalog, &file, current).map_err(Error::Catalog).map(Some)
    };
    // Refused: remembered when its signed head says so, so it is not
    // fetched again while the origin holds it; at start, what was served
    // last time beats nothing.
    let refuse = |errors: CatalogErrors, etag: Option<&str>, last_good: Option<PathBuf>| {
        let reason = reasons(&errors);
        let verdict =
            errors.errors.iter().any(|e| matches!(e, CatalogError::Artifact { error, .. } if is_verdict(error)));
        if verdict {
            origin.refuse(etag, reason.clone());
        }
        if let (None, Some(last_good)) = (current, last_good) {
            tracing::warn!(
                origin = %origin,
                "the origin's artifact is refused ({reason}); serving the last good one, {}",
                last_good.display()
            );
            return from_last_good(&last_good);
        }
        Err(Error::Catalog(errors))
    };
    let mut last_good = last_good;
    loop {
        let result = match (fetched, current, last_good.clone()) {
            (Ok(Fetched::Refused { etag, error }), _, last_good) => {
                refuse(CatalogError::Artifact { file: origin.to_string(), error }.into(), etag.as_deref(), last_good)
            }
            (Ok(Fetched::Unchanged), Some(_), _) => Ok(None),
            (Ok(Fetched::Unchanged), None, Some(last_good)) => {
                tracing::info!(origin = %origin, "the origin's artifact is the last good one: serving it");
                from_last_good(&last_good)
            }
            (Ok(Fetched::Unchanged), None, None) => {
                Err(problem(&origin.to_string(), "answered 304 to no ETag".to_owned()))
            }
            (Ok(Fetched::New(download)), _, last_good) => {
                let file = origin.to_string();
                let catalog = match checked(&download, open, &file)
                    .and_then(|c| releases.admitted(c, &file, current).map_err(Error::Catalog))
                {
                    Ok(catalog) => catalog,
                    Err(Error::Catalog(errors)) => {
                        let failed = |what: fn(&ArtifactError) -> bool| {
                            errors
                                .errors
                                .iter()
                                .any(|e| matches!(e, CatalogError::Artifact { error, .. } if what(error)))
                        };
                        // Not refused for what this process could not do (read
                        // it, or find the memory): tried again at the next poll.
                        let transient = failed(|e| matches!(e, ArtifactError::Read(_)));
                        if download.is_delta() && !transient && !failed(is_verdict) {
                            let reason = reasons(&errors);
                            drop(download);
                            origin.files.distrust_last_good();
                            origin.counters().deltas_failed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            tracing::warn!(
                                origin = %origin,
                                "the delta failed its check ({reason}): a range changed or corrupted on the way, or the last good file damaged on disk; downloading the artifact whole"
                            );
                            fetched = origin.fetch(open.max_len, have, None, &check);
                            continue;
                        }
                        if transient {
                            if let (None, Some(last_good)) = (current, last_good) {
                                return from_last_good(&last_good);
                            }
                            return Err(Error::Catalog(errors));
                        }
                        return refuse(errors, download.etag(), last_good);
                    }
                    Err(other) => return Err(other),
                };
                // Its sequence recorded before it is kept: a last good
                // file is never above the highest sequence recorded.
                releases.activate(catalog.metadata()).map_err(|reason| problem(&file, reason))?;
                origin.keep(download, catalog.artifact()).map_err(|e| Error::Origin {
                    origin: file.clone(),
                    error: PullError { failure: Failure::Local, message: format!("cannot keep the download: {e}") },
                })?;
                Ok(Some(catalog))
            }
            (Err(error), None, Some(last_good)) => {
                tracing::warn!(
                    origin = %origin,
                    reason = error.failure.label(),
                    "cannot get the artifact ({error}); serving the last good one, {}",
                    last_good.display()
                );
                from_last_good(&last_good)
            }
            (Err(error), _, _) => Err(Error::Origin { origin: origin.to_string(), error }),
        };
        // At start, a last good file below the highest sequence served
        // (an older file put in its place) is set aside, and the origin
        // asked for its artifact whole: not a reason to serve nothing.
        if let (None, Some(path), Err(Error::Catalog(errors))) = (current, &last_good, &result)
            && errors.errors.iter().any(|e| {
                matches!(e, CatalogError::Artifact { file, error: ArtifactError::Rollback { .. } | ArtifactError::NoSequence { .. } | ArtifactError::SequenceReused { .. } } if *file == path.display().to_string())
            })
        {
            let reason = reasons(errors);
            let aside = origin.files.set_aside_last_good().map_err(|e| Error::Origin {
                origin: origin.to_string(),
                error: PullError { failure: Failure::Local, message: format!("cannot set the last good artifact aside: {e}") },
            })?;
            tracing::warn!(
                origin = %origin,
                "the last good artifact cannot be served ({reason}): set aside as {}; downloading the origin's artifact whole",
                aside.display()
            );
            last_good = None;
            fetched = origin.fetch(open.max_len, false, None, &check);
            continue;
        }
        // At start, a last good file damaged on disk (it does not read as
        // an artifact: its head's checksum, a block's digest, its lengths,
        // a body), served because the origin was unchanged or its pull
        // failed (a delta copies from that file), is not a reason to serve
        // nothing: the artifact is downloaded whole, once.
        let damaged = |error: &CatalogError| {
            matches!(
                error,
                CatalogError::Artifact {
                    error: ArtifactError::NotAnArtifact
                        | ArtifactError::Length { .. }
                        | ArtifactError::Checksum { .. }
                        | ArtifactError::Malformed(_)
                        | ArtifactError::Body { .. },
                    ..
                }
            )
        };
        if let (None, Some(_), Err(Error::Catalog(errors))) = (current, &last_good, &result)
            && errors.errors.iter().any(damaged)
        {
            let reason = reasons(errors);
            tracing::warn!(
                origin = %origin,
                "the last good artifact does not load ({reason}); downloading the origin's artifact whole"
            );
            origin.files.distrust_last_good();
            last_good = None;
            fetched = origin.fetch(open.max_len, false, None, &check);
            continue;
        }
        return result;
    }
}

/// A download opened, and its bodies checked against their ETags before
/// it may replace the last good artifact: every body, or, of a delta
/// copied from a last good file this process checked and unchanged
/// since, the bodies fetched.
pub(crate) fn checked(download: &Download, open: &OpenOptions, file: &str) -> Result<ResponseCatalog, Error> {
    download
        .open(open)
        .and_then(|catalog| {
            let artifact = catalog.artifact();
            let checked = match download.fetched() {
                Some(ranges) => artifact.check_bodies_in(ranges),
                None => artifact.check_bodies(),
            };
            checked.map_err(|error| CatalogErrors::from(CatalogError::Artifact { file: file.to_owned(), error }))?;
            Ok(catalog)
        })
        .map_err(|errors| Error::Catalog(renamed(errors, file)))
}

/// Every problem of `errors`, as one line for a log.
fn reasons(errors: &CatalogErrors) -> String {
    errors.errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
}

/// Problems of a downloaded file, named by the origin's URL.
pub(crate) fn renamed(mut errors: CatalogErrors, origin: &str) -> CatalogErrors {
    for error in &mut errors.errors {
        if let CatalogError::Artifact { file, .. } = error {
            *file = origin.to_owned();
        }
    }
    errors
}

/// A problem getting or keeping an artifact (summed up as an artifact's).
pub(crate) fn problem(file: &str, reason: String) -> Error {
    Error::Catalog(CatalogError::Artifact { file: file.to_owned(), error: ArtifactError::Read(reason) }.into())
}
