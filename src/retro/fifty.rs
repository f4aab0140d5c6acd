//! The 50-move rule (DESIGN.md §2): which wins and losses of a solved chess table hold when
//! 100 plies without a capture or pawn move draw, Syzygy's cursed wins and blessed losses.
//!
//! The rule makes a second game on the same positions, the move count starting at zero: a
//! move that restarts the count (a capture, a promotion, a pawn move) ends it, with the
//! value under the rule of the position it leads to; checkmate ends it as in chess; every
//! other move stays inside. The solver, bounded to 100 plies, finds who forces the end in
//! time: a win or loss it finds holds under the rule, the others are cursed.
//!
//! The count is of plies up to the reset or mate, whoever plays it: a win holds when the
//! winner can force a reset or mate within 100 plies, his own or the loser's. A reset the
//! loser is forced into (every move he has resets into a position his opponent wins) ends
//! the count at his ply, but the solver's distances give a win odd plies and a loss even
//! ones, so it cannot count that ply as it counts the others. Two solves settle it, each
//! exact on one side: with the forced reset counted as the loser's move into a position
//! won at once (one ply too many), no loss is missed: the loser's distances are even
//! either way, so a loss within 100 plies stays within them; with the forced reset counted
//! as a mate where the loser stands (one ply too few), the winner's distances are odd
//! either way, so a win within 99 is the same as a win within 100. Each solve judges the
//! side it is exact for; the second is needed only where the first met a forced reset and
//! left a win unfound (a win it finds is found by the second too).
//! (Any other reset of the loser into a lost position is never his longest defence: another
//! move of his takes at least one ply more.)
//!
//! A pawn move inside the table leads to a position of the same table, whose class under
//! the rule is what is being computed. Pawn moves cannot be undone: they lead to an earlier
//! part of the index (`TableIndex::parts`), which is classed (both solves) before the part
//! of the move starts, so the class is read from the part's answer. Each part is classed
//! as soon as the first solve has solved it (`Rule::class_part`), while the sub-tables it
//! reads are at hand: a pawn table lets its promotion tables go after the parts that
//! promote.
//!
//! Memory: the game under the rule reads of the first solution only whether each position
//! is won or lost. A table of one part has its values (a byte per index and side) and exit
//! marks, which the writer needs afterwards, held compressed (`packed`) while the rule's
//! solves run, and reads two bitmaps instead, so that the second solver's state does not
//! come on top of them; a table of several parts does the same with the parts it still
//! holds (the part classed and those its pawn moves reach), put back for the parts to come.
//! Split across processes, a table of one part has each hold its share's bitmaps alone:
//! an un-move into another's share is sent as any other, and its holder drops it where the
//! position is drawn (`RetroGame::takes_unmoves`); each classes its own positions, and
//! the processes agree on the second solve.

use super::bits::AtomicBits;
use super::chess::{ChessGame, Placed, Scratch};
use super::packed::PackedSide;
use super::peers::{Peers, Shares};
use super::solver::{
    bit, bitmap, solve_alone, LossSearch, PartByPart, RetroGame, Solution, Successor,
};
use crate::chess::{Bitboard, Move, MoveList, Role, Square};
use crate::progress::Observer;
use crate::value::{Dtm, Wdl, Wdl5};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// Plies without a capture or pawn move after which the game is drawn.
pub const RULE_PLIES: u32 = 100;

/// The classes under the 50-move rule of a table's wins and losses, and of each position's
/// best conversion, found a part at a time as the first solve finishes each part
/// (`PartByPart`): a part's rule game reads the classes of the parts before it.
pub struct Rule {
    /// The indices classed here: the whole table, or this process's share where each
    /// process holds its own (`PartByPart::holds_share`). The bitmaps hold them from 0.
    held: Range<u64>,
    /// Set where a win or loss of the first solution does not hold under the rule, once its
    /// part is classed.
    cursed: [AtomicBits; 2],
    /// Set where the best conversion is a cursed win or a blessed loss.
    exit_cursed: [AtomicBits; 2],
}

