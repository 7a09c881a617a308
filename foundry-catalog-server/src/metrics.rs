//! Counters and gauges, written in the Prometheus text format at `/metrics`.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use foundry_catalog_serving::catalog::ResponseCatalog;

use foundry_catalog_serving::replica::Failure;

/// Seconds since 1970, now.
pub(crate) fn now_seconds() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Who signed an artifact, for logs and `/metrics`: its key's fingerprint,
/// or `unsigned` (whether a verify key checked it is said beside it).
pub(crate) fn signed_by(artifact: &foundry_catalog_serving::artifact::Artifact) -> String {
    artifact.signature().map_or_else(|| "unsigned".to_owned(), |s| s.fingerprint())
}

/// The status codes counted one by one; anything else counts as `other`.
const STATUSES: [u16; 7] = [200, 304, 400, 404, 405, 412, 503];

/// How many copies of the per-request counters there are: each thread
/// counts in its own (threads beyond this share), so that workers on
/// different cores never write the same cache line per request.
const SHARDS: usize = 16;

/// The counters every request writes, on a cache line pair of their own.
#[derive(Debug, Default)]
#[repr(align(128))]
struct RequestCounters {
    by_status: [AtomicU64; STATUSES.len() + 1],
    bytes_sent: AtomicU64,
}

/// The shard of the counters this thread writes.
fn shard() -> usize {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    thread_local! {
        static SHARD: usize = NEXT.fetch_add(1, Relaxed) % SHARDS;
    }
    SHARD.with(|shard| *shard)
}

/// Every counter of the server. All are monotonic except the gauges
/// (`open_connections`, `catalog_products`, `catalog_generation`).
#[derive(Debug, Default)]
pub(crate) struct Metrics {
    requests: [RequestCounters; SHARDS],
    pub(crate) open_connections: AtomicU64,
    pub(crate) accepted: AtomicU64,
    pub(crate) refused: AtomicU64,
    pub(crate) accept_errors: AtomicU64,
    pub(crate) header_timeouts: AtomicU64,
    pub(crate) idle_timeouts: AtomicU64,
    pub(crate) catalog_products: AtomicU64,
    pub(crate) catalog_generation: AtomicU64,
    pub(crate) reloads_ok: AtomicU64,
    pub(crate) reloads_failed: AtomicU64,
    /// Loads from the origin, by [`Poll`].
    polls: [AtomicU64; 3],
    /// Failed polls since the last that succeeded.
    polls_failed_in_a_row: AtomicU64,
    /// When the last poll ended, in seconds since 1970, and its result.
    last_poll: AtomicU64,
    last_poll_ok: AtomicU64,
    /// Failed loads, by [`Failure`].
    failures: [AtomicU64; Failure::ALL.len()],
}

/// What one load of the catalog found (counted for every load; an origin
/// is loaded by polling).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Poll {
    /// A new catalog.
    New = 0,
    /// The origin's artifact is the one being served.
    Unchanged = 1,
    /// The load failed.
    Failed = 2,
}

impl Metrics {
    /// Counts one load's result.
    pub(crate) fn polled(&self, result: Poll) {
        self.polls[result as usize].fetch_add(1, Relaxed);
        let failed = matches!(result, Poll::Failed);
        if failed {
            self.polls_failed_in_a_row.fetch_add(1, Relaxed);
        } else {
            self.polls_failed_in_a_row.store(0, Relaxed);
        }
        self.last_poll.store(now_seconds(), Relaxed);
        self.last_poll_ok.store(u64::from(!failed), Relaxed);
    }

    /// Counts one failed load, and why.
    pub(crate) fn failed(&self, failure: Failure) {
        self.polled(Poll::Failed);
        self.failures[failure as usize].fetch_add(1, Relaxed);
    }

    /// Counts the start's load, which gave the catalog first served.
    pub(crate) fn started(&self) {
        self.last_poll_ok.store(1, Relaxed);
    }

    /// Failed loads since the last that succeeded.
    pub(crate) fn poll_failures_in_a_row(&self) -> u32 {
        u32::try_from(self.polls_failed_in_a_row.load(Relaxed)).unwrap_or(u32::MAX)
    }

    pub(crate) fn count_request(&self, status: u16, bytes: usize) {
        let slot = STATUSES.iter().position(|&s| s == status).unwrap_or(STATUSES.len());
        let counters = &self.requests[shard()];
        if let Some(counter) = counters.by_status.get(slot) {
            counter.fetch_add(1, Relaxed);
        }
        counters.bytes_sent.fetch_add(u64::try_from(bytes).unwrap_or(u64::MAX), Relaxed);
    }

