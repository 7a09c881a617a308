//! Counters and gauges, written in the Prometheus text format at `/metrics`.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The status codes counted one by one; anything else counts as `other`.
const STATUSES: [u16; 7] = [200, 304, 400, 404, 405, 412, 503];

/// Every counter of the server. All are monotonic except the gauges
/// (`open_connections`, `catalog_products`, `catalog_generation`).
#[derive(Debug, Default)]
pub(crate) struct Metrics {
    requests: [AtomicU64; STATUSES.len() + 1],
    pub(crate) bytes_sent: AtomicU64,
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
}

impl Metrics {
    pub(crate) fn count_request(&self, status: u16, bytes: usize) {
        let slot = STATUSES.iter().position(|&s| s == status).unwrap_or(STATUSES.len());
        if let Some(counter) = self.requests.get(slot) {
            counter.fetch_add(1, Relaxed);
        }
        self.bytes_sent.fetch_add(u64::try_from(bytes).unwrap_or(u64::MAX), Relaxed);
    }

    /// The Prometheus text exposition (version 0.0.4).
    pub(crate) fn render(&self) -> String {
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
            statuses.iter().zip(&self.requests).map(|(label, counter)| (label.as_str(), get(counter))).collect();
        by_status.push(("{status=\"other\"}", self.requests.last().map_or(0, get)));
        family("foundry_requests_total", "counter", "Requests answered, by status code.", &by_status);
        family("foundry_response_bytes_total", "counter", "Body bytes sent.", &[("", get(&self.bytes_sent))]);
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
        family(
            "foundry_reloads_total",
            "counter",
            "Catalog reloads, by result.",
            &[("{result=\"ok\"}", get(&self.reloads_ok)), ("{result=\"failed\"}", get(&self.reloads_failed))],
        );
        out
    }
}
