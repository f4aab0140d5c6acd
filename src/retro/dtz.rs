//! Distance to zeroing under the 50-move rule (`docs/design.md`, Values: Syzygy's DTZ50″) of
//! a solved chess table, and the rule's classes with it: for every won or lost position, the plies
//! to the next move that resets the move count (a capture, a promotion, a pawn move) or
//! mates, with best play under the rule: the winner zeroes as soon as he can while keeping
//! the win, the loser delays it. A win or loss is cursed (blessed) where that distance is
//! beyond 100 plies.
//!
//! Of the solution the search reads whether each position is won, drawn or lost, and the
//! classes under the rule of the earlier parts its pawn moves reach; the distances follow
//! by a level-by-level search over the quiet moves, which all stay inside the part of the
//! index (pawn moves are resets). Every ply counts, whoever plays it: a reset or a mate
//! ends the count after its own ply, 1 into a position lost (won) under the rule and 101
//! into one the rule saves (dooms), so that a win the rule spoils counts beyond 100 as
//! Syzygy counts it; a checkmated position is 1 too (Syzygy's -1). Then a winner's
//! distance is the least over his moves that keep the win, a loser's the greatest over
//! his moves, of that cost or 1 + the distance of the position a quiet move leads to.
//! A loser forced to reset at once is 1, and his opponent's move into it 2: wins and
//! losses of either parity, found at every level, so that one search settles both sides.
//! (Syzygy's own files hold these distances ply-accurate only when built so, `rtbgen -p`;
//! by default some are rounded up or down a ply.)
//!
//! Not here: keeping the classes (`fifty`), storing the distances (`table`).

use super::bits::AtomicBits;
use super::chess::ChessGame;
use super::solver::Solution;
use crate::chess::{MoveList, Role};
use crate::peers::{each, Alone, Peers, Shares, Wire};
use crate::progress::Observer;
use crate::side::{BySide, Side};
use crate::value::{Dtm, LongDistances, Wdl, Wdl5, RULE_PLIES};
use rayon::prelude::*;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::Mutex;

/// The plies a reset into a position whose class (for its side to move) is `class` counts
/// for the side that plays it: None for a draw.
fn reset_cost(class: Wdl5) -> Option<u32> {
    match class {
        Wdl5::Loss | Wdl5::Win => Some(1),
        Wdl5::BlessedLoss | Wdl5::CursedWin => Some(1 + RULE_PLIES),
        Wdl5::Draw => None,
    }
}

/// Indices a thread takes at once, and the span of a level mark (`PartDtz::marks`).
const BLOCK: usize = 4096;

/// The longest distance a cell holds; longer ones are kept apart (`PartDtz::far`). The
/// longest cost of a reset, so that everything set before the search starts fits.
const NEAR: u32 = 1 + RULE_PLIES;

// A position's cell (`PartDtz::cells`): one byte holds all the search asks of a position,
// so that each step costs one cache line, as Syzygy's generator keeps WDL and DTZ in one
// byte, wins and losses apart at every distance so that the parity of a distance plays
// no part. 0: drawn or illegal, out of the search; won in 1..=NEAR plies: the distance
// itself.
/// Won, no distance found yet.
const WIN_UNKNOWN: u8 = NEAR as u8 + 1;
/// Lost in d plies, 1..=NEAR: `LOSS_0 + d`.
const LOSS_0: u8 = WIN_UNKNOWN;
/// Won beyond `NEAR` plies: the distance is in `PartDtz::far`.
const WIN_FAR: u8 = LOSS_0 + NEAR as u8 + 1;
/// Lost beyond `NEAR` plies: the distance is in `PartDtz::far`.
const LOSS_FAR: u8 = WIN_FAR + 1;
/// Lost, waiting for k of the positions its quiet moves lead to, 1..=`WAITS`, to be
/// settled: `WAIT_0 + k`.
const WAIT_0: u8 = LOSS_FAR;
/// Lost, before `PartDtz::set_up` (a code the search gives later, to far losses).
const TO_SET_UP: u8 = LOSS_FAR;
/// The most waits a cell counts.
const WAITS: u32 = (MANY_WAITS - WAIT_0 - 1) as u32;
/// Lost, waiting for more than `WAITS` positions: the count is in `PartDtz::waits`.
const MANY_WAITS: u8 = u8::MAX;

/// A cell's distance where it holds one: won or lost in 1..=`NEAR` plies.
#[inline]
fn near(cell: u8) -> Option<(Wdl, u32)> {
    match cell {
        1..=NEAR_U8 => Some((Wdl::Win, u32::from(cell))),
        c if c > LOSS_0 && c < WIN_FAR => Some((Wdl::Loss, u32::from(c - LOSS_0))),
        _ => None,
    }
}

/// `NEAR` as a cell.
const NEAR_U8: u8 = NEAR as u8;