impl Rule {
    /// Nothing classed yet, of the indices `held` (as the solution of `parts` holds
    /// them).
    pub fn new(parts: &PartByPart) -> Rule {
        let held = parts.held();
        let n = (held.end - held.start) as usize;
        let bits = || std::array::from_fn(|_| AtomicBits::new(n));
        Rule {
            held,
            cursed: bits(),
            exit_cursed: bits(),
        }
    }

    /// Classes the part `parts` solved last, with `game` (the game it was solved with).
    pub fn class_part<E: Send>(
        &self,
        game: &ChessGame<'_, E>,
        parts: &mut PartByPart,
        observer: &dyn Observer,
    ) {
        // A mate within 100 plies is forced within the rule whatever the defence: without
        // a longer value or exit nothing is cursed.
        if !parts.last_reaches_beyond(RULE_PLIES) {
            return;
        }
        let k = parts.solved() - 1;
        let (part, count) = (parts.parts()[k].clone(), parts.count());
        let label = |winners: bool| {
            let side = if winners { "wins, " } else { "losses, " };
            format!("50-move rule, {side}part {}/{count}, ", k + 1)
        };
        // The rule's game reads the parts still held (this one and those its pawn moves
        // reach) only as won, drawn or lost: bitmaps of them.
        let peers = parts.peers();
        // Split, of this process's share alone (`RuleGame::predecessors`).
        let span = match parts.holds_share() {
            true => parts.held(),
            false => parts.held_span(),
        };
        let outcomes = Outcomes::bitmaps(parts.solution(), span);
        let rule = RuleGame::new(game, outcomes, self, peers.count() > 1);
        let solve = |rule| self.solve_part(rule, part.clone(), label, observer, &*peers);
        if count > 1 {
            // The parts' values stay for the parts to come, within the memory model
            // (`generate`: a pawn table's values held whole); packed and put back, they
            // had all their pages written again (KRPvKR: 11% of the page faults).
            solve(rule);
            return;
        }
        // One part: its exit marks are held packed with its values.
        let solution = parts.solution_mut();
        let held = [0, 1].map(|side| PackedSide::take(solution, side));
        solve(rule);
        for side in held {
            side.restore(solution);
        }
    }

    /// Runs the rule's solves of `part` (see the module doc).
    fn solve_part<E: Send>(
        &self,
        rule: RuleGame<'_, E>,
        part: Range<u64>,
        label: impl Fn(bool) -> String,
        observer: &dyn Observer,
        peers: &dyn Peers,
    ) {
        // Where no two moves meet (with pawns), the rule's game counts each position's
        // moves inside exactly (`RuleGame::successors_counted`), and counters take less
        // time than checks, in no more memory than the part's first solve had. Where two
        // may meet and count twice: checks, which also keep the pass below the first
        // solve there (its solution is held packed meanwhile); but split across
        // processes, checks read whether any position of the part is won (a bit an index
        // and side of the whole part in every process), so there the moves are reported,
        // the meeting ones once, and counted down (a byte an index and side of the share).
        let search = match (rule.game.index().moves_may_meet(), peers.count()) {
            (false, _) => LossSearch::Counters,
            (true, 1) => LossSearch::Checks,
            (true, _) => LossSearch::Counters,
        };
        for winners in [false, true] {
            if winners && !rule.second_solve.swap(false, Relaxed) {
                // The first solve settled the wins too.
                continue;
            }
            rule.forced_reset.store(false, Relaxed);
            rule.judging_winners.store(winners, Relaxed);
            solve_alone(
                &rule,
                part.clone(),
                RULE_PLIES,
                search,
                observer,
                label(winners),
                peers,
            );
        }
    }

    /// Adds the classes of side `side` to `solution`, every part classed, and lets them
    /// go here: the sides are made whole one at a time (`PartByPart::into_sides`).
    pub fn finish_side(&mut self, solution: &mut Solution, side: usize) {
        debug_assert_eq!(solution.first, self.held.start);
        let take = |bits: &mut AtomicBits| std::mem::replace(bits, AtomicBits::new(0)).into_words();
        solution.cursed[side] = take(&mut self.cursed[side]);
        solution.exit_cursed[side] = take(&mut self.exit_cursed[side]);
    }

    /// Sets bit `idx` (an index of the game) of `bits`, one of this rule's bitmaps.
    #[inline]
    fn set(&self, bits: &AtomicBits, idx: u64) {
        bits.set((idx - self.held.start) as usize);
    }

