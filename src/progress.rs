//! Progress of long work, for bars and log lines: one trait for every wing (solving and
//! writing tables, verifying them, building and backing up books), so that a caller shows
//! them all one way.

/// Told how far long work has come.
pub trait Observer: Sync {
    /// A pass over `total` steps begins (positions over both sides to move; input bytes
    /// for a book build; 0 when unknown).
    fn pass(&self, name: &str, total: u64);
    /// `n` more steps of the current pass are done.
    fn advance(&self, n: u64);
    /// `n` more items were finished beside the steps (games, in a book build).
    fn items(&self, _n: u64) {}
}

/// Ignores progress.
pub struct Silent;

impl Observer for Silent {
    fn pass(&self, _: &str, _: u64) {}
    fn advance(&self, _: u64) {}
}
