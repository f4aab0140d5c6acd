//! Root moves ranked for play from the position's move count: among the moves that keep a
//! win under the 50-move rule, the fastest mate.
//!
//! Syzygy-based engines play the move of least DTZ among the winning ones (Fathom's
//! `tb_probe_root`), which keeps the win but may take far longer to mate. Ranking by DTM
//! alone mates fastest when the rule is ignored, and may run past the 100th ply without
//! a capture or pawn move. Here a winning side plays, among the moves whose distance to
//! zeroing still fits in the plies the count leaves, the one that mates fastest. The
//! game still ends in mate: every move keeps "distance to zeroing + count <= 100", so a
//! reset (or the mate) comes before the count runs out, and resets are finite. Once a
//! position has repeated, the least DTZ is played instead (then the fastest mate among
//! equals): distances to zeroing then fall every move, so no position comes back a
//! third time before the next reset.

use super::error::ProbeError;
use super::tablebase::Tablebase;
use super::zeroing::{after_quiet, reset_value};
use crate::chess::{Move, MoveList, Position};
use crate::value::{Dtm, Dtz, Wdl, Wdl5};
use std::cmp::Reverse;

/// One legal move of a root position, valued for the side playing it from the root's
/// move count: the root's values through this move (`root_` names them apart from a
/// position's own, as `PositionReport` gives them).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct PlayMove {
    /// The move.
    pub mv: Move,
    /// Win, draw or loss with best play under the 50-move rule from the root's count: a
    /// win whose reset cannot come in time is a draw.
    pub root_outcome: Wdl,
    /// The move's 50-move class from the root's count (a cursed win: won, but not in
    /// time).
    pub root_category: Wdl5,
    /// Plies from the root to the next capture, pawn move or mate after this move (the
    /// move counted), signed for the side playing it as `Dtz` is signed; 1 for a reset
    /// into a won position, or a mate.
    pub root_dtz: Dtz,
    /// Distance to mate after this move for the side playing it, counted from the root.
    pub root_dtm: Dtm,
}

/// The order of play: greater first. The outcome, then within a win the fastest mate that
/// keeps it (least DTZ first once the position has repeated); within a draw a win the rule
/// spoils before a plain draw before a loss it saves, each as near its reset (a win) or as
/// far (a loss) as can be; within a loss the longest resistance: the winner's DTZ, then
/// DTM.
fn rank(m: &PlayMove, repeated: bool) -> (u8, u8, i64, i64) {
    let zeroing = i64::from(m.root_dtz.0.unsigned_abs());
    let mate = i64::from(m.root_dtm.plies().unwrap_or(0));
    let wdl_rank = |w: Wdl| match w {
        Wdl::Win => 2,
        Wdl::Draw => 1,
        Wdl::Loss => 0,
    };
    let (first, second) = match (m.root_outcome, m.root_category.wdl()) {
        (Wdl::Win, _) if repeated => (-zeroing, -mate),
        (Wdl::Win, _) => (-mate, -zeroing),
        (Wdl::Draw, Wdl::Win) => (-zeroing, -mate),
        (Wdl::Draw, Wdl::Draw) => (0, 0),
        (_, _) => (zeroing, mate),
    };
    (
        wdl_rank(m.root_outcome),
        wdl_rank(m.root_category.wdl()),
        first,
        second,
    )
}

impl Tablebase {
    /// Every legal move of `pos`, ranked for play from its move count (`pos.halfmoves()`):
    /// the first keeps a win under the 50-move rule and mates fastest among the moves that
    /// do, keeps a draw, or resists a loss longest (see the module's documentation for why
    /// the game still ends). `repeated`: a position has repeated since the last capture or
    /// pawn move (least DTZ first then, so that none comes back a third time). A count of
    /// 100 or more leaves every move a draw (the rule can be claimed). Empty when the side
    /// to move has no move. Needs the tables' DTZ layers.
    pub fn probe_root_clock(
        &self,
        pos: &Position,
        repeated: bool,
    ) -> Result<Vec<PlayMove>, ProbeError> {
        self.check(pos)?;
        let clock = pos.halfmoves();
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        let mut out = Vec::with_capacity(list.len());
        for m in list.as_slice() {
            out.push(self.play_move(pos, m, clock)?);
        }
        out.sort_by_key(|m| Reverse(rank(m, repeated)));
        Ok(out)
    }

