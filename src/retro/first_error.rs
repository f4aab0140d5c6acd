//! The first failure of a read that many threads make while a solve goes on: the solver
//! asks for values, not errors, so a stand-in value takes the failed read's place and the
//! first error is kept for the end, when the solve is thrown away.

use std::sync::{Mutex, MutexGuard};

/// The first error noted, if any.
pub(super) struct FirstError<E>(Mutex<Option<E>>);

impl<E> FirstError<E> {
    /// No error yet.
    pub(super) fn new() -> FirstError<E> {
        FirstError(Mutex::new(None))
    }

    /// `read`'s value, or `stand_in` after keeping its error if it is the first.
    pub(super) fn or<T>(&self, read: Result<T, E>, stand_in: T) -> T {
        read.unwrap_or_else(|e| {
            self.lock().get_or_insert(e);
            stand_in
        })
    }

    /// The first error noted, taken.
    pub(super) fn take(&self) -> Option<E> {
        self.lock().take()
    }

    /// The slot, whoever panicked holding it (it holds an error or none, never half one).
    fn lock(&self) -> MutexGuard<'_, Option<E>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}
