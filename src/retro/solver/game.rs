//! What the solver asks of a game: its graph of positions and moves (`RetroGame`), and how
//! losses are found (`LossSearch`).

use crate::side::Side;
use crate::value::Dtm;
use std::ops::Range;

/// A move seen from the position it is played in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Successor {
    /// Leads to index `.0` of the other side to move, in this graph.
    Table(u64),
    /// Leaves the graph into a position of known value (from the view of the side to move
    /// there).
    Fixed(Dtm),
    /// Leads to a position the graph does not index, whose mover may either play on as in
    /// index `.0` or take an extra option of known value `.1` (chess: a double pawn push that
    /// gives an en-passant capture).
    Either(u64, Dtm),
}

/// A game graph the solver can analyse: positions numbered densely for each `Side` to move
/// (white: the side that moves first); a move always passes the turn.
pub trait RetroGame: Sync {
    /// Number of indices per side to move.
    fn size(&self) -> u64;

    /// Calls `f` for every move of position `idx` with `side` to move. Returns None if `idx`
    /// is not a legal position, otherwise the value the position has if it has no move at
    /// all (chess: mated or stalemated).
    fn successors(&self, side: Side, idx: u64, f: &mut impl FnMut(Successor)) -> Option<Dtm>;

    /// `successors`, but some `Table` moves may be counted instead of reported: those that
    /// lead to a position no other move of `idx` reaches. Returns the value without moves
    /// (as `successors`) and how many moves were only counted. The setup needs no more
    /// than the number of moves that stay inside the graph.
    fn successors_counted(
        &self,
        side: Side,
        idx: u64,
        f: &mut impl FnMut(Successor),
    ) -> Option<(Dtm, u32)> {
        self.successors(side, idx, f).map(|t| (t, 0))
    }

    /// `successors_counted` of `idx` with each side to move, the moves to `f` with their
    /// side: a game that finds a position's pieces once for both sides overrides it (the
    /// setup visits every index of both sides).
    fn successors_counted_both(
        &self,
        idx: u64,
        f: &mut impl FnMut(Side, Successor),
    ) -> [Option<(Dtm, u32)>; 2] {
        Side::ALL.map(|side| self.successors_counted(side, idx, &mut |s| f(side, s)))
    }

    /// Calls `f` for the moves of `idx` (a legal position) that `successors` reports as
    /// `Fixed`, and at least for those of its `Table` and `Either` moves that lead into an
    /// earlier part (`parts`): what the solver needs to find a position's best fixed move
    /// again. By default, every move.
    fn fixed_successors(&self, side: Side, idx: u64, f: &mut impl FnMut(Successor)) {
        self.successors(side, idx, f);
    }

    /// Calls `f` with the index and extra option of the `Table` and `Either` moves of `idx`
    /// (a legal position), as `successors` reports them but possibly repeated, until `f`
    /// returns false; true if it never did. Moves into earlier parts may be left out. The
    /// solver's checks (`LossSearch::Checks`) ask this of positions that may have lost,
    /// and stop at the first move that holds out: a game answers faster than `successors`,
    /// which values every move.
    fn moves_inside(
        &self,
        side: Side,
        idx: u64,
        f: &mut impl FnMut(u64, Option<Dtm>) -> bool,
    ) -> bool {
        let mut all = true;
        self.successors(side, idx, &mut |s| match s {
            Successor::Table(j) if all => all = f(j, None),
            Successor::Either(j, alt) if all => all = f(j, Some(alt)),
            _ => {}
        });
        all
    }

    /// Calls `f` for every legal position of the other side to move with a move into `idx`
    /// (a legal position: the solver asks only about positions it has found values for)
    /// that the successors of that position report as `Table(idx)` (alternative None) or
    /// `Either(idx, alt)` (alternative Some(alt)). Those of later parts (`parts`) may be
    /// left out: the solver does not use them.
    fn predecessors(&self, side: Side, idx: u64, f: &mut impl FnMut(u64, Option<Dtm>));

    /// Consecutive ranges of indices covering `0..size()`, such that every `Table` or
    /// `Either` move leads into the range of its position or an earlier one: the solver
    /// takes them in order (see the module doc). One range by default.
    fn parts(&self) -> Vec<Range<u64>> {
        std::iter::once(0..self.size()).collect()
    }
}

/// How the solver finds losses (see the module doc).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum LossSearch {
    /// A move counter per position and side (a byte): the faster.
    Counters,
    /// A mark bit per position and side, and forward checks: the smaller.
    Checks,
}
