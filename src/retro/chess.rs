//! Chess as a `RetroGame`: positions of one material signature, numbered by its
//! `TableIndex`; captures and promotions leave into sub-tables, read through `SubTables`.
//!
//! Moves and un-moves inside the table change one part of the index: the square (or the
//! rank of the set of squares) of the piece moved, or the king pair when a king moves and
//! needs no symmetry, so most successors and predecessors are found by index arithmetic
//! (`TableIndex::step`); the others, and every conversion, by building the position.
//!
//! En passant: tables do not index en-passant rights, so a double pawn push that lets the
//! opponent capture en passant is reported as `Successor::Either`: the opponent plays on as in
//! the indexed position, or takes the best en-passant capture (a sub-table value).

use super::first_error::FirstError;
use super::solver::{RetroGame, Successor};
use crate::chess::{Bitboard, Move, MoveKind, MoveList, Piece, Position, Role, Square, UnMove};
use crate::index::TableIndex;
use crate::side::Side;
use crate::value::{Dtm, Wdl5};
use arrayvec::ArrayVec;

/// A position's moves or un-moves inside a table, with their extra options: fewer than
/// 256, as chess positions have fewer moves (and no more un-moves without un-captures).
type Entries = ArrayVec<(u64, Option<Dtm>), 256>;

/// Move buffers on the stack, so that collecting moves allocates nothing.
pub(super) struct Scratch {
    pub(super) list: Entries,
    /// Entries whose index `encode` found, not index arithmetic, until `merge_equal`.
    encoded: Entries,
}

impl Scratch {
    pub(super) fn new() -> Scratch {
        Scratch {
            list: ArrayVec::new(),
            encoded: ArrayVec::new(),
        }
    }

    /// Empties both lists.
    fn clear(&mut self) {
        self.list.clear();
        self.encoded.clear();
    }

    /// Adds an index (and whether `encode` found it) with its extra option.
    #[inline]
    pub(super) fn push(&mut self, (idx, encoded): (u64, bool), alt: Option<Dtm>) {
        if encoded {
            self.encoded.push((idx, alt));
        } else {
            self.list.push((idx, alt));
        }
    }

    /// Moves the encoded entries to `list`, merging entries of equal index where moves may
    /// meet (`TableIndex::moves_may_meet_at`): without pawns, a symmetry can map two moves'
    /// positions onto one index, and the solver counts each position once. Only indices
    /// that `encode` found can coincide with another (index arithmetic keeps distinct
    /// positions in one orientation), and they are few: each is looked for in the list.
    pub(super) fn merge_equal(&mut self, merge: bool) {
        for &(idx, alt) in &self.encoded {
            if !(merge && self.list.iter().any(|e| e.0 == idx)) {
                self.list.push((idx, alt));
            }
        }
        self.encoded.clear();
    }

    /// True when an index `encode` found has the king pair of `idx`: only such a position
    /// can coincide with one that index arithmetic reaches from `idx` by a move of a piece
    /// other than a king.
    fn meets_kings_of(&self, idx: u64, index: &TableIndex) -> bool {
        self.encoded
            .iter()
            .any(|&(j, _)| index.same_king_pair(j, idx))
    }
}

/// Values of positions outside the table being built (fewer pieces, or a pawn promoted).
pub trait SubTables: Sync {
    /// Why a value could not be read (the tables' own error: the solver only hands it on).
    type Error: Send;

    /// The value of `pos` (no en-passant right, no castling) for its side to move.
    fn value(&self, pos: &Position) -> Result<Dtm, Self::Error>;

    /// `value` with its class under the 50-move rule, the move count starting at zero.
    fn value50(&self, pos: &Position) -> Result<(Dtm, Wdl5), Self::Error>;
}

/// A legal position of a table with its index, and its kings where index arithmetic
/// applies to its moves (`TableIndex::steps_apply`).
pub(super) struct Placed {
    pub(super) idx: u64,
    pub(super) pos: Position,
    steps: Option<(Square, Square)>,
}

/// One chess table as a game graph for the solver, its sub-tables failing with `E`.
pub struct ChessGame<'a, E = std::convert::Infallible> {
    index: TableIndex,
    subtables: &'a (dyn SubTables<Error = E> + 'a),
    error: FirstError<E>,
}