/// Whether a settled cell's distance is beyond 100 plies: a cursed win or a blessed loss.
#[inline]
fn cursed(cell: u8) -> bool {
    matches!(cell, NEAR_U8 | WIN_FAR | LOSS_FAR) || cell == LOSS_0 + NEAR_U8
}

/// The distances of one part of a table, found and being found.
pub(crate) struct PartDtz {
    /// The part: its quiet moves stay inside.
    part: Range<u64>,
    /// The indices of the part held here: the whole part, or this process's share where
    /// the part is split across processes (`search`). The arrays and bitmaps hold them.
    own: Range<u64>,
    /// Per side, a cell per index held (`WIN_UNKNOWN` and the codes around it).
    cells: BySide<Vec<AtomicU8>>,
    /// Per side, the distances of `WIN_FAR` and `LOSS_FAR` cells, by index.
    far: BySide<Mutex<HashMap<u64, u32>>>,
    /// Per side, the counts of `MANY_WAITS` cells, by index.
    waits: BySide<Mutex<HashMap<u64, u32>>>,
    /// Per side and block of `BLOCK` indices, a bit per distance up to `NEAR` (bit d of
    /// word d / 64) set once a cell of the block holds it: a level reads the blocks marked
    /// for it alone.
    marks: BySide<Vec<[AtomicU64; 2]>>,
    /// Per side, a bit per index of the part, set where a reset or a mate gives the
    /// position its distance (a probe finds it among the moves: the writer may store
    /// anything no better there).
    decides: BySide<AtomicBits>,
    /// Per side, a bit per index of the part, set where the best conversion (capture or
    /// promotion) of a won or lost position is a cursed win or a blessed loss.
    exit_cursed: BySide<AtomicBits>,
    /// Per side, a bit per index of the part, set where a waiting loser has a reset into
    /// a position the rule saves for him (cost `NEAR`): the one reset cost that can
    /// outlast his quiet moves (which cost at least 2), known at the start and not looked
    /// for again. Set in few tables, whose pages alone are touched.
    reprieve: BySide<AtomicBits>,
    /// No reset of the part costs more than a ply (`from_outcomes`).
    resets_cost_one: bool,
}

impl PartDtz {
    fn new(part: Range<u64>, own: Range<u64>) -> PartDtz {
        let n = (own.end - own.start) as usize;
        let bits = || BySide::new_with(|_| AtomicBits::new(n));
        PartDtz {
            part,
            own,
            cells: BySide::new_with(|_| crate::zeroed::zeroed(n)),
            far: Default::default(),
            waits: Default::default(),
            marks: BySide::new_with(|_| {
                (0..n.div_ceil(BLOCK)).map(|_| Default::default()).collect()
            }),
            decides: bits(),
            exit_cursed: bits(),
            reprieve: bits(),
            resets_cost_one: false,
        }
    }

    /// The indices of the part held here.
    pub(crate) fn own(&self) -> &Range<u64> {
        &self.own
    }

    #[inline]
    fn cell(&self, side: Side, idx: u64) -> &AtomicU8 {
        &self.cells[side][self.bit(idx)]
    }

    #[inline]
    fn bit(&self, idx: u64) -> usize {
        (idx - self.own.start) as usize
    }

    /// The distance of `idx` with its sign, from its `cell`: None where it has none (yet).
    #[inline]
    fn distance_in(&self, side: Side, idx: u64, cell: u8) -> Option<(Wdl, u32)> {
        let far = |wdl| {
            let far = self.far[side].lock().expect("not poisoned");
            Some((wdl, far[&idx]))
        };
        match cell {
            WIN_FAR => far(Wdl::Win),
            LOSS_FAR => far(Wdl::Loss),
            c => near(c),
        }
    }

    /// The distance of `idx` (0: not known, drawn or illegal).
    #[cfg(test)]
    fn get(&self, side: Side, idx: u64) -> u32 {
        let cell = self.cell(side, idx).load(Relaxed);
        self.distance_in(side, idx, cell).map_or(0, |(_, d)| d)
    }

    /// Whether the win or loss of `idx` is cursed (blessed) under the rule: its distance
    /// is beyond 100 plies. False for a draw.
    #[cfg(test)]
    fn is_cursed(&self, side: Side, idx: u64) -> bool {
        cursed(self.cell(side, idx).load(Relaxed))
    }

