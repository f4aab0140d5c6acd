//! Distance to zeroing under the 50-move rule (DESIGN.md §2, Syzygy's DTZ50″) of a solved
//! chess table: for every won or lost position, the plies to the next move that resets the
//! move count (a capture, a promotion, a pawn move) or mates, with best play under the
//! rule: the winner zeroes as soon as he can while keeping the win, the loser delays it.
//!
//! The classes under the rule (`fifty`) are known first; the distances follow from them by
//! a level-by-level search over the quiet moves, which all stay inside the part of the
//! index (pawn moves are resets). Every ply counts, whoever plays it: a reset or a mate
//! ends the count after its own ply, 1 into a position lost (won) under the rule and 101
//! into one the rule saves (dooms), so that a win the rule spoils counts beyond 100 as
//! Syzygy counts it; a checkmated position is 1 too (Syzygy's -1). Then a winner's
//! distance is the least over his moves that keep the win, a loser's the greatest over
//! his moves, of that cost or 1 + the distance of the position a quiet move leads to.
//! A loser forced to reset at once is 1, and his opponent's move into it 2: wins and
//! losses of either parity, found at every level. (Syzygy's own files hold these
//! distances ply-accurate only when built so, `rtbgen -p`; by default some are rounded
//! up or down a ply.)
//!
//! A distance within 100 plies is a win or loss under the rule and one beyond is cursed:
//! the classes found before are checked against it.
//!
//! Not here: the classes themselves (`fifty`), storing the distances (`table`).

use super::bits::AtomicBits;
use super::chess::ChessGame;
use super::fifty::RULE_PLIES;
use super::solver::{RetroGame, Solution, Successor};
use crate::chess::{MoveList, Role};
use crate::progress::Observer;
use crate::value::{Dtm, LongDistances, Wdl5};
use rayon::prelude::*;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
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

/// Positions a thread takes at once, and reports as done together.
const BLOCK: usize = 4096;

/// A byte that holds distances up to `LONG - 1`; longer ones are kept apart.
const LONG: u8 = 255;

/// The distances of one part of a table, found and being found.
pub struct PartDtz {
    /// The part.
    part: Range<u64>,
    /// Per side, a byte per index of the part: 0 not known (drawn, illegal, or not yet
    /// found), the distance, or `LONG`.
    bytes: [Vec<AtomicU8>; 2],
    /// Per side, the distances of `LONG` bytes, by index.
    long: [Mutex<HashMap<u64, u32>>; 2],
    /// Per side, a bit per index of the part, set where a reset or a mate gives the
    /// position its distance (a probe finds it among the moves: the writer may store
    /// anything no better there).
    decides: [AtomicBits; 2],
}

impl PartDtz {
    fn new(part: Range<u64>) -> PartDtz {
        let n = (part.end - part.start) as usize;
        PartDtz {
            part,
            bytes: [0, 1].map(|_| crate::zeroed::zeroed(n)),
            long: Default::default(),
            decides: [0, 1].map(|_| AtomicBits::new(n)),
        }
    }

    /// The distance of `idx` (0: not known).
    #[inline]
    pub fn get(&self, side: usize, idx: u64) -> u32 {
        match self.bytes[side][(idx - self.part.start) as usize].load(Relaxed) {
            LONG => self.long[side].lock().expect("not poisoned")[&idx],
            b => u32::from(b),
        }
    }

    /// Lowers the distance of `idx` to `d` (a position not known counts as infinitely
    /// far); true if it was lowered.
    fn lower(&self, side: usize, idx: u64, d: u32) -> bool {
        let byte = &self.bytes[side][(idx - self.part.start) as usize];
        if d < u32::from(LONG) {
            let mut now = byte.load(Relaxed);
            loop {
                let known = now != 0 && (now == LONG || u32::from(now) <= d);
                if known && now != LONG {
                    return false;
                }
                if known && self.get(side, idx) <= d {
                    return false;
                }
                match byte.compare_exchange_weak(now, d as u8, Relaxed, Relaxed) {
                    Ok(_) => {
                        if now == LONG {
                            self.long[side].lock().expect("not poisoned").remove(&idx);
                        }
                        return true;
                    }
                    Err(b) => now = b,
                }
            }
        }
        let mut long = self.long[side].lock().expect("not poisoned");
        match byte.load(Relaxed) {
            0 => {
                byte.store(LONG, Relaxed);
                long.insert(idx, d);
                true
            }
            LONG if long[&idx] > d => {
                long.insert(idx, d);
                true
            }
            _ => false,
        }
    }

