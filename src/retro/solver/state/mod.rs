//! One part's working state and its level loop.
//!
//! A level's pass visits only the blocks of positions marked for it: a block is marked for
//! level n when one of its positions gets a value of n - 1 plies (to be taken back at n), or
//! when a fixed move decides one of its positions at n. Late levels, which find few
//! positions, touch little memory.
//!
//! A fixed move that wins is stored at once as the position's value, provisional until its
//! level: a move inside the graph that wins sooner replaces it (values only shrink, and a
//! stored value above the current level is known to be provisional). A fixed move that
//! loses matters only once every move inside the graph loses: its distance is found again
//! then, by the position's moves, and if it holds out longer, the loss is stored at once at
//! its own level, which nothing can change any more.
//!
//! Memory: per position and side to move, a byte for the value and, with counters, a byte
//! for the move counter, as relaxed atomics; four bits (illegal, the fixed move's class,
//! whether it decides the value) and, with checks, the mark bit; 32 bytes of level marks per
//! block of `BLOCK` positions: 2.56 bytes with counters, 1.69 with checks. The value is set
//! by compare-and-swap, and the counter's atomic decrement tells exactly one thread that it
//! reached zero. No locks on the hot path. A part solved after earlier ones keeps two bits
//! more: the class of its best exit, moves into earlier parts apart.
//!
//! Distances beyond a byte (`Dtm::BYTE_PLIES`) are rare: their byte says `Dtm::LONG` and
//! the distance goes to a list. Levels past that point no longer scan every position for
//! the previous level's: they expand the list of the positions it found.

mod exchange;
mod losses;
mod setup;

use exchange::{Exchange, Mail, Note};

use super::game::{LossSearch, RetroGame, Successor};
use super::solution::{bit, bitmap, Solution};
use crate::peers::Peers;
use crate::progress::Observer;
use crate::retro::bits::AtomicBits;
use crate::side::{BySide, Side};
use crate::threads::{inner, lock};
use crate::value::{Dtm, LongDistances, Wdl};
use crate::zeroed::{from_atomic, zeroed};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::Mutex;

/// Fixed moves longer than this are resolved by deferred work (`Deferred::Exit`), shorter
/// ones by the level scans.
const SUMMARY_PLIES: u32 = 250;

/// The class of a position's best fixed move (`State::class`, two bits).
const NO_FIXED: u8 = 0;

const FIXED_WIN: u8 = 1;

const FIXED_DRAW: u8 = 2;

const FIXED_LOSS: u8 = 3;

/// The class of best fixed move `best`.
fn class_of(best: Option<Dtm>) -> u8 {
    match best {
        None => NO_FIXED,
        Some(Dtm::Win(_)) => FIXED_WIN,
        Some(Dtm::Draw) => FIXED_DRAW,
        Some(Dtm::Loss(_)) => FIXED_LOSS,
    }
}

const CHUNK: usize = 1 << 12;

/// Positions per task of a level that scans the positions: most of its blocks are not
/// marked and cost a load each, so that a task as small as `CHUNK` would cost as much again
/// in telling the observer.
const SCAN: usize = 1 << 18;

/// Positions per block of marks (`State::marks`); divides `CHUNK` and `SCAN`.
const BLOCK: usize = 1 << 9;

/// Levels a block can be marked for: every level whose pass scans the positions (beyond
/// it, passes expand a list).
const MARKED_LEVELS: usize = Dtm::BYTE_PLIES as usize + 2;

/// One block's marks: bit n set when the pass for level n must visit the block.
type Marks = [AtomicU64; MARKED_LEVELS.div_ceil(64)];

fn new_marks(n: usize) -> Vec<Marks> {
    zeroed(n.div_ceil(BLOCK))
}

/// Work for a later level, for the rare moves with an extra option (`Successor::Either`).
#[derive(Copy, Clone)]
enum Deferred {
    /// `(side, idx)` wins at that level if still unresolved.
    Win(u8, u64),
    /// The move of `(side, idx)` into `j` loses at that level through its extra option,
    /// unless its indexed part already lost earlier.
    MoveLoses(u8, u64, u64),
    /// `(side, idx)`'s best fixed move, longer than `SUMMARY_PLIES`, decides it at that
    /// level if its other moves allow.
    Exit(u8, u64),
}