    /// Side `side`'s classes under the rule, a word of 64 indices held at a time (from
    /// `own`'s first): where the win or loss is cursed, and where the best conversion is.
    pub(crate) fn class_words(
        &self,
        side: Side,
    ) -> impl IndexedParallelIterator<Item = [u64; 2]> + '_ {
        let exit_cursed = self.exit_cursed[side].words();
        (self.cells[side].par_chunks(64).zip(exit_cursed)).map(|(cells, exit)| {
            let bits = cells.iter().enumerate();
            let cursed = bits.fold(0, |w, (i, c)| w | u64::from(cursed(c.load(Relaxed))) << i);
            [cursed, exit.load(Relaxed)]
        })
    }

    /// Marks the block of `idx` as holding distance `d` (within `NEAR`).
    #[inline]
    fn mark(&self, side: Side, idx: u64, d: u32) {
        let word = &self.marks[side][self.bit(idx) / BLOCK][(d / 64) as usize];
        let bit = 1 << (d % 64);
        if word.load(Relaxed) & bit == 0 {
            word.fetch_or(bit, Relaxed);
        }
    }

    /// Settles `idx`, of no distance before, at distance `d`, won or lost; true where `d`
    /// is beyond `NEAR` (the caller lists it for its level).
    fn settle(&self, side: Side, idx: u64, wdl: Wdl, d: u32) -> bool {
        let cell = self.cell(side, idx);
        if d <= NEAR {
            let code = match wdl {
                Wdl::Win => d as u8,
                _ => LOSS_0 + d as u8,
            };
            cell.store(code, Relaxed);
            self.mark(side, idx, d);
            return false;
        }
        let mut far = self.far[side].lock().expect("not poisoned");
        far.insert(idx, d);
        cell.store(if wdl == Wdl::Win { WIN_FAR } else { LOSS_FAR }, Relaxed);
        true
    }

    /// Makes `idx`, a loser with quiet moves, wait for the `n` positions inside the part
    /// they lead to; `reprieve` where one of its resets costs `NEAR`.
    fn wait(&self, side: Side, idx: u64, n: u32, reprieve: bool) {
        if reprieve {
            self.reprieve[side].set(self.bit(idx));
        }
        let code = match n {
            1..=WAITS => WAIT_0 + n as u8,
            _ => {
                self.waits[side]
                    .lock()
                    .expect("not poisoned")
                    .insert(idx, n);
                MANY_WAITS
            }
        };
        self.cell(side, idx).store(code, Relaxed);
    }

    /// Lowers the distance of `idx`, a winner, to `d` (one not found counts as infinitely
    /// far); Some(true) where it was lowered beyond `NEAR` (the caller lists it for its
    /// level), Some(false) within it, None where it was not lowered (or `idx` is no winner).
    /// A distance lowered from one its resets gave (within `NEAR`: they cost no more) is no
    /// longer theirs (`decides`); one lowered from none, or from one the search gave, was
    /// never theirs, and its bit is left unread, as the search lowers most winners so.
    fn lower(&self, side: Side, idx: u64, d: u32) -> Option<bool> {
        let cell = self.cell(side, idx);
        if d > NEAR {
            // Levels beyond `NEAR` come after every distance within it is found: a winner
            // is lowered beyond it from none, or from further.
            let mut far = self.far[side].lock().expect("not poisoned");
            return match cell.load(Relaxed) {
                WIN_UNKNOWN => {
                    far.insert(idx, d);
                    cell.store(WIN_FAR, Relaxed);
                    Some(true)
                }
                WIN_FAR if far[&idx] > d => {
                    far.insert(idx, d);
                    Some(true)
                }
                _ => None,
            };
        }
        let mut now = cell.load(Relaxed);
        loop {
            let nearer = match now {
                1..=NEAR_U8 => u32::from(now) > d,
                WIN_UNKNOWN => true,
                _ => false,
            };
            if !nearer {
                return None;
            }
            match cell.compare_exchange_weak(now, d as u8, Relaxed, Relaxed) {
                Ok(_) => {
                    if now != WIN_UNKNOWN {
                        self.decides[side].clear(self.bit(idx));
                    }
                    self.mark(side, idx, d);
                    return Some(false);
                }
                Err(c) => now = c,
            }
        }
    }

    /// Counts a quiet move of `idx` as settled; where `idx` is a waiting loser and that
    /// was its last, settles it at `level` + 1 (its farthest quiet move is this level's),
    /// or at the cost of its reprieve if that is further, and gives its distance.
    fn count_down(&self, side: Side, idx: u64, level: u32) -> Option<u32> {
        let cell = self.cell(side, idx);
        loop {
            match cell.load(Relaxed) {
                MANY_WAITS => {
                    let mut waits = self.waits[side].lock().expect("not poisoned");
                    if cell.load(Relaxed) != MANY_WAITS {
                        continue; // made a count in the cell since
                    }
                    let left = waits.get_mut(&idx).expect("a count");
                    *left -= 1;
                    if *left == WAITS {
                        waits.remove(&idx);
                        cell.store(WAIT_0 + WAITS as u8, Relaxed);
                    }
                    return None;
                }
                c if c > WAIT_0 => break,
                _ => return None,
            }
        }
        let was = cell.fetch_sub(1, Relaxed);
        debug_assert!(was > WAIT_0, "a quiet move counted twice");
        if was != WAIT_0 + 1 {
            return None;
        }
        let reprieve = self.reprieve[side].get(self.bit(idx));
        let d = match reprieve {
            true => NEAR.max(level + 1),
            false => level + 1,
        };
        if reprieve && d == NEAR {
            self.decides[side].set(self.bit(idx));
        }
        self.settle(side, idx, Wdl::Loss, d);
        Some(d)
    }

    /// The part's distances as a solution (its indices from `Solution::first`), each
    /// distance d stored as the distance to mate a DTM layer would store as d moves (a win
    /// in 2d - 1 plies, a loss in 2d), so that a table's DTZ layer is written, and read,
    /// as its DTM layer is: exact, the sign from the WDL layer, "or better through a reset
    /// or mate" where one gives the value (`decides`). Made in place of the cells.
    pub(crate) fn into_share(self) -> Solution {
        let first = self.own.start;
        let mut values: BySide<Vec<u8>> = Default::default();
        let mut long: BySide<Vec<(u64, u32)>> = Default::default();
        let far = self.far.map(|f| f.into_inner().expect("not poisoned"));
        for ((side, cells), (_, far)) in self.cells.into_iter().zip(far) {
            let mut bytes = crate::zeroed::from_atomic::<u8>(cells);
            // The distance to mate a cell's code stands for, the index's.
            let dtm = |idx: u64, code: u8| {
                let (wdl, d) = match code {
                    WIN_FAR => (Wdl::Win, far[&idx]),
                    LOSS_FAR => (Wdl::Loss, far[&idx]),
                    c => near(c).unwrap_or((Wdl::Draw, 0)),
                };
                as_distance(d, Wdl5::new(wdl, false))
            };
            long[side] = (far.keys())
                .map(|&idx| (idx, dtm(idx, bytes[(idx - first) as usize])))
                .filter(|(_, d)| d.encode() == Dtm::LONG)
                .map(|(idx, d)| (idx, d.plies().expect("decisive")))
                .collect();
            (bytes.par_iter_mut().enumerate())
                .for_each(|(i, b)| *b = dtm(first + i as u64, *b).encode());
            values[side] = bytes;
        }
        let mut share = Solution::from_parts(values, Default::default());
        share.first = first;
        share.long = long.map(LongDistances::new);
        share.exit_decides = self.decides.map(AtomicBits::into_words);
        share
    }
}

