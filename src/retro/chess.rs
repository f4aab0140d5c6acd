//! Chess as a `RetroGame`: positions of one material signature, numbered by its
//! `TableIndex`; captures and promotions leave into sub-tables, read through `SubTables`.
//!
//! En passant: tables do not index en-passant rights, so a double pawn push that lets the
//! opponent capture en passant is reported as `Successor::Either`: the opponent plays on as in
//! the indexed position, or takes the best en-passant capture (a sub-table value).

use super::solver::{RetroGame, Successor};
use crate::chess::{Color, MoveKind, MoveList, Position, UnMoveKind};
use crate::index::TableIndex;
use crate::value::{Dtm, Wdl5};
use std::cell::Cell;
use std::sync::Mutex;

thread_local! {
    /// A reusable buffer per thread, so that collecting moves allocates only once.
    static SCRATCH: Cell<Vec<(u64, Option<Dtm>)>> = const { Cell::new(Vec::new()) };
}

/// The calling thread's move buffer, empty, given back when dropped.
pub(super) struct Scratch(pub(super) Vec<(u64, Option<Dtm>)>);

impl Scratch {
    pub(super) fn take() -> Scratch {
        let mut buf = SCRATCH.take();
        buf.clear();
        Scratch(buf)
    }

    /// Merges entries of equal index (see the module doc on multiplicity).
    pub(super) fn merge_equal(&mut self) {
        self.0.sort_unstable_by_key(|e| e.0);
        self.0.dedup_by_key(|e| e.0);
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        SCRATCH.set(std::mem::take(&mut self.0));
    }
}

/// Values of positions outside the table being built (fewer pieces, or a pawn promoted).
pub trait SubTables: Sync {
    /// The value of `pos` (no en-passant right, no castling) for its side to move.
    fn value(&self, pos: &Position) -> Result<Dtm, String>;

    /// `value` with its class under the 50-move rule, the move count starting at zero.
    fn value50(&self, pos: &Position) -> Result<(Dtm, Wdl5), String>;
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
        ChessGame {
            index,
            subtables,
            error: Mutex::new(None),
        }
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
        self.or_note(self.subtables.value(pos), Dtm::Draw)
    }

    /// The value of a position of a sub-table with its class under the 50-move rule.
    pub(super) fn sub_value50(&self, pos: &Position) -> (Dtm, Wdl5) {
        self.or_note(self.subtables.value50(pos), (Dtm::Draw, Wdl5::Draw))
    }

    /// `r`'s value, or `fallback` after noting the error for `take_error`.
    fn or_note<T>(&self, r: Result<T, String>, fallback: T) -> T {
        r.unwrap_or_else(|e| {
            self.error
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get_or_insert(e);
            fallback
        })
    }

    /// Best value, for the side to move in `pos` (which has an en-passant square), of its
    /// legal en-passant captures, or None if it has none.
    fn en_passant_option(&self, pos: &Position) -> Option<Dtm> {
        pos.en_passant_moves()
            .map(|m| self.sub_value(&pos.play(&m)).back())
            .max()
    }

    /// A legal position of this table, or None.
    pub fn position(&self, side: usize, idx: u64) -> Option<Position> {
        self.index.legal(idx, Color::from_index(side))
    }

    pub(super) fn encode(&self, pos: &Position) -> u64 {
        // Every position reached by a legal move keeps its kings apart, so it has an index.
        self.index.encode(pos).unwrap_or(0)
    }
}

impl RetroGame for ChessGame<'_> {
    fn size(&self) -> u64 {
        self.index.size()
    }

    fn successors(&self, side: usize, idx: u64, f: &mut dyn FnMut(Successor)) -> Option<Dtm> {
        let pos = self.position(side, idx)?;
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        let mut inside = Scratch::take();
        for m in list.as_slice() {
            let after = pos.play(m);
            if m.is_conversion() {
                f(Successor::Fixed(self.sub_value(&after)));
            } else {
                let alt = match m.kind {
                    MoveKind::DoublePush => self.en_passant_option(&after),
                    _ => None,
                };
                inside.0.push((self.encode(&after), alt));
            }
        }
        if !self.index.material().has_pawns() {
            inside.merge_equal();
        }
        for &(j, alt) in &inside.0 {
            f(match alt {
                Some(a) => Successor::Either(j, a),
                None => Successor::Table(j),
            });
        }
        Some(Dtm::without_moves(pos.is_check()))
    }

    fn predecessors(&self, side: usize, idx: u64, f: &mut dyn FnMut(u64, Option<Dtm>)) {
        let Some(pos) = self.position(side, idx) else {
            return;
        };
        let mut before = Scratch::take();
        pos.for_each_unmove(&[], false, |u, q| {
            let alt = match u.kind {
                UnMoveKind::DoublePush => {
                    let mut with_ep = pos;
                    with_ep.set_ep_square(Some(u.from.midpoint(u.to)));
                    self.en_passant_option(&with_ep)
                }
                _ => None,
            };
            before.0.push((self.encode(&q), alt));
        });
        if !self.index.material().has_pawns() {
            before.merge_equal();
        }
        for &(i, alt) in &before.0 {
            f(i, alt);
        }
    }
}
