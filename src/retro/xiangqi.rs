//! Xiangqi as a game graph for the solver: a table's positions numbered by
//! `XiangqiIndex` (side 0 Red to move, side 1 Black), the moves that take nothing inside
//! the table, captures out of it into sub-tables of known value, a side without a legal
//! move lost (stalemate loses in xiangqi). [`XiangqiTables`] solves a table and its
//! sub-tables in memory, smallest first.
//!
//! Not here yet: the perpetual-check rule. A position that can only cycle is a draw in
//! these values, as in chess; the Asian rules' verdicts on repetitions come on top.

use super::solver::{solve, RetroGame, Solution, Successor};
use crate::chess::Color;
use crate::progress::Silent;
use crate::value::Dtm;
use crate::xiangqi::{Position, Signature, XiangqiIndex};
use std::collections::HashMap;

/// The colour to move on a side of the graph.
fn color(side: usize) -> Color {
    match side {
        0 => Color::White,
        _ => Color::Black,
    }
}

/// One table's graph, with the values of the positions its captures lead to.
pub struct XiangqiGame<'a> {
    index: &'a XiangqiIndex,
    /// The value of a position of a sub-table, for its side to move.
    sub: &'a (dyn Fn(&Position) -> Dtm + Sync),
}

impl<'a> XiangqiGame<'a> {
    /// The graph of `index`'s table, captures valued by `sub`.
    pub fn new(index: &'a XiangqiIndex, sub: &'a (dyn Fn(&Position) -> Dtm + Sync)) -> Self {
        XiangqiGame { index, sub }
    }
}

impl RetroGame for XiangqiGame<'_> {
    fn size(&self) -> u64 {
        self.index.size()
    }

    fn successors(&self, side: usize, idx: u64, f: &mut impl FnMut(Successor)) -> Option<Dtm> {
        let pos = self.index.decode(idx, color(side))?;
        // The side not to move may not be in check, nor the kings face each other.
        if pos.in_check(!pos.turn()) {
            return None;
        }
        let moves = pos.legal_moves();
        for m in &moves {
            let next = pos.play(m);
            match pos.at(m.to) {
                Some(_) => f(Successor::Fixed((self.sub)(&next))),
                None => f(Successor::Table(
                    self.index
                        .encode(&next)
                        .expect("a quiet move keeps the material"),
                )),
            }
        }
        Some(match moves.is_empty() {
            true => Dtm::Loss(0),
            false => Dtm::Draw,
        })
    }

    /// One predecessor per move into `idx`: the un-moves of its position and, where the
    /// mirror image shares its index, of the image too, each kept only when it leads back
    /// to a position as it is numbered (the moves of a position are those of its
    /// numbered view).
    fn predecessors(&self, side: usize, idx: u64, f: &mut impl FnMut(u64, Option<Dtm>)) {
        let Some(pos) = self.index.decode(idx, color(side)) else {
            return;
        };
        let image = XiangqiIndex::shares_index_with_mirror(&pos).then(|| pos.mirrored());
        for view in [Some(pos), image].into_iter().flatten() {
            for u in view.unmoves() {
                let before = view.unplay(&u);
                if XiangqiIndex::is_canonical(&before) {
                    f(
                        self.index
                            .encode(&before)
                            .expect("an un-move keeps the material"),
                        None,
                    );
                }
            }
        }
    }
}

/// A solved table.
pub struct Solved {
    /// Its numbering.
    pub index: XiangqiIndex,
    /// Its values.
    pub solution: Solution,
}

/// Tables solved in memory, each under its signature (Red's material first).
#[derive(Default)]
pub struct XiangqiTables {
    tables: HashMap<Signature, Solved>,
}

impl XiangqiTables {
    /// Solves `signature`'s table after its sub-tables (those missing); a table is kept
    /// under its canonical signature, the stronger side as Red.
    pub fn solve(&mut self, signature: Signature) {
        if !signature.is_canonical() {
            return self.solve(signature.flipped());
        }
        if self.tables.contains_key(&signature) {
            return;
        }
        for sub in signature.captures() {
            self.solve(sub);
        }
        let index = XiangqiIndex::new(signature);
        let sub = |pos: &Position| self.probe(pos).expect("sub-tables solved first");
        let solution = solve(&XiangqiGame::new(&index, &sub), &Silent);
        self.tables.insert(signature, Solved { index, solution });
    }