/// A distance to zeroing `d` of a position of `class` as the distance to mate that a DTM
/// layer stores as d moves (`PartDtz::into_share`); a draw for 0.
pub(crate) fn as_distance(d: u32, class: Wdl5) -> Dtm {
    match (d, class.wdl()) {
        (0, _) | (_, Wdl::Draw) => Dtm::Draw,
        (d, Wdl::Win) => Dtm::Win(2 * d - 1),
        (d, Wdl::Loss) => Dtm::Loss(2 * d),
    }
}

/// A position listed for its level beyond `NEAR`: side in the top bit, index below.
fn entry(side: Side, idx: u64) -> u64 {
    (side.index() as u64) << 63 | idx
}

fn side_idx(e: u64) -> (Side, u64) {
    (Side::from_index((e >> 63) as usize), e & (u64::MAX >> 1))
}

/// A note to another process (`PartDtz::deliver`): the side of a predecessor and whether
/// it comes from a loser (bits 0 and 1), and its index.
type Note = (u8, u64);

/// What a level found: the positions settled beyond `NEAR` with their distances, and the
/// notes for each process (`PartDtz::deliver`; none for this one, nor where alone).
type Found = (Vec<(u32, u64)>, Vec<Vec<u8>>);

/// Nothing found, and no note for any of `count` processes.
fn found_nothing(count: usize) -> Found {
    (Vec::new(), vec![Vec::new(); count])
}

fn join_found((mut found, mut mail): Found, (more, more_mail): Found) -> Found {
    found.extend(more);
    for (to, more) in mail.iter_mut().zip(more_mail) {
        to.extend(more);
    }
    (found, mail)
}

/// The positions found beyond `NEAR`, by level.
#[derive(Default)]
struct FarLevels(Vec<Vec<u64>>);

impl FarLevels {
    fn extend(&mut self, found: Vec<(u32, u64)>) {
        for (level, e) in found {
            let level = level as usize;
            if self.0.len() <= level {
                self.0.resize_with(level + 1, Vec::new);
            }
            self.0[level].push(e);
        }
    }
}

/// What a position's resets and mates give its side to move.
struct Terminal {
    /// For a winner, the least cost among the moves that keep the win; for a loser, the
    /// greatest; None when no such move is there.
    cost: Option<u32>,
    /// Whether it has quiet moves (moves inside the part).
    quiet: bool,
    /// Whether its best conversion is a cursed win or a blessed loss.
    exit_cursed: bool,
}

