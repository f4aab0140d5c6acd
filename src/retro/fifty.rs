//! The 50-move rule (DESIGN.md §2): which wins and losses of a solved chess table hold when
//! 100 plies without a capture or pawn move draw, Syzygy's cursed wins and blessed losses.
//!
//! The rule makes a second game on the same positions, the move count starting at zero: a
//! move that restarts the count (a capture, a promotion, a pawn move) ends it, with the
//! value under the rule of the position it leads to; checkmate ends it as in chess; every
//! other move stays inside. The solver, bounded to 100 plies, finds who forces the end in
//! time: a win or loss it finds holds under the rule, the others are cursed.
//!
//! A pawn move inside the table leads to a position of the same table, whose value under
//! the rule is what is being computed. Pawn moves cannot be undone, so rounds settle it:
//! the first round takes every win and loss they reach as holding, each round then reads
//! the previous one's answer, and the answer is final once a round changes nothing (a
//! round fixes one more pawn move of the longest chain, and the answer is the only one
//! consistent with itself). Tables without pawns take one round.

use super::chess::{ChessGame, Scratch};
use super::solver::{bitmap, solve_within, Observer, RetroGame, Solution, Successor};
use crate::chess::{MoveKind, MoveList, Role};
use crate::value::{Dtm, Wdl5};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

/// Plies without a capture or pawn move after which the game is drawn.
pub const RULE_PLIES: u32 = 100;

/// Adds to `solution` (solved by `game`) the classes of its wins and losses under the
/// 50-move rule, and of each position's best conversion.
pub fn apply(game: &ChessGame, solution: &mut Solution, observer: &dyn Observer) {
    // A mate within 100 plies is forced within the rule whatever the defence: without a
    // longer value or exit nothing is cursed.
    if !solution.reaches_beyond(RULE_PLIES) {
        return;
    }
    loop {
        let round = Round::new(game, solution);
        let rule = solve_within(&round, RULE_PLIES, observer);
        let cursed: [Vec<u64>; 2] =
            std::array::from_fn(|side| cursed_bits(&solution.values[side], &rule.values[side]));
        let settled = !round.resets.load(Relaxed) || same_bits(&cursed, &solution.cursed);
        solution.exit_cursed = round
            .exit_cursed
            .map(|v| v.into_iter().map(AtomicU64::into_inner).collect());
        solution.cursed = cursed;
        if settled {
            return;
        }
    }
}

/// True when two sets of bitmaps hold the same bits (an empty bitmap holds none).
fn same_bits(a: &[Vec<u64>; 2], b: &[Vec<u64>; 2]) -> bool {
    a.iter().zip(b).all(|(x, y)| {
        let n = x.len().max(y.len());
        (0..n).all(|i| x.get(i).copied().unwrap_or(0) == y.get(i).copied().unwrap_or(0))
    })
}

/// One bit per index: a win or loss (`values`) that the game under the rule (`rule`)
/// leaves drawn.
fn cursed_bits(values: &[u8], rule: &[u8]) -> Vec<u64> {
    bitmap(values.len(), |i| values[i] != 0 && rule[i] == 0)
}

/// The solver's view of a move that ends the game under the rule, into a position whose
/// mover has `class`: his win or loss under the rule is a mate given or taken at once.
fn ending(class: Wdl5) -> Successor {
    Successor::Fixed(match class {
        Wdl5::Win => Dtm::Win(1),
        Wdl5::Loss => Dtm::Loss(0),
        _ => Dtm::Draw,
    })
}

/// One round: the game under the rule, reading the classes of in-table pawn moves from
/// the previous round (`solution.cursed`, empty in the first).
struct Round<'a> {
    game: &'a ChessGame<'a>,
    solution: &'a Solution,
    /// Set where the best conversion is a cursed win or a blessed loss.
    exit_cursed: [Vec<AtomicU64>; 2],
    /// A pawn move inside the table was met: another round may be needed.
    resets: AtomicBool,
}

impl<'a> Round<'a> {
    fn new(game: &'a ChessGame<'a>, solution: &'a Solution) -> Round<'a> {
        let words = game.size().div_ceil(64) as usize;
        Round {
            game,
            solution,
            exit_cursed: std::array::from_fn(|_| (0..words).map(|_| AtomicU64::new(0)).collect()),
            resets: AtomicBool::new(false),
        }
    }
}

impl RetroGame for Round<'_> {
    fn size(&self) -> u64 {
        self.game.size()
    }

    fn successors(&self, side: usize, idx: u64, f: &mut dyn FnMut(Successor)) -> Option<Dtm> {
        if self.solution.values[side][idx as usize] == Dtm::Draw.encode() {
            // Drawn without the rule, drawn with it: an end of the game, whose moves are
            // never generated (most positions of most tables; illegal indices too, which
            // hold a draw and which no move reaches).
            return Some(Dtm::Draw);
        }
        let at = self.game.placed(side, idx)?;
        let pos = &at.pos;
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        let mut quiet = Scratch::take();
        let mut best_conversion: Option<Wdl5> = None;
        for m in list.as_slice() {
            if m.is_conversion() {
                let class = self.game.sub_value50(&pos.play(m)).1;
                best_conversion = best_conversion.max(Some(class.back()));
                f(ending(class));
            } else if m.role == Role::Pawn {
                self.resets.store(true, Relaxed);
                // Its class as the previous round left it.
                let mut class = self
                    .solution
                    .value(1 - side, self.game.moved_index(&at, m).0)
                    .1;
                if m.kind == MoveKind::DoublePush {
                    // The opponent may also capture en passant, itself a reset.
                    let ep = self.game.best_en_passant(&pos.play(m), |after| {
                        self.game.sub_value50(after).1.back()
                    });
                    if let Some(ep) = ep {
                        class = class.max(ep);
                    }
                }
                f(ending(class));
            } else {
                quiet.push(self.game.moved_index(&at, m), None);
            }
        }
        if best_conversion.is_some_and(Wdl5::is_cursed) {
            self.exit_cursed[side][(idx / 64) as usize].fetch_or(1 << (idx % 64), Relaxed);
        }
        quiet.merge_equal(self.game.index());
        for &(j, _) in &quiet.list {
            f(Successor::Table(j));
        }
        Some(Dtm::without_moves(pos.is_check()))
    }

    fn predecessors(&self, side: usize, idx: u64, f: &mut dyn FnMut(u64, Option<Dtm>)) {
        let Some(at) = self.game.placed(side, idx) else {
            return;
        };
        let mut before = Scratch::take();
        let other = 1 - side;
        at.pos.for_each_unmove(&[], false, |u| {
            if u.role != Role::Pawn {
                let (j, encoded) = self.game.unmoved_index(&at, &u);
                // Drawn positions were made ends of the game (`successors`).
                if self.solution.values[other][j as usize] != Dtm::Draw.encode() {
                    before.push((j, encoded), None);
                }
            }
        });
        before.merge_equal(self.game.index());
        for &(i, _) in &before.list {
            f(i, None);
        }
    }
}
