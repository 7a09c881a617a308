//! CPU affinity for [`Placement::Cpu`](crate::Placement::Cpu): which CPUs
//! the server may run on, binding a worker thread to one of them, and the
//! CPU a connection's packets arrive on.
//!
//! With each worker bound to a CPU of its own, a connection handed to the
//! worker on the CPU that receives its packets is served where its data
//! already is: the kernel's receive path, the socket and the worker share
//! a CPU and its caches, and on loopback the client thread and the worker
//! that serves it take turns on one CPU instead of waking each other
//! across two (`SO_INCOMING_CPU`, socket(7): the CPU of the last packet
//! the socket received). A client that moves to another CPU takes its
//! connections' packets with it: each connection checks where its packets
//! arrive every [`CHECK_EVERY`] reads, and one that twice running finds
//! them on another worker's CPU, while that worker has no more open
//! connections than its own, is moved there (`Connection: close` on its
//! next response; the client reconnects from where it now runs). Linux
//! only; elsewhere there is nothing to bind and no CPU to read, and
//! connections go to the worker with the fewest.

use std::os::fd::AsFd;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;

use crate::deadline::{Activity, Tracker};
use crate::state::State;

/// The CPUs the calling thread may run on, in order (before any binding,
/// the process's: as `taskset` or a container's cpuset left them); empty
/// where unknown. The first call's answer is kept for [`unbind_here`].
#[cfg(target_os = "linux")]
pub(crate) fn allowed_cpus() -> Vec<usize> {
    use rustix::thread::{CpuSet, sched_getaffinity};
    let cpus: Vec<usize> = sched_getaffinity(None)
        .map_or_else(|_| Vec::new(), |set| (0..CpuSet::MAX_CPU).filter(|&cpu| set.is_set(cpu)).collect());
    let _ = UNBOUND.set(cpus.clone());
    cpus
}

/// The CPUs [`allowed_cpus`] first found.
#[cfg(target_os = "linux")]
static UNBOUND: std::sync::OnceLock<Vec<usize>> = std::sync::OnceLock::new();

