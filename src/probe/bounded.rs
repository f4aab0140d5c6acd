//! The moves of a position searched one ply, with bounds.
//!
//! Every move of a lost position leads to a win for the other side. Where the table stores
//! that side's distances, the number stored is never nearer than the real distance (the
//! writer may store more where a reset, a mate or a conversion gives the value): it bounds
//! what the move gives the loser, who wants the farthest. So every move's number is read
//! first, and a position's own resets and conversions are looked at only while its bound
//! could beat the best found: for most lost positions, those of one or two moves. The
//! same holds for a won position's distance to mate: a lost position's stored number is
//! never longer than its distance, and the winner wants the nearest.

use super::bounds::{Bounded, Known, Open};
use super::error::ProbeError;
use super::tablebase::{Located, Tablebase};
use super::zeroing::{after_quiet, better, preference};
use crate::chess::{MoveList, Position};
use crate::table::values::dtm_value;
use crate::value::{Dtm, Dtz, Wdl};
use arrayvec::ArrayVec;

impl Tablebase {
    /// The quiet move at `at` of a lost position's list, into `after` (located as `l`),
    /// with its distance to zeroing, its distance to mate, or both, found or bounded.
    pub(super) fn bounded(
        &self,
        at: usize,
        (after, l): (&Position, &Located),
        wdl: Wdl,
        zeroing: bool,
        mate: bool,
    ) -> Result<Bounded, ProbeError> {
        let keys = self.cache_keys(l);
        debug_assert!(
            wdl == Wdl::Win || !zeroing,
            "distances to zeroing bound wins only"
        );
        Ok(Bounded {
            at: at as u8,
            wdl,
            keys,
            zeroing: match zeroing {
                true => Some(self.known_zeroing(after, l, keys.0)?),
                false => None,
            },
            mate: match mate {
                true => Some(self.known_dtm(after, l, wdl, keys.1)?),
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

    /// The same for the distance to mate, of a position of the side the DTM layer stores,
    /// won or lost (`wdl`) for its side to move: a lost position's stored number is never
    /// longer than its distance, and it bounds what the move gives the winner, who wants
    /// the nearest.
    pub(super) fn known_dtm(
        &self,
        after: &Position,
        l: &Located,
        wdl: Wdl,
        key: Option<u64>,
    ) -> Result<Known<Dtm>, ProbeError> {
        if let Some(d) = self.cached_dtm(key) {
            return Ok(Known::Exact(d));
        }
        Ok(match (wdl, l.entry.file.dtm_moves(&l.digits)?) {
            (Wdl::Win, 0) => Known::Exact(self.stored_dtm_from(after, l, wdl, 0)?),
            (_, moves) => Known::Stored(moves),
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

    /// The same for the distance to mate (after the move, one ply more): the loser's
    /// farthest, or the winner's nearest, each the best for the side to move.
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
                    let stored = dtm_value(o.wdl, moves).expect("a stored win or loss");
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
            let d = self.stored_dtm_from(&after, &l, o.wdl, moves)?;
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