/// The `Terminal` of a legal position (None for an illegal index), the mover a `winner`
/// (who `mates` in one, or not) or a loser; `class_before` gives the class of a position
/// of an earlier part.
fn terminal<E: Send>(
    game: &ChessGame<'_, E>,
    side: Side,
    idx: u64,
    winner: bool,
    mates: bool,
    class_before: &(impl Fn(Side, u64) -> Wdl5 + Sync),
) -> Option<Terminal> {
    let at = game.placed(side, idx)?;
    let mut list = MoveList::new();
    let mut quiet = false;
    at.pos
        .legal_moves_by_quiet_sets(&mut list, |_, _, to| quiet |= !to.is_empty());
    let mut best: Option<u32> = None;
    let mut best_conversion: Option<Wdl5> = None;
    for m in list.as_slice() {
        debug_assert!(m.is_conversion() || m.role == Role::Pawn, "{m:?}");
        let class = game.reset_class(&at, m, class_before);
        if m.is_conversion() {
            best_conversion = best_conversion.max(Some(class.back()));
        }
        let keeps = match winner {
            true => class.wdl() == Wdl::Loss,
            false => true,
        };
        if let Some(cost) = reset_cost(class).filter(|_| keeps) {
            best = Some(match (best, winner) {
                (None, _) => cost,
                (Some(b), true) => b.min(cost),
                (Some(b), false) => b.max(cost),
            });
        }
    }
    if winner && best != Some(1) && quiet && mates {
        // A mate ends the count too (a quiet one: the resets were looked at).
        best = Some(1);
    }
    Some(Terminal {
        cost: best,
        quiet,
        exit_cursed: best_conversion.is_some_and(Wdl5::is_cursed),
    })
}

/// The distances to zeroing of the positions of `part`, whose values `value` gives (of
/// the positions of `part`, their distance to mate; of those of the earlier parts its pawn
/// moves reach, also their class under the rule), the sub-tables read through `game`:
/// `PartDtz::from_outcomes`, `set_up` and `search` in turn. Also the number of won or
/// lost legal positions left without a distance: a fault of the solver, 0 otherwise.
pub(crate) fn solve_part<E: Send>(
    game: &ChessGame<'_, E>,
    part: Range<u64>,
    value: &(impl Fn(Side, u64) -> (Dtm, Wdl5) + Sync),
    observer: &dyn Observer,
) -> (PartDtz, u64) {
    let dtz = PartDtz::from_outcomes(part.clone(), part, &|side, idx| value(side, idx).0, None);
    let unsolved = dtz.solve(game, &|side, idx| value(side, idx).1, &Alone, observer);
    (dtz, unsolved)
}

impl PartDtz {
    /// The cells of the indices `own` of `part`, whose distances to mate `dtm` gives,
    /// before they are set up:
    /// of a distance to mate the search reads only its sign and whether it is a mate in
    /// one, so that the solution need not be read (nor held whole) from here on. Where
    /// `exit_wins` is given, no reset of the part costs more than a ply (the part has no
    /// pawn, and no class the rule turns is in reach: nothing is cursed), and a winner
    /// whose best conversion wins (`exit_wins`) is settled at 1 here, so that `set_up`
    /// decodes only the losers, to count their quiet moves.
    pub(crate) fn from_outcomes(
        part: Range<u64>,
        own: Range<u64>,
        dtm: &(impl Fn(Side, u64) -> Dtm + Sync),
        exit_wins: Option<&(dyn Fn(Side, u64) -> bool + Sync)>,
    ) -> PartDtz {
        let mut dtz = PartDtz::new(part, own);
        dtz.resets_cost_one = exit_wins.is_some();
        let first = dtz.own.start;
        for side in Side::ALL {
            (dtz.cells[side].par_iter().enumerate()).for_each(|(i, cell)| {
                let idx = first + i as u64;
                let code = match dtm(side, idx) {
                    Dtm::Draw => return,
                    Dtm::Win(1) => 1,
                    Dtm::Win(_) if exit_wins.is_some_and(|wins| wins(side, idx)) => 1,
                    Dtm::Win(_) => WIN_UNKNOWN,
                    Dtm::Loss(_) => TO_SET_UP,
                };
                cell.store(code, Relaxed);
            });
        }
        dtz
    }

    /// Sets the cells up and searches (`set_up`, `search`), split across `peers` where each
    /// holds its share; gives the won or lost legal positions left without a distance over
    /// every process (collective where split): a fault of the solver, 0 otherwise.
    pub(crate) fn solve<E: Send>(
        &self,
        game: &ChessGame<'_, E>,
        class_before: &(impl Fn(Side, u64) -> Wdl5 + Sync),
        peers: &dyn Peers,
        observer: &dyn Observer,
    ) -> u64 {
        self.set_up(game, class_before, observer);
        self.search(game, peers, observer);
        let all = peers.all_gather_words(&[self.unsolved()]);
        all.iter().map(|theirs| theirs[0]).sum()
    }

