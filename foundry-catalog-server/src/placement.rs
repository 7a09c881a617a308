//! Which workers take new connections: every one while the CPUs have
//! room, fewer while the workers wait for a CPU.
//!
//! When the CPUs are oversubscribed (other processes, or more workers than
//! the CPUs the server may use), more worker threads add no capacity: they
//! take turns at the scheduler, and a request waits for its thread's next
//! turn, a scheduler slice or more. One thread fewer that has the others'
//! connections waits less. So every [`PERIOD`] the placement reads, for
//! each worker thread, the time it ran and the time it waited for a CPU
//! (`/proc/thread-self/schedstat`, opened by the thread itself), and the
//! idle time of the CPUs the server may run on (`/proc/stat`), and
//! [`Policy`] decides:
//!
//! - **pack**, one worker fewer: the workers taking connections waited for
//!   a CPU [`PACK_WAIT`] of the period or more, on average;
//! - **spread**, one worker more: each of them was running or waiting
//!   [`BUSY`] of the period or more (it always had work), they waited under
//!   [`SPREAD_WAIT`], and [`SPREAD_IDLE`] of a CPU or more sat idle;
//! - a spread that a pack undoes within [`UNDONE`] periods doubles the wait
//!   before the next spread (from [`MIN_HOLDOFF`] periods up to
//!   [`MAX_HOLDOFF`]), so that a machine whose idle CPUs vanish as soon as
//!   the server takes them (a CPU quota, a neighbour that wakes up) does not
//!   flap.
//!
//! The first worker (the accept loop's own runtime) always takes
//! connections; the last ones stop first. On a change, connections are
//! moved, not cut: each connection of a worker that stops taking them, and
//! when spreading each one over the fair share of the busy workers, gets
//! `Connection: close` on its next response (RFC 9112 §9.6) and its client
//! reconnects to where the accept loop sends it. A connection that sends
//! nothing more is left to its idle timeout.
//!
//! Linux only: where the files cannot be read, or the accept loop's
//! runtime is multi-threaded (so its worker is not one thread), every
//! worker takes connections, as with [`Placement::Even`].

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tracing::{debug, info};

use crate::deadline::Tracker;
use crate::state::State;

/// How the accept loop places new connections on the workers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Placement {
    /// On every worker while the CPUs have room; on fewer while the
    /// workers wait for a CPU (see `foundry_catalog_server`'s README).
    #[default]
    Adaptive,
    /// Always on every worker, the one with the fewest open connections.
    Even,
    /// Each worker that is one thread bound to a CPU (those the process
    /// may use, in order, in turn if there are more workers), and each
    /// connection on the worker on the CPU its packets arrive on, unless
    /// that worker has far more open than the one with the fewest; a
    /// connection whose packets keep arriving on another worker's CPU is
    /// moved there (see `affinity`). For machines that give the server
    /// their CPUs, or whose network card spreads connections over them,
    /// and for clients on the same machine. Linux only; elsewhere as
    /// [`Placement::Even`].
    Cpu,
}

/// How often the placement measures and decides.
pub(crate) const PERIOD: Duration = Duration::from_millis(250);
/// The share of a period the busy workers waited for a CPU, on average,
/// from which one of them stops taking connections.
pub(crate) const PACK_WAIT: f64 = 0.2;
/// The share of a period a worker ran or waited to run, from which it is
/// busy all the time.
pub(crate) const BUSY: f64 = 0.9;
/// The most the busy workers may have waited, on average, for one more
/// worker to take connections.
pub(crate) const SPREAD_WAIT: f64 = 0.1;
/// The idle CPU time, in CPUs, one more worker needs.
pub(crate) const SPREAD_IDLE: f64 = 0.5;
/// Periods after a spread within which a pack counts as undoing it.
pub(crate) const UNDONE: u32 = 8;
/// Periods after a pack before a spread, at first and at most.
pub(crate) const MIN_HOLDOFF: u32 = 4;
pub(crate) const MAX_HOLDOFF: u32 = 256;

/// One worker's use of the CPU over a period, as shares of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Usage {
    pub(crate) ran: f64,
    pub(crate) waited: f64,
}

/// A decision of the [`Policy`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Change {
    /// The last worker taking connections stops.
    Pack,
    /// The first worker not taking connections starts.
    Spread,
}

/// How many workers take connections, decided period by period from what
/// they measured (see the module).
#[derive(Debug)]
pub(crate) struct Policy {
    workers: usize,
    active: usize,
    period: u32,
    holdoff: u32,
    last_pack: Option<u32>,
    /// The last spread, until a pack undoes it.
    last_spread: Option<u32>,
}

