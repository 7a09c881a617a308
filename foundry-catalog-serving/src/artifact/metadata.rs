//! What an artifact says about itself (its metadata, stored as JSON after
//! the header), its signer, and the release rules a replica judges it by.

use serde::{Deserialize, Serialize};

use super::ArtifactError;
use crate::encoding::ContentCoding;

/// What an artifact says about itself, stored as JSON after the header.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Metadata {
    /// The tool and version that built it, e.g. `foundry-catalog 0.1.0`.
    pub generator: String,
    /// How many products it holds.
    pub products: u64,
    /// The content codings of every product's representations, in index
    /// order; always with `identity`. A body as is is not
    /// stored when gzip is among them: it is the gzip body inflated.
    pub codings: Vec<ContentCoding>,
    /// The record types the builder knew, by label, with their schema hashes.
    pub record_types: Vec<RecordTypeId>,
    /// The artifact's identity: the SHA-256 (lowercase hex) of, for each
    /// product in index order, its slug and each representation's ETag,
    /// each followed by a newline. ETags are SHA-256 digests of the
    /// bodies, so this names every byte served; two builds of the same
    /// manifests by the same version give the same value.
    pub content_sha256: String,
    /// The SHA-256 (lowercase hex) of the slug directory as stored: what
    /// the signature, over the metadata, covers of it.
    pub directory_sha256: String,
    /// What the builder renders every product with, as a digest: the
    /// generator, every compiled-in record type (descriptions and fixture
    /// hints included) and the example catalog rendered and compressed by
    /// it. An incremental build reuses a previous artifact only when this
    /// is its own (and a product only when its record type's
    /// [`RecordTypeId`] is too); absent in version-1 artifacts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renderer_sha256: Option<String>,
    /// Its place in a series of releases (`foundry-catalog build
    /// --sequence`, say the CI run number): a replica refuses an artifact
    /// whose sequence is below the highest it has served, so an older
    /// artifact, however validly signed, cannot be replayed. Absent when
    /// not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sequence: Option<u64>,
    /// When it stops being fresh, in seconds since 1970 (UTC): a replica
    /// refuses it from then on, and reports it when it is still serving it
    /// then. Absent when not given (a build never reads the clock unless
    /// asked to).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<u64>,
    /// The product pages built with the bodies (`foundry-catalog build`
    /// without `--no-pages`): each index entry then holds its page, and
    /// the site documents follow the products. Absent when built without
    /// pages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<SitePages>,
}

impl Metadata {
    /// Where identity is among the codings when its bodies are not stored
    /// but inflated from gzip: whenever gzip is stored.
    pub(crate) fn inflated_identity(&self) -> Option<usize> {
        inflated_identity(&self.codings)
    }
}

impl Metadata {
    /// Whether a replica may start serving this artifact at `now`, having
    /// served sequences up to `highest` and serving `current` (the metadata
    /// of the artifact it serves, if any): not expired, not below the
    /// highest sequence served, not without a sequence once one was
    /// served, and not another artifact under the sequence being served.
    pub fn admissible(
        &self,
        highest: Option<u64>,
        current: Option<&Metadata>,
        now: std::time::SystemTime,
    ) -> Result<(), ArtifactError> {
        if let Some(expires) = self.expires
            && self.expired(now)
        {
            return Err(ArtifactError::Expired { expired: rfc3339(expires) });
        }
        let highest = highest.max(current.and_then(|c| c.sequence));
        match (self.sequence, highest) {
            (_, None) => Ok(()),
            (None, Some(highest)) => Err(ArtifactError::NoSequence { highest }),
            (Some(sequence), Some(highest)) if sequence < highest => Err(ArtifactError::Rollback { sequence, highest }),
            (Some(sequence), Some(_))
                if current.is_some_and(|c| c.sequence == Some(sequence) && c.content_sha256 != self.content_sha256) =>
            {
                Err(ArtifactError::SequenceReused { sequence })
            }
            (Some(_), Some(_)) => Ok(()),
        }
    }

    /// Whether it has expired at `now`.
    pub fn expired(&self, now: std::time::SystemTime) -> bool {
        // An expiry past what the clock can say (say 2^63 seconds) is never reached.
        self.expires
            .and_then(|e| std::time::UNIX_EPOCH.checked_add(std::time::Duration::from_secs(e)))
            .is_some_and(|expires| now >= expires)
    }
}

/// Where identity is among `codings` when its bodies are inflated from
/// gzip rather than stored: whenever gzip is stored too.
pub(crate) fn inflated_identity(codings: &[ContentCoding]) -> Option<usize> {
    let identity = codings.iter().position(|&c| c == ContentCoding::Identity)?;
    codings.contains(&ContentCoding::Gzip).then_some(identity)
}

/// What an artifact says about the pages it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct SitePages {
    /// What rendered every page besides its record
    /// (`foundry_catalog_pages::Pages::digest`: the pages crate's version,
    /// the site and every template): an incremental build reuses a
    /// previous artifact's products only when it renders pages with the
    /// same digest.
    pub digest: String,
    /// The public site's URL the pages name; empty when built without
    /// one (links are then paths, and there is no sitemap).
    pub site: String,
    /// How many site documents follow the products in the index
    /// (`robots.txt`, the sitemap files, the not-found page).
    pub documents: u64,
}

