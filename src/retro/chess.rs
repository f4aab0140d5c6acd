//! Chess as a `RetroGame`: positions of one material signature, numbered by its
//! `TableIndex`; captures and promotions leave into sub-tables, read through `SubTables`.
//!
//! En passant: tables do not index en-passant rights, so a double pawn push that lets the
//! opponent capture en passant is reported as `Successor::Either`: the opponent plays on as in
//! the indexed position, or takes the best en-passant capture (a sub-table value).

use super::solver::{RetroGame, Successor};
use crate::chess::{Color, MoveKind, MoveList, Position, Square, UnMoveKind};
use crate::index::TableIndex;
use crate::value::Dtm;
use std::sync::Mutex;

/// Values of positions outside the table being built (fewer pieces, or a pawn promoted).
pub trait SubTables: Sync {
    /// The value of `pos` (no en-passant right, no castling) for its side to move.
    fn value(&self, pos: &Position) -> Result<Dtm, String>;
}

/// One chess table as a game graph for the solver.
pub struct ChessGame<'a> {
    index: TableIndex,
    subtables: &'a dyn SubTables,
    error: Mutex<Option<String>>,
}

impl<'a> ChessGame<'a> {
    /// The graph of `index`'s material, reading conversions from `subtables`.
    pub fn new(index: TableIndex, subtables: &'a dyn SubTables) -> ChessGame<'a> {
        ChessGame { index, subtables, error: Mutex::new(None) }
    }

    /// The index this game numbers positions by.
    pub fn index(&self) -> &TableIndex {
        &self.index
    }

    /// The first sub-table failure met while solving, if any (the solution is then invalid).
    pub fn take_error(&self) -> Option<String> {
        self.error.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    fn sub_value(&self, pos: &Position) -> Dtm {
        match self.subtables.value(pos) {
            Ok(v) => v,
            Err(e) => {
                self.error.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(e);
                Dtm::Draw
            }
        }
    }

    /// Best value, for the side to move in `pos` (which has an en-passant square), of its
    /// legal en-passant captures, or None if it has none.
    fn en_passant_option(&self, pos: &Position) -> Option<Dtm> {
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        list.as_slice()
            .iter()
            .filter(|m| m.kind == MoveKind::EnPassant)
            .map(|m| self.sub_value(&pos.play(m)).back())
            .max()
    }

    /// A legal position of this table, or None.
    pub fn position(&self, side: usize, idx: u64) -> Option<Position> {
        let pos = self.index.decode(idx, Color::from_index(side))?;
        if pos.opponent_in_check() {
            None
        } else {
            Some(pos)
        }
    }

    fn encode(&self, pos: &Position) -> u64 {
        // Every position reached by a legal move keeps its kings apart, so it has an index.
        self.index.encode(pos).unwrap_or(0)
    }
}

impl RetroGame for ChessGame<'_> {
    fn size(&self) -> u64 {
        self.index.size()
    }

    fn successors(&self, side: usize, idx: u64, f: &mut dyn FnMut(Successor) -> bool) -> Option<Dtm> {
        let pos = self.position(side, idx)?;
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        for m in list.as_slice() {
            let after = pos.play(m);
            let s = if m.is_conversion() {
                Successor::Fixed(self.sub_value(&after))
            } else if m.kind == MoveKind::DoublePush {
                match self.en_passant_option(&after) {
                    Some(alt) => Successor::Either(self.encode(&after), alt),
                    None => Successor::Table(self.encode(&after)),
                }
            } else {
                Successor::Table(self.encode(&after))
            };
            if !f(s) {
                break;
            }
        }
        Some(if pos.is_check() { Dtm::Loss(0) } else { Dtm::Draw })
    }

    fn predecessors(&self, side: usize, idx: u64, f: &mut dyn FnMut(u64, Option<Dtm>)) {
        let Some(pos) = self.position(side, idx) else { return };
        pos.for_each_unmove(&[], false, |u, before| {
            let alt = if u.kind == UnMoveKind::DoublePush {
                let mut with_ep = pos;
                with_ep.set_ep_square(Square::new((u.from.index() + u.to.index()) as u32 / 2));
                self.en_passant_option(&with_ep)
            } else {
                None
            };
            self.index.for_each_encoding(&before, |i| f(i, alt));
        });
    }
}