impl<'a, E: Send> ChessGame<'a, E> {
    /// The graph of `index`'s material, reading conversions from `subtables`.
    pub fn new(index: TableIndex, subtables: &'a (dyn SubTables<Error = E> + 'a)) -> Self {
        ChessGame {
            index,
            subtables,
            error: FirstError::new(),
        }
    }

    /// The index this game numbers positions by.
    pub fn index(&self) -> &TableIndex {
        &self.index
    }

    /// The first sub-table failure met while solving, if any (the solution is then invalid).
    pub fn take_error(&self) -> Option<E> {
        self.error.take()
    }

    fn sub_value(&self, pos: &Position) -> Dtm {
        self.error.or(self.subtables.value(pos), Dtm::Draw)
    }

    /// The value of a position of a sub-table with its class under the 50-move rule.
    pub(super) fn sub_value50(&self, pos: &Position) -> (Dtm, Wdl5) {
        self.error
            .or(self.subtables.value50(pos), (Dtm::Draw, Wdl5::Draw))
    }

    /// Best value, for the side to move in `pos` (which has an en-passant square), of its
    /// legal en-passant captures, each valued by `value` from the mover's view, or None if
    /// it has none.
    pub(super) fn best_en_passant<T: Ord>(
        &self,
        pos: &Position,
        value: impl Fn(&Position) -> T,
    ) -> Option<T> {
        pos.en_passant_moves().map(|m| value(&pos.play(&m))).max()
    }

    /// The class under the 50-move rule, for the opponent, of the position after `m`, a
    /// move of `at` that resets the count: a conversion (read from the sub-tables), or a
    /// pawn move inside the table (`class` of the index it leads to, in an earlier part);
    /// after a double push the opponent may take en passant, itself a reset.
    pub(super) fn reset_class(
        &self,
        at: &Placed,
        m: &Move,
        class: impl Fn(Side, u64) -> Wdl5,
    ) -> Wdl5 {
        let pos = &at.pos;
        if m.is_conversion() {
            return self.sub_value50(&pos.play(m)).1;
        }
        let mut c = class(!pos.turn(), self.moved_index(at, m).0);
        if m.kind == MoveKind::DoublePush {
            let ep = self.best_en_passant(&pos.play(m), |after| self.sub_value50(after).1.back());
            c = c.max(ep.unwrap_or(c));
        }
        c
    }

    fn en_passant_option(&self, pos: &Position) -> Option<Dtm> {
        self.best_en_passant(pos, |after| self.sub_value(after).back())
    }

    /// A legal position of this table, or None.
    pub fn position(&self, side: Side, idx: u64) -> Option<Position> {
        self.index.legal(idx, side)
    }

    /// A legal position of this table with its index, or None.
    pub(super) fn placed(&self, side: Side, idx: u64) -> Option<Placed> {
        self.place(idx, self.position(side, idx)?)
    }

    /// The position of `idx`, which the caller knows to be legal (the solver takes back
    /// moves only into positions it found values for), with its index: the legality
    /// tests of `placed` are skipped.
    pub(super) fn placed_legal(&self, side: Side, idx: u64) -> Option<Placed> {
        let pos = self.index.decode(idx, side)?;
        debug_assert!(self.index.legal(idx, pos.turn()).is_some(), "{idx}");
        self.place(idx, pos)
    }

    /// `pos`, the legal position of index `idx`, with its index.
    fn place(&self, idx: u64, pos: Position) -> Option<Placed> {
        let kings = (pos.king(Side::White)?, pos.king(Side::Black)?);
        Some(Placed {
            idx,
            pos,
            steps: self.index.steps_apply(kings.0, kings.1).then_some(kings),
        })
    }

    /// The index of `at` after its `color` piece of `role` went from `from` to the empty
    /// square `to`, by index arithmetic where the index allows it.
    #[inline]
    fn step(&self, at: &Placed, color: Side, role: Role, from: Square, to: Square) -> Option<u64> {
        let (wk, bk) = at.steps?;
        if role == Role::King {
            let other = if color == Side::White { bk } else { wk };
            return self.index.king_step(at.idx, color, to, other);
        }
        let before = at.pos.pieces(color, role);
        self.index
            .step(at.idx, Piece { color, role }, before, from, to)
    }

    /// The index of the position the quiet move `m` of `at` leads to, and whether `encode`
    /// found it (see `Scratch::merge_equal`).
    #[inline]
    pub(super) fn moved_index(&self, at: &Placed, m: &Move) -> (u64, bool) {
        match self.step(at, at.pos.turn(), m.role, m.from, m.to) {
            Some(j) => (j, false),
            None => (self.encode(&at.pos.play(m)), true),
        }
    }

    /// Calls `f` with the index of `at` after its `color` piece of `role` went from `from` to
    /// each empty square of `squares` (a quiet move, or un-move, that passes the turn), and
    /// whether `encode` found it (see `Scratch::merge_equal`), until `f` returns false; true
    /// if it never did. A lone piece away from a diagonal pair of kings moves its index by
    /// its stride per square (`TableIndex::step`) and a king's steps share the index less its
    /// king pair, with no position built; the others are stepped or encoded one by one.
    fn piece_indices(
        &self,
        at: &Placed,
        color: Side,
        role: Role,
        from: Square,
        squares: Bitboard,
        f: &mut impl FnMut(u64, bool) -> bool,
    ) -> bool {
        let stride = match (role, at.steps) {
            (Role::King, _) | (_, None) => None,
            _ => self.index.lone_stride(Piece { color, role }),
        };
        if let Some(stride) = stride {
            let base = at.idx.wrapping_sub(from.index() as u64 * stride);
            return squares
                .into_iter()
                .all(|to| f(base.wrapping_add(to.index() as u64 * stride), false));
        }
        let kings = match (role, at.steps) {
            (Role::King, Some((wk, bk))) => {
                let other = if color == Side::White { bk } else { wk };
                Some(self.index.king_steps(at.idx, color, other))
            }
            _ => None,
        };
        squares.into_iter().all(|to| {
            let stepped = match &kings {
                Some(k) => k.to(to),
                None => self.step(at, color, role, from, to),
            };
            match stepped {
                Some(i) => f(i, false),
                None => {
                    let after = if color == at.pos.turn() {
                        at.pos.play(&Move::piece(role, from, to, None))
                    } else {
                        at.pos.unplay(&UnMove::quiet(role, from, to))
                    };
                    f(self.encode(&after), true)
                }
            }
        })
    }

    /// Calls `f` once for each index that a quiet un-move of a piece (not a pawn: those
    /// lead into later parts) takes `at` back to and that `keep` accepts, in the order of
    /// `Position::for_each_unmove`. Indices found by index arithmetic go to `f` at once,
    /// those `encode` found after them, each unless an index already given was the same
    /// (see `Scratch::merge_equal`).
    pub(super) fn unmoved_indices(
        &self,
        at: &Placed,
        keep: impl Fn(u64) -> bool,
        f: &mut impl FnMut(u64),
    ) {
        let merge = self.index.moves_may_meet_at(&at.pos, at.pos.turn());
        let mut given: ArrayVec<u64, 256> = ArrayVec::new();
        let mut encoded: ArrayVec<u64, 256> = ArrayVec::new();
        let mover = !at.pos.turn();
        let mut give = |given: &mut ArrayVec<u64, 256>, i: u64| {
            if merge {
                given.push(i);
            }
            f(i);
        };
        at.pos.for_each_quiet_unmove_set(|role, from, squares| {
            self.piece_indices(at, mover, role, from, squares, &mut |i, by_encoding| {
                match (keep(i), by_encoding) {
                    (false, _) => {}
                    (true, false) => give(&mut given, i),
                    (true, true) => encoded.push(i),
                }
                true
            });
        });
        for &i in &encoded {
            if !(merge && given.contains(&i)) {
                give(&mut given, i);
            }
        }
    }

    /// Reports the legal moves `moves` of `at` to `f` (see `RetroGame::successors`):
    /// conversions by their sub-table values, the others by index, equal indices merged.
    fn report_moves(&self, at: &Placed, moves: &MoveList, f: &mut impl FnMut(Successor)) {
        let mut inside = Scratch::new();
        let merge = self.moves_may_meet(at);
        self.inside_moves(at, moves, merge, false, true, &mut inside);
        self.report(at, moves, &inside, f);
    }

    /// Reports to `f` the conversions among `moves` by their sub-table values, then the
    /// moves inside the table `inside` holds (`inside_moves`).
    fn report(
        &self,
        at: &Placed,
        moves: &MoveList,
        inside: &Scratch,
        f: &mut impl FnMut(Successor),
    ) {
        for m in moves.as_slice().iter().filter(|m| m.is_conversion()) {
            f(Successor::Fixed(self.sub_value(&at.pos.play(m))));
        }
        for &(j, alt) in &inside.list {
            f(match alt {
                Some(a) => Successor::Either(j, a),
                None => Successor::Table(j),
            });
        }
    }

    /// Puts in `inside.list` the indices the moves `moves` of `at` that are not conversions
    /// lead to, equal ones merged where moves may `merge` (`moves_may_meet`), each with the value of the opponent's best en-passant
    /// capture after it where `options` asks for it (a sub-table read). With
    /// `others_counted`, false, `inside` unfinished, when one of them may lead where a move
    /// counted by index arithmetic does: a king move that needs a symmetry (`encode`) yet
    /// leaves the kings where they stand. (Filled in place: the lists are kilobytes.)
    fn inside_moves(
        &self,
        at: &Placed,
        moves: &MoveList,
        merge: bool,
        others_counted: bool,
        options: bool,
        inside: &mut Scratch,
    ) -> bool {
        let pos = &at.pos;
        for m in moves.as_slice().iter().filter(|m| !m.is_conversion()) {
            let alt = match m.kind {
                MoveKind::DoublePush if options => self.en_passant_option(&pos.play(m)),
                _ => None,
            };
            inside.push(self.moved_index(at, m), alt);
        }
        if merge && others_counted && inside.meets_kings_of(at.idx, &self.index) {
            return false;
        }
        inside.merge_equal(merge);
        true
    }

    /// The number of quiet king moves of `at`, to the squares `to`, when no two of them
    /// lead to one index and none to an index that a move of another piece reaches;
    /// otherwise 0, the moves appended to `list` to be reported one by one. The setup
    /// needs only their number, and an index found by `encode` (a king move that needs a
    /// symmetry) costs far more than the king pair's number, which differs wherever
    /// indices differ. Called only where moves may meet (`moves_may_meet`).
    fn count_king_moves(&self, at: &Placed, to: Bitboard, list: &mut MoveList) -> u32 {
        // Only called where index arithmetic applies, so the kings are known.
        let Some((wk, bk)) = at.steps else {
            return 0;
        };
        let white = at.pos.turn() == Side::White;
        let (mover, other) = if white {
            (Side::White, bk)
        } else {
            (Side::Black, wk)
        };
        let scheme = self.index.king_pairs();
        let king = if white { wk } else { bk };
        if (to & !scheme.canonical_squares(mover, other)).is_empty()
            || scheme.steps_apart(mover, other).contains(king)
        {
            // Pairs each of its own number, none the pair the kings stand in.
            return to.count();
        }
        let kings_after = |sq: Square| if white { (sq, bk) } else { (wk, sq) };
        // The pair of the other pieces' moves first, then each king move's (at most 8).
        let mut pairs = [self.index.king_pair_number(wk, bk); 9];
        for (n, sq) in to.into_iter().enumerate() {
            let (w, b) = kings_after(sq);
            let pair = self.index.king_pair_number(w, b);
            if pair.is_none() || pairs[..=n].contains(&pair) {
                for sq in to {
                    list.push(Move::piece(Role::King, king, sq, None));
                }
                return 0;
            }
            pairs[n + 1] = pair;
        }
        to.count()
    }

    /// The value of `pos`, the legal position of index `idx`, by a one-ply search: the best
    /// of its moves, those inside the table valued by `inside` (the value of an index with the
    /// other side to move), the others by the sub-tables; mate or stalemate without moves
    /// (None only where the kings are missing). Index arithmetic finds the moves'
    /// indices, so this costs far less than looking each position up by its material.
    ///
    /// The quiet moves of the pieces come as sets of squares (`piece_indices`), with no move
    /// listed, filtered or played: a maximum needs no merging of equal indices.
    pub fn one_ply(&self, idx: u64, pos: &Position, inside: impl Fn(u64) -> Dtm) -> Option<Dtm> {
        let at = self.place(idx, *pos)?;
        let mut best: Option<Dtm> = None;
        let mut list = MoveList::new();
        let mover = at.pos.turn();
        at.pos
            .legal_moves_by_quiet_sets(&mut list, |role, from, squares| {
                self.piece_indices(&at, mover, role, from, squares, &mut |j, _| {
                    best = best.max(Some(inside(j).back()));
                    true
                });
            });
        self.report_moves(&at, &list, &mut |s| {
            let after = match s {
                Successor::Table(j) => inside(j),
                Successor::Fixed(d) => d,
                // The mover there may also take en passant.
                Successor::Either(j, alt) => inside(j).max(alt),
            };
            best = best.max(Some(after.back()));
        });
        Some(best.unwrap_or_else(|| Dtm::without_moves(at.pos.is_check())))
    }

    /// `RetroGame::successors` of a placed position.
    fn successors_of(&self, at: &Placed, f: &mut impl FnMut(Successor)) -> Dtm {
        let mut list = MoveList::new();
        at.pos.legal_moves(&mut list);
        self.report_moves(at, &list, f);
        Dtm::without_moves(at.pos.is_check())
    }

    /// `RetroGame::successors_counted` of a placed position.
    fn counted_of(&self, at: Placed, f: &mut impl FnMut(Successor)) -> Option<(Dtm, u32)> {
        let (mut list, mut inside) = (MoveList::new(), Scratch::new());
        let counted = self.counted_and_inside(&at, true, &mut list, &mut inside);
        self.report(&at, &list, &inside, f);
        Some((Dtm::without_moves(at.pos.is_check()), counted))
    }

    /// The number of positions that the quiet moves of the legal position `idx` lead to and
    /// `keep` accepts, each index once, as `successors_counted` counts and reports them,
    /// with no sub-table read: a loser of the zeroing search waits for them alone. The
    /// caller knows `idx` to be legal (it has a value): its legality is not tested again.
    pub(super) fn quiet_successors(&self, side: Side, idx: u64, keep: impl Fn(u64) -> bool) -> u32 {
        let Some(at) = self.placed_legal(side, idx) else {
            return 0;
        };
        let (mut list, mut inside) = (MoveList::new(), Scratch::new());
        let counted = self.counted_and_inside(&at, false, &mut list, &mut inside);
        counted + inside.list.iter().filter(|e| keep(e.0)).count() as u32
    }

    /// The legal moves of `at` to `list`, and in `inside` the indices of those that are
    /// not conversions (`inside_moves`, with `options`), the moves index arithmetic
    /// counts only counted, unless one listed may lead where one of them does: then every
    /// move is listed. The number counted.
    fn counted_and_inside(
        &self,
        at: &Placed,
        options: bool,
        list: &mut MoveList,
        inside: &mut Scratch,
    ) -> u32 {
        let merge = self.moves_may_meet(at);
        let counted = self.count_quiet(at, merge, list);
        if self.inside_moves(at, list, merge, counted > 0, options, inside) {
            return counted;
        }
        at.pos.legal_moves(list);
        inside.clear();
        self.inside_moves(at, list, merge, false, options, inside);
        0
    }

    /// Whether two quiet moves of `at` may lead to one index
    /// (`TableIndex::moves_may_meet_at`), asked once per position.
    fn moves_may_meet(&self, at: &Placed) -> bool {
        self.index.moves_may_meet_at(&at.pos, !at.pos.turn())
    }

    /// The legal moves of `at`, those whose positions no other move reaches only counted,
    /// the others to `list`: the number counted. Where moves may `merge`, only index
    /// arithmetic tells such moves apart (`count_king_moves`); without it, none is counted.
    fn count_quiet(&self, at: &Placed, merge: bool, list: &mut MoveList) -> u32 {
        if merge && at.steps.is_none() {
            at.pos.legal_moves(list);
            return 0;
        }
        let (counted, king_to) = at.pos.legal_moves_counting_quiet(list);
        counted
            + match merge {
                true => self.count_king_moves(at, king_to, list),
                false => king_to.count(),
            }
    }

    pub(super) fn encode(&self, pos: &Position) -> u64 {
        // Every position reached by a legal move keeps its kings apart, so it has an index.
        self.index.encode(pos).unwrap_or(0)
    }
}