impl Policy {
    /// `workers` workers, every one taking connections.
    pub(crate) fn new(workers: usize) -> Policy {
        Policy {
            workers: workers.max(1),
            active: workers.max(1),
            period: 0,
            holdoff: MIN_HOLDOFF,
            last_pack: None,
            last_spread: None,
        }
    }

    /// How many workers take connections: the first ones.
    pub(crate) fn active(&self) -> usize {
        self.active
    }

    /// Decides from one period: `usage` of the workers taking connections
    /// (the first [`Policy::active`]; any more are ignored), and the idle
    /// CPU time of the CPUs the server may use, in CPUs.
    pub(crate) fn next(&mut self, usage: &[Usage], idle: f64) -> Option<Change> {
        self.period = self.period.wrapping_add(1);
        let usage = &usage[..usage.len().min(self.active)];
        if usage.is_empty() {
            return None;
        }
        let since = |at: Option<u32>| at.map_or(u32::MAX, |at| self.period.wrapping_sub(at));
        #[allow(clippy::cast_precision_loss)] // a handful of workers
        let waited = usage.iter().map(|u| u.waited).sum::<f64>() / usage.len() as f64;
        if self.last_spread.is_some() && since(self.last_spread) > UNDONE {
            // The last spread held: the next one need not wait long.
            self.holdoff = MIN_HOLDOFF;
        }
        if self.active > 1 && waited >= PACK_WAIT {
            if since(self.last_spread) <= UNDONE {
                self.holdoff = (self.holdoff * 2).min(MAX_HOLDOFF);
            }
            self.last_spread = None;
            self.last_pack = Some(self.period);
            self.active -= 1;
            return Some(Change::Pack);
        }
        let busy = usage.iter().all(|u| u.ran + u.waited >= BUSY);
        if self.active < self.workers
            && busy
            && waited < SPREAD_WAIT
            && idle >= SPREAD_IDLE
            && since(self.last_pack) >= self.holdoff
        {
            self.last_spread = Some(self.period);
            self.active += 1;
            return Some(Change::Spread);
        }
        None
    }
}

/// A worker thread's scheduler figures, readable from any thread once the
/// worker has opened them on its own.
#[derive(Debug, Default)]
pub(crate) struct ThreadTimes(OnceLock<File>);

impl ThreadTimes {
    /// Opens the calling thread's figures; call it on the worker's thread.
    /// Where they do not exist, the placement stays even.
    pub(crate) fn open_here(&self) {
        match File::open("/proc/thread-self/schedstat") {
            Ok(file) => {
                let _ = self.0.set(file);
            }
            Err(error) => debug!(%error, "no scheduler figures for this thread; placement stays even"),
        }
    }

    /// Nanoseconds the thread has run and waited for a CPU so far.
    pub(crate) fn read(&self) -> Option<(u64, u64)> {
        let mut buf = [0u8; 128];
        let len = self.0.get()?.read_at(&mut buf, 0).ok()?;
        let text = std::str::from_utf8(buf.get(..len)?).ok()?;
        let mut fields = text.split_ascii_whitespace().map(str::parse::<u64>);
        Some((fields.next()?.ok()?, fields.next()?.ok()?))
    }
}

/// Idle and total time, in clock ticks, of the CPUs in `allowed`, from the
/// text of `/proc/stat` (idle counts `iowait` too: a CPU waiting for a
/// disk runs nothing).
pub(crate) fn cpu_idle(stat: &str, allowed: impl Fn(usize) -> bool) -> (u64, u64) {
    let mut idle = 0u64;
    let mut total = 0u64;
    for line in stat.lines() {
        let mut fields = line.split_ascii_whitespace();
        let Some(cpu) = fields.next().and_then(|name| name.strip_prefix("cpu")).and_then(|n| n.parse().ok()) else {
            continue;
        };
        if !allowed(cpu) {
            continue;
        }
        // user nice system idle iowait irq softirq steal (guest time is
        // counted in user already).
        for (index, ticks) in fields.take(8).map(|f| f.parse::<u64>().unwrap_or(0)).enumerate() {
            total = total.saturating_add(ticks);
            if index == 3 || index == 4 {
                idle = idle.saturating_add(ticks);
            }
        }
    }
    (idle, total)
}

