//! Why a pull gave no artifact, and which refusals a replica remembers.

use crate::artifact::ArtifactError;

/// Why a load gave no catalog, as `/metrics` counts it
/// (`foundry_catalog_load_failures_total{reason=…}`) and the log says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// No answer: no connection, a timeout, a connection cut mid-answer.
    Unreachable = 0,
    /// An answer that is not an artifact's: a status other than 200, 206
    /// or 304, a wrong range, a length over the limit.
    OriginError = 1,
    /// An artifact (or a catalog) that fails its checks.
    Refused = 2,
    /// What this replica could not do: write its state folder, find the memory.
    Local = 3,
    /// A bug: the load panicked.
    Internal = 4,
}

impl Failure {
    /// Every one, in the order of their values.
    pub const ALL: [Failure; 5] =
        [Failure::Unreachable, Failure::OriginError, Failure::Refused, Failure::Local, Failure::Internal];

    /// The `reason` label of `/metrics`.
    pub fn label(self) -> &'static str {
        match self {
            Failure::Unreachable => "unreachable",
            Failure::OriginError => "origin_error",
            Failure::Refused => "refused",
            Failure::Local => "local",
            Failure::Internal => "internal",
        }
    }

    /// The words a log line and an error start with.
    pub fn words(self) -> &'static str {
        match self {
            Failure::Unreachable => "the origin is unreachable",
            Failure::OriginError => "the origin's answer is not an artifact's",
            Failure::Refused => "the artifact is refused",
            Failure::Local => "this replica cannot keep what it pulls (its state folder, or memory)",
            Failure::Internal => "the load failed (a bug)",
        }
    }
}

/// Whether `error` is what an artifact's own signed head says of it (its
/// signature, its key, its sequence, its expiry): the only refusals a
/// replica remembers under the artifact's ETag. Anything else (bytes that
/// do not add up, a body that does not match its ETag) may have happened
/// on the way, and is judged again at the next pull.
pub fn is_verdict(error: &ArtifactError) -> bool {
    matches!(
        error,
        ArtifactError::Unsigned { .. }
            | ArtifactError::WrongKey { .. }
            | ArtifactError::BadSignature
            | ArtifactError::Rollback { .. }
            | ArtifactError::NoSequence { .. }
            | ArtifactError::SequenceReused { .. }
            | ArtifactError::Expired { .. }
    )
}

/// Why a pull from the origin gave no artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullError {
    /// What kind of failure.
    pub failure: Failure,
    /// What happened, in words.
    pub message: String,
}

impl PullError {
    pub(crate) fn unreachable(message: String) -> PullError {
        PullError { failure: Failure::Unreachable, message }
    }

    pub(crate) fn local(message: String) -> PullError {
        PullError { failure: Failure::Local, message }
    }
}

/// A message of the origin's answer: [`Failure::OriginError`].
impl From<String> for PullError {
    fn from(message: String) -> PullError {
        PullError { failure: Failure::OriginError, message }
    }
}

impl std::fmt::Display for PullError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.failure.words(), self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_a_signed_head_says_is_a_verdict() {
        for verdict in [
            ArtifactError::BadSignature,
            ArtifactError::Rollback { sequence: 1, highest: 2 },
            ArtifactError::Expired { expired: "2020-01-01T00:00:00Z".to_owned() },
            ArtifactError::WrongKey { found: "a".to_owned(), expected: "b".to_owned() },
            ArtifactError::Unsigned { expected: "b".to_owned() },
            ArtifactError::NoSequence { highest: 2 },
            ArtifactError::SequenceReused { sequence: 2 },
        ] {
            assert!(is_verdict(&verdict), "{verdict}");
        }
        for transport in [
            ArtifactError::NotAnArtifact,
            ArtifactError::Checksum { expected: 1, found: 2 },
            ArtifactError::Length { expected: 1, found: 2 },
            ArtifactError::Malformed("x".to_owned()),
            ArtifactError::Read("x".to_owned()),
        ] {
            assert!(!is_verdict(&transport), "{transport}");
        }
    }
}
