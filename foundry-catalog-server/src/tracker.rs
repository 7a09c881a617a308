//! Connection timeouts and the drain, as nginx has them: a client gets
//! `header_timeout` to send a request's headers from their first byte (so
//! dripping a byte at a time does not help), and a connection without
//! traffic for `idle_timeout` (between requests, or while a response is
//! not read) is closed.
//!
//! Each worker has a [`Tracker`] of its connections, and each connection
//! an [`Activity`]. The connection's socket wrapper (`crate::io`) reports
//! its reads and writes: a read that starts a request and every write
//! stamp the connection with its phase and the worker's coarse clock, in
//! one word (a relaxed atomic load and store, no clock read per request).
//! Every response is written right after its request's headers are read
//! (the server never reads a body), so a write marks the end of a
//! request: the connection is idle again until the next byte arrives.
//!
//! The tracker's sweep runs once a tick (a sixteenth of the shorter
//! timeout, between 1 and 250 ms). It moves the clock, and signals the
//! connections whose time is up; the connection task closes them. A
//! timeout therefore fires at most two ticks after it is due (the 10 s
//! header timeout closes at 10–10.5 s) and, while the worker keeps up
//! with its ticks, never before, with no clock read per request and no
//! timer per connection. The drain signals every connection the same way.
//!
//! Why not hyper's `header_read_timeout` and hyper-util's
//! `GracefulShutdown`: hyper's one timer runs from the end of a response
//! to the end of the next request's headers, so a dripping client and an
//! idle keep-alive connection cannot get different times; and a timer, a
//! `select!` and a shutdown watch per connection cost 4.3 % more CPU a
//! request than this sweep (8 alternating pairs of load runs, geometric
//! mean 0.957, when the sweep replaced them).

use std::sync::atomic::Ordering::{Relaxed, SeqCst};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize};
use std::sync::{Arc, Mutex};
use std::task::Context;
use std::time::Duration;

use atomic_waker::AtomicWaker;
use tokio::sync::Notify;
use tokio::time::Instant;

/// The low bit of an [`Activity`]'s stamp: idle, or reading headers.
const IDLE: u64 = 0;
const HEADERS: u64 = 1;

const RUN: u8 = 0;
const DRAIN: u8 = 1;
const CLOSE_HEADER: u8 = 2;
const CLOSE_IDLE: u8 = 3;

/// Which timeout closed a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// The client started a request and did not finish its headers in time.
    Header,
    /// No traffic for the idle timeout.
    Idle,
}

/// What a connection task is told to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Signal {
    /// Serve on.
    Run,
    /// The server is draining: finish the request in flight, then close.
    Drain,
    /// Close now: the timeout of this phase ran out.
    Close(Phase),
}

/// One worker's connections: their count, the coarse clock they are
/// stamped with, the sweep that closes them when their time is up, and
/// the drain.
#[derive(Debug)]
pub(crate) struct Tracker {
    epoch: Instant,
    /// Milliseconds after `epoch`, as of the last sweep; shared with each
    /// connection's [`Activity`] (which does not hold the tracker, so the
    /// two never keep each other alive).
    now: Arc<AtomicU64>,
    tick: Duration,
    header_ms: u64,
    idle_ms: u64,
    /// Connections assigned to this worker and not yet finished.
    open: AtomicUsize,
    connections: Mutex<Vec<Arc<Activity>>>,
    draining: AtomicBool,
    drained: Notify,
}

impl Tracker {
    pub(crate) fn new(header_timeout: Duration, idle_timeout: Duration) -> Arc<Tracker> {
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        let tick_ms = (ms(header_timeout.min(idle_timeout)) / 16).clamp(1, 250);
        // A stamp is up to a tick old (and the clock rounds down to the
        // millisecond): waiting a tick and a millisecond more never closes
        // a connection early while the sweeps run on time.
        let slack = tick_ms + 1;
        Arc::new(Tracker {
            epoch: Instant::now(),
            now: Arc::new(AtomicU64::new(0)),
            tick: Duration::from_millis(tick_ms),
            header_ms: ms(header_timeout).saturating_add(slack),
            idle_ms: ms(idle_timeout).saturating_add(slack),
            open: AtomicUsize::new(0),
            connections: Mutex::new(Vec::new()),
            draining: AtomicBool::new(false),
            drained: Notify::new(),
        })
    }

