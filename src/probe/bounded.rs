//! The moves of a lost position, searched with bounds.
//!
//! Every move of a lost position leads to a win for the other side. Where the table stores
//! that side's distances, the number stored is never nearer than the real distance (the
//! writer may store more where a reset, a mate or a conversion gives the value): it bounds
//! what the move gives the loser, who wants the farthest. So every move's number is read
//! first, and a position's own resets and conversions are looked at only while its bound
//! could beat the best found: for most lost positions, those of one or two moves.

use super::error::ProbeError;
use super::tablebase::{Located, Tablebase};
use super::zeroing::{after_quiet, better, preference};
use crate::chess::{MoveList, Position};
use crate::table::values::dtm_value;
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
    /// The cache's keys of its distance to zeroing and its distance to mate.
    pub(super) keys: (Option<u64>, Option<u64>),
    pub(super) zeroing: Option<Known<Dtz>>,
    pub(super) mate: Option<Known<Dtm>>,
}

impl Tablebase {
    /// The quiet move at `at` of a lost position's list, into `after` (located as `l`),
    /// with its distance to zeroing, its distance to mate, or both, found or bounded.
    pub(super) fn bounded(
        &self,
        at: usize,
        (after, l): (&Position, &Located),
        zeroing: bool,
        mate: bool,
    ) -> Result<Bounded, ProbeError> {
        let keys = self.cache_keys(l);
        Ok(Bounded {
            at: at as u8,
            keys,
            zeroing: match zeroing {
                true => Some(self.known_zeroing(after, l, keys.0)?),
                false => None,
            },
            mate: match mate {
                true => Some(self.known_dtm(after, l, keys.1)?),
                false => None,
            },
        })
    }

    /// The distance to zeroing of `after`, a won position of the side the DTZ layer
    /// stores, located as `l`: cached, or its stored number (found at once where nothing
    /// is stored).
    pub(super) fn known_zeroing(
        &self,
        after: &Position,
        l: &Located,
        key: Option<u64>,
    ) -> Result<Known<Dtz>, ProbeError> {
        if let Some(z) = self.cached_zeroing(key) {
            return Ok(Known::Exact(z));
        }
        Ok(
            match l.entry.file.dtz_moves(&l.digits).expect("a DTZ layer")? {
                0 => Known::Exact(self.stored_zeroing_from(after, l, Wdl::Win, 0)?),
                moves => Known::Stored(moves),
            },
        )
    }

    /// The same for the distance to mate, of a position of the side the DTM layer stores.
    pub(super) fn known_dtm(
        &self,
        after: &Position,
        l: &Located,
        key: Option<u64>,
    ) -> Result<Known<Dtm>, ProbeError> {
        if let Some(d) = self.cached_dtm(key) {
            return Ok(Known::Exact(d));
        }
        Ok(match l.entry.file.dtm_moves(&l.digits)? {
            0 => Known::Exact(self.stored_dtm_from(after, l, Wdl::Win, 0)?),
            moves => Known::Stored(moves),
        })
    }

    /// The loser's best distance to zeroing: `best` (that of the other moves) or that of
    /// a move of `open`, each found only while its bound could beat the best.
    pub(super) fn farthest_zeroing(
        &self,
        (pos, list): (&Position, &MoveList),
        mut best: Option<Dtz>,
        open: &Open,
    ) -> Result<Option<Dtz>, ProbeError> {
        let mut bounds = ArrayVec::<_, 256>::new();
        for (i, o) in open.iter().enumerate() {
            match o.zeroing {
                Some(Known::Exact(z)) => best = Some(better(best, after_quiet(z))),
                Some(Known::Stored(moves)) => {
                    let bound = after_quiet(Dtz(i32::from(moves)));
                    bounds.push((preference(bound), moves, i));
                }
                None => {}
            }
        }
        bounds.sort_unstable_by(|a, b| b.cmp(a));
        for &(bound, moves, i) in &bounds {
            if best.is_some_and(|z| preference(z) >= bound) {
                break;
            }
            let o = &open[i];
            let (after, l) = self.replayed(pos, list, o)?;
            let z = self.stored_zeroing_from(&after, &l, Wdl::Win, moves)?;
            self.remember_zeroing(o.keys.0, z);
            best = Some(better(best, after_quiet(z)));
        }
        Ok(best)
    }

    /// The same for the distance to mate (for the loser: after the move, one ply more).
    pub(super) fn farthest_dtm(
        &self,
        (pos, list): (&Position, &MoveList),
        mut best: Option<Dtm>,
        open: &Open,
    ) -> Result<Option<Dtm>, ProbeError> {
        let mut bounds = ArrayVec::<_, 256>::new();
        for (i, o) in open.iter().enumerate() {
            match o.mate {
                Some(Known::Exact(d)) => best = best.max(Some(d.back())),
                Some(Known::Stored(moves)) => {
                    let stored = dtm_value(Wdl::Win, moves).expect("a stored win");
                    bounds.push((stored.back(), moves, i));
                }
                None => {}
            }
        }
        bounds.sort_unstable_by(|a, b| b.cmp(a));
        for &(bound, moves, i) in &bounds {
            if best.is_some_and(|d| d >= bound) {
                break;
            }
            let o = &open[i];
            let (after, l) = self.replayed(pos, list, o)?;
            let d = self.stored_dtm_from(&after, &l, Wdl::Win, moves)?;
            self.remember_dtm(o.keys.1, d);
            best = best.max(Some(d.back()));
        }
        Ok(best)
    }

    /// The position `o`'s move leads to, located again (it was located when bounded).
    fn replayed(
        &self,
        pos: &Position,
        list: &MoveList,
        o: &Bounded,
    ) -> Result<(Position, Located<'_>), ProbeError> {
        let after = pos.play(&list.as_slice()[usize::from(o.at)]);
        let l = self.locate(&after)?.expect("a located position");
        Ok((after, l))
    }
}