    /// The class under the rule of `idx` (of a part classed), whose value without the rule
    /// is `wdl`.
    pub fn class_of(&self, side: usize, idx: u64, wdl: Wdl) -> Wdl5 {
        Wdl5::new(wdl, self.is_cursed(side, idx))
    }

    /// Whether `idx`'s win or loss is cursed under the rule, its part classed.
    #[inline]
    fn is_cursed(&self, side: usize, idx: u64) -> bool {
        self.cursed[side].get((idx - self.held.start) as usize)
    }

    /// Makes the classes of each process's share `own` of `part` known to every process
    /// (collective): a table of several parts holds them whole, for the parts to come and
    /// the writer.
    fn share_classes(&self, part: &Range<u64>, own: &Range<u64>, peers: &dyn Peers) {
        let shares = Shares::new(part.clone(), peers.count());
        let maps = || self.cursed.iter().chain(&self.exit_cursed);
        let mut mine = Vec::new();
        for bits in maps() {
            for first in own.clone().step_by(64) {
                let word = (first..(first + 64).min(own.end))
                    .filter(|&i| bits.get((i - self.held.start) as usize))
                    .fold(0u64, |w, i| w | 1 << (i - first));
                mine.extend_from_slice(&word.to_le_bytes());
            }
        }
        for (rank, theirs) in peers.all_gather(mine).iter().enumerate() {
            let range = shares.of(rank);
            let words = (range.end - range.start).div_ceil(64) as usize;
            for (k, bits) in maps().enumerate() {
                let at = 8 * k * words;
                for (w, word) in theirs[at..at + 8 * words].chunks_exact(8).enumerate() {
                    let mut word = u64::from_le_bytes(word.try_into().expect("a word"));
                    while word != 0 {
                        let i = range.start + 64 * w as u64 + u64::from(word.trailing_zeros());
                        word &= word - 1;
                        self.set(bits, i);
                    }
                }
            }
        }
    }
}

/// Whether each position of the first solution is won, drawn or lost for its side to move
/// (drawn also where it is not a legal position).
/// Won and lost bitmaps of the indices from `first` on, one bit per index each, while the
/// values are held packed.
struct Outcomes {
    first: u64,
    end: u64,
    won: [Vec<u64>; 2],
    lost: [Vec<u64>; 2],
}

impl Outcomes {
    /// The outcomes of `solution` over the indices `span`, the only ones read.
    fn bitmaps(solution: &Solution, span: Range<u64>) -> Outcomes {
        let (first, n) = (span.start, (span.end - span.start) as usize);
        let positions = |wdl: Wdl| {
            std::array::from_fn(|side| {
                bitmap(n, |i| solution.value(side, first + i as u64).0.wdl() == wdl)
            })
        };
        Outcomes {
            first,
            end: span.end,
            won: positions(Wdl::Win),
            lost: positions(Wdl::Loss),
        }
    }

    /// True when the outcome of `idx` is held here.
    #[inline]
    fn holds(&self, idx: u64) -> bool {
        (self.first..self.end).contains(&idx)
    }

    /// The value of `idx` without the rule, as won, drawn or lost.
    #[inline]
    fn wdl(&self, side: usize, idx: u64) -> Wdl {
        debug_assert!(
            self.holds(idx),
            "{idx} read, outcomes of {}..{}",
            self.first,
            self.end
        );
        let i = idx.wrapping_sub(self.first);
        if bit(&self.won[side], i) {
            Wdl::Win
        } else if bit(&self.lost[side], i) {
            Wdl::Loss
        } else {
            Wdl::Draw
        }
    }
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

/// The game under the rule, reading the classes of in-table pawn moves from the parts
/// classed before.
struct RuleGame<'a, E> {
    game: &'a ChessGame<'a, E>,
    /// The first solution's wins and losses.
    outcomes: Outcomes,
    /// The classes found so far.
    rule: &'a Rule,
    /// Which solve this is (see the module doc): false, a forced reset of the loser is his
    /// move into a won position, and the solve judges losses; true, it is a mate where he
    /// stands, and the solve judges wins.
    judging_winners: AtomicBool,
    /// The first solve of the part met a forced reset.
    forced_reset: AtomicBool,
    /// Split across processes (`Rule::solve_part`).
    split: bool,
    /// The second solve must judge the part's wins.
    second_solve: AtomicBool,
}