    /// Connections assigned to this worker and not yet finished.
    pub(crate) fn open(&self) -> usize {
        self.open.load(Relaxed)
    }

    /// Counts a connection assigned to this worker, before it is served.
    pub(crate) fn assigned(&self) {
        self.open.fetch_add(1, Relaxed);
    }

    /// Counts an assigned connection as finished (served or not).
    pub(crate) fn finished(&self) {
        // SeqCst here and in `drain`: either this sees the drain begun, or
        // the drain sees this connection gone.
        if self.open.fetch_sub(1, SeqCst) == 1 && self.draining.load(SeqCst) {
            self.drained.notify_one();
        }
    }

    /// Starts watching a connection about to be served.
    pub(crate) fn track(self: &Arc<Self>) -> Arc<Activity> {
        // Under the lock `drain` sets `draining` under: a connection is
        // either in the list the drain signals, or told to drain here.
        let mut connections = self.lock();
        let signal = if self.draining.load(Relaxed) { DRAIN } else { RUN };
        let activity = Arc::new(Activity {
            clock: Arc::clone(&self.now),
            stamp: AtomicU64::new(stamp(self.now.load(Relaxed), IDLE)),
            signal: AtomicU8::new(signal),
            waker: AtomicWaker::new(),
        });
        connections.push(Arc::clone(&activity));
        activity
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Arc<Activity>>> {
        // A panic while holding the lock leaves the list whole.
        self.connections.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Moves the clock, forgets finished connections and signals those
    /// whose time is up. Returns whether the worker has anything left to
    /// watch (false once draining and every connection is gone).
    fn sweep(&self) -> bool {
        let now = u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.now.store(now, Relaxed);
        let mut connections = self.lock();
        // The list holds one reference; the connection task the other.
        connections.retain(|activity| Arc::strong_count(activity) > 1);
        for activity in connections.iter() {
            let stamp = activity.stamp.load(Relaxed);
            let (phase, limit) = match stamp & 1 {
                HEADERS => (Phase::Header, self.header_ms),
                _ => (Phase::Idle, self.idle_ms),
            };
            if now.saturating_sub(stamp >> 1) >= limit {
                activity.close(phase);
            }
        }
        !(self.draining.load(Relaxed) && connections.is_empty())
    }

    /// Sweeps once a tick until the worker has drained.
    pub(crate) async fn run(self: Arc<Self>) {
        let mut ticks = tokio::time::interval(self.tick);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            if !self.sweep() {
                break;
            }
        }
    }

    /// Tells every connection to finish its request in flight and close
    /// (idle ones close at once), and waits until none is left, at most
    /// `timeout`. Returns whether every connection finished in time.
    pub(crate) async fn drain(&self, timeout: Duration) -> bool {
        {
            let connections = self.lock();
            self.draining.store(true, SeqCst);
            for activity in connections.iter() {
                if activity.signal.fetch_update(Relaxed, Relaxed, |s| (s < DRAIN).then_some(DRAIN)).is_ok() {
                    activity.waker.wake();
                }
            }
        }
        let until = Instant::now() + timeout;
        while self.open.load(SeqCst) > 0 {
            if tokio::time::timeout_at(until, self.drained.notified()).await.is_err() {
                return self.open.load(SeqCst) == 0;
            }
        }
        true
    }
}

/// A stamp: when the phase began (or the last write), in the tracker's
/// clock, and the phase in the low bit, so that the sweep reads both at
/// once.
fn stamp(now: u64, phase: u64) -> u64 {
    now << 1 | phase
}

/// The timeout state of one connection, moved by its reads and writes.
#[derive(Debug)]
pub(crate) struct Activity {
    /// The tracker's clock.
    clock: Arc<AtomicU64>,
    stamp: AtomicU64,
    signal: AtomicU8,
    waker: AtomicWaker,
}

impl Activity {
    /// Counts `bytes` read: the first byte of a request starts its header
    /// timeout.
    pub(crate) fn read(&self, bytes: usize) {
        if bytes > 0 && self.stamp.load(Relaxed) & 1 == IDLE {
            self.stamp.store(stamp(self.clock.load(Relaxed), HEADERS), Relaxed);
        }
    }