    /// The value of `pos` for its side to move, if its table is solved (through the
    /// colour flip when Black has the stronger side).
    pub fn probe(&self, pos: &Position) -> Option<Dtm> {
        let signature = Signature::of(pos);
        if !signature.is_canonical() {
            return self.probe(&pos.flipped());
        }
        let t = self.tables.get(&signature)?;
        let side = usize::from(pos.turn() == Color::Black);
        Some(t.solution.value(side, t.index.encode(pos)?).0)
    }

    /// The table of `signature`, if solved.
    pub fn table(&self, signature: &Signature) -> Option<&Solved> {
        self.tables.get(signature)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exact distance to mate of `pos` if a side mates within `depth` plies, by a
    /// forward search of every line (no table involved).
    fn search(pos: &Position, depth: u32) -> Option<Dtm> {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return Some(Dtm::Loss(0));
        }
        if depth == 0 {
            return None;
        }
        // A win in the fewest plies, else a loss in the most, if every move loses.
        let mut best: Option<Dtm> = None;
        let mut all_lose = true;
        for m in &moves {
            match search(&pos.play(m), depth - 1).map(Dtm::back) {
                Some(v @ Dtm::Win(_)) => {
                    if best.is_none_or(|b| v.preference() > b.preference()) {
                        best = Some(v);
                    }
                }
                Some(v) => {
                    if !matches!(best, Some(Dtm::Win(_)))
                        && best.is_none_or(|b| v.preference() > b.preference())
                    {
                        best = Some(v);
                    }
                }
                None => all_lose = false,
            }
        }
        match best {
            Some(Dtm::Win(p)) => Some(Dtm::Win(p)),
            Some(loss) if all_lose => Some(loss),
            _ => None,
        }
    }

    /// Small tables against a forward search: every position the table values within
    /// three plies of mate is found so by the search, and a sample of the others has no
    /// mate within three plies; and each value is the best of its moves (one ply,
    /// sub-tables included).
    #[test]
    fn small_tables_agree_with_a_forward_search() {
        let mut tables = XiangqiTables::default();
        let mut total_decided = 0;
        for sig in ["KRvK", "KCvKA", "KPvK"] {
            let sig: Signature = sig.parse().unwrap();
            tables.solve(sig);
            let t = tables.table(&sig).unwrap();
            let (mut checked, mut decided) = (0, 0);
            for side in 0..2 {
                for idx in (0..t.index.size()).step_by((t.index.size() / 1500).max(1) as usize) {
                    let Some(pos) = t.index.decode(idx, color(side)) else {
                        continue;
                    };
                    if pos.in_check(!pos.turn()) {
                        continue;
                    }
                    let value = tables.probe(&pos).unwrap();
                    // One ply: the best of the moves' values.
                    let moves = pos.legal_moves();
                    let best = moves
                        .iter()
                        .map(|m| tables.probe(&pos.play(m)).unwrap().back())
                        .max_by_key(|v| v.preference())
                        .unwrap_or(Dtm::Loss(0));
                    assert_eq!(value, best, "{sig} {}", pos.to_fen());
                    let near = value.plies().is_some_and(|p| p <= 3);
                    if near || idx % 147 == 0 {
                        let found = search(&pos, 3);
                        assert_eq!(found, near.then_some(value), "{sig} {}", pos.to_fen());
                        decided += usize::from(near);
                    }
                    checked += 1;
                }
            }
            assert!(checked > 500, "{sig}: {checked}");
            total_decided += decided;
        }
        assert!(total_decided > 50, "{total_decided}");
        // Colour symmetry: KvKR solved as it stands equals KRvK read through the flip.
        let index = XiangqiIndex::new("KvKR".parse().unwrap());
        let sub = |pos: &Position| tables.probe(pos).unwrap();
        let direct = solve(&XiangqiGame::new(&index, &sub), &Silent);
        let mut compared = 0;
        for side in 0..2 {
            for idx in 0..index.size() {
                let Some(pos) = index.decode(idx, color(side)) else {
                    continue;
                };
                if !pos.in_check(!pos.turn()) {
                    assert_eq!(Some(direct.value(side, idx).0), tables.probe(&pos));
                    compared += 1;
                }
            }
        }
        assert!(compared > 4000, "{compared}");
        // Chariot and king against a lone king win.
        let win = |fen: &str| tables.probe(&Position::from_fen(fen).unwrap()).unwrap();
        assert!(matches!(win("4k4/9/9/9/9/9/9/9/9/3K1R3 w"), Dtm::Win(_)));
    }
}