/// Idle and total clock ticks so far of the CPUs this thread may run on,
/// and their number.
#[cfg(target_os = "linux")]
fn allowed_cpu_idle() -> Option<(u64, u64, usize)> {
    use rustix::thread::{CpuSet, sched_getaffinity};
    let affinity = sched_getaffinity(None).ok()?;
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let (idle, total) = cpu_idle(&stat, |cpu| cpu < CpuSet::MAX_CPU && affinity.is_set(cpu));
    Some((idle, total, usize::try_from(affinity.count()).ok()?))
}

#[cfg(not(target_os = "linux"))]
fn allowed_cpu_idle() -> Option<(u64, u64, usize)> {
    None
}

/// What the placement reads once a period.
struct Sample {
    at: std::time::Instant,
    /// Per worker: nanoseconds run and waited.
    threads: Vec<(u64, u64)>,
    /// Idle and total clock ticks of the allowed CPUs, and their number;
    /// read only while a spread is possible (`/proc/stat` grows with the
    /// CPUs and interrupt lines, and the accept loop's thread reads it).
    cpus: Option<(u64, u64, usize)>,
}

impl Sample {
    fn take(times: &[Arc<ThreadTimes>], with_cpus: bool) -> Option<Sample> {
        let threads = times.iter().map(|t| t.read()).collect::<Option<Vec<_>>>()?;
        let cpus = if with_cpus { Some(allowed_cpu_idle()?) } else { None };
        Some(Sample { at: std::time::Instant::now(), threads, cpus })
    }

    /// Each worker's usage since `earlier`, and the idle CPUs.
    #[allow(clippy::cast_precision_loss)] // nanoseconds and ticks of a period
    fn since(&self, earlier: &Sample) -> (Vec<Usage>, f64) {
        let period = self.at.duration_since(earlier.at).as_nanos().max(1) as f64;
        let usage = self
            .threads
            .iter()
            .zip(&earlier.threads)
            .map(|(&(ran, waited), &(ran0, waited0))| Usage {
                ran: ran.saturating_sub(ran0) as f64 / period,
                waited: waited.saturating_sub(waited0) as f64 / period,
            })
            .collect();
        let idle = match (self.cpus, earlier.cpus) {
            (Some((idle, total, cpus)), Some((idle0, total0, _))) => {
                idle.saturating_sub(idle0) as f64 / total.saturating_sub(total0).max(1) as f64 * cpus as f64
            }
            _ => 0.0,
        };
        (usage, idle)
    }
}

/// A worker as the placement sees it.
pub(crate) struct Watched {
    pub(crate) tracker: Arc<Tracker>,
    pub(crate) times: Arc<ThreadTimes>,
}

/// Periods in a row without figures after which every worker takes
/// connections again.
const UNREADABLE: u32 = 4;

/// The running placement task; dropping it stops the task (so that a
/// server dropped without a drain does not leave it holding the state).
#[derive(Debug)]
pub(crate) struct Following(tokio::task::JoinHandle<()>);