    /// Every legal move of `pos` with its distance to zeroing for the side playing it (the
    /// move counted, signed as `Dtz` is: 1 for a mate or a reset into a lost position), in
    /// the order the moves are generated: what Fathom's root probe reports of each move,
    /// without the distances to mate `probe_root_clock` reads too. Needs the tables' DTZ
    /// layers.
    pub fn probe_root_zeroing(&self, pos: &Position) -> Result<Vec<(Move, Dtz)>, ProbeError> {
        self.check(pos)?;
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        let valued = list.as_slice().iter().map(|m| {
            let after = pos.play(m);
            let dtz = if m.is_zeroing() {
                reset_value(Wdl5::from_code(self.code_any(&after)?))
            } else if after.is_checkmate() {
                Dtz(1)
            } else {
                after_quiet(self.zeroing_any(&after)?)
            };
            Ok((*m, dtz))
        });
        valued.collect()
    }

    /// `m`'s values from `pos` with the move count at `clock`.
    fn play_move(&self, pos: &Position, m: &Move, clock: u32) -> Result<PlayMove, ProbeError> {
        let after = pos.play(m);
        let (dtz, dtm) = if after.is_checkmate() {
            (Dtz(1), Dtm::Loss(0))
        } else if m.is_zeroing() {
            self.reset_pair(&after, |_| true)?
                .expect("every value kept")
        } else {
            let (dtz, dtm) = self.zeroing_and_mate(&after)?;
            (after_quiet(dtz), dtm)
        };
        // A mate counts as the reset it ends with: from a count of 100 it comes too late.
        let class = dtz.class_at(clock, false);
        Ok(PlayMove {
            mv: *m,
            root_outcome: class.fifty_move_outcome(),
            root_category: class,
            root_dtz: dtz,
            root_dtm: dtm.back(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Square;

    fn play(outcome: Wdl, class: Wdl5, dtz: i32, dtm: Dtm) -> PlayMove {
        let (from, to) = (Square::from_index(0), Square::from_index(1));
        let mv = Move::piece(crate::chess::Role::King, from, to, None);
        PlayMove {
            mv,
            root_outcome: outcome,
            root_category: class,
            root_dtz: Dtz(dtz),
            root_dtm: dtm,
        }
    }

    #[test]
    fn wins_rank_by_mate_then_by_zeroing_once_repeated() {
        let fast = play(Wdl::Win, Wdl5::Win, 40, Dtm::Win(21));
        let near = play(Wdl::Win, Wdl5::Win, 3, Dtm::Win(41));
        let spoilt = play(Wdl::Draw, Wdl5::CursedWin, 90, Dtm::Win(5));
        assert!(rank(&fast, false) > rank(&near, false));
        assert!(rank(&near, true) > rank(&fast, true));
        assert!(rank(&near, false) > rank(&spoilt, false));
        let draw = play(Wdl::Draw, Wdl5::Draw, 0, Dtm::Draw);
        let saved = play(Wdl::Draw, Wdl5::BlessedLoss, -120, Dtm::Loss(30));
        assert!(rank(&spoilt, false) > rank(&draw, false));
        assert!(rank(&draw, false) > rank(&saved, false));
        let long = play(Wdl::Loss, Wdl5::Loss, -60, Dtm::Loss(20));
        let short = play(Wdl::Loss, Wdl5::Loss, -10, Dtm::Loss(80));
        assert!(rank(&saved, false) > rank(&long, false));
        assert!(rank(&long, false) > rank(&short, false));
    }
}
