//! Work spread over the available cores, with results in input order so
//! that nothing that reaches output depends on scheduling.

/// `f` over contiguous chunks of `items`, one chunk per available core
/// (one chunk when there is a single core or a single item); the results
/// in chunk order.
pub(crate) fn chunks<T: Sync, R: Send>(items: &[T], f: impl Fn(&[T]) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    if threads < 2 || items.len() < 2 {
        return vec![f(items)];
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> = items.chunks(chunk).map(|part| scope.spawn(|| f(part))).collect();
        // A worker panics only if `f` does; then so does the caller, as it would have serially.
        workers.into_iter().map(|w| w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    })
}

/// `f` over every item on the available cores; the results in item order.
pub(crate) fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    chunks(items, |part| part.iter().map(&f).collect::<Vec<R>>()).into_iter().flatten().collect()
}

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

/// `f` over every item on the available cores, a window of `per_core`
/// items a core at a time, each window's results given to `sink` in item
/// order before the next window is made: what is in memory at once is
/// one window's results, not every item's. Stops at the first error
/// `sink` returns.
pub(crate) fn for_each_windowed<T: Sync, R: Send, E>(
    items: &[T],
    per_core: usize,
    f: impl Fn(&T) -> R + Sync,
    mut sink: impl FnMut(R) -> Result<(), E>,
) -> Result<(), E> {
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    for window in items.chunks(per_core.max(1) * threads) {
        for result in map(window, &f) {
            sink(result)?;
        }
    }
    Ok(())
}

/// Drops `value` on a thread of its own, so that the caller goes on: for
/// what holds many small allocations freed one by one (a build's cards:
/// 0.03 s at 100,000 products). Dropped here when no thread can be made.
pub(crate) fn drop_aside<T: Send + 'static>(value: T) {
    // A failed spawn drops the closure, and `value` with it, here.
    let _ = std::thread::Builder::new().name("drop".to_owned()).spawn(move || drop(value));
}
