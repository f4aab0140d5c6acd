//! What a one-ply search keeps of each quiet move of a lost position: its distances for
//! the winner, found or bounded by the number the table stores (`bounded` finds them).

use crate::value::{Dtm, Dtz, Wdl};
use arrayvec::ArrayVec;

/// The moves of a lost position with bounded distances; on the stack, so that a probe
/// does not allocate.
pub(super) type Open = ArrayVec<Bounded, 256>;

/// A distance found, or the number its layer stores, a bound on it.
#[derive(Copy, Clone)]
pub(super) enum Known<T> {
    Exact(T),
    Stored(u16),
}

/// A quiet move of a lost position, into a position of the side the layers asked store:
/// its distances for the winner to move there, found or bounded (None: not asked).
pub(super) struct Bounded {
    /// The move's place in the position's move list.
    pub(super) at: u8,
    /// The value of the position it leads to, for the side to move there: a win, or
    /// (asked of the distance to mate alone) a loss.
    pub(super) wdl: Wdl,
    /// The cache's keys of its distance to zeroing and its distance to mate.
    pub(super) keys: (Option<u64>, Option<u64>),
    pub(super) zeroing: Option<Known<Dtz>>,
    pub(super) mate: Option<Known<Dtm>>,
}