    /// Sets the cells up for the search: a winner with a reset or mate that keeps the win
    /// has its cost for now, a loser without quiet moves is settled, one with waits for
    /// them; a draw is out. `class_before` gives the class under the rule of a position of
    /// an earlier part (a pawn move's); the sub-tables are read through `game`.
    fn set_up<E: Send>(
        &self,
        game: &ChessGame<'_, E>,
        class_before: &(impl Fn(Side, u64) -> Wdl5 + Sync),
        observer: &dyn Observer,
    ) {
        let (part, own) = (&self.part, &self.own);
        observer.pass("distance to zeroing, setting up", 2 * (own.end - own.start));
        let blocks = (own.start..own.end).step_by(BLOCK).collect::<Vec<u64>>();
        blocks.into_par_iter().for_each(|from| {
            let to = (from + BLOCK as u64).min(own.end);
            for (idx, side) in (from..to).flat_map(|idx| Side::ALL.map(|side| (idx, side))) {
                let (winning, mates) = match self.cell(side, idx).load(Relaxed) {
                    0 => continue,
                    TO_SET_UP => (false, false),
                    c => (true, c == 1),
                };
                if self.resets_cost_one {
                    // A winner at 1 mates or converts into a loss; a loser's resets all
                    // cost 1, no more than his quiet moves (all inside the part).
                    let n = match winning {
                        true => u32::from(!mates),
                        false => game.quiet_successors(side, idx, |j| part.contains(&j)),
                    };
                    match n {
                        0 => {
                            let wdl = if winning { Wdl::Win } else { Wdl::Loss };
                            self.settle(side, idx, wdl, 1);
                            self.decides[side].set(self.bit(idx));
                        }
                        n if !winning => self.wait(side, idx, n, false),
                        _ => {}
                    }
                    continue;
                }
                let Some(t) = terminal(game, side, idx, winning, mates, class_before) else {
                    self.cell(side, idx).store(0, Relaxed);
                    continue;
                };
                if t.exit_cursed {
                    self.exit_cursed[side].set(self.bit(idx));
                }
                let settled = match (winning, t.cost, t.quiet) {
                    (true, Some(d), _) => Some((Wdl::Win, d)),
                    (true, None, _) => None, // `WIN_UNKNOWN` already
                    (false, cost, false) => Some((Wdl::Loss, cost.unwrap_or(1))), // mated: 1
                    (false, cost, true) => {
                        let n = game.quiet_successors(side, idx, |j| part.contains(&j));
                        self.wait(side, idx, n, cost == Some(NEAR));
                        None
                    }
                };
                if let Some((wdl, d)) = settled {
                    self.settle(side, idx, wdl, d);
                    self.decides[side].set(self.bit(idx));
                }
            }
            observer.advance(2 * (to - from));
        });
    }
    /// Finds the distances level by level from the cells set up: the positions at each
    /// distance give their predecessors theirs (a loser's, a winner's one more; a winner's
    /// counts down its losers' waits). Within `NEAR` a level reads the blocks marked for
    /// it; beyond, the positions listed for it. Split across `peers` (each holding its
    /// share, `own`), the predecessors another process holds are sent to it at the end of
    /// each level, in step (collective).
    fn search<E: Send>(&self, game: &ChessGame<'_, E>, peers: &dyn Peers, observer: &dyn Observer) {
        let shares = Shares::new(self.part.clone(), peers.count());
        let mut far = FarLevels::default();
        let mut level = 1;
        loop {
            let listed = (level as usize) < far.0.len();
            let more = peers.any_of(&[listed])[0];
            if level > NEAR && !more {
                break;
            }
            let (mut found, mail) = if level <= NEAR {
                self.near_level(game, level, (&shares, peers.count()), observer)
            } else {
                let now = far.0.get_mut(level as usize).map(std::mem::take);
                let split = (&shares, peers.count());
                self.far_level(game, level, now.unwrap_or_default(), split, observer)
            };
            found.extend(self.deliver(mail, level, peers));
            far.extend(found);
            level += 1;
        }
    }

    /// The level `level` (within `NEAR`): the positions found beyond `NEAR` by it, and the
    /// notes for the other processes (`Found`).
    fn near_level<E: Send>(
        &self,
        game: &ChessGame<'_, E>,
        level: u32,
        (shares, count): (&Shares, usize),
        observer: &dyn Observer,
    ) -> Found {
        let (word, bit) = ((level / 64) as usize, 1u64 << (level % 64));
        let blocks: Vec<(Side, usize)> = Side::ALL
            .into_iter()
            .flat_map(|side| {
                let marked = self.marks[side].iter().enumerate();
                marked
                    .filter(move |(_, m)| m[word].load(Relaxed) & bit != 0)
                    .map(move |(b, _)| (side, b))
            })
            .collect();
        if !blocks.is_empty() {
            observer.pass(
                &format!("distance to zeroing, ply {level}"),
                (blocks.len() * BLOCK) as u64,
            );
        }
        let (won, lost) = (level as u8, LOSS_0 + level as u8);
        blocks
            .into_par_iter()
            .fold(
                || found_nothing(count),
                |mut found, (side, b)| {
                    let from = b * BLOCK;
                    let to = ((b + 1) * BLOCK).min(self.cells[side].len());
                    for (i, cell) in (from..).zip(&self.cells[side][from..to]) {
                        let c = cell.load(Relaxed);
                        if c == won || c == lost {
                            let idx = self.own.start + i as u64;
                            self.expand(game, side, idx, c == lost, level, shares, &mut found);
                        }
                    }
                    observer.advance(BLOCK as u64);
                    found
                },
            )
            .reduce(|| found_nothing(count), join_found)
    }