impl<E: Send> RetroGame for ChessGame<'_, E> {
    fn size(&self) -> u64 {
        self.index.size()
    }

    fn successors(&self, side: Side, idx: u64, f: &mut impl FnMut(Successor)) -> Option<Dtm> {
        Some(self.successors_of(&self.placed(side, idx)?, f))
    }

    fn successors_counted(
        &self,
        side: Side,
        idx: u64,
        f: &mut impl FnMut(Successor),
    ) -> Option<(Dtm, u32)> {
        self.counted_of(self.placed(side, idx)?, f)
    }

    /// Decodes `idx` once: the pieces stand alike for both sides to move.
    fn successors_counted_both(
        &self,
        idx: u64,
        f: &mut impl FnMut(Side, Successor),
    ) -> [Option<(Dtm, u32)>; 2] {
        let pieces = self.index.decode(idx, Side::White);
        Side::ALL.map(|side| {
            let mut pos = pieces?;
            pos.set_turn(side);
            if !self.index.is_legal(idx, &pos) {
                return None;
            }
            self.counted_of(self.place(idx, pos)?, &mut |s| f(side, s))
        })
    }

    fn fixed_successors(&self, side: Side, idx: u64, f: &mut impl FnMut(Successor)) {
        let Some(at) = self.placed_legal(side, idx) else {
            return;
        };
        let mut list = MoveList::new();
        if self.index.material().has_pawns() {
            // Pawn moves lead into earlier parts.
            at.pos.legal_moves(&mut list);
            list.retain(|m| m.is_conversion() || m.role == Role::Pawn);
        } else {
            at.pos.conversion_moves(&mut list);
        }
        self.report_moves(&at, &list, f);
    }

    fn parts(&self) -> Vec<std::ops::Range<u64>> {
        self.index.parts()
    }

    fn moves_inside(
        &self,
        side: Side,
        idx: u64,
        f: &mut impl FnMut(u64, Option<Dtm>) -> bool,
    ) -> bool {
        let Some(at) = self.placed_legal(side, idx) else {
            return true;
        };
        // Captures and promotions leave the table, and the other pawn moves lead into
        // earlier parts: the quiet moves of the pieces are all that is asked.
        let (mut list, mut all) = (MoveList::new(), true);
        let mover = at.pos.turn();
        at.pos
            .legal_moves_by_quiet_sets(&mut list, |role, from, squares| {
                all = all
                    && self.piece_indices(&at, mover, role, from, squares, &mut |j, _| f(j, None));
            });
        all
    }

    fn predecessors(&self, side: Side, idx: u64, f: &mut impl FnMut(u64, Option<Dtm>)) {
        // No predecessor has an extra option: only a double pawn push gives one, and pawn
        // un-moves lead into later parts.
        if let Some(at) = self.placed_legal(side, idx) {
            self.unmoved_indices(&at, |_| true, &mut |i| f(i, None));
        }
    }
}

