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
use std::cell::Cell;
use std::sync::Mutex;

thread_local! {
    /// A reusable buffer per thread, so that collecting moves allocates only once.
    static SCRATCH: Cell<Vec<(u64, Option<Dtm>)>> = const { Cell::new(Vec::new()) };
}

/// Runs `fill` on an empty per-thread buffer, then `f` on every entry, with entries of equal
/// index merged when `dedup` is set.
fn with_scratch(
    dedup: bool,
    fill: impl FnOnce(&mut Vec<(u64, Option<Dtm>)>),
    mut f: impl FnMut(u64, Option<Dtm>) -> bool,
) {
    let mut buf = SCRATCH.take();
    buf.clear();
    fill(&mut buf);
    if dedup {
        buf.sort_unstable_by_key(|e| e.0);
        buf.dedup_by_key(|e| e.0);
    }
    for &(i, alt) in buf.iter() {
        if !f(i, alt) {
            break;
        }
    }
    SCRATCH.set(buf);
}

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
        match self.subtables.value(pos) {
            Ok(v) => v,
            Err(e) => {
                self.error
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get_or_insert(e);
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
        if pos.opponent_in_check() || !self.index.is_canonical(idx, &pos) {
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

    fn successors(
        &self,
        side: usize,
        idx: u64,
        f: &mut dyn FnMut(Successor) -> bool,
    ) -> Option<Dtm> {
        let pos = self.position(side, idx)?;
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        let mut fixed = Vec::new();
        with_scratch(
            !self.index.material().has_pawns(),
            |inside| {
                for m in list.as_slice() {
                    let after = pos.play(m);
                    if m.is_conversion() {
                        fixed.push(self.sub_value(&after));
                    } else {
                        let alt = if m.kind == MoveKind::DoublePush {
                            self.en_passant_option(&after)
                        } else {
                            None
                        };
                        inside.push((self.encode(&after), alt));
                    }
                }
            },
            |j, alt| match alt {
                Some(a) => f(Successor::Either(j, a)),
                None => f(Successor::Table(j)),
            },
        );
        for v in fixed {
            if !f(Successor::Fixed(v)) {
                break;
            }
        }
        Some(if pos.is_check() {
            Dtm::Loss(0)
        } else {
            Dtm::Draw
        })
    }

    fn predecessors(&self, side: usize, idx: u64, f: &mut dyn FnMut(u64, Option<Dtm>)) {
        let Some(pos) = self.position(side, idx) else {
            return;
        };
        with_scratch(
            !self.index.material().has_pawns(),
            |out| {
                pos.for_each_unmove(&[], false, |u, before| {
                    let alt = if u.kind == UnMoveKind::DoublePush {
                        let mut with_ep = pos;
                        with_ep
                            .set_ep_square(Square::new((u.from.index() + u.to.index()) as u32 / 2));
                        self.en_passant_option(&with_ep)
                    } else {
                        None
                    };
                    out.push((self.encode(&before), alt));
                });
            },
            |i, alt| {
                f(i, alt);
                true
            },
        );
    }
}