/// The class (`NO_FIXED`, `FIXED_WIN`, ...) of every index, two bits each.
struct Classes([AtomicBits; 2]);

impl Classes {
    fn new(n: usize) -> Classes {
        Classes([AtomicBits::new(n), AtomicBits::new(n)])
    }

    #[inline]
    fn get(&self, i: usize) -> u8 {
        u8::from(self.0[0].get(i)) | u8::from(self.0[1].get(i)) << 1
    }

    fn set(&self, i: usize, class: u8) {
        for (b, bits) in self.0.iter().enumerate() {
            if class >> b & 1 == 1 {
                bits.set(i);
            }
        }
    }
}

/// The values of the parts solved before the current one.
pub(super) struct Earlier<'s> {
    pub(super) values: &'s BySide<Vec<u8>>,
    pub(super) long: &'s BySide<LongDistances>,
}

impl Earlier<'_> {
    fn value(&self, side: usize, idx: u64) -> Dtm {
        let side = Side::from_index(side);
        self.long[side].value(self.values[side][idx as usize], idx)
    }
}

pub(super) struct State<'g, G: RetroGame> {
    game: &'g G,
    /// The indices of the part being solved.
    part: Range<u64>,
    /// The indices of the part this process holds; the arrays below hold them from 0.
    own: Range<u64>,
    /// The processes the part is split across, and what they tell each other.
    exchange: Exchange<'g>,
    earlier: Option<Earlier<'g>>,
    /// When there are earlier parts, per side, the class of each position's best move that
    /// leaves the graph (moves into earlier parts apart), as `class` holds it. Without
    /// them, the two are the same and `class` serves.
    exit_class: Option<[Classes; 2]>,
    /// Per side, the best moves that leave the graph longer than `SUMMARY_PLIES`, with
    /// their plies.
    exits_beyond: [Mutex<Vec<(u64, u32)>>; 2],
    values: [Vec<AtomicU8>; 2],
    /// Per side, the indices that are not legal positions.
    illegal: [AtomicBits; 2],
    /// Per side, the class of each position's best fixed move, moves into earlier parts
    /// included.
    class: [Classes; 2],
    /// Per side, the positions whose best move that leaves the graph is known to have their
    /// value (`Solution::exit_decides`; exits beyond `SUMMARY_PLIES` and drawing ones are
    /// judged when the part is done).
    decides: [AtomicBits; 2],
    /// The plies of the longest best exit.
    longest_exit: AtomicU32,
    search: LossSearch,
    /// With counters, per side, the moves inside the graph not yet known to lose for the
    /// mover (a chess position of 6 pieces has far fewer than 256); empty with checks.
    counters: [Vec<AtomicU8>; 2],
    /// With checks, per side, the positions to check at the end of the current level (a
    /// move of each became a loss for it); empty with counters.
    changed: [AtomicBits; 2],
    /// Per side, the marks of each block of `BLOCK` positions.
    marks: [Vec<Marks>; 2],
    pending: Mutex<Vec<Vec<Deferred>>>,
    last_static_level: AtomicU32,
    /// Whether the current level found a position (written once per level, not per
    /// position: threads that all counted into one word would fight over its cache line).
    found: AtomicBool,
    /// Per side, the positions found beyond `Dtm::BYTE_PLIES`, with their plies.
    long: [Mutex<Vec<(u64, u32)>>; 2],
    /// The positions found at the current level beyond `Dtm::BYTE_PLIES`, to expand at
    /// the next.
    frontier: Mutex<Vec<(u8, u64)>>,
}

/// Raises `a` to at least `v`, writing only when it grows: most calls find it high enough,
/// and a read leaves the cache line shared between threads.
#[inline]
fn raise(a: &AtomicU32, v: u32) {
    if a.load(Relaxed) < v {
        a.fetch_max(v, Relaxed);
    }
}