    /// The level `level` (beyond `NEAR`) of the positions listed for it (`entry`): the
    /// positions found by it, and the notes for the other processes.
    fn far_level<E: Send>(
        &self,
        game: &ChessGame<'_, E>,
        level: u32,
        listed: Vec<u64>,
        (shares, count): (&Shares, usize),
        observer: &dyn Observer,
    ) -> Found {
        observer.pass(
            &format!("distance to zeroing, ply {level}"),
            listed.len() as u64,
        );
        listed
            .par_chunks(BLOCK)
            .fold(
                || found_nothing(count),
                |mut found, chunk| {
                    for &e in chunk {
                        let (side, idx) = side_idx(e);
                        let cell = self.cell(side, idx).load(Relaxed);
                        if let Some((wdl, d)) = self.distance_in(side, idx, cell) {
                            if d == level {
                                let lost = wdl == Wdl::Loss;
                                self.expand(game, side, idx, lost, level, shares, &mut found);
                            }
                        }
                    }
                    observer.advance(chunk.len() as u64);
                    found
                },
            )
            .reduce(|| found_nothing(count), join_found)
    }

    /// Gives the predecessors of `idx`, at distance `level` (lost where `from_loser`),
    /// theirs (`note`), or notes them for the process that holds them.
    #[allow(clippy::too_many_arguments)]
    fn expand<E: Send>(
        &self,
        game: &ChessGame<'_, E>,
        side: Side,
        idx: u64,
        from_loser: bool,
        level: u32,
        shares: &Shares,
        (found, mail): &mut Found,
    ) {
        let Some(at) = game.placed_legal(side, idx) else {
            return;
        };
        let other = !side;
        let part = &self.part;
        game.unmoved_indices(&at, |j| part.contains(&j), &mut |q| {
            if self.own.contains(&q) {
                self.note(other, q, from_loser, level, found);
            } else {
                let tag = other.index() as u8 | u8::from(from_loser) << 1;
                (tag, q).put(&mut mail[shares.owner(q)]);
            }
        });
    }

    /// What a position at distance `level` (lost where `from_loser`) does to `q`, a
    /// predecessor held here with `side` to move: a winner's distance is lowered, a
    /// loser's waits counted down. Those settled beyond `NEAR` go to `found`, with their
    /// distances.
    fn note(&self, side: Side, q: u64, from_loser: bool, level: u32, found: &mut Vec<(u32, u64)>) {
        if from_loser {
            if self.lower(side, q, level + 1) == Some(true) {
                found.push((level + 1, entry(side, q)));
            }
        } else if let Some(d) = self.count_down(side, q, level) {
            if d > NEAR {
                found.push((d, entry(side, q)));
            }
        }
    }

    /// Sends `mail` (a `Note` per predecessor) to the processes it is for, and applies what comes here at
    /// `level`: the positions found beyond `NEAR` (collective).
    fn deliver(&self, mail: Vec<Vec<u8>>, level: u32, peers: &dyn Peers) -> Vec<(u32, u64)> {
        let received = peers.all_to_all(mail);
        (received.par_iter())
            .flat_map(|notes| notes.par_chunks(Note::BYTES * BLOCK))
            .fold(Vec::new, |mut found, notes| {
                for (tag, q) in each::<Note>(notes) {
                    let side = Side::from_index(usize::from(tag & 1));
                    let from_loser = tag & 2 != 0;
                    self.note(side, q, from_loser, level, &mut found);
                }
                found
            })
            .flatten()
            .collect()
    }