impl Drop for Following {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Starts following contention for `workers` (on the current runtime,
/// which must be the first worker's): sets `active`, the number of workers
/// the accept loop gives new connections to, as [`Policy`] decides once a
/// [`PERIOD`], and moves connections on each change (see the module).
pub(crate) fn start(workers: Vec<Watched>, active: Arc<AtomicUsize>, state: Arc<State>) -> Following {
    Following(tokio::spawn(follow(workers, active, state)))
}

/// The first `count` workers take new connections; each of the others
/// tells the connections it starts from now on to move, so that none
/// handed to it before the change stays.
fn set_active(workers: &[Watched], active: &AtomicUsize, metrics: &crate::metrics::Metrics, count: usize) {
    active.store(count, Relaxed);
    metrics.active_workers.store(u64::try_from(count).unwrap_or(u64::MAX), Relaxed);
    for (index, worker) in workers.iter().enumerate() {
        worker.tracker.set_taking(index < count);
    }
}

/// Carries out a change from `before` workers taking connections to
/// `after`: sets who takes them ([`set_active`]), asks the displaced
/// connections to move and counts them. Returns how many were asked.
pub(crate) fn apply(
    workers: &[Watched],
    active: &AtomicUsize,
    metrics: &crate::metrics::Metrics,
    before: usize,
    after: usize,
) -> usize {
    set_active(workers, active, metrics, after);
    let moved = match after.cmp(&before) {
        std::cmp::Ordering::Less => relocate(workers, Change::Pack, before),
        std::cmp::Ordering::Greater => relocate(workers, Change::Spread, before),
        std::cmp::Ordering::Equal => 0,
    };
    metrics.moved_connections.fetch_add(u64::try_from(moved).unwrap_or(u64::MAX), Relaxed);
    moved
}

/// Asks the connections that `change` (from `before` workers taking
/// connections) displaces to move: every one of the worker that stops, or
/// those over the fair share of the busy workers when one more starts.
/// Returns how many were asked.
fn relocate(workers: &[Watched], change: Change, before: usize) -> usize {
    let busy = &workers[..before.min(workers.len())];
    match change {
        Change::Pack => busy.last().map_or(0, |w| w.tracker.relocate(usize::MAX)),
        Change::Spread => {
            let running: Vec<usize> = busy.iter().map(|w| w.tracker.running()).collect();
            let share = running.iter().sum::<usize>().div_ceil(before + 1);
            busy.iter().zip(running).map(|(w, running)| w.tracker.relocate(running.saturating_sub(share))).sum()
        }
    }
}

/// The placement task: see [`start`].
async fn follow(workers: Vec<Watched>, active: Arc<AtomicUsize>, state: Arc<State>) {
    let metrics = &state.metrics;
    let times: Vec<_> = workers.iter().map(|w| Arc::clone(&w.times)).collect();
    let mut policy = Policy::new(workers.len());
    let mut ticks = tokio::time::interval(PERIOD);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut last: Option<Sample> = None;
    let mut failed = 0u32;
    loop {
        ticks.tick().await;
        // Threads open their figures as they start: until all have, or
        // where there are none, nothing is decided.
        let Some(now) = Sample::take(&times, policy.active() < workers.len()) else {
            failed = failed.saturating_add(1);
            if failed == UNREADABLE && policy.active() < workers.len() {
                // The figures stopped (a worker thread is gone): every
                // worker takes connections again, as if even.
                debug!(periods = failed, "scheduler figures unreadable; every worker takes connections");
                policy = Policy::new(workers.len());
                set_active(&workers, &active, metrics, workers.len());
            }
            last = None;
            continue;
        };
        failed = 0;
        let measured = last.as_ref().map(|earlier| now.since(earlier));
        last = Some(now);
        let Some((usage, idle)) = measured else { continue };
        let before = policy.active();
        let Some(change) = policy.next(&usage, idle) else { continue };
        let after = policy.active();
        let moved = apply(&workers, &active, metrics, before, after);
        let waited: Vec<String> = usage.iter().take(before).map(|u| format!("{:.0}%", u.waited * 100.0)).collect();
        let waited = waited.join(" ");
        match change {
            Change::Pack => info!(
                active = after,
                workers = workers.len(),
                waited = %waited,
                moved,
                "workers waited for a CPU; new connections go to {after} of {} workers",
                workers.len()
            ),
            Change::Spread => info!(
                active = after,
                workers = workers.len(),
                idle_cpus = format_args!("{idle:.2}"),
                moved,
                "workers busy with CPUs idle; new connections go to {after} of {} workers",
                workers.len()
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(ran: f64, waited: f64, workers: usize) -> Vec<Usage> {
        vec![Usage { ran, waited }; workers]
    }

    #[test]
    fn contention_packs_down_to_one_worker_and_no_further() {
        let mut policy = Policy::new(3);
        // Two server threads and two of a neighbour's on two CPUs: each
        // waits about 40 % of the time (measured with wrk -t2 on 2 CPUs).
        assert_eq!(policy.next(&usage(0.55, 0.40, 3), 0.0), Some(Change::Pack));
        assert_eq!(policy.active(), 2);
        assert_eq!(policy.next(&usage(0.55, 0.40, 3), 0.0), Some(Change::Pack));
        assert_eq!(policy.active(), 1);
        assert_eq!(policy.next(&usage(0.70, 0.30, 3), 0.0), None);
        assert_eq!(policy.active(), 1);
    }

    #[test]
    fn waits_of_the_workers_not_taking_connections_are_ignored() {
        let mut policy = Policy::new(3);
        assert_eq!(policy.next(&usage(0.5, 0.3, 3), 0.0), Some(Change::Pack));
        assert_eq!(policy.active(), 2);
        // The third worker, serving what it had, waits a lot; the two
        // taking connections hardly do.
        let usage =
            [Usage { ran: 0.5, waited: 0.05 }, Usage { ran: 0.5, waited: 0.05 }, Usage { ran: 0.1, waited: 0.9 }];
        for _ in 0..10 {
            assert_eq!(policy.next(&usage, 0.0), None);
        }
        assert_eq!(policy.active(), 2);
    }

    #[test]
    fn room_on_the_cpus_keeps_every_worker() {
        let mut policy = Policy::new(4);
        // Busy, light, and idle servers on CPUs of their own.
        for (ran, waited) in [(0.99, 0.01), (0.3, 0.02), (0.0, 0.0), (0.95, 0.15)] {
            assert_eq!(policy.next(&usage(ran, waited, 4), 1.0), None, "{ran} {waited}");
        }
        assert_eq!(policy.active(), 4);
    }

    #[test]
    fn a_busy_worker_spreads_only_onto_idle_cpus() {
        let mut policy = Policy::new(2);
        assert_eq!(policy.next(&usage(0.5, 0.4, 2), 0.0), Some(Change::Pack));
        for _ in 0..MIN_HOLDOFF {
            // Running all the time beside a neighbour that takes the rest.
            assert_eq!(policy.next(&usage(1.0, 0.01, 1), 0.02), None);
        }
        // Not busy enough, waiting too much, or too little idle.
        assert_eq!(policy.next(&usage(0.8, 0.05, 1), 1.0), None);
        assert_eq!(policy.next(&usage(0.85, 0.12, 1), 1.0), None);
        assert_eq!(policy.next(&usage(1.0, 0.0, 1), 0.4), None);
        assert_eq!(policy.next(&usage(1.0, 0.0, 1), 0.9), Some(Change::Spread));
        assert_eq!(policy.active(), 2);
        assert_eq!(policy.next(&usage(1.0, 0.0, 2), 0.9), None, "no more workers than there are");
    }

    /// Periods from a pack until the policy spreads, with a busy worker
    /// and an idle CPU every period.
    fn periods_to_spread(policy: &mut Policy) -> u32 {
        (1..=MAX_HOLDOFF + 1).find(|_| policy.next(&usage(1.0, 0.0, 1), 1.0) == Some(Change::Spread)).expect("spreads")
    }

    #[test]
    fn flapping_backs_off_and_a_spread_that_holds_resets() {
        let mut policy = Policy::new(2);
        let contended = usage(0.5, 0.4, 2);
        assert_eq!(policy.next(&contended, 0.0), Some(Change::Pack));
        assert_eq!(periods_to_spread(&mut policy), MIN_HOLDOFF);
        // Each spread undone at once doubles the wait for the next.
        let mut holdoff = MIN_HOLDOFF;
        for _ in 0..8 {
            assert_eq!(policy.next(&contended, 0.0), Some(Change::Pack));
            holdoff = (holdoff * 2).min(MAX_HOLDOFF);
            assert_eq!(periods_to_spread(&mut policy), holdoff);
        }
        assert_eq!(holdoff, MAX_HOLDOFF);
        // A spread that holds for longer than UNDONE periods resets it.
        for _ in 0..=UNDONE {
            assert_eq!(policy.next(&usage(0.6, 0.05, 2), 0.5), None);
        }
        assert_eq!(policy.next(&contended, 0.0), Some(Change::Pack));
        assert_eq!(periods_to_spread(&mut policy), MIN_HOLDOFF);
    }

    #[test]
    fn idle_time_counts_only_the_allowed_cpus() {
        let stat = "cpu  100 0 50 900 10 0 0 0 0 0\n\
                    cpu0 50 0 25 400 5 0 0 0 0 0\n\
                    cpu1 50 0 25 500 5 0 0 7 0 0\n\
                    intr 12345 0 0\nctxt 99\n";
        assert_eq!(cpu_idle(stat, |_| true), (910, 1067));
        assert_eq!(cpu_idle(stat, |cpu| cpu == 1), (505, 587));
        assert_eq!(cpu_idle(stat, |_| false), (0, 0));
    }

    #[test]
    fn a_thread_reads_its_own_times_and_they_grow() {
        let times = ThreadTimes::default();
        times.open_here();
        let Some((ran, _)) = times.read() else {
            assert!(!std::path::Path::new("/proc/thread-self/schedstat").exists());
            return;
        };
        let started = std::time::Instant::now();
        let mut spin = 0u64;
        while started.elapsed() < Duration::from_millis(20) {
            spin = std::hint::black_box(spin.wrapping_add(1));
        }
        let (later, _) = times.read().expect("read again");
        assert!(later > ran, "ran {ran} ns, then {later} ns");
        // Read from another thread, the figures stay this thread's.
        let elsewhere = std::thread::scope(|s| s.spawn(|| times.read()).join().expect("thread"));
        assert!(elsewhere.is_some_and(|(ran, _)| ran >= later));
    }
}