/// `seconds` since 1970 as RFC 3339 UTC (`2026-12-02T00:00:00Z`).
fn rfc3339(seconds: u64) -> String {
    let at = i64::try_from(seconds).ok().and_then(|s| time::OffsetDateTime::from_unix_timestamp(s).ok());
    at.and_then(|at| at.format(&time::format_description::well_known::Rfc3339).ok())
        .unwrap_or_else(|| format!("{seconds} seconds after 1970"))
}

/// What a build says about an artifact's place in a series of releases
/// ([`Metadata::sequence`], [`Metadata::expires`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Release {
    pub(crate) sequence: Option<u64>,
    pub(crate) expires: Option<u64>,
}

/// What an artifact's metadata says besides its products: who built it,
/// how, and with which pages.
pub(crate) struct Contents {
    pub(crate) generator: String,
    pub(crate) codings: Vec<ContentCoding>,
    pub(crate) record_types: Vec<RecordTypeId>,
    pub(crate) renderer_sha256: String,
    pub(crate) release: Release,
    /// With pages: [`SitePages::digest`] and [`SitePages::site`].
    pub(crate) pages: Option<(String, String)>,
}

/// The highest sequence a replica has served, and the content digest of
/// the artifact it served under it: what a replica's state folder keeps
/// (`highest-sequence`) so that a restart refuses a rollback, and another
/// artifact under that sequence, as a reload does
/// ([`Metadata::admissible`]). As text, `8 3f…\n`; a file written before
/// the digest was kept holds the number alone (`8\n`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HighestServed {
    /// The sequence.
    pub sequence: u64,
    /// The content digest (`content_sha256`) of the artifact served under
    /// it, when known.
    pub content_sha256: Option<String>,
}

impl HighestServed {
    /// Reads the text of a state file; `None` for anything but a number,
    /// then optionally a space and 64 lowercase hex digits, then at most a
    /// newline.
    ///
    /// ```
    /// use foundry_catalog_serving::artifact::HighestServed;
    /// let digest = "ab".repeat(32);
    /// let read = HighestServed::parse(&format!("8 {digest}\n")).unwrap();
    /// assert_eq!((read.sequence, read.content_sha256.as_deref()), (8, Some(&digest[..])));
    /// assert_eq!(HighestServed::parse("8\n").unwrap().content_sha256, None);
    /// assert!(HighestServed::parse("eight\n").is_none());
    /// ```
    pub fn parse(text: &str) -> Option<HighestServed> {
        let mut words = text.strip_suffix('\n').unwrap_or(text).split(' ');
        let sequence = words.next().filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))?.parse().ok()?;
        let content_sha256 = words.next().map(str::to_owned);
        let hex = |d: &String| d.len() == 64 && d.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        (words.next().is_none() && content_sha256.as_ref().is_none_or(hex))
            .then_some(HighestServed { sequence, content_sha256 })
    }

    /// The text of its state file, which [`HighestServed::parse`] reads back.
    pub fn to_text(&self) -> String {
        match &self.content_sha256 {
            Some(digest) => format!("{} {digest}\n", self.sequence),
            None => format!("{}\n", self.sequence),
        }
    }

    /// Whether `next` is another artifact under this sequence (by its
    /// content digest, when known): refused, as a reload refuses it.
    pub fn reused_by(&self, next: &Metadata) -> bool {
        next.sequence == Some(self.sequence)
            && self.content_sha256.as_ref().is_some_and(|digest| *digest != next.content_sha256)
    }
}

/// A record type an artifact was built with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordTypeId {
    /// The record label.
    pub record_label: String,
    /// Its schema hash.
    pub schema_hash: String,
    /// The SHA-256 of the whole record schema as it renders (descriptions
    /// and fixture hints included, which `schema_hash` leaves out), so an
    /// incremental build can tell which type's definition changed. Empty
    /// in an artifact written before it was recorded.
    #[serde(default)]
    pub definition_sha256: String,
}

/// The signature region of a signed artifact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signature {
    /// The signer's Ed25519 public key (which key signed is checked
    /// against the verify key, and named when it is another).
    pub public_key: [u8; 32],
    /// The Ed25519 signature (see the module documentation for what it signs).
    pub signature: [u8; 64],
}

#[cfg(test)]
mod tests {
    use super::{ArtifactError, Metadata};

    fn metadata(expires: Option<u64>) -> Metadata {
        Metadata {
            generator: "foundry-catalog 0.1.0".to_owned(),
            products: 0,
            codings: Vec::new(),
            record_types: Vec::new(),
            content_sha256: String::new(),
            directory_sha256: String::new(),
            renderer_sha256: None,
            sequence: None,
            expires,
            pages: None,
        }
    }

    #[test]
    fn an_expiry_past_what_the_clock_can_say_is_never_reached_and_never_panics() {
        let now = std::time::SystemTime::now();
        for huge in [u64::MAX, 1 << 63, (1 << 63) + 1] {
            assert!(!metadata(Some(huge)).expired(now));
            assert_eq!(metadata(Some(huge)).admissible(None, None, now), Ok(()));
        }
        assert!(metadata(Some(1)).expired(now));
        assert!(matches!(metadata(Some(1)).admissible(None, None, now), Err(ArtifactError::Expired { .. })));
    }
}
