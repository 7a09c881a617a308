//! When a replica polls its origin next: every interval, plus up to a
//! tenth of it at random (so replicas do not ask at once), twice as long
//! per failed poll in a row, up to 16 times the interval.

use std::time::Duration;

/// The wait before each poll (the server's poller and [`super::Poller`]
/// alike).
#[derive(Debug, Clone)]
pub struct Backoff {
    interval: Duration,
    /// xorshift64 state: jitter needs spread, not secrecy.
    seed: u64,
}

impl Backoff {
    /// The most the wait is doubled: 2^4 = 16 times the interval.
    pub const MAX_DOUBLINGS: u32 = 4;

    /// Waits of `interval`, with jitter seeded by `seed` (any value; the
    /// process id and the clock spread a fleet).
    pub fn new(interval: Duration, seed: u64) -> Backoff {
        Backoff { interval, seed: seed | 1 }
    }

    /// The wait before the next poll, after `failures` failed polls in a
    /// row. Never overflows: a wait past what a `Duration` holds is the
    /// largest one.
    pub fn next(&mut self, failures: u32) -> Duration {
        self.seed ^= self.seed << 13;
        self.seed ^= self.seed >> 7;
        self.seed ^= self.seed << 17;
        let wait = self.interval.saturating_mul(1 << failures.min(Backoff::MAX_DOUBLINGS));
        let tenth = u64::try_from(wait.as_nanos() / 10).unwrap_or(u64::MAX).max(1);
        wait.saturating_add(Duration::from_nanos(self.seed % tenth))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_double_per_failure_up_to_16_times_with_a_tenth_of_jitter() {
        let mut backoff = Backoff::new(Duration::from_secs(10), 7);
        for (failures, base) in [(0, 10), (1, 20), (2, 40), (4, 160), (9, 160)] {
            let wait = backoff.next(failures);
            let base = Duration::from_secs(base);
            assert!(wait >= base && wait < base + base / 10, "{failures}: {wait:?}");
        }
        let spread: std::collections::BTreeSet<_> = (0..20).map(|_| backoff.next(0)).collect();
        assert!(spread.len() > 10, "jitter spreads: {spread:?}");
        assert_eq!(Backoff::new(Duration::MAX, 1).next(4), Duration::MAX, "no overflow");
    }
}