/// Lets the calling thread run on the CPUs [`allowed_cpus`] first found
/// again: for a thread that was bound and goes on after the server, and for
/// threads started by a bound one (they start bound too), such as the
/// blocking pool's that rebuild the catalog on a reload.
#[cfg(target_os = "linux")]
pub(crate) fn unbind_here() {
    use rustix::thread::{CpuSet, sched_setaffinity};
    let Some(cpus) = UNBOUND.get().filter(|cpus| !cpus.is_empty()) else { return };
    let mut set = CpuSet::new();
    for &cpu in cpus {
        set.set(cpu);
    }
    if let Err(error) = sched_setaffinity(None, &set) {
        tracing::debug!(%error, "cannot unbind the thread from its CPU");
    }
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn unbind_here() {}

#[cfg(not(target_os = "linux"))]
pub(crate) fn allowed_cpus() -> Vec<usize> {
    Vec::new()
}

/// Binds the calling thread to `cpu`.
#[cfg(target_os = "linux")]
pub(crate) fn bind_here(cpu: usize) -> std::io::Result<()> {
    use rustix::thread::{CpuSet, sched_setaffinity};
    if cpu >= CpuSet::MAX_CPU {
        return Err(std::io::Error::from(std::io::ErrorKind::InvalidInput));
    }
    let mut set = CpuSet::new();
    set.set(cpu);
    sched_setaffinity(None, &set).map_err(std::io::Error::from)
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn bind_here(_cpu: usize) -> std::io::Result<()> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

/// The CPU that received `socket`'s last packet, if the kernel tells.
#[cfg(target_os = "linux")]
pub(crate) fn incoming_cpu(socket: impl AsFd) -> Option<usize> {
    rustix::net::sockopt::socket_incoming_cpu(socket).ok().and_then(|cpu| usize::try_from(cpu).ok())
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn incoming_cpu(_socket: impl AsFd) -> Option<usize> {
    None
}

/// How many more open connections than the worker with the fewest the
/// worker on a connection's CPU may have and still get it; over that, the
/// fewest gets it. Where every connection arrives on one CPU (a network
/// card with one receive queue), this keeps the workers within twice the
/// fewest's count plus this.
pub(crate) const STEER_SLACK: usize = 16;

/// Which worker gets a connection: the one on the CPU its packets arrive
/// on (`steered`, its index and open connections, if a worker is on that
/// CPU) while it has at most twice the open connections of the one with
/// the `fewest` plus [`STEER_SLACK`]; otherwise the one with the fewest.
pub(crate) fn choose(steered: Option<(usize, usize)>, fewest: (usize, usize)) -> usize {
    match steered {
        Some((worker, open)) if open <= fewest.1.saturating_mul(2).saturating_add(STEER_SLACK) => worker,
        _ => fewest.0,
    }
}

/// Reads between two checks of where a connection's packets arrive.
pub(crate) const CHECK_EVERY: u32 = 32;

/// The workers' CPUs and connection counts, for steering connections.
#[derive(Debug)]
pub(crate) struct Steering {
    /// Per worker, the CPU it is bound to.
    cpus: Vec<Option<usize>>,
    /// Per worker, its connections.
    trackers: Vec<Arc<Tracker>>,
    state: Arc<State>,
}

impl Steering {
    pub(crate) fn new(cpus: Vec<Option<usize>>, trackers: Vec<Arc<Tracker>>, state: Arc<State>) -> Arc<Steering> {
        Arc::new(Steering { cpus, trackers, state })
    }

    /// The worker bound to `cpu` with the fewest open connections, among
    /// the first `count`.
    pub(crate) fn worker_on(&self, cpu: usize, count: usize) -> Option<usize> {
        (0..count.min(self.cpus.len()))
            .filter(|&worker| self.cpus[worker] == Some(cpu))
            .min_by_key(|&worker| self.trackers[worker].open())
    }

    /// Whether a connection of worker `home` whose packets arrive on `cpu`
    /// belongs elsewhere: `home` is not bound to `cpu`, and a worker that
    /// is has no more open connections than `home`.
    fn elsewhere(&self, home: usize, cpu: usize) -> bool {
        if self.cpus.get(home) == Some(&Some(cpu)) {
            return false;
        }
        self.worker_on(cpu, self.cpus.len())
            .is_some_and(|there| self.trackers[there].open() <= self.trackers[home].open())
    }
}

/// Where one connection's packets arrive, checked every [`CHECK_EVERY`]
/// reads that returned data (see the module); its socket wrapper,
/// `deadline::Watched`, calls [`Steer::read`].
#[derive(Debug)]
pub(crate) struct Steer {
    /// The worker serving the connection.
    home: usize,
    steering: Arc<Steering>,
    reads: u32,
    /// Checks in a row that found it elsewhere.
    strikes: u8,
}

impl Steer {
    pub(crate) fn new(home: usize, steering: Arc<Steering>) -> Steer {
        Steer { home, steering, reads: 0, strikes: 0 }
    }

    /// After a read from `socket` that returned data: every
    /// [`CHECK_EVERY`]th, checks where its packets arrive, and the second
    /// check in a row that finds them on another worker's CPU asks the
    /// connection (`activity`) to move.
    pub(crate) fn read(&mut self, socket: impl AsFd, activity: &Activity) {
        self.reads = self.reads.wrapping_add(1);
        if !self.reads.is_multiple_of(CHECK_EVERY) {
            return;
        }
        if incoming_cpu(socket).is_some_and(|cpu| self.steering.elsewhere(self.home, cpu)) {
            self.strikes += 1;
        } else {
            self.strikes = 0;
        }
        if self.strikes >= 2 {
            self.strikes = 0;
            if activity.relocate() {
                self.steering.state.metrics.moved_connections.fetch_add(1, Relaxed);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_connection_goes_to_the_worker_on_its_cpu_within_the_slack() {
        assert_eq!(choose(Some((1, 0)), (0, 0)), 1);
        assert_eq!(choose(Some((0, 32)), (1, 31)), 0);
        // All of them arriving on one CPU: that worker, up to the slack and
        // twice the fewest, then the fewest.
        assert_eq!(choose(Some((0, STEER_SLACK)), (1, 0)), 0);
        assert_eq!(choose(Some((0, STEER_SLACK + 1)), (1, 0)), 1);
        assert_eq!(choose(Some((0, 2 * 10 + STEER_SLACK)), (1, 10)), 0);
        assert_eq!(choose(Some((0, 2 * 10 + STEER_SLACK + 1)), (1, 10)), 1);
        // No CPU known, or no worker on it.
        assert_eq!(choose(None, (1, 3)), 1);
    }

    #[test]
    fn two_workers_on_one_cpu_keep_their_connections_and_share_new_ones() {
        let state = crate::state::State::new(crate::default_catalog().expect("catalog"));
        let trackers: Vec<_> = (0..3).map(|_| Tracker::new(Duration::from_secs(1), Duration::from_secs(1))).collect();
        let steering = Steering::new(vec![Some(0), Some(0), Some(1)], trackers.clone(), state);
        trackers[0].assigned();
        trackers[0].assigned();
        trackers[1].assigned();
        // New connections from CPU 0: the one of its workers with fewer.
        assert_eq!(steering.worker_on(0, 3), Some(1));
        assert_eq!(steering.worker_on(1, 2), None, "CPU 1's worker is not among the first two");
        // A connection on either worker of CPU 0 stays while its packets
        // arrive there, whichever has fewer.
        assert!(!steering.elsewhere(0, 0));
        assert!(!steering.elsewhere(1, 0));
        // Arriving on CPU 1, whose worker has fewer: it moves; on a CPU no
        // worker is bound to: it stays.
        assert!(steering.elsewhere(0, 1));
        assert!(!steering.elsewhere(0, 7));
        trackers[2].assigned();
        trackers[2].assigned();
        assert!(!steering.elsewhere(1, 1), "not to a worker with more");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_bound_thread_runs_on_its_cpu_only() {
        let cpus = allowed_cpus();
        let last = *cpus.last().expect("at least one CPU allowed");
        let bound = std::thread::spawn(move || {
            bind_here(last).expect("bind");
            allowed_cpus()
        })
        .join()
        .expect("thread");
        assert_eq!(bound, vec![last]);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_loopback_connection_arrives_on_its_clients_cpu() {
        use std::io::Write;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("addr");
        for &cpu in allowed_cpus().iter().take(4) {
            let client = std::thread::spawn(move || {
                bind_here(cpu).expect("bind");
                let mut stream = std::net::TcpStream::connect(addr).expect("connect");
                stream.write_all(b"x").expect("write");
                stream
            });
            let (accepted, _) = listener.accept().expect("accept");
            let _client = client.join().expect("client");
            let mut byte = [0u8; 1];
            std::io::Read::read_exact(&mut &accepted, &mut byte).expect("read");
            assert_eq!(incoming_cpu(&accepted), Some(cpu));
        }
    }
}