    /// Sets the distance of `idx`, not known before, to `d`; false if another thread did
    /// first.
    fn settle(&self, side: usize, idx: u64, d: u32) -> bool {
        let byte = &self.bytes[side][(idx - self.part.start) as usize];
        if d < u32::from(LONG) {
            return byte.compare_exchange(0, d as u8, Relaxed, Relaxed).is_ok();
        }
        let mut long = self.long[side].lock().expect("not poisoned");
        if byte.compare_exchange(0, LONG, Relaxed, Relaxed).is_err() {
            return false;
        }
        long.insert(idx, d);
        true
    }

    fn bit(&self, idx: u64) -> usize {
        (idx - self.part.start) as usize
    }

    /// The part's distances as a solution (its indices from `Solution::first`), each
    /// distance d stored as the distance to mate a DTM layer would store as d moves (a win
    /// in 2d - 1 plies, a loss in 2d), so that a table's DTZ layer is written, and read,
    /// as its DTM layer is: exact, the sign from the WDL layer, "or better through a reset
    /// or mate" where one gives the value (`decides`). `class` is each position's class.
    pub fn into_share(self, class: impl Fn(usize, u64) -> Wdl5 + Sync) -> Solution {
        let first = self.part.start;
        let mut values: [Vec<u8>; 2] = Default::default();
        let mut long: [Vec<(u64, u32)>; 2] = Default::default();
        for side in 0..2 {
            let distance = |i: usize| {
                let idx = first + i as u64;
                as_distance(self.get(side, idx), class(side, idx))
            };
            values[side] = (0..self.bytes[side].len())
                .into_par_iter()
                .map(|i| distance(i).encode())
                .collect();
            long[side] = (values[side].par_iter().enumerate())
                .filter(|(_, &b)| b == Dtm::LONG)
                .map(|(i, _)| {
                    let plies = distance(i).plies().expect("a decisive distance");
                    (first + i as u64, plies)
                })
                .collect();
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
pub fn as_distance(d: u32, class: Wdl5) -> Dtm {
    match (d, class.wdl()) {
        (0, _) | (_, crate::value::Wdl::Draw) => Dtm::Draw,
        (d, crate::value::Wdl::Win) => Dtm::Win(2 * d - 1),
        (d, crate::value::Wdl::Loss) => Dtm::Loss(2 * d),
    }
}

/// A position waiting for its level: side in the top bit, index below.
fn entry(side: usize, idx: u64) -> u64 {
    (side as u64) << 63 | idx
}

fn side_idx(e: u64) -> (usize, u64) {
    ((e >> 63) as usize, e & (u64::MAX >> 1))
}

/// Positions found at each level, by level.
#[derive(Default)]
struct Levels(Vec<Vec<u64>>);

impl Levels {
    fn push(&mut self, level: u32, e: u64) {
        let level = level as usize;
        if self.0.len() <= level {
            self.0.resize_with(level + 1, Vec::new);
        }
        self.0[level].push(e);
    }

    /// Both lists, level by level.
    fn join(mut self, other: Levels) -> Levels {
        if self.0.len() < other.0.len() {
            self.0.resize_with(other.0.len(), Vec::new);
        }
        for (mine, theirs) in self.0.iter_mut().zip(other.0) {
            mine.extend(theirs);
        }
        self
    }

    fn extend(&mut self, found: Vec<(u32, u64)>) {
        for (level, e) in found {
            self.push(level, e);
        }
    }
}

/// What a position's resets and mates give its side to move: for a winner, the least cost
/// among the moves that keep the win; for a loser, the greatest; None when no such move is
/// there. And whether it has quiet moves (moves inside the part).
fn terminal<E: Send>(
    game: &ChessGame<'_, E>,
    side: usize,
    idx: u64,
    winner: bool,
    value: &(impl Fn(usize, u64) -> (Dtm, Wdl5) + Sync),
) -> Option<(Option<u32>, bool)> {
    let at = game.placed(side, idx)?;
    let mut list = MoveList::new();
    let mut quiet = false;
    at.pos
        .legal_moves_by_quiet_sets(&mut list, |_, _, to| quiet |= !to.is_empty());
    let mut best: Option<u32> = None;
    for m in list.as_slice() {
        debug_assert!(m.is_conversion() || m.role == Role::Pawn, "{m:?}");
        let class = game.reset_class(&at, m, |s, i| value(s, i).1);
        let keeps = match winner {
            true => class.wdl() == crate::value::Wdl::Loss,
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
    if winner && best != Some(1) && quiet && value(side, idx).0 == Dtm::Win(1) {
        // A mate ends the count too (a quiet one: the resets were looked at).
        best = Some(1);
    }
    Some((best, quiet))
}

/// The number of positions inside `part` the quiet moves of `idx` (a legal position) lead
/// to, each index once, as the solver counts them: as many as `unmoved_indices` gives
/// `idx` back from them. Mostly counted by index arithmetic, not encoded.
fn quiet_successors<E: Send>(
    game: &ChessGame<'_, E>,
    part: &Range<u64>,
    side: usize,
    idx: u64,
) -> u32 {
    let mut listed = 0;
    let counted = game.successors_counted(side, idx, &mut |s| match s {
        Successor::Table(j) | Successor::Either(j, _) => listed += u32::from(part.contains(&j)),
        Successor::Fixed(_) => {}
    });
    counted.map_or(0, |(_, n)| n) + listed
}

/// The distances to zeroing of the positions of `part`, whose values with their classes
/// under the rule `value` gives (and those of the earlier parts its pawn moves reach), the
/// sub-tables read through `game`. Of each distance to mate the search reads its sign and
/// whether it is a mate in one (`Win(1)`) or checkmated (`Loss(0)`), no more. Checks each distance against its class; a class that
/// disagrees is a fault of the solver, counted in the result's `disagree`.
pub fn solve_part<E: Send>(
    game: &ChessGame<'_, E>,
    part: Range<u64>,
    value: &(impl Fn(usize, u64) -> (Dtm, Wdl5) + Sync),
    observer: &dyn Observer,
) -> (PartDtz, u64) {
    let dtz = PartDtz::new(part.clone());
    // Per side, for each loser with quiet moves, how many of the positions they lead to
    // (told apart by index) have no distance yet: the loser's is known when none is left.
    let waiting: [Vec<AtomicU8>; 2] =
        [0, 1].map(|_| crate::zeroed::zeroed((part.end - part.start) as usize));
    let class = |side: usize, idx: u64| value(side, idx).1;
    let winning = |c: Wdl5| matches!(c, Wdl5::Win | Wdl5::CursedWin);
    let losing = |c: Wdl5| matches!(c, Wdl5::Loss | Wdl5::BlessedLoss);
    observer.pass(
        "distance to zeroing, setting up",
        2 * (part.end - part.start),
    );
    // Each decisive position's resets and mates: a winner's set its distance for now, a
    // loser without quiet moves is settled.
    let blocks = (part.start..part.end).step_by(BLOCK).collect::<Vec<u64>>();
    let mut levels = blocks
        .into_par_iter()
        .map(|from| {
            let to = (from + BLOCK as u64).min(part.end);
            let mut found = Levels::default();
            for (idx, side) in (from..to).flat_map(|idx| [(idx, 0), (idx, 1)]) {
                let c = class(side, idx);
                if c == Wdl5::Draw {
                    continue;
                }
                let Some((cost, quiet)) = terminal(game, side, idx, winning(c), value) else {
                    continue;
                };
                let d = match (winning(c), cost, quiet) {
                    (true, Some(d), _) => d,
                    (false, cost, false) => cost.unwrap_or(1), // no quiet move (mated: 1)
                    (false, _, true) => {
                        let n = quiet_successors(game, &part, side, idx);
                        let n = u8::try_from(n).expect("fewer than 256 quiet moves");
                        waiting[side][(idx - part.start) as usize].store(n, Relaxed);
                        continue;
                    }
                    _ => continue,
                };
                if dtz.lower(side, idx, d) {
                    dtz.decides[side].set(dtz.bit(idx));
                    found.push(d, entry(side, idx));
                }
            }
            observer.advance(2 * (to - from));
            found
        })
        .reduce(Levels::default, Levels::join);
    let mut level = 1;
    while (level as usize) < levels.0.len() {
        let now = std::mem::take(&mut levels.0[level as usize]);
        observer.pass(
            &format!("distance to zeroing, ply {level}"),
            now.len() as u64,
        );
        let found: Vec<(u32, u64)> = now
            .par_chunks(BLOCK)
            .inspect(|chunk| observer.advance(chunk.len() as u64))
            .flat_map_iter(|chunk| chunk.iter())
            .fold(Vec::new, |mut found, &e| {
                let (side, idx) = side_idx(e);
                if dtz.get(side, idx) != level {
                    return found; // found nearer since
                }
                let other = 1 - side;
                let Some(at) = game.placed_legal(side, idx) else {
                    return found;
                };
                let from_loser = losing(class(side, idx));
                game.unmoved_indices(&at, |j| part.contains(&j), &mut |q| {
                    let c = class(other, q);
                    if from_loser && winning(c) {
                        if dtz.lower(other, q, level + 1) {
                            // Nearer than its resets and mates, if it had any.
                            dtz.decides[other].clear(dtz.bit(q));
                            found.push((level + 1, entry(other, q)));
                        }
                    } else if !from_loser && losing(c) && dtz.get(other, q) == 0 {
                        // Settled once every quiet move of it is: then its farthest one
                        // is this level's.
                        let left = &waiting[other][(q - part.start) as usize];
                        if left.fetch_sub(1, Relaxed) != 1 {
                            return;
                        }
                        let cost = terminal(game, other, q, false, value).and_then(|t| t.0);
                        let d = cost.unwrap_or(0).max(level + 1);
                        if dtz.settle(other, q, d) {
                            if cost == Some(d) {
                                dtz.decides[other].set(dtz.bit(q));
                            }
                            found.push((d, entry(other, q)));
                        }
                    }
                });
                found
            })
            .flatten()
            .collect();
        levels.extend(found);
        level += 1;
    }
    // Every decisive position has its distance, within 100 plies where its class holds
    // under the rule and beyond where the rule spoils it.
    let disagree = part
        .clone()
        .into_par_iter()
        .map(|idx| {
            (0..2)
                .filter(|&side| {
                    let c = class(side, idx);
                    if c == Wdl5::Draw || game.position(side, idx).is_none() {
                        return false;
                    }
                    let d = dtz.get(side, idx);
                    d == 0 || (d <= RULE_PLIES) == c.is_cursed()
                })
                .count() as u64
        })
        .sum();
    (dtz, disagree)
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
        let value = |side: usize, idx: u64| {
            let d = loaded.dtm_at(&m, side, idx).unwrap_or(Dtm::Draw);
            let cursed = bit(loaded.cursed(&m, side).unwrap(), idx);
            (d, Wdl5::new(d.wdl(), cursed))
        };
        let mut compared = 0;
        for part in index.parts() {
            let (dtz, disagree) = solve_part(&game, part.clone(), &value, &Silent);
            assert_eq!(
                disagree, 0,
                "{m}: distances that disagree with their classes"
            );
            for idx in part.step_by(every as usize) {
                for side in 0..2 {
                    let Some(pos) = game.position(side, idx) else {
                        continue;
                    };
                    let fen: Fen = pos.to_string().parse().unwrap();
                    let theirs = fen.into_position::<Chess>(CastlingMode::Standard).unwrap();
                    let expected = syzygy.probe_dtz(&theirs).unwrap();
                    let class = value(side, idx).1;
                    let d = dtz.get(side, idx) as i32;
                    let ours = match class.wdl() {
                        crate::value::Wdl::Win => d,
                        crate::value::Wdl::Loss => -d,
                        crate::value::Wdl::Draw => 0,
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
        // file in `tests/tables.rs`.
        let targets: Vec<Material> = ["KPvK", "KBNvK", "KRvKN"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        let tb = Session::open(dir.path(), &targets)
            .unwrap()
            .build_all(&Default::default(), &Silent)
            .unwrap();
        let mut syzygy = shakmaty_syzygy::Tablebase::new();
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/syzygy");
        syzygy.add_directory(&data).unwrap();
        let all: Vec<Material> = tb.materials().collect();
        for m in all {
            let n = equal_syzygy(&tb, &syzygy, m, 61);
            assert!(n > 0, "{m}");
        }
    }
}