impl<'g, G: RetroGame> State<'g, G> {
    /// The state for solving this process's share of `part` (split across `peers`), after
    /// the parts whose values `earlier` holds.
    pub(super) fn new(
        game: &'g G,
        part: Range<u64>,
        earlier: Option<Earlier<'g>>,
        search: LossSearch,
        peers: &'g dyn Peers,
    ) -> Self {
        let counted = search == LossSearch::Counters;
        let exchange = Exchange::new(&part, peers, !counted);
        let own = exchange.own();
        let n = (own.end - own.start) as usize;
        let counters = || zeroed(if counted { n } else { 0 });
        let changed = || AtomicBits::new(if counted { 0 } else { n });
        State {
            game,
            exit_class: earlier
                .is_some()
                .then(|| [Classes::new(n), Classes::new(n)]),
            decides: [AtomicBits::new(n), AtomicBits::new(n)],
            earlier,
            part,
            own,
            exchange,
            exits_beyond: Default::default(),
            values: [zeroed(n), zeroed(n)],
            illegal: [AtomicBits::new(n), AtomicBits::new(n)],
            class: [Classes::new(n), Classes::new(n)],
            longest_exit: AtomicU32::new(0),
            search,
            counters: [counters(), counters()],
            changed: [changed(), changed()],
            marks: [new_marks(n), new_marks(n)],
            pending: Mutex::new(vec![Vec::new(); Dtm::MAX_PLIES as usize + 2]),
            last_static_level: AtomicU32::new(0),
            found: AtomicBool::new(false),
            long: Default::default(),
            frontier: Mutex::new(Vec::new()),
        }
    }

    /// Where index `idx` (of this process's share) is held in the arrays.
    #[inline]
    fn at(&self, idx: u64) -> usize {
        (idx - self.own.start) as usize
    }

    /// Sets up the part and solves it level by level, naming passes after `label`.
    pub(super) fn run(&self, max_plies: u32, observer: &dyn Observer, label: String) {
        let (start, n) = (self.own.start as usize, self.at(self.own.end));
        observer.pass(&format!("{label}setting up"), 2 * n as u64);
        (0..n).into_par_iter().step_by(CHUNK).for_each(|first| {
            let mut mail = self.mail();
            for i in first..(first + CHUNK).min(n) {
                self.init((start + i) as u64, &mut mail);
            }
            self.post(mail);
            observer.advance(2 * (CHUNK.min(n - first)) as u64);
        });
        self.exchange(0);
        let slices = self.slices();
        let slice = n.div_ceil(slices).next_multiple_of(SCAN).max(SCAN);
        let mut idle = 0;
        for level in 1..=max_plies.min(Dtm::MAX_PLIES) {
            self.found.store(false, Relaxed);
            let frontier = std::mem::take(&mut *lock(&self.frontier));
            if level > Dtm::BYTE_PLIES + 1 {
                // The previous level's positions are all listed, and no fixed move is this
                // long.
                observer.pass(&format!("{label}ply {level}"), frontier.len() as u64);
                frontier.par_chunks(CHUNK).for_each(|chunk| {
                    let mut mail = self.mail();
                    for &(side, idx) in chunk {
                        self.expand(side as usize, idx, level, &mut mail);
                    }
                    self.post(mail);
                    observer.advance(chunk.len() as u64);
                });
            } else {
                observer.pass(&format!("{label}ply {level}"), 2 * n as u64);
                for side in 0..2 {
                    for k in 0..slices {
                        let slice = (k * slice).min(n)..((k + 1) * slice).min(n);
                        let end = slice.end;
                        slice.into_par_iter().step_by(SCAN).for_each(|first| {
                            let end = (first + SCAN).min(end);
                            let mut mail = self.mail();
                            for block in (first..end).step_by(BLOCK) {
                                if self.marked(side, block, level) {
                                    let to = (block + BLOCK).min(end);
                                    self.visit(side, block..to, level, &mut mail);
                                }
                            }
                            self.post(mail);
                            observer.advance((end - first) as u64);
                        });
                        if slices > 1 {
                            self.exchange(level);
                        }
                    }
                }
            }
            // Before the notes of the last slice come: deferred work gives the same
            // values whether its position's other moves are known to lose before or after
            // it runs (a counter that reaches zero afterwards resolves the loss then).
            let pending = std::mem::take(&mut lock(&self.pending)[level as usize]);
            pending.par_chunks(CHUNK).for_each(|chunk| {
                let mut mail = self.mail();
                for &d in chunk {
                    self.run_deferred(d, level, &mut mail);
                }
                self.post(mail);
            });
            self.exchange(level);
            if self.search == LossSearch::Checks && level % 2 == 0 {
                self.check_marked(level);
            }
            if self.agree(level) {
                idle = 0;
            } else {
                idle += 1;
                // Two empty levels in a row end the search once no fixed value can still
                // matter.
                if idle >= 2 && level > self.last_static_level.load(Relaxed) {
                    break;
                }
            }
        }
    }