    /// Counts `bytes` written: a response ends its request, and the
    /// connection is idle again.
    pub(crate) fn wrote(&self, bytes: usize) {
        if bytes > 0 {
            self.stamp.store(stamp(self.clock.load(Relaxed), IDLE), Relaxed);
        }
    }

    fn close(&self, phase: Phase) {
        let code = match phase {
            Phase::Header => CLOSE_HEADER,
            Phase::Idle => CLOSE_IDLE,
        };
        if self.signal.swap(code, Relaxed) < CLOSE_HEADER {
            self.waker.wake();
        }
    }

    /// What the connection should do now; `cx`'s waker is woken when that
    /// changes. Call it on every poll of the connection.
    pub(crate) fn signal(&self, cx: &Context<'_>) -> Signal {
        self.waker.register(cx.waker());
        match self.signal.load(Relaxed) {
            RUN => Signal::Run,
            DRAIN => Signal::Drain,
            CLOSE_HEADER => Signal::Close(Phase::Header),
            _ => Signal::Close(Phase::Idle),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::task::{Context, Waker};
    use std::time::Duration;

    use super::{Phase, Signal, Tracker};

    /// Runs the tracker's sweep once a tick on a paused clock, with a read
    /// (`reads`) or a write at `at` ms, and returns when, in ms, the
    /// connection is told to close, and why.
    async fn closed_after(reads: bool, at: u64) -> (u64, Phase) {
        let tracker = Tracker::new(Duration::from_millis(160), Duration::from_millis(320));
        assert_eq!(tracker.tick, Duration::from_millis(10));
        let activity = tracker.track();
        let cx = Context::from_waker(Waker::noop());
        for ms in 1..=2000 {
            tokio::time::advance(Duration::from_millis(1)).await;
            if ms % 10 == 0 {
                assert!(tracker.sweep());
            }
            if ms == at {
                if reads { activity.read(1) } else { activity.wrote(1) }
            }
            if let Signal::Close(phase) = activity.signal(&cx) {
                return (ms, phase);
            }
        }
        panic!("never closed");
    }

    #[tokio::test(start_paused = true)]
    async fn timeouts_fire_at_most_two_ticks_late_and_never_early() {
        for at in [55, 60, 61, 69] {
            let (closed, phase) = closed_after(true, at).await;
            assert_eq!(phase, Phase::Header);
            assert!(
                (at + 160..=at + 160 + 2 * 10 + 1).contains(&closed),
                "header timeout from {at} ms closed at {closed} ms"
            );
            let (closed, phase) = closed_after(false, at).await;
            assert_eq!(phase, Phase::Idle);
            assert!(
                (at + 320..=at + 320 + 2 * 10 + 1).contains(&closed),
                "idle timeout from {at} ms closed at {closed} ms"
            );
        }
    }

    #[tokio::test(start_paused = true)]
    async fn the_drain_signals_connections_and_ends_when_they_are_gone() {
        let tracker = Tracker::new(Duration::from_secs(10), Duration::from_secs(60));
        tracker.assigned();
        let activity = tracker.track();
        let cx = Context::from_waker(Waker::noop());
        assert_eq!(activity.signal(&cx), Signal::Run);
        let finisher = {
            let tracker = std::sync::Arc::clone(&tracker);
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(300)).await;
                let cx = Context::from_waker(Waker::noop());
                assert_eq!(activity.signal(&cx), Signal::Drain, "told to drain");
                drop(activity);
                tracker.finished();
            })
        };
        assert!(tracker.drain(Duration::from_secs(5)).await, "drained before the timeout");
        finisher.await.expect("finisher");
        // A connection that never finishes: the drain gives up at its timeout.
        tracker.assigned();
        let stuck = tracker.track();
        assert_eq!(stuck.signal(&cx), Signal::Drain, "tracked while draining");
        assert!(!tracker.drain(Duration::from_secs(1)).await);
    }
}
