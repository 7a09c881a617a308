//! Connection timeouts, as nginx has them: a client gets `header_timeout`
//! to send a request's headers from their first byte (so dripping a byte
//! at a time does not help), and a connection without traffic for
//! `idle_timeout` (between requests, or while a response is not read) is
//! closed.
//!
//! [`Watched`] wraps the socket and records reads and writes in a shared
//! [`Activity`] (two relaxed atomic stores); the connection task sleeps
//! until [`Activity::next_check`] and closes the connection when the
//! deadline has passed. Every response is
//! written right after its request's headers are read (the server never
//! reads a body), so a write marks the end of a request: the connection
//! is idle again until the next byte arrives.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Instant;

const IDLE: u8 = 0;
const HEADERS: u8 = 1;

/// Which timeout closed a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// The client started a request and did not finish its headers in time.
    Header,
    /// No traffic for the idle timeout.
    Idle,
}

/// The deadline of one connection, moved by its reads and writes.
#[derive(Debug)]
pub(crate) struct Activity {
    epoch: Instant,
    header_timeout: Duration,
    idle_timeout: Duration,
    phase: AtomicU8,
    /// Milliseconds after `epoch`.
    deadline: AtomicU64,
}

impl Activity {
    pub(crate) fn new(header_timeout: Duration, idle_timeout: Duration) -> Arc<Activity> {
        let activity = Activity {
            epoch: Instant::now(),
            header_timeout,
            idle_timeout,
            phase: AtomicU8::new(IDLE),
            deadline: AtomicU64::new(0),
        };
        activity.set_deadline(idle_timeout);
        Arc::new(activity)
    }

    fn set_deadline(&self, after: Duration) {
        let at = self.epoch.elapsed().saturating_add(after);
        self.deadline.store(u64::try_from(at.as_millis()).unwrap_or(u64::MAX), Relaxed);
    }

    fn read(&self, bytes: usize) {
        if bytes > 0 && self.phase.swap(HEADERS, Relaxed) == IDLE {
            self.set_deadline(self.header_timeout);
        }
    }

    fn wrote(&self, bytes: usize) {
        if bytes > 0 {
            self.phase.store(IDLE, Relaxed);
            self.set_deadline(self.idle_timeout);
        }
    }

    /// When the connection must be closed unless something happens first.
    pub(crate) fn deadline(&self) -> Instant {
        self.epoch + Duration::from_millis(self.deadline.load(Relaxed))
    }

    /// When to look at the deadline next: at the deadline, or one header
    /// timeout from now if that is sooner. A request that starts later can
    /// only set a deadline at or after that, so no deadline is missed and
    /// nothing has to wake the connection task when a request starts.
    pub(crate) fn next_check(&self) -> Instant {
        self.deadline().min(Instant::now() + self.header_timeout)
    }

    /// The phase whose timeout applies now.
    pub(crate) fn phase(&self) -> Phase {
        if self.phase.load(Relaxed) == HEADERS { Phase::Header } else { Phase::Idle }
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