    /// This process's share of the part's solution, its first index at 0 (long values and
    /// exits listed by their indices in the game).
    pub(super) fn finish(self) -> Solution {
        let State {
            values,
            illegal,
            class,
            decides,
            longest_exit,
            counters,
            changed,
            marks,
            exit_class,
            exits_beyond,
            long,
            own,
            exchange,
            ..
        } = self;
        // The working state goes first: the exits are marked beside the values.
        drop((counters, changed, marks, exchange));
        let mut solution = Solution::from_parts(
            values.map(from_atomic).into(),
            illegal.map(AtomicBits::into_words).into(),
        );
        let long = long.map(|l| LongDistances::new(inner(l)));
        solution.long = long.into();
        let listed = exits_beyond.map(|l| LongDistances::new(inner(l)));
        solution.mark_exits(
            exit_class.as_ref().unwrap_or(&class),
            decides,
            &listed,
            own.start,
        );
        solution.longest_exit = longest_exit.into_inner();
        solution.first = own.start;
        solution
    }

    fn note_static(&self, level: u32) {
        raise(&self.last_static_level, level);
    }

    fn defer(&self, level: u32, work: Deferred) {
        if level <= Dtm::MAX_PLIES {
            self.note_static(level);
            lock(&self.pending)[level as usize].push(work);
        }
    }

    fn run_deferred(&self, work: Deferred, level: u32, mail: &mut Mail) {
        match work {
            Deferred::Win(side, idx) => self.resolve_win(side as usize, idx, level),
            Deferred::MoveLoses(side, idx, j) => {
                // Held by the process of `j`; `idx` may be another's.
                if !self.won_here(1 - side as usize, j, level) {
                    self.route(mail, Note::Lost(side, idx), level);
                }
            }
            Deferred::Exit(side, idx) => self.exit_decides(side as usize, idx, level),
        }
    }

    /// Marks `idx`'s block for the pass of `level`.
    #[inline]
    fn mark(&self, side: usize, idx: u64, level: u32) {
        let level = level as usize;
        if level < MARKED_LEVELS {
            let word = &self.marks[side][self.at(idx) / BLOCK][level / 64];
            let bit = 1u64 << (level % 64);
            if word.load(Relaxed) & bit == 0 {
                word.fetch_or(bit, Relaxed);
            }
        }
    }

    /// True when the pass of `level` must visit the block starting at `start`.
    #[inline]
    fn marked(&self, side: usize, start: usize, level: u32) -> bool {
        let level = level as usize;
        self.marks[side][start / BLOCK][level / 64].load(Relaxed) >> (level % 64) & 1 == 1
    }

    /// The plies of `idx` as far as found (None: not yet, or a draw).
    fn plies_now(&self, side: usize, idx: u64) -> Option<u32> {
        match self.values[side][self.at(idx)].load(Relaxed) {
            0 => None,
            Dtm::LONG => lock(&self.long[side])
                .iter()
                .find(|e| e.0 == idx)
                .map(|e| e.1),
            c => Some(c as u32 - 1),
        }
    }

    /// The positions `ats` (places in the arrays) during the pass for `level`: takes back
    /// the moves of those resolved at the previous level (fixed moves' values are stored
    /// when known). A slice read in order, each byte once.
    #[inline]
    fn visit(&self, side: usize, ats: Range<usize>, level: u32, mail: &mut Mail) {
        let first = self.own.start + ats.start as u64;
        for (idx, cell) in (first..).zip(&self.values[side][ats]) {
            if u32::from(cell.load(Relaxed)) == level {
                self.expand(side, idx, level, mail);
            }
        }
    }

    /// `idx`'s best fixed move, longer than `SUMMARY_PLIES`, takes `level` plies: a win
    /// now, or a loss now if no other move holds out.
    fn exit_decides(&self, side: usize, idx: u64, level: u32) {
        match (level % 2, self.search) {
            (1, _) => self.resolve_win(side, idx, level),
            (_, LossSearch::Checks) => self.touch(side, idx),
            (_, LossSearch::Counters) => {
                if self.counters[side][self.at(idx)].load(Relaxed) == 0 {
                    self.resolve_loss(side, idx, level);
                }
            }
        }
    }