    /// The won or lost legal positions without a distance: every one was given a cell.
    fn unsolved(&self) -> u64 {
        (self.cells.iter())
            .map(|(_, cells)| {
                (cells.par_iter())
                    .map(|c| c.load(Relaxed))
                    .filter(|&c| c == WIN_UNKNOWN || c > WAIT_0)
                    .count() as u64
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::Session;
    use crate::index::TableIndex;
    use crate::material::Material;
    use crate::probe::{LoadedTables, Tablebase};
    use crate::progress::Silent;
    use crate::retro::bit;
    use crate::retro::fifty::Rule;
    use shakmaty::{fen::Fen, CastlingMode, Chess};

    /// The distances of the legal positions (one index in `every`) of `signature`, built in
    /// `dir` with its sub-tables, equal Syzygy's (`shakmaty-syzygy` reading its files in
    /// `tests/data/syzygy`): exactly where it says its value is precise, within the ply
    /// its files may round by elsewhere. Returns the positions compared.
    fn equal_syzygy(
        tb: &Tablebase,
        syzygy: &shakmaty_syzygy::Tablebase<Chess>,
        m: Material,
        every: u64,
    ) -> u64 {
        let loaded = LoadedTables::load(tb, &[m]).unwrap();
        let index = TableIndex::new(m);
        let game = ChessGame::new(index.clone(), &loaded);
        let value = |side: Side, idx: u64| {
            let d = loaded.dtm_at(&m, side, idx).unwrap_or(Dtm::Draw);
            let cursed = bit(loaded.cursed(&m, side).unwrap(), idx);
            (d, Wdl5::new(d.wdl(), cursed))
        };
        let mut compared = 0;
        for part in index.parts() {
            let (dtz, unsolved) = solve_part(&game, part.clone(), &value, &Silent);
            assert_eq!(unsolved, 0, "{m}: decisive positions without a distance");
            for idx in part.step_by(every as usize) {
                for side in Side::ALL {
                    let Some(pos) = game.position(side, idx) else {
                        continue;
                    };
                    let fen: Fen = pos.to_string().parse().unwrap();
                    let theirs = fen.into_position::<Chess>(CastlingMode::Standard).unwrap();
                    let expected = syzygy.probe_dtz(&theirs).unwrap();
                    let class = value(side, idx).1;
                    assert_eq!(dtz.is_cursed(side, idx), class.is_cursed(), "{m} {pos}");
                    let d = dtz.get(side, idx) as i32;
                    let ours = match class.wdl() {
                        Wdl::Win => d,
                        Wdl::Loss => -d,
                        Wdl::Draw => 0,
                    };
                    match expected {
                        shakmaty_syzygy::MaybeRounded::Precise(t) => {
                            assert_eq!(ours, t.0, "{m} {pos}: ours {ours}, Syzygy's {}", t.0)
                        }
                        shakmaty_syzygy::MaybeRounded::Rounded(t) => assert!(
                            (ours - t.0).abs() <= 1 && ours.signum() == t.0.signum(),
                            "{m} {pos}: ours {ours}, Syzygy's {} (rounded)",
                            t.0
                        ),
                    }
                    compared += 1;
                }
            }
        }
        compared
    }

    #[test]
    fn distances_to_zeroing_equal_syzygys_on_tables_of_each_kind() {
        let dir = tempfile::tempdir().unwrap();
        // A pawn table, a long pawnless one and one of two defenders' pieces, each with
        // its sub-tables; every table of up to 4 pieces is held to Syzygy's through its
        // file in `tests/it/tables.rs`.
        let targets: Vec<Material> = ["KPvK", "KBNvK", "KRvKN"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        let tb = Session::open(dir.path(), &targets)
            .build_all(&Default::default(), &Silent)
            .unwrap();
        // SAFETY: the test data's files, which nothing writes while the tests run.
        let mut syzygy = unsafe { shakmaty_syzygy::Tablebase::with_mmap_filesystem() };
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/syzygy");
        syzygy.add_directory(&data).unwrap();
        let all: Vec<Material> = tb.materials().collect();
        for m in all {
            let n = equal_syzygy(&tb, &syzygy, m, 61);
            assert!(n > 0, "{m}");
        }
    }

    /// A part that starts inside a word of the rule's bitmaps (as a pawn table's parts
    /// do) is classed at its own indices: a cursed bit near a word's end spills into the
    /// next word.
    #[test]
    fn a_part_starting_inside_a_word_is_classed_at_its_indices() {
        let (part, cursed) = (100..300, [130, 299]);
        let dtm = |_: Side, idx: u64| match cursed.contains(&idx) || idx == 131 {
            true => Dtm::Win(7),
            false => Dtm::Draw,
        };
        let dtz = PartDtz::from_outcomes(part.clone(), part.clone(), &dtm, None);
        for idx in cursed {
            dtz.settle(Side::Black, idx, Wdl::Win, NEAR);
        }
        dtz.settle(Side::Black, 131, Wdl::Win, 9);
        let rule = Rule::over(0..300);
        rule.class_part(&dtz);
        let classes: Vec<u64> = (0..300)
            .filter(|&idx| rule.class_of(Side::Black, idx, Wdl::Win) == Wdl5::CursedWin)
            .collect();
        assert_eq!(classes, cursed);
        assert!((0..300).all(|idx| rule.class_of(Side::White, idx, Wdl::Win) == Wdl5::Win));
    }
}
