//! Two pieces of work at once.

/// `a` and `b` at once, `b` on the calling thread and `a` on another
/// when there is more than one core (else one after the other); both
/// results. A panic in either is the caller's.
pub(crate) fn join<A: Send, B>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B) -> (A, B) {
    if std::thread::available_parallelism().map_or(1, usize::from) < 2 {
        return (a(), b());
    }
    std::thread::scope(|scope| {
        let other = scope.spawn(a);
        let b = b();
        (other.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)), b)
    })
}