    /// Takes back the moves into `idx`, resolved at the level before `level`.
    #[inline]
    fn expand(&self, side: usize, idx: u64, level: u32, mail: &mut Mail) {
        let other = 1 - side as u8;
        let prev = level - 1; // plies of `idx`
        let part = &self.part;
        let mut send = |note| self.route(mail, note, level);
        if level % 2 == 1 {
            // `idx` is lost: every move into it wins. (Moves from later parts are taken
            // there.)
            self.game
                .predecessors(Side::from_index(side), idx, &mut |p, alt| match alt {
                    _ if !part.contains(&p) => {}
                    None => send(Note::Win(other, p)),
                    // The opponent may take his extra option instead: the move wins only if
                    // that loses too, and as late as the longer of the two.
                    Some(Dtm::Loss(e)) if e <= prev => send(Note::Win(other, p)),
                    Some(Dtm::Loss(e)) => send(Note::WinAt(other, p, e + 1)),
                    Some(_) => {}
                });
        } else {
            // `idx` is won: one more losing move for each predecessor, unless the move
            // already lost earlier through an extra option.
            self.game
                .predecessors(Side::from_index(side), idx, &mut |p, alt| match alt {
                    _ if !part.contains(&p) => {}
                    Some(Dtm::Win(w)) if w < prev => {}
                    _ => send(Note::Lost(other, p)),
                });
        }
    }

    /// `idx` wins at `level`. It is a legal position: the game reports legal predecessors
    /// only (`RetroGame::predecessors`), so the illegal bitmap is not read here.
    fn resolve_win(&self, side: usize, idx: u64, level: u32) {
        debug_assert!(!self.illegal[side].get(self.at(idx)), "{side} {idx}");
        self.set(side, idx, level);
    }

    /// Resolves `idx` at `level` unless it already is (a provisional value, above the
    /// level, gives way). True if it did.
    fn set(&self, side: usize, idx: u64, level: u32) -> bool {
        let at = self.at(idx);
        let cell = &self.values[side][at];
        let code = Dtm::from_plies(level).encode();
        let taken = |old: u8| (old == 0 || old != Dtm::LONG && old > code).then_some(code);
        if taken(cell.load(Relaxed)).is_none() {
            return false;
        }
        let Ok(old) = cell.fetch_update(Relaxed, Relaxed, taken) else {
            return false;
        };
        if old != 0 {
            // A provisional win by a fixed move gives way to a sooner one.
            self.decides[side].clear(at);
        }
        if !self.found.load(Relaxed) {
            self.found.store(true, Relaxed);
        }
        self.mark(side, idx, level + 1);
        if code == Dtm::LONG {
            lock(&self.long[side]).push((idx, level));
            lock(&self.frontier).push((side as u8, idx));
        }
        true
    }
}

impl Solution {
    /// Marks the best exits of a part from the classes of its positions' best exits, the
    /// positions found to take their value from one (`decides`), and the exits beyond
    /// `SUMMARY_PLIES` (`listed`), the part's first index at `first` in the game.
    fn mark_exits(
        &mut self,
        class: &[Classes; 2],
        decides: [AtomicBits; 2],
        listed: &[LongDistances; 2],
        first: u64,
    ) {
        for (side, decides) in decides.into_iter().enumerate() {
            let class = &class[side];
            let side = Side::from_index(side);
            let (values, long) = (&self.values[side], &self.long[side]);
            let n = values.len();
            let class = |i: usize| class.get(i);
            let wdl = |i: usize| long.value(values[i], first + i as u64).wdl();
            for &(idx, p) in listed[side.index()].entries() {
                let i = (idx - first) as usize;
                if long.value(values[i], idx) == Dtm::from_plies(p) {
                    decides.set(i);
                }
            }
            let decided = decides.into_words();
            self.exit_decides[side] = bitmap(n, |i| {
                bit(&decided, i as u64) || class(i) == FIXED_DRAW && wdl(i) == Wdl::Draw
            });
            self.exit_same_wdl[side] = bitmap(n, |i| {
                let exit = match class(i) {
                    FIXED_WIN => Wdl::Win,
                    FIXED_DRAW => Wdl::Draw,
                    FIXED_LOSS => Wdl::Loss,
                    _ => return false,
                };
                wdl(i) == exit
            });
        }
    }
}
