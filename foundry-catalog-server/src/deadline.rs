//! Connection timeouts and the drain, as nginx has them: a client gets
//! `header_timeout` to send a request's headers from their first byte (so
//! dripping a byte at a time does not help), and a connection without
//! traffic for `idle_timeout` (between requests, or while a response is
//! not read) is closed.
//!
//! Each worker has a [`Tracker`] of its connections, and each connection
//! an [`Activity`]. [`Watched`] wraps the socket: a read that starts a
//! request and every write stamp the connection with the worker's coarse
//! clock (relaxed atomic loads and stores, no clock read per request).
//! Every response is written right after its request's headers are read
//! (the server never reads a body), so a write marks the end of a
//! request: the connection is idle again until the next byte arrives.
//!
//! The tracker's sweep runs once a tick (a sixteenth of the shorter
//! timeout, between 1 and 250 ms). It moves the clock, and signals the
//! connections whose time is up; the connection task closes them. A
//! timeout therefore fires never before it is due and at most two ticks
//! after (the 10 s header timeout closes at 10–10.5 s), with no clock
//! read per request and no timer per connection. The drain signals every
//! connection the same way.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use atomic_waker::AtomicWaker;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Notify;

const IDLE: u8 = 0;
const HEADERS: u8 = 1;

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
/// stamped with, and the sweep that closes and drains them.
#[derive(Debug)]
pub(crate) struct Tracker {
    epoch: std::time::Instant,
    /// Milliseconds after `epoch`, as of the last sweep.
    now: AtomicU64,
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
        let tick = (header_timeout.min(idle_timeout) / 16).clamp(Duration::from_millis(1), Duration::from_millis(250));
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        Arc::new(Tracker {
            epoch: std::time::Instant::now(),
            now: AtomicU64::new(0),
            tick,
            // A stamp is up to a tick old: waiting one tick more never
            // closes a connection early.
            header_ms: ms(header_timeout).saturating_add(ms(tick)),
            idle_ms: ms(idle_timeout).saturating_add(ms(tick)),
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
        if self.open.fetch_sub(1, Relaxed) == 1 && self.draining.load(Relaxed) {
            self.drained.notify_one();
        }
    }

    /// Starts watching a connection about to be served.
    pub(crate) fn track(self: &Arc<Self>) -> Arc<Activity> {
        let signal = if self.draining.load(Relaxed) { DRAIN } else { RUN };
        let activity = Arc::new(Activity {
            tracker: Arc::clone(self),
            phase: AtomicU8::new(IDLE),
            since: AtomicU64::new(self.now.load(Relaxed)),
            signal: AtomicU8::new(signal),
            waker: AtomicWaker::new(),
        });
        self.lock().push(Arc::clone(&activity));
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
            let (phase, limit) = match activity.phase.load(Relaxed) {
                HEADERS => (Phase::Header, self.header_ms),
                _ => (Phase::Idle, self.idle_ms),
            };
            if now.saturating_sub(activity.since.load(Relaxed)) >= limit {
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
        self.draining.store(true, Relaxed);
        for activity in self.lock().iter() {
            if activity.signal.compare_exchange(RUN, DRAIN, Relaxed, Relaxed).is_ok() {
                activity.waker.wake();
            }
        }
        let until = tokio::time::Instant::now() + timeout;
        while self.open() > 0 {
            if tokio::time::timeout_at(until, self.drained.notified()).await.is_err() {
                return self.open() == 0;
            }
        }
        true
    }
}

/// The timeout state of one connection, moved by its reads and writes.
#[derive(Debug)]
pub(crate) struct Activity {
    tracker: Arc<Tracker>,
    phase: AtomicU8,
    /// When the phase began, or the last write: the tracker's clock.
    since: AtomicU64,
    signal: AtomicU8,
    waker: AtomicWaker,
}

impl Activity {
    fn read(&self, bytes: usize) {
        if bytes > 0 && self.phase.load(Relaxed) == IDLE {
            self.phase.store(HEADERS, Relaxed);
            self.since.store(self.tracker.now.load(Relaxed), Relaxed);
        }
    }

    fn wrote(&self, bytes: usize) {
        if bytes > 0 {
            self.phase.store(IDLE, Relaxed);
            self.since.store(self.tracker.now.load(Relaxed), Relaxed);
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

/// A socket whose reads and writes move its connection's deadline.
#[derive(Debug)]
pub(crate) struct Watched<I> {
    io: I,
    activity: Arc<Activity>,
}

impl<I> Watched<I> {
    pub(crate) fn new(io: I, activity: Arc<Activity>) -> Self {
        Watched { io, activity }
    }
}

impl<I: AsyncRead + Unpin> AsyncRead for Watched<I> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let result = Pin::new(&mut self.io).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = result {
            self.activity.read(buf.filled().len().saturating_sub(before));
        }
        result
    }
}

impl<I: AsyncWrite + Unpin> AsyncWrite for Watched<I> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.io).poll_write(cx, buf);
        if let Poll::Ready(Ok(written)) = result {
            self.activity.wrote(written);
        }
        result
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        if let Poll::Ready(Ok(written)) = result {
            self.activity.wrote(written);
        }
        result
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}