/// Every conversion draws: for tests that look at the moves inside a table only.
#[cfg(test)]
pub(crate) struct AllDrawn;

#[cfg(test)]
impl SubTables for AllDrawn {
    type Error = std::convert::Infallible;
    fn value(&self, _: &Position) -> Result<Dtm, Self::Error> {
        Ok(Dtm::Draw)
    }
    fn value50(&self, _: &Position) -> Result<(Dtm, Wdl5), Self::Error> {
        Ok((Dtm::Draw, Wdl5::Draw))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retro::solver::Successor;

    fn inside(game: &ChessGame, side: Side, idx: u64) -> Option<Vec<u64>> {
        let mut out = Vec::new();
        game.successors(side, idx, &mut |s| match s {
            Successor::Table(j) | Successor::Either(j, _) => out.push(j),
            Successor::Fixed(_) => {}
        })?;
        out.sort_unstable();
        Some(out)
    }

    fn before(game: &ChessGame, side: Side, idx: u64) -> Vec<u64> {
        let mut out = Vec::new();
        game.predecessors(side, idx, &mut |i, _| out.push(i));
        out.sort_unstable();
        out
    }

    /// The moves inside the table as plain move generation and `encode` give them.
    fn by_encoding(game: &ChessGame, side: Side, idx: u64) -> Option<Vec<u64>> {
        let pos = game.position(side, idx)?;
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        let mut out: Vec<u64> = list
            .as_slice()
            .iter()
            .filter(|m| !m.is_conversion())
            .map(|m| game.encode(&pos.play(m)))
            .collect();
        out.sort_unstable();
        if game.index().moves_may_meet() {
            out.dedup();
        }
        Some(out)
    }

    /// The setup's counting reports what `successors` reports, some moves only counted;
    /// `fixed_successors` reports its conversions and its moves into earlier parts.
    #[test]
    fn counted_successors_agree_with_listed_ones() {
        for (sig, sample) in [
            ("KRvK", 1),
            ("KQvK", 1),
            ("KRRvK", 7),
            ("KBNvK", 7),
            ("KQvKR", 11),
            ("KPvKP", 5),
        ] {
            let game = ChessGame::new(TableIndex::new(sig.parse().unwrap()), &AllDrawn);
            let parts = game.parts();
            let part = |i: u64| parts.iter().position(|p| p.contains(&i));
            let mut counted_in_all = 0;
            for side in Side::ALL {
                for idx in (0..game.size()).step_by(sample) {
                    let mut listed = Vec::new();
                    let whole = game.successors(side, idx, &mut |s| listed.push(s));
                    let mut reported = Vec::new();
                    let counted = game.successors_counted(side, idx, &mut |s| reported.push(s));
                    assert_eq!(whole, counted.map(|c| c.0), "{sig} {side:?} {idx}");
                    let counted = counted.map_or(0, |c| c.1);
                    if whole.is_some() {
                        let mut fixed = Vec::new();
                        game.fixed_successors(side, idx, &mut |s| fixed.push(s));
                        let leaves = |s: &&Successor| match s {
                            Successor::Fixed(_) => true,
                            Successor::Table(j) | Successor::Either(j, _) => part(*j) < part(idx),
                        };
                        let mut wanted: Vec<_> = listed.iter().filter(leaves).collect();
                        let mut found: Vec<_> = fixed.iter().filter(leaves).collect();
                        wanted.sort_by_key(|s| format!("{s:?}"));
                        found.sort_by_key(|s| format!("{s:?}"));
                        assert_eq!(wanted, found, "{sig} {side:?} {idx}");
                        assert!(fixed.iter().all(|s| listed.contains(s)), "{sig} {idx}");
                        // The zeroing search's count: the moves that stay in the part.
                        let stays = |s: &&Successor| match s {
                            Successor::Fixed(_) => false,
                            Successor::Table(j) | Successor::Either(j, _) => part(*j) == part(idx),
                        };
                        assert_eq!(
                            game.quiet_successors(side, idx, |j| part(j) == part(idx)) as usize,
                            listed.iter().filter(stays).count(),
                            "{sig} {side:?} {idx}"
                        );
                    }
                    assert!(reported.iter().all(|s| listed.contains(s)), "{sig} {idx}");
                    assert_eq!(
                        reported.len() + counted as usize,
                        listed.len(),
                        "{sig} {side:?} {idx}"
                    );
                    counted_in_all += counted;
                }
            }
            // Both sides at once: what each side alone gives, in the same order.
            for idx in (0..game.size()).step_by(sample) {
                let mut each = [Vec::new(), Vec::new()];
                let alone = Side::ALL.map(|side| {
                    game.successors_counted(side, idx, &mut |s| each[side.index()].push(s))
                });
                let mut both = [Vec::new(), Vec::new()];
                let found =
                    game.successors_counted_both(idx, &mut |side, s| both[side.index()].push(s));
                assert_eq!((alone, &each), (found, &both), "{sig} {idx}");
            }
            assert!(counted_in_all > 0 || sig == "KPvKP", "{sig}");
        }
    }

    /// The one-ply search over sets of squares finds the best of the moves `successors`
    /// lists one by one, mate and stalemate included.
    #[test]
    fn one_ply_is_the_best_listed_move() {
        // A value for every index, varied enough that a missed move shows.
        let inside = |j: u64| match crate::testing::xorshift(j + 1)() % 5 {
            0 => Dtm::Draw,
            1 | 2 => Dtm::from_plies((j % 40) as u32 * 2 + 1),
            _ => Dtm::from_plies((j % 40) as u32 * 2 + 2),
        };
        for (sig, sample) in [("KQvKR", 13), ("KRRvK", 11), ("KBNvK", 7), ("KPvKP", 3)] {
            let game = ChessGame::new(TableIndex::new(sig.parse().unwrap()), &AllDrawn);
            let mut checked = 0;
            for side in Side::ALL {
                for idx in (0..game.size()).step_by(sample) {
                    let Some(pos) = game.position(side, idx) else {
                        continue;
                    };
                    let mut best: Option<Dtm> = None;
                    let terminal = game.successors(side, idx, &mut |s| {
                        let after = match s {
                            Successor::Table(j) => inside(j),
                            Successor::Fixed(d) => d,
                            Successor::Either(j, alt) => inside(j).max(alt),
                        };
                        best = best.max(Some(after.back()));
                    });
                    let wanted = best.or(terminal);
                    assert_eq!(
                        game.one_ply(idx, &pos, inside),
                        wanted,
                        "{sig} {side:?} {idx}"
                    );
                    checked += 1;
                }
            }
            assert!(checked > 1000, "{sig}: {checked}");
        }
    }

    /// The moves a check looks at are the moves inside the position's own part that
    /// `successors` lists (repeats aside), and the first refusal stops them.
    #[test]
    fn moves_inside_are_the_moves_within_the_part() {
        for (sig, sample) in [("KQvKR", 7), ("KBNvK", 5), ("KRRvK", 5), ("KRvKP", 3)] {
            let game = ChessGame::new(TableIndex::new(sig.parse().unwrap()), &AllDrawn);
            let parts = game.parts();
            let part = |i: u64| parts.iter().position(|p| p.contains(&i));
            let mut stopped = 0;
            for side in Side::ALL {
                for idx in (0..game.size()).step_by(sample) {
                    let Some(mut listed) = inside(&game, side, idx) else {
                        continue;
                    };
                    listed.retain(|&j| part(j) == part(idx));
                    listed.dedup();
                    let mut asked = Vec::new();
                    assert!(game.moves_inside(side, idx, &mut |j, _| {
                        asked.push(j);
                        true
                    }));
                    asked.sort_unstable();
                    asked.dedup();
                    assert_eq!(asked, listed, "{sig} {side:?} {idx}");
                    let mut calls = 0;
                    let all = game.moves_inside(side, idx, &mut |_, _| {
                        calls += 1;
                        false
                    });
                    assert_eq!(
                        (all, calls),
                        (listed.is_empty(), usize::from(!listed.is_empty()))
                    );
                    stopped += usize::from(!all);
                }
            }
            assert!(stopped > 1000, "{sig}: {stopped}");
        }
    }

    /// Index arithmetic gives the indices `encode` gives, and the predecessors of a
    /// position are exactly the positions of its part whose moves reach it: checked on every index of
    /// three-piece tables and on samples of four-piece ones (identical pieces, pawns with
    /// double pushes and en passant, both kings on the diagonal).
    #[test]
    fn moves_and_unmoves_agree_with_encoding() {
        for (sig, sample) in [
            ("KRvK", 1),
            ("KPvK", 1),
            ("KRRvK", 97),
            ("KBNvK", 89),
            ("KQvKR", 101),
            ("KPvKP", 53),
            ("KPPvK", 61),
        ] {
            let game = ChessGame::new(TableIndex::new(sig.parse().unwrap()), &AllDrawn);
            let n = game.size();
            let parts = game.parts();
            let part = |i: u64| parts.iter().position(|p| p.contains(&i));
            let mut checked = 0;
            for side in Side::ALL {
                for idx in (0..n).step_by(sample) {
                    // Predecessors are asked of legal positions only.
                    let Some(succ) = inside(&game, side, idx) else {
                        continue;
                    };
                    assert_eq!(Some(&succ), by_encoding(&game, side, idx).as_ref(), "{sig}");
                    for &j in &succ {
                        // Un-moves from later parts (pawn moves) are left to them.
                        if part(j) < part(idx) {
                            continue;
                        }
                        assert_eq!(part(j), part(idx), "{sig} {idx}->{j}");
                        assert!(before(&game, !side, j).contains(&idx), "{sig} {idx}->{j}");
                    }
                    for i in before(&game, side, idx) {
                        let theirs = inside(&game, !side, i).expect("a legal predecessor");
                        assert!(theirs.contains(&idx), "{sig} {i}->{idx}");
                    }
                    checked += 1;
                }
            }
            assert!(checked > 1000, "{sig}: {checked} positions");
        }
    }
}