impl<'a, E: Send> RuleGame<'a, E> {
    fn new(game: &'a ChessGame<'a, E>, outcomes: Outcomes, rule: &'a Rule, split: bool) -> Self {
        RuleGame {
            game,
            outcomes,
            rule,
            split,
            judging_winners: AtomicBool::new(false),
            forced_reset: AtomicBool::new(false),
            second_solve: AtomicBool::new(false),
        }
    }

    /// The class under the rule, for the opponent, of the position after `m`, a move of
    /// `at` that resets the count (a conversion, or a pawn move into an earlier part).
    fn reset_class(&self, at: &Placed, m: &Move) -> Wdl5 {
        self.game
            .reset_class(at, m, |side, idx| self.class(side, idx))
    }

    /// Reports the moves of `idx` that end the count to `f` (`ending`) and hands its quiet
    /// moves to `quiet`, a piece's at a time (role, from, target squares); returns the
    /// value the position has without moves, as `RetroGame::successors` does, and the
    /// number of quiet moves, or None for an illegal index.
    fn resets(
        &self,
        side: usize,
        idx: u64,
        f: &mut impl FnMut(Successor),
        mut quiet: impl FnMut(&Placed, Role, Square, Bitboard),
    ) -> Option<(Dtm, u32)> {
        if self.outcomes.wdl(side, idx) == Wdl::Draw {
            // Drawn without the rule, drawn with it: an end of the game, whose moves are
            // never generated (most positions of most tables; illegal indices too, which
            // hold a draw and which no move reaches).
            return Some((Dtm::Draw, 0));
        }
        let at = self.game.placed(side, idx)?;
        let pos = &at.pos;
        let mut list = MoveList::new();
        let mut quiet_moves = 0;
        pos.legal_moves_by_quiet_sets(&mut list, |role, from, to| {
            quiet_moves += to.count();
            quiet(&at, role, from, to);
        });
        let mut best_conversion: Option<Wdl5> = None;
        // The classes of the moves that reset the count (a move list holds at most 256).
        let mut resets = [Wdl5::Draw; 256];
        let mut n = 0;
        // The list holds captures and pawn moves only: no table has castling rights.
        for m in list.as_slice() {
            debug_assert!(m.is_conversion() || m.role == Role::Pawn, "{m:?}");
            let class = self.reset_class(&at, m);
            if m.is_conversion() {
                best_conversion = best_conversion.max(Some(class.back()));
            }
            resets[n] = class;
            n += 1;
        }
        if best_conversion.is_some_and(Wdl5::is_cursed) {
            self.rule.set(&self.rule.exit_cursed[side], idx);
        }
        let resets = &resets[..n];
        if quiet_moves == 0 && n > 0 && resets.iter().all(|c| *c == Wdl5::Win) {
            // Every move resets into a won position (see the module doc).
            if self.judging_winners.load(Relaxed) {
                // The count ends here, as at a mate.
                return Some((Dtm::Loss(0), 0));
            }
            self.forced_reset.store(true, Relaxed);
        }
        for &class in resets {
            f(ending(class));
        }
        Some((Dtm::without_moves(pos.is_check()), quiet_moves))
    }

    /// The value of `idx` with its class under the rule, which its part has settled.
    fn class(&self, side: usize, idx: u64) -> Wdl5 {
        let cursed = self.rule.is_cursed(side, idx);
        Wdl5::new(self.outcomes.wdl(side, idx), cursed)
    }
}

