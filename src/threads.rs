//! Thread counts as data: each parallel entry point of the library (`generate`,
//! `verify_table`, the book build) runs in a pool of its own, sized by its caller, and sets
//! nothing process-wide, so that an engine or a server linking the crate chooses threads
//! call by call. The lower-level parts (`retro::solve`, `table::write_table`) run in the
//! pool they are called from.
//!
//! Also `lock` and `inner`, for the mutexes threads share.

use std::num::NonZeroUsize;

/// Worker threads for one call: one per core, or a given count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Threads {
    /// One per core the system reports.
    #[default]
    PerCore,
    /// This many.
    Count(NonZeroUsize),
}

impl Threads {
    /// `n` threads, or one per core for 0.
    pub fn new(n: usize) -> Threads {
        NonZeroUsize::new(n).map_or(Threads::PerCore, Threads::Count)
    }

    /// The number of threads.
    pub fn count(self) -> usize {
        match self {
            Threads::Count(n) => n.get(),
            Threads::PerCore => std::thread::available_parallelism().map_or(1, NonZeroUsize::get),
        }
    }

    /// Runs `f` in a pool of these threads (its parallel work, and what it asks of
    /// `rayon::current_num_threads`, stay there). Where the system refuses a pool of
    /// threads, `f` runs in the pool of the caller.
    pub fn run<R: Send>(self, f: impl FnOnce() -> R + Send) -> R {
        match rayon::ThreadPoolBuilder::new()
            .num_threads(self.count())
            .build()
        {
            Ok(pool) => pool.install(f),
            Err(_) => f(),
        }
    }
}

/// Locks a mutex whose holder cannot have left its data half-changed (its writers push,
/// take or set whole values): a thread that panicked holding it leaves it usable.
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The data of such a mutex, its threads done.
pub(crate) fn inner<T>(m: std::sync::Mutex<T>) -> T {
    m.into_inner().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_runs_on_the_threads_asked_for() {
        for n in [1, 2, 3] {
            let seen = Threads::new(n).run(rayon::current_num_threads);
            assert_eq!(seen, n);
        }
        assert_eq!(Threads::new(0), Threads::PerCore);
        assert!(Threads::PerCore.count() >= 1);
    }
}