    /// Requests answered with the `slot`-th status (or `other`), over every shard.
    fn requests(&self, slot: usize) -> u64 {
        self.requests.iter().filter_map(|c| c.by_status.get(slot)).map(|c| c.load(Relaxed)).sum()
    }

    /// The Prometheus text exposition (version 0.0.4), naming the record
    /// types, signer, sequence and expiry of `catalog`, the one being
    /// served (swapped in at `activated`, in seconds since 1970).
    pub(crate) fn render(
        &self,
        catalog: &ResponseCatalog,
        activated: u64,
        verified: bool,
        pulls: Option<&foundry_catalog_serving::replica::PullCounters>,
    ) -> String {
        let metadata = catalog.metadata();
        let record_types = &metadata.record_types;
        let mut out = String::with_capacity(2048);
        let mut family = |name: &str, kind: &str, help: &str, samples: &[(&str, u64)]| {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
            for (labels, value) in samples {
                let _ = writeln!(out, "{name}{labels} {value}");
            }
        };
        let get = |counter: &AtomicU64| counter.load(Relaxed);
        let statuses: Vec<String> = STATUSES.iter().map(|s| format!("{{status=\"{s}\"}}")).collect();
        let mut by_status: Vec<(&str, u64)> =
            statuses.iter().enumerate().map(|(slot, label)| (label.as_str(), self.requests(slot))).collect();
        by_status.push(("{status=\"other\"}", self.requests(STATUSES.len())));
        family("foundry_requests_total", "counter", "Requests answered, by status code.", &by_status);
        let bytes = self.requests.iter().map(|c| c.bytes_sent.load(Relaxed)).sum();
        family("foundry_response_bytes_total", "counter", "Body bytes sent.", &[("", bytes)]);
        family("foundry_connections_open", "gauge", "Connections open now.", &[("", get(&self.open_connections))]);
        family(
            "foundry_connections_accepted_total",
            "counter",
            "Connections accepted and served.",
            &[("", get(&self.accepted))],
        );
        family(
            "foundry_connections_refused_total",
            "counter",
            "Connections closed at once because the connection cap was reached.",
            &[("", get(&self.refused))],
        );
        family(
            "foundry_accept_errors_total",
            "counter",
            "Errors from accept(), survived.",
            &[("", get(&self.accept_errors))],
        );
        family(
            "foundry_timeouts_total",
            "counter",
            "Connections closed by a timeout, by phase.",
            &[("{phase=\"header\"}", get(&self.header_timeouts)), ("{phase=\"idle\"}", get(&self.idle_timeouts))],
        );
        family(
            "foundry_catalog_products",
            "gauge",
            "Products in the catalog being served.",
            &[("", get(&self.catalog_products))],
        );
        family(
            "foundry_catalog_generation",
            "gauge",
            "Catalogs loaded so far: 1 at start, +1 per reload.",
            &[("", get(&self.catalog_generation))],
        );
        let types: Vec<String> = record_types
            .iter()
            .map(|t| format!("{{record_label=\"{}\",schema_hash=\"{}\"}}", t.record_label, t.schema_hash))
            .collect();
        let types: Vec<(&str, u64)> = types.iter().map(|labels| (labels.as_str(), 1)).collect();
        family(
            "foundry_catalog_record_types",
            "gauge",
            "The record types of the catalog being served, by label and schema_hash (1 each).",
            &types,
        );
        if let Some(pulls) = pulls {
            family(
                "foundry_catalog_origin_fetched_bytes_total",
                "counter",
                "Bytes fetched from the origin's answers, whatever became of them (new artifacts' heads, ranges and whole files, failed pulls included).",
                &[("", pulls.fetched_bytes())],
            );
            family(
                "foundry_catalog_origin_artifact_bytes_total",
                "counter",
                "Bytes of the new artifacts pulled from the origin (what fetching each whole would have cost).",
                &[("", pulls.artifact_bytes())],
            );
            family(
                "foundry_catalog_origin_pulls_total",
                "counter",
                "New artifacts pulled from the origin, by how: as a delta of the last good one, or whole.",
                &[("{how=\"delta\"}", pulls.deltas()), ("{how=\"whole\"}", pulls.wholes())],
            );
            family(
                "foundry_catalog_origin_delta_failures_total",
                "counter",
                "Deltas that failed (a range cut, corrupted or of another version, a head that does not add up), each then asked for whole.",
                &[("", pulls.deltas_failed())],
            );
        }
        let cache = catalog.body_cache();
        family(
            "foundry_catalog_body_cache_bytes",
            "gauge",
            "Bytes of bodies read from the artifact file and kept in memory (--body-cache-bytes).",
            &[("", cache.kept_bytes())],
        );
        family(
            "foundry_catalog_body_reads_total",
            "counter",
            "Bodies read from the artifact file, by result: matched their ETags, or were answered 503 (unreadable or changed in place; with the blocks of the head read when first used that were).",
            &[("{result=\"checked\"}", cache.reads()), ("{result=\"changed\"}", cache.failures())],
        );
        let signer = format!("{{key=\"{}\",verified=\"{verified}\"}}", signed_by(catalog.artifact()));
        family(
            "foundry_catalog_artifact_signer",
            "gauge",
            "Who signed the artifact being served: its key's fingerprint, or `unsigned`, and whether a verify key checked it (without one, anybody could have written the signature) (1).",
            &[(&signer, 1)],
        );
        if let Some(sequence) = metadata.sequence {
            family(
                "foundry_catalog_artifact_sequence",
                "gauge",
                "The sequence of the artifact being served (build --sequence).",
                &[("", sequence)],
            );
        }
        if let Some(expires) = metadata.expires {
            family(
                "foundry_catalog_artifact_expires_timestamp_seconds",
                "gauge",
                "When the artifact being served expires (build --expires-at), in seconds since 1970.",
                &[("", expires)],
            );
        }
        let now = now_seconds();
        family(
            "foundry_catalog_artifact_expired",
            "gauge",
            "1 when the artifact being served is past its expiry (/readyz answers 503), else 0.",
            &[("", u64::from(metadata.expires.is_some_and(|e| now >= e)))],
        );
        family(
            "foundry_catalog_activated_timestamp_seconds",
            "gauge",
            "When the catalog being served was swapped in, in seconds since 1970.",
            &[("", activated)],
        );
        family(
            "foundry_catalog_age_seconds",
            "gauge",
            "Seconds the catalog being served has been served without a newer one.",
            &[("", now.saturating_sub(activated))],
        );
        family(
            "foundry_catalog_loads_total",
            "counter",
            "Loads after the first (reloads, origin polls), by result: a new catalog, unchanged (the origin answered 304), or failed.",
            &[
                ("{result=\"new\"}", get(&self.polls[Poll::New as usize])),
                ("{result=\"unchanged\"}", get(&self.polls[Poll::Unchanged as usize])),
                ("{result=\"failed\"}", get(&self.polls[Poll::Failed as usize])),
            ],
        );
        let reasons: Vec<String> = Failure::ALL.iter().map(|f| format!("{{reason=\"{}\"}}", f.label())).collect();
        let failures: Vec<(&str, u64)> =
            reasons.iter().zip(&self.failures).map(|(label, count)| (label.as_str(), get(count))).collect();
        family(
            "foundry_catalog_load_failures_total",
            "counter",
            "Failed loads, by reason: the origin unreachable (no answer, a timeout, a cut), its answer not an artifact's (a status, a range, a length), the artifact or catalog refused by a check, this replica unable to keep it (its state folder, memory), or a bug.",
            &failures,
        );
        family(
            "foundry_catalog_last_load_timestamp_seconds",
            "gauge",
            "When the last load after the first ended (0: none yet), in seconds since 1970.",
            &[("", get(&self.last_poll))],
        );
        family(
            "foundry_catalog_last_load_ok",
            "gauge",
            "1 when the last load (the start's, until a later one) gave a catalog or found the origin unchanged, 0 when it failed.",
            &[("", get(&self.last_poll_ok))],
        );
        family(
            "foundry_reloads_total",
            "counter",
            "Catalog reloads, by result.",
            &[("{result=\"ok\"}", get(&self.reloads_ok)), ("{result=\"failed\"}", get(&self.reloads_failed))],
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_from_many_threads_add_up() {
        let metrics = Metrics::default();
        std::thread::scope(|scope| {
            for _ in 0..(SHARDS + 3) {
                scope.spawn(|| {
                    for _ in 0..1000 {
                        metrics.count_request(200, 10);
                    }
                    metrics.count_request(418, 1);
                });
            }
        });
        let text = metrics.render(&ResponseCatalog::examples(), 0, false, None);
        let threads = (SHARDS + 3) as u64;
        assert!(text.contains(&format!("foundry_requests_total{{status=\"200\"}} {}\n", threads * 1000)), "{text}");
        assert!(text.contains(&format!("foundry_requests_total{{status=\"other\"}} {threads}\n")), "{text}");
        assert!(text.contains(&format!("foundry_response_bytes_total {}\n", threads * 10_001)), "{text}");
    }
}