impl<E: Send> RetroGame for RuleGame<'_, E> {
    fn size(&self) -> u64 {
        self.game.size()
    }

    fn parts(&self) -> Vec<Range<u64>> {
        self.game.parts()
    }

    /// Each process classes its share; they agree on whether a position met a forced
    /// reset and a win was left unfound (the second solve), and, for a table of several
    /// parts, make the classes known to every process.
    fn part_solved(&self, part: Range<u64>, own: Range<u64>, rule: [&[u8]; 2], peers: &dyn Peers) {
        // A win (or loss, by which solve this is) that the game under the rule leaves
        // drawn is cursed: the share's positions drawn under the rule, with their value
        // without it.
        let unfound = |side: usize| {
            rule[side]
                .par_iter()
                .enumerate()
                .filter(|(_, r)| **r == 0)
                .map(move |(i, _)| {
                    let idx = own.start + i as u64;
                    (idx, self.outcomes.wdl(side, idx))
                })
        };
        let judging_winners = self.judging_winners.load(Relaxed);
        let forced_reset = self.forced_reset.load(Relaxed);
        let win_unfound = |side: usize| unfound(side).any(|(_, wdl)| wdl == Wdl::Win);
        // Asked only where the answer counts; split, a forced reset met in one share may
        // leave a win unfound in another.
        let split = peers.count() > 1;
        let unfound_here =
            !judging_winners && (forced_reset || split) && (win_unfound(0) || win_unfound(1));
        let second = peers.any_of(&[forced_reset, unfound_here]) == [true, true];
        let judged = match judging_winners {
            true => [Wdl::Win, Wdl::Win],
            false if second => {
                self.second_solve.store(true, Relaxed);
                [Wdl::Loss, Wdl::Loss]
            }
            false => [Wdl::Loss, Wdl::Win],
        };
        for (side, cursed) in self.rule.cursed.iter().enumerate() {
            unfound(side)
                .filter(|(_, wdl)| judged.contains(wdl))
                .for_each(|(idx, _)| self.rule.set(cursed, idx));
        }
        if peers.count() > 1 && self.parts().len() > 1 {
            self.rule.share_classes(&part, &own, peers);
        }
    }

    fn successors(&self, side: usize, idx: u64, f: &mut impl FnMut(Successor)) -> Option<Dtm> {
        let mut quiet = Scratch::new();
        let (terminal, _) = self.resets(side, idx, f, |at, role, from, to| {
            for sq in to {
                let m = Move::piece(role, from, sq, None);
                quiet.push(self.game.moved_index(at, &m), None);
            }
        })?;
        quiet.merge_equal(self.game.index());
        for &(j, _) in &quiet.list {
            f(Successor::Table(j));
        }
        Some(terminal)
    }

    /// Its quiet moves are counted, not encoded: exactly where no two moves meet
    /// (`TableIndex::moves_may_meet`), and the solve counts them down; elsewhere two may
    /// count twice, and the solve, by checks, asks only whether a position has moves
    /// inside the graph. A solve split across processes counts them down there too
    /// (`Rule::solve_part`): the moves are reported, the meeting ones once.
    fn successors_counted(
        &self,
        side: usize,
        idx: u64,
        f: &mut impl FnMut(Successor),
    ) -> Option<(Dtm, u32)> {
        if self.game.index().moves_may_meet() && self.split {
            return self.successors(side, idx, f).map(|t| (t, 0));
        }
        self.resets(side, idx, f, |_, _, _, _| {})
    }

    /// The moves that end the count: the quiet moves stay inside the part.
    fn fixed_successors(&self, side: usize, idx: u64, f: &mut impl FnMut(Successor)) {
        self.resets(side, idx, f, |_, _, _, _| {});
    }

    fn takes_unmoves(&self, side: usize, idx: u64) -> bool {
        self.outcomes.wdl(side, idx) != Wdl::Draw
    }

    fn moves_inside(
        &self,
        side: usize,
        idx: u64,
        f: &mut impl FnMut(u64, Option<Dtm>) -> bool,
    ) -> bool {
        // The moves that stay inside under the rule are the quiet moves of the pieces, as
        // in the game without it (pawn moves reset the count here, and lead into earlier
        // parts there).
        self.game.moves_inside(side, idx, f)
    }

    fn predecessors(&self, side: usize, idx: u64, f: &mut impl FnMut(u64, Option<Dtm>)) {
        let Some(at) = self.game.placed_legal(side, idx) else {
            return;
        };
        let other = 1 - side;
        // Drawn positions were made ends of the game (`successors`). Split, a position
        // another process holds is reported, and its holder drops it (`takes_unmoves`).
        let keep = |j| !self.outcomes.holds(j) || self.outcomes.wdl(other, j) != Wdl::Draw;
        self.game.unmoved_indices(&at, keep, &mut |i| f(i, None));
    }
}
