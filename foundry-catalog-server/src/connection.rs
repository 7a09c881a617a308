//! One connection: HTTP/1.1 with keep-alive through hyper, closed when
//! its worker's [`Tracker`] says a timeout ran out, and drained
//! gracefully (the request in flight finishes, then it closes) when the
//! server shuts down.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::task::Poll;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tracing::debug;

use crate::handler;
use crate::io::TimedIo;
use crate::state::State;
use crate::tracker::{Phase, Signal, Tracker};

/// Serves `stream` until the client closes it, a timeout closes it, or
/// the drain ends it; counts it out of the open connections then.
pub(crate) fn serve(
    state: Arc<State>,
    builder: &http1::Builder,
    stream: TcpStream,
    peer: SocketAddr,
    tracker: &Arc<Tracker>,
) -> impl Future<Output = ()> + Send + 'static {
    let activity = tracker.track();
    let io = TokioIo::new(TimedIo::new(stream, Arc::clone(&activity)));
    let service_state = Arc::clone(&state);
    let service = service_fn(move |request| {
        let response = handler::handle(&service_state, &request);
        async move { Ok::<_, Infallible>(response) }
    });
    let conn = builder.serve_connection(io, service);
    async move {
        tokio::pin!(conn);
        let mut draining = false;
        let ended = std::future::poll_fn(|cx| {
            match activity.signal(cx) {
                Signal::Run => {}
                Signal::Drain if !draining => {
                    draining = true;
                    conn.as_mut().graceful_shutdown();
                }
                Signal::Drain => {}
                Signal::Close(phase) => return Poll::Ready(Err(phase)),
            }
            conn.as_mut().poll(cx).map(Ok)
        })
        .await;
        match ended {
            Ok(Ok(())) => {}
            Ok(Err(error)) => debug!(%peer, %error, "connection ended with an error"),
            Err(phase) => {
                let counter = match phase {
                    Phase::Header => &state.metrics.header_timeouts,
                    Phase::Idle => &state.metrics.idle_timeouts,
                };
                counter.fetch_add(1, Relaxed);
                debug!(%peer, ?phase, "closing connection: timeout");
            }
        }
        state.metrics.open_connections.fetch_sub(1, Relaxed);
    }
}
