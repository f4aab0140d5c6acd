//! What the tables say of one chess position, read once under the names every face shows
//! (`retrobook probe`, the server's `/standard`, the page), so that a value means the same
//! wherever it appears. A move's report is that of the position it leads to, for the side
//! to move there, classed from the count before the move; the C API's root moves carry the
//! root's values through the move instead (`PlayMove`), under other names.

use super::error::ProbeError;
use super::tablebase::Tablebase;
use crate::chess::{Move, Position};
use crate::value::{Dtm, Dtz, Wdl, Wdl5};

/// A position's values, from its side to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PositionReport {
    /// Distance to mate, the 50-move rule aside.
    pub dtm: Dtm,
    /// Distance to zeroing with the move count at zero.
    pub dtz: Dtz,
    /// The class under the 50-move rule with the move count at zero.
    pub wdl50: Wdl5,
    /// The class under the rule from the move count (Lichess's `category`): the
    /// position's own count, or, for a position a move leads to, the count before the move
    /// (`Dtz::class_reached`).
    pub category: Wdl5,
    /// No legal move, in check.
    pub checkmate: bool,
    /// No legal move, not in check.
    pub stalemate: bool,
    /// Neither side has the material to mate.
    pub insufficient_material: bool,
    /// The position asked about, not one a move leads to.
    pub asked: bool,
}

impl PositionReport {
    /// The result with best play under the rule from the count: the category's, but a
    /// loss for the position asked about when it is mated, whatever its count (the game
    /// ended in mate; its category is a blessed loss once the count before the mate was
    /// 100, as Lichess classes it, and so is a move into mate from such a count).
    pub fn outcome(&self) -> Wdl {
        match self.checkmate && self.asked {
            true => Wdl::Loss,
            false => self.category.fifty_move_outcome(),
        }
    }
}

impl Tablebase {
    /// The report of `pos`, classed from its own move count.
    pub fn report(&self, pos: &Position) -> Result<PositionReport, ProbeError> {
        self.report_by(pos, None)
    }

    /// The report of the position `m` leads to from `pos`, for the side to move there,
    /// classed from `pos`'s count.
    pub fn report_after(&self, pos: &Position, m: &Move) -> Result<PositionReport, ProbeError> {
        self.report_by(&pos.play(m), Some(pos.halfmoves()))
    }

    fn report_by(&self, pos: &Position, before: Option<u32>) -> Result<PositionReport, ProbeError> {
        let stuck = !pos.has_legal_move();
        let checkmate = stuck && pos.is_check();
        let dtz = self.probe_dtz(pos)?;
        Ok(PositionReport {
            dtm: self.probe_dtm(pos)?,
            dtz,
            wdl50: self.probe_wdl5(pos)?,
            category: dtz.class_by(before, pos.halfmoves(), checkmate),
            checkmate,
            stalemate: stuck && !checkmate,
            insufficient_material: pos.is_insufficient_material(),
            asked: before.is_none(),
        })
    }
}
