//! The game-generic retrograde solver: distance to mate for every position of a game graph
//! whose positions are numbered densely for each of two sides to move.
//!
//! Level by level (level = plies to mate), positions found at the previous level are taken
//! back by un-moves: the predecessors of a loss in n-1 plies win in n; the predecessors of a
//! win in n-1 may lose in n. Moves that leave the graph (captures and promotions into
//! sub-tables) have fixed values, classed once per position before the levels start (win,
//! draw or loss: two bits). Whatever is never resolved is a draw.
//!
//! Losses are found one of two ways (`LossSearch`). With counters, each predecessor of a
//! win in n-1 has one more move known to lose, counted down in a per-position counter of its
//! moves inside the graph, and loses in n when that counter reaches zero. With checks, the
//! predecessors are marked (a bit), and once the level has marked them all, each is checked
//! forward: it loses in n when every move inside the graph leads to a win found by now
//! (`RetroGame::moves_inside`, which stops at the first move that holds out). A check at
//! level n is exact whenever it runs: every win of n-1 plies or fewer is found before the
//! level starts, and no win is found during an even level. Checks keep a bit per position
//! instead of a byte and take more time: KQRvKR solved by checks took 1.33x the CPU time
//! (208 million checks looked up 1.13 billion moves, where counting down took 756 million
//! decrements).
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
//!
//! Parts (`RetroGame::parts`): a game whose moves between ranges of indices all lead to an
//! earlier range (chess: pawn moves) is solved one range after another. A move into an
//! earlier part has the value found there, fixed like a move that leaves the graph, and the
//! un-moves out of the part are left to the later parts that hold them, so the working
//! state is held for one part at a time.
//!
//! Processes (`Peers`): a part may be split across processes, each holding an equal share
//! of its indices (`Shares`) and the working state of those alone. A process takes back
//! the moves of the positions it holds; an un-move into another's share becomes a note
//! (`Note`, 9 bytes, deferred work 18 or 27) sent in the exchange that ends the level (and
//! each slice of `SLICE` positions of a larger share), where the holder applies it as it
//! would its own. Within a
//! level, un-moves commute (a value is set to the least level offered, counters count
//! down), so when a note is applied does not matter as long as it is within its level. The
//! processes agree at the end of each level on whether it found a position; with checks,
//! they share the wins of each odd level, which the checks read. When the part is solved,
//! each process keeps its share of the solution (`Solution::first`); a game of several
//! parts also gathers the part's values in every process, as the parts to come read them,
//! and gives back the others' shares once none does (`PartByPart::owned`).

use super::bits::AtomicBits;
use super::packed::{Packed, PackedSide};
use super::peers::{Alone, Owners, Peers, Shares};
use crate::prefetch::prefetch_at;
use crate::progress::Observer;
use crate::value::{Dtm, LongDistances, Wdl, Wdl5};
use crate::zeroed::release_pages;
use crate::zeroed::{from_atomic, zeroed};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

/// A move seen from the position it is played in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Successor {
    /// Leads to index `.0` of the other side to move, in this graph.
    Table(u64),
    /// Leaves the graph into a position of known value (from the view of the side to move
    /// there).
    Fixed(Dtm),
    /// Leads to a position the graph does not index, whose mover may either play on as in
    /// index `.0` or take an extra option of known value `.1` (chess: a double pawn push that
    /// gives an en-passant capture).
    Either(u64, Dtm),
}

/// A game graph the solver can analyse. Sides are 0 and 1; a move always passes the turn.
pub trait RetroGame: Sync {
    /// Number of indices per side to move.
    fn size(&self) -> u64;

    /// Calls `f` for every move of position `idx` with `side` to move. Returns None if `idx`
    /// is not a legal position, otherwise the value the position has if it has no move at
    /// all (chess: mated or stalemated).
    fn successors(&self, side: usize, idx: u64, f: &mut impl FnMut(Successor)) -> Option<Dtm>;

    /// `successors`, but some `Table` moves may be counted instead of reported: those that
    /// lead to a position no other move of `idx` reaches. Returns the value without moves
    /// (as `successors`) and how many moves were only counted. The setup needs no more
    /// than the number of moves that stay inside the graph.
    fn successors_counted(
        &self,
        side: usize,
        idx: u64,
        f: &mut impl FnMut(Successor),
    ) -> Option<(Dtm, u32)> {
        self.successors(side, idx, f).map(|t| (t, 0))
    }

    /// `successors_counted` of `idx` with each side to move, the moves to `f` with their
    /// side: a game that finds a position's pieces once for both sides overrides it (the
    /// setup visits every index of both sides).
    fn successors_counted_both(
        &self,
        idx: u64,
        f: &mut impl FnMut(usize, Successor),
    ) -> [Option<(Dtm, u32)>; 2] {
        [0, 1].map(|side| self.successors_counted(side, idx, &mut |s| f(side, s)))
    }

    /// Calls `f` for the moves of `idx` (a legal position) that `successors` reports as
    /// `Fixed`, and at least for those of its `Table` and `Either` moves that lead into an
    /// earlier part (`parts`): what the solver needs to find a position's best fixed move
    /// again. By default, every move.
    fn fixed_successors(&self, side: usize, idx: u64, f: &mut impl FnMut(Successor)) {
        self.successors(side, idx, f);
    }

    /// Calls `f` with the index and extra option of the `Table` and `Either` moves of `idx`
    /// (a legal position), as `successors` reports them but possibly repeated, until `f`
    /// returns false; true if it never did. Moves into earlier parts may be left out. The
    /// solver's checks (`LossSearch::Checks`) ask this of positions that may have lost,
    /// and stop at the first move that holds out: a game answers faster than `successors`,
    /// which values every move.
    fn moves_inside(
        &self,
        side: usize,
        idx: u64,
        f: &mut impl FnMut(u64, Option<Dtm>) -> bool,
    ) -> bool {
        let mut all = true;
        self.successors(side, idx, &mut |s| match s {
            Successor::Table(j) if all => all = f(j, None),
            Successor::Either(j, alt) if all => all = f(j, Some(alt)),
            _ => {}
        });
        all
    }

    /// Calls `f` for every legal position of the other side to move with a move into `idx`
    /// (a legal position: the solver asks only about positions it has found values for)
    /// that the successors of that position report as `Table(idx)` (alternative None) or
    /// `Either(idx, alt)` (alternative Some(alt)). Those of later parts (`parts`) may be
    /// left out: the solver does not use them.
    fn predecessors(&self, side: usize, idx: u64, f: &mut impl FnMut(u64, Option<Dtm>));

    /// Consecutive ranges of indices covering `0..size()`, such that every `Table` or
    /// `Either` move leads into the range of its position or an earlier one: the solver
    /// takes them in order (see the module doc). One range by default.
    fn parts(&self) -> Vec<Range<u64>> {
        std::iter::once(0..self.size()).collect()
    }
}

/// How the solver finds losses (see the module doc).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LossSearch {
    /// A move counter per position and side (a byte): the faster.
    Counters,
    /// A mark bit per position and side, and forward checks: the smaller.
    Checks,
}

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

/// An un-move's effect on a position that another process may hold (see the module doc).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Note {
    /// `(side, idx)` wins at the level under way (`State::resolve_win`).
    Win(u8, u64),
    /// A move of `(side, idx)` loses for it at the level under way (`State::lost_move`).
    Lost(u8, u64),
    /// `Deferred::Win(side, idx)` at level `.2`.
    WinAt(u8, u64, u32),
    /// `Deferred::MoveLoses(side, idx, j)` at level `.3`, held by the process of `j`.
    MoveLosesAt(u8, u64, u64, u32),
}

/// How a process's wins of a level are sent (`State::wins_at`): a word each, or the bitmaps
/// of its share.
const WINS_LISTED: u8 = 0;
const WINS_MAPPED: u8 = 1;

/// Bytes of a unit of a note: a tag and a word. A note takes one unit, deferred work two
/// or three (the units after the first tagged `CONTINUED`).
const UNIT: usize = 9;
const CONTINUED: u8 = 8;

impl Note {
    /// The index whose process applies the note.
    fn target(self) -> u64 {
        match self {
            Note::Win(_, i) | Note::Lost(_, i) | Note::WinAt(_, i, _) => i,
            Note::MoveLosesAt(_, _, j, _) => j,
        }
    }

    fn encode(self, out: &mut Vec<u8>) {
        let mut unit = |tag: u8, word: u64| {
            out.push(tag);
            out.extend_from_slice(&word.to_le_bytes());
        };
        match self {
            Note::Win(side, i) => unit(side, i),
            Note::Lost(side, i) => unit(2 | side, i),
            Note::WinAt(side, i, level) => {
                unit(4 | side, i);
                unit(CONTINUED, level.into());
            }
            Note::MoveLosesAt(side, i, j, level) => {
                unit(6 | side, i);
                unit(CONTINUED, j);
                unit(CONTINUED, level.into());
            }
        }
    }

    /// The note that starts at unit `u` of `units`, None if that unit continues one.
    fn decode(units: &[u8], u: usize) -> Option<Note> {
        let unit = |k: usize| {
            let at = (u + k) * UNIT;
            let word = units[at + 1..at + UNIT].try_into().expect("a unit's word");
            (units[at], u64::from_le_bytes(word))
        };
        let (tag, i) = unit(0);
        let side = tag & 1;
        Some(match tag >> 1 {
            0 => Note::Win(side, i),
            1 => Note::Lost(side, i),
            2 => Note::WinAt(side, i, unit(1).1 as u32),
            3 => Note::MoveLosesAt(side, i, unit(1).1, unit(2).1 as u32),
            _ => return None,
        })
    }
}

/// The notes one task of a pass has for other processes, posted to the outbox (`State::
/// post`) when the task ends: one lock per task and process, not per note.
struct Mail(Vec<Vec<u8>>);

/// Positions of a side a process scans between two exchanges of notes, when split: bounds
/// the notes held at once.
const SLICE: usize = 1 << 22;

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

/// What the setup learns of a position's moves (`State::init`).
#[derive(Default)]
struct Scan {
    /// The best fixed move, moves into earlier parts included.
    best: Option<Dtm>,
    /// The best move that leaves the graph.
    best_exit: Option<Dtm>,
    /// Moves inside the graph.
    inside: u32,
    /// The position's value when it has no move at all.
    no_moves: Option<Dtm>,
}

/// The values of the parts solved before the current one.
struct Earlier<'s> {
    values: &'s [Vec<u8>; 2],
    long: &'s [LongDistances; 2],
}

impl Earlier<'_> {
    fn value(&self, side: usize, idx: u64) -> Dtm {
        self.long[side].value(self.values[side][idx as usize], idx)
    }
}

struct State<'g, G: RetroGame> {
    game: &'g G,
    /// The indices of the part being solved.
    part: Range<u64>,
    /// The indices of the part this process holds; the arrays below hold them from 0.
    own: Range<u64>,
    /// The processes the part is split across, and their shares.
    peers: &'g dyn Peers,
    shares: Shares,
    /// Per process, the notes for it not yet sent (`Note`).
    outbox: Vec<Mutex<Vec<u8>>>,
    /// Split across processes, with checks: per side, the part's positions won by the
    /// levels ended (by every process), which the checks read.
    won: Option<[AtomicBits; 2]>,
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

/// The solver's output: one encoded value (see `Dtm::encode`) per index and side to move;
/// illegal and broken indices hold 0 and are marked in `illegal`.
#[derive(Clone)]
pub struct Solution {
    /// The index of the first value held: 0 for a whole solution, the first index of a
    /// process's share where each holds its own (`PartByPart::split_across`). Arrays and
    /// bitmaps hold the indices from it; long distances are listed by their indices in
    /// the game.
    pub first: u64,
    /// Values with side 0 and side 1 to move.
    pub values: [Vec<u8>; 2],
    /// One bit per index (bit `i % 64` of word `i / 64`), set where the index is not a legal
    /// position of the graph: its value is never read, so a writer may store anything there.
    pub illegal: [Vec<u64>; 2],
    /// One bit per index, set where the best of the moves that leave the graph
    /// (`Successor::Fixed`) has the position's own value: a conversion reaches it, so a
    /// writer may store any value no better there. A bit, not the exit, because that is
    /// all a writer asks of the exit.
    pub exit_decides: [Vec<u64>; 2],
    /// One bit per index, set where the best of the moves that leave the graph wins, draws
    /// or loses as the position does, at whatever distance.
    pub exit_same_wdl: [Vec<u64>; 2],
    /// Plies of the longest best exit of any position (0 without one).
    pub longest_exit: u32,
    /// One bit per index, set where the win or loss does not hold under the 50-move rule
    /// (a cursed win or a blessed loss); empty until the rule is applied (`fifty::Rule`).
    pub cursed: [Vec<u64>; 2],
    /// One bit per index, set where the best exit under the 50-move rule is a cursed win
    /// or a blessed loss; empty until the rule is applied.
    pub exit_cursed: [Vec<u64>; 2],
    /// The distances of the values that are `Dtm::LONG`.
    pub long: [LongDistances; 2],
}

/// Bit `idx` of a bitmap of one bit per index; an empty bitmap holds no bit.
#[inline]
pub(crate) fn bit(bits: &[u64], idx: u64) -> bool {
    bits.get((idx / 64) as usize)
        .is_some_and(|w| w >> (idx % 64) & 1 == 1)
}

impl Solution {
    /// A solution from its parts, with no exit deciding a value (for writers fed from
    /// elsewhere than `solve`).
    pub fn from_parts(values: [Vec<u8>; 2], illegal: [Vec<u64>; 2]) -> Solution {
        Solution {
            first: 0,
            values,
            illegal,
            exit_decides: Default::default(),
            exit_same_wdl: Default::default(),
            longest_exit: 0,
            cursed: Default::default(),
            exit_cursed: Default::default(),
            long: Default::default(),
        }
    }

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
            let (values, long, class) = (&self.values[side], &self.long[side], &class[side]);
            let n = values.len();
            let class = |i: usize| class.get(i);
            let wdl = |i: usize| long.value(values[i], first + i as u64).wdl();
            for &(idx, p) in listed[side].entries() {
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

    /// A solution of `n` indices a side where nothing is found yet, to place parts in
    /// (`place`): its memory comes zeroed and untouched until written.
    pub(crate) fn empty_whole(n: u64) -> Solution {
        let words = n.div_ceil(64) as usize;
        let mut s =
            Solution::from_parts([0, 1].map(|_| zeroed(n as usize)), [Vec::new(), Vec::new()]);
        s.exit_decides = [0, 1].map(|_| zeroed(words));
        s
    }

    /// Writes `share` (a part's solution, or a process's share of one: its indices from
    /// `share.first`) into this whole solution: values, exits deciding, long distances.
    pub(crate) fn place(&mut self, share: Solution) {
        debug_assert_eq!(self.first, 0);
        let at = share.first as usize;
        for side in 0..2 {
            let values = &share.values[side];
            self.values[side][at..at + values.len()].copy_from_slice(values);
            or_bits_at(
                &mut self.exit_decides[side],
                share.first,
                &share.exit_decides[side],
            );
            let mut long = std::mem::take(&mut self.long[side]).entries().to_vec();
            long.extend_from_slice(share.long[side].entries());
            self.long[side] = LongDistances::new(long);
        }
        self.longest_exit = self.longest_exit.max(share.longest_exit);
    }

    /// Lets go of what side `side` holds (values, bitmaps and long distances).
    pub fn let_go(&mut self, side: usize) {
        self.values[side] = Vec::new();
        self.long[side] = LongDistances::default();
        for bits in [
            &mut self.illegal,
            &mut self.exit_decides,
            &mut self.exit_same_wdl,
            &mut self.cursed,
            &mut self.exit_cursed,
        ] {
            bits[side] = Vec::new();
        }
    }

    /// True when index `idx` with `side` to move is not a legal position.
    #[inline]
    pub fn is_illegal(&self, side: usize, idx: u64) -> bool {
        bit(&self.illegal[side], idx - self.first)
    }

    /// The value of `idx` with its class under the 50-move rule.
    #[inline]
    pub fn value(&self, side: usize, idx: u64) -> (Dtm, Wdl5) {
        self.value_of(side, idx, self.values[side][(idx - self.first) as usize])
    }

    /// The same for `code`, the byte `values` holds or held for `idx` (its long distance,
    /// if any, and its class are read here).
    #[inline]
    pub fn value_of(&self, side: usize, idx: u64, code: u8) -> (Dtm, Wdl5) {
        let v = self.long[side].value(code, idx);
        (
            v,
            Wdl5::new(v.wdl(), bit(&self.cursed[side], idx - self.first)),
        )
    }

    /// Asks for the cache lines of everything held of `idx` with `side` to move: a
    /// reader that walks the indices in an order of its own calls this some steps ahead.
    #[inline]
    pub(crate) fn prefetch(&self, side: usize, idx: u64) {
        let idx = idx - self.first;
        prefetch_at(&self.values[side], idx as usize);
        for bits in [
            &self.illegal,
            &self.cursed,
            &self.exit_decides,
            &self.exit_same_wdl,
            &self.exit_cursed,
        ] {
            prefetch_at(&bits[side], (idx / 64) as usize);
        }
    }

    /// True when some value held, or some best exit, takes more than `plies`.
    pub fn reaches_beyond(&self, plies: u32) -> bool {
        let beyond = |c: &u8| *c == Dtm::LONG || Dtm::decode(*c).plies() > Some(plies);
        self.longest_exit > plies || self.values.iter().any(|v| v.par_iter().any(beyond))
    }

    /// True when the best move of `idx` that leaves the graph (chess: a capture or a
    /// promotion) has the position's value.
    #[inline]
    pub fn exit_decides(&self, side: usize, idx: u64) -> bool {
        bit(&self.exit_decides[side], idx - self.first)
    }

    /// True when the best move of `idx` that leaves the graph has class `class` under the
    /// 50-move rule, `class` being the position's own.
    #[inline]
    pub fn exit_has_class(&self, side: usize, idx: u64, class: Wdl5) -> bool {
        let i = idx - self.first;
        bit(&self.exit_same_wdl[side], i)
            && Wdl5::new(class.wdl(), bit(&self.exit_cursed[side], i)) == class
    }
}

/// A bitmap of one bit per index below `n` (bit `i % 64` of word `i / 64`), set where
/// `set(i)` holds.
pub(crate) fn bitmap(n: usize, set: impl Fn(usize) -> bool + Sync) -> Vec<u64> {
    (0..n.div_ceil(64))
        .into_par_iter()
        .map(|w| {
            (w * 64..(w * 64 + 64).min(n))
                .fold(0u64, |bits, i| bits | u64::from(set(i)) << (i % 64))
        })
        .collect()
}

/// Solves `game`: distance to mate for every position, both sides to move.
pub fn solve<G: RetroGame>(game: &G, observer: &dyn Observer) -> Solution {
    solve_within(game, Dtm::MAX_PLIES, LossSearch::Counters, observer)
}

/// Solves `game` up to `max_plies`, finding losses by `search`: wins and losses that take
/// longer stay draws.
pub fn solve_within<G: RetroGame>(
    game: &G,
    max_plies: u32,
    search: LossSearch,
    observer: &dyn Observer,
) -> Solution {
    let mut parts = PartByPart::new(game, max_plies, search);
    for k in 0..parts.count() {
        parts.solve_next(game, observer);
        debug_assert_eq!(parts.solved(), k + 1);
    }
    parts.into_solution()
}

/// A game solved one part (`RetroGame::parts`) at a time, so that its caller can act
/// between parts: class the part's positions under another rule while its values are at
/// hand, let go of what the parts left no longer read (a chess table's promotions are
/// played only from the first parts). Each part may be solved with a different instance
/// of the game, as long as they number and move alike.
pub struct PartByPart {
    parts: Vec<Range<u64>>,
    /// The parts solved so far.
    solved: usize,
    max_plies: u32,
    search: LossSearch,
    /// The solution of the parts solved, the others' values 0 (of a game of one part split
    /// across processes, this process's share; of several, the others' shares given back
    /// once no part reads them); None before the first part of a game of several parts is
    /// solved.
    out: Option<Solution>,
    /// Each side's long distances listed so far.
    long: [Vec<(u64, u32)>; 2],
    /// Of a game of several parts, per side, the first index and bitmaps (illegal, exit
    /// decides, exit same class) of each part's share this process holds (the whole part
    /// alone), held compressed: no part reads another's, and only the writer needs them,
    /// at the indices each process keeps.
    marks: [Vec<(u64, [Packed; 3])>; 2],
    /// Per side, the values of the parts that no part left to solve reads, held
    /// compressed, their pages given back (`let_go_unread`).
    unread: [Vec<(Range<usize>, Packed)>; 2],
    /// Which parts are in `unread`.
    let_go: Vec<bool>,
    /// The processes each part is split across.
    peers: Arc<dyn Peers>,
}

impl PartByPart {
    /// Ready to solve the parts of `game` up to `max_plies`, finding losses by `search`.
    pub fn new<G: RetroGame>(game: &G, max_plies: u32, search: LossSearch) -> PartByPart {
        let parts = game.parts();
        PartByPart {
            let_go: vec![false; parts.len()],
            parts,
            solved: 0,
            max_plies,
            search,
            out: None,
            long: Default::default(),
            marks: Default::default(),
            unread: Default::default(),
            peers: Arc::new(Alone),
        }
    }

    /// The same, each part split across `peers` (every one of which solves the same game
    /// alike, in step): each process keeps its share of each part (`owned`).
    pub fn split_across(self, peers: Arc<dyn Peers>) -> PartByPart {
        PartByPart { peers, ..self }
    }

    /// The processes each part is split across.
    pub fn peers(&self) -> Arc<dyn Peers> {
        self.peers.clone()
    }

    /// How many parts there are.
    pub fn count(&self) -> usize {
        self.parts.len()
    }

    /// How many parts are solved.
    pub fn solved(&self) -> usize {
        self.solved
    }

    /// The parts, in solving order.
    pub fn parts(&self) -> &[Range<u64>] {
        &self.parts
    }

    /// Solves the next part with `game` (after the parts before it) and returns its
    /// number.
    pub fn solve_next<G: RetroGame>(&mut self, game: &G, observer: &dyn Observer) -> usize {
        let k = self.solved;
        let part = self.parts[k].clone();
        let (max_plies, search) = (self.max_plies, self.search);
        if self.parts.len() == 1 {
            // No later part reads it: each process keeps its share.
            let (peers, label) = (&*self.peers, String::new());
            let whole = solve_part(game, part, None, max_plies, search, observer, label, peers);
            self.out = Some(whole);
            self.solved = 1;
            return k;
        }
        let n = game.size();
        let out = self.out.get_or_insert_with(|| {
            Solution::from_parts(
                [vec![0; n as usize], vec![0; n as usize]],
                Default::default(),
            )
        });
        let earlier = Earlier {
            values: &out.values,
            long: &out.long,
        };
        let label = format!("part {}/{}, ", k + 1, self.parts.len());
        let peers = &*self.peers;
        let local = solve_part(
            game,
            part.clone(),
            Some(earlier),
            max_plies,
            search,
            observer,
            label,
            peers,
        );
        let at = part.start as usize..part.end as usize;
        let Solution {
            first,
            values,
            illegal: [i0, i1],
            exit_decides: [d0, d1],
            exit_same_wdl: [s0, s1],
            long: local_long,
            longest_exit,
            ..
        } = local;
        // The bitmaps of this process's share: only the writer reads them, and it reads
        // each process's own indices there.
        self.marks[0].push((first, [i0, d0, s0].map(Packed::pack_words)));
        self.marks[1].push((first, [i1, d1, s1].map(Packed::pack_words)));
        // The values of the whole part: the parts to come read them.
        let [v0, v1] = &mut out.values;
        let whole = [&mut v0[at.clone()], &mut v1[at]];
        let (local_long, longest_exit) = match peers.count() {
            1 => {
                for (w, v) in whole.into_iter().zip(&values) {
                    w.copy_from_slice(v);
                }
                (local_long.map(|l| l.entries().to_vec()), longest_exit)
            }
            _ => gather_values(peers, values, &local_long, longest_exit, whole),
        };
        for (side, long) in self.long.iter_mut().enumerate() {
            if !local_long[side].is_empty() {
                long.extend_from_slice(&local_long[side]);
                out.long[side] = LongDistances::new(long.clone());
            }
        }
        out.longest_exit = out.longest_exit.max(longest_exit);
        self.solved += 1;
        k
    }

    /// The solution of the parts solved so far, to change (`solution`).
    pub fn solution_mut(&mut self) -> &mut Solution {
        self.out.as_mut().expect("a part is solved")
    }

    /// The solution of the parts solved so far (the others' values are 0); of a game of
    /// several parts, its values and long distances only, until `into_solution`; of a game
    /// of one part split across processes, this process's share (`held`).
    pub fn solution(&self) -> &Solution {
        self.out.as_ref().expect("a part is solved")
    }

    /// True when each process holds its share of the solution, not the whole: a game of
    /// one part split across processes (no later part reads its values).
    pub fn holds_share(&self) -> bool {
        self.parts.len() == 1 && self.peers.count() > 1
    }

    /// Packs the values of the solved parts that no part left to solve reads, `last_readers`
    /// naming for each part the last that does (`TableIndex::last_readers`), and gives
    /// their pages back: a pawn table's later parts read only the parts one and two pawn
    /// steps ahead. Nothing happens once every part is solved.
    pub fn let_go_unread(&mut self, last_readers: &[usize]) {
        let Some(out) = self.out.as_mut() else {
            return;
        };
        if self.solved == self.parts.len() {
            return;
        }
        for (j, part) in self.parts[..self.solved].iter().enumerate() {
            if self.let_go[j] || last_readers[j] >= self.solved {
                continue;
            }
            let at = own_of(part, &*self.peers);
            release_others(out, part, &at);
            for (unread, values) in self.unread.iter_mut().zip(&mut out.values) {
                unread.push((at.clone(), Packed::take_from(&mut values[at.clone()])));
            }
            self.let_go[j] = true;
        }
    }

    /// Gives back the pages of the values that this process does not keep, of the parts
    /// still held (where the parts are split across processes): only the writer reads
    /// them from now on, each process its own share.
    fn release_held_others(&mut self) {
        let out = self.out.as_mut().expect("a part is solved");
        for (part, _) in (self.parts.iter().zip(&self.let_go)).filter(|(_, gone)| !**gone) {
            release_others(out, part, &own_of(part, &*self.peers));
        }
    }

    /// The indices whose values this process holds: its share of a game of one part
    /// split across processes (`holds_share`), else every index.
    pub fn held(&self) -> Range<u64> {
        let n = self.parts.last().map_or(0, |p| p.end);
        match self.holds_share() {
            true => Shares::new(0..n, self.peers.count()).of(self.peers.rank()),
            false => 0..n,
        }
    }

    /// The indices this process keeps of the solution once every part is solved, a
    /// range per part: its share of each (`peers::Owners`), every index alone. The
    /// writer reads these alone, the values of the others' shares given back.
    pub fn owned(&self) -> Vec<Range<u64>> {
        Owners::new(&self.parts, self.peers.count()).of(self.peers.rank())
    }

    /// The indices of the solved parts whose values are still held: the last part solved
    /// and those its pawn moves reach (`let_go_unread` packed the others).
    pub fn held_span(&self) -> Range<u64> {
        let solved = &self.parts[..self.solved];
        let first = (solved.iter().zip(&self.let_go)).find(|(_, gone)| !**gone);
        first.map_or(0, |(p, _)| p.start)..solved.last().map_or(0, |p| p.end)
    }

    /// Packs side `side`'s values of the solved parts still held and gives their pages
    /// back.
    fn pack_held(&mut self, side: usize) -> Vec<(Range<usize>, Packed)> {
        let out = self.out.as_mut().expect("a part is solved");
        (self.parts[..self.solved].iter().zip(&self.let_go))
            .filter(|(_, gone)| !**gone)
            .map(|(p, _)| {
                let at = own_of(p, &*self.peers);
                let packed = Packed::take_from(&mut out.values[side][at.clone()]);
                (at, packed)
            })
            .collect()
    }

    /// Makes side `side` of `out` whole: the values let go put back, the parts' bitmaps
    /// joined (split across processes: at the indices this process keeps, `owned`).
    fn make_whole(&mut self, out: &mut Solution, side: usize) {
        for (at, packed) in self.unread[side].drain(..) {
            packed.unpack_into(&mut out.values[side][at]);
        }
        if self.marks[side].is_empty() {
            return;
        }
        let words = out.values[side].len().div_ceil(64);
        // Zeroed by the allocator: `or_bits_at` writes only the words with bits set.
        let mut whole: [Vec<u64>; 3] = std::array::from_fn(|_| crate::zeroed::zeroed(words));
        for (start, packed) in self.marks[side].drain(..) {
            for (w, p) in whole.iter_mut().zip(packed.map(|p| p.unpack_words())) {
                or_bits_at(w, start, &p);
            }
        }
        let [illegal, decides, same] = whole;
        out.illegal[side] = illegal;
        out.exit_decides[side] = decides;
        out.exit_same_wdl[side] = same;
    }

    /// The solution, every part solved (split across processes: at the indices this
    /// process keeps, `owned`).
    pub fn into_solution(mut self) -> Solution {
        assert_eq!(self.solved, self.parts.len(), "every part is solved");
        if self.parts.len() > 1 {
            self.release_held_others();
        }
        let mut out = self.out.take().expect("a part is solved");
        for side in 0..2 {
            self.make_whole(&mut out, side);
        }
        out
    }

    /// The solution, every part solved, made whole a side at a time: side 1 first, given
    /// to `finish` (to add what else it holds) and packed, then side 0, given to `finish`.
    /// Both sides of a pawn table whole at once would be the most it ever holds.
    pub fn into_sides(
        mut self,
        mut finish: impl FnMut(&mut Solution, usize),
    ) -> (Solution, PackedSide) {
        assert_eq!(self.solved, self.parts.len(), "every part is solved");
        self.release_held_others();
        // Side 0's parts still held go packed too while side 1 is made whole.
        let held = self.pack_held(0);
        self.unread[0].extend(held);
        let mut out = self.out.take().expect("a part is solved");
        self.make_whole(&mut out, 1);
        finish(&mut out, 1);
        let held = PackedSide::take(&mut out, 1);
        self.make_whole(&mut out, 0);
        finish(&mut out, 0);
        (out, held)
    }
}

/// The indices of `part` this process keeps once no part left reads it: its share (the
/// whole part for a process alone).
fn own_of(part: &Range<u64>, peers: &dyn Peers) -> Range<usize> {
    let own = Shares::new(part.clone(), peers.count()).of(peers.rank());
    own.start as usize..own.end as usize
}

/// Gives back the pages of `part`'s values outside `own` (whole pages: the values at the
/// edges stay, unread).
fn release_others(out: &mut Solution, part: &Range<u64>, own: &Range<usize>) {
    for values in &mut out.values {
        release_pages(&mut values[part.start as usize..own.start]);
        release_pages(&mut values[own.end..part.end as usize]);
    }
}

/// Sets in `dst` the bits of `src` moved up by `offset` bits (a part's bitmap into the
/// whole's), a word at a time.
pub(super) fn or_bits_at(dst: &mut [u64], offset: u64, src: &[u64]) {
    let first = (offset / 64) as usize;
    let last = (first + src.len() + 1).min(dst.len());
    let word = |i: usize| src.get(i).copied().unwrap_or(0);
    let shift = offset % 64;
    dst[first..last]
        .par_iter_mut()
        .enumerate()
        .for_each(|(k, w)| {
            // Word k of `dst` from `first` takes the high bits of `src` word k - 1 and the
            // low bits of word k.
            let low = word(k) << shift;
            let high = match (k, shift) {
                (0, _) | (_, 0) => 0,
                _ => word(k - 1) >> (64 - shift),
            };
            // Pages nothing sets stay unwritten, and take no memory (`Packed::unpack_words`).
            if low | high != 0 {
                *w |= low | high;
            }
        });
}

/// Solves the indices `part` of `game`, after the parts `earlier` holds, split across
/// `peers`, and returns this process's share of the solution (the part's,
/// alone).
#[allow(clippy::too_many_arguments)]
fn solve_part<G: RetroGame>(
    game: &G,
    part: Range<u64>,
    earlier: Option<Earlier<'_>>,
    max_plies: u32,
    search: LossSearch,
    observer: &dyn Observer,
    label: String,
    peers: &dyn Peers,
) -> Solution {
    let st = State::new(game, part.clone(), earlier, search, peers);
    st.run(max_plies, observer, label);
    st.finish()
}

/// Writes the values of every process's share of a part into `whole` (the part's values,
/// each side), from this process's (`mine`), and returns the part's long distances and
/// the plies of its longest best exit (collective). The bitmaps stay with their shares.
fn gather_values(
    peers: &dyn Peers,
    mine: [Vec<u8>; 2],
    long: &[LongDistances; 2],
    longest_exit: u32,
    mut whole: [&mut [u8]; 2],
) -> ([Vec<(u64, u32)>; 2], u32) {
    let mut bytes = Vec::with_capacity(2 * mine[0].len() + 64);
    let mut put = |b: &[u8]| {
        bytes.extend_from_slice(&(b.len() as u64).to_le_bytes());
        bytes.extend_from_slice(b);
    };
    for side in 0..2 {
        put(&mine[side]);
        let long = long[side].entries();
        put(&long
            .iter()
            .flat_map(|&(i, p)| [i, p.into()])
            .flat_map(u64::to_le_bytes)
            .collect::<Vec<u8>>());
    }
    put(&longest_exit.to_le_bytes());
    drop(mine);
    let mut long: [Vec<(u64, u32)>; 2] = Default::default();
    let mut longest = 0;
    let mut at = 0;
    // A share at a time: the part whole once, and one share beside it.
    let mut bytes = Some(bytes);
    for root in 0..peers.count() {
        let mine = (root == peers.rank()).then(|| bytes.take()).flatten();
        let share = peers.broadcast(root, mine.unwrap_or_default());
        let mut rest = &share[..];
        let mut take = || {
            let (len, tail) = rest.split_at(8);
            let len = u64::from_le_bytes(len.try_into().expect("a length")) as usize;
            let (b, tail) = tail.split_at(len);
            rest = tail;
            b
        };
        let mut len = 0;
        for (long, whole) in long.iter_mut().zip(&mut whole) {
            let values = take();
            len = values.len();
            whole[at..at + len].copy_from_slice(values);
            let l: Vec<u64> = (take().chunks_exact(8))
                .map(|c| u64::from_le_bytes(c.try_into().expect("a word")))
                .collect();
            long.extend(l.chunks_exact(2).map(|e| (e[0], e[1] as u32)));
        }
        longest = longest.max(u32::from_le_bytes(take().try_into().expect("plies")));
        at += len;
    }
    (long, longest)
}

/// Raises `a` to at least `v`, writing only when it grows: most calls find it high enough,
/// and a read leaves the cache line shared between threads.
#[inline]
fn raise(a: &AtomicU32, v: u32) {
    if a.load(Relaxed) < v {
        a.fetch_max(v, Relaxed);
    }
}

/// Locks a mutex whose holder cannot have left its data half-changed (pushes and takes).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<'g, G: RetroGame> State<'g, G> {
    /// The state for solving this process's share of `part` (split across `peers`), after
    /// the parts whose values `earlier` holds.
    fn new(
        game: &'g G,
        part: Range<u64>,
        earlier: Option<Earlier<'g>>,
        search: LossSearch,
        peers: &'g dyn Peers,
    ) -> Self {
        let shares = Shares::new(part.clone(), peers.count());
        let own = shares.of(peers.rank());
        let n = (own.end - own.start) as usize;
        let split = peers.count() > 1;
        let whole = (part.end - part.start) as usize;
        let counted = search == LossSearch::Counters;
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
            peers,
            shares,
            outbox: (0..peers.count()).map(|_| Mutex::default()).collect(),
            won: (split && !counted).then(|| [AtomicBits::new(whole), AtomicBits::new(whole)]),
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

    /// An empty mail for the notes of one task.
    fn mail(&self) -> Mail {
        Mail(vec![Vec::new(); self.peers.count()])
    }

    /// Applies `note` here if this process holds its target, else writes it to `mail`.
    #[inline]
    fn route(&self, mail: &mut Mail, note: Note, level: u32) {
        let target = note.target();
        if self.own.contains(&target) {
            self.apply(note, level);
        } else {
            note.encode(&mut mail.0[self.shares.owner(target)]);
        }
    }

    /// What `note` does to the position it targets, held here, at `level`.
    fn apply(&self, note: Note, level: u32) {
        match note {
            Note::Win(side, p) => self.resolve_win(side as usize, p, level),
            Note::Lost(side, p) => self.lost_move(side as usize, p, level),
            Note::WinAt(side, p, at) => self.defer(at, Deferred::Win(side, p)),
            Note::MoveLosesAt(side, i, j, at) => self.defer(at, Deferred::MoveLoses(side, i, j)),
        }
    }

    /// Adds `mail`'s notes to the outbox.
    fn post(&self, mail: Mail) {
        for (to, notes) in mail.0.into_iter().enumerate() {
            if !notes.is_empty() {
                lock(&self.outbox[to]).extend_from_slice(&notes);
            }
        }
    }

    /// Sends the outbox's notes to their processes and applies those the others sent this
    /// one, at `level` (collective).
    fn exchange(&self, level: u32) {
        if self.peers.count() == 1 {
            return;
        }
        let outgoing = self.outbox.iter().map(|o| std::mem::take(&mut *lock(o)));
        let received = self.peers.all_to_all(outgoing.collect());
        let units = received.len() / UNIT;
        (0..units).into_par_iter().step_by(CHUNK).for_each(|first| {
            for u in first..(first + CHUNK).min(units) {
                if let Some(note) = Note::decode(&received, u) {
                    self.apply(note, level);
                }
            }
        });
    }

    /// Whether any process found a position at `level`, and the last level a fixed value
    /// reaches in any, both kept here; with checks, each process's wins of the level (when
    /// odd) noted in every one (collective).
    fn agree(&self, level: u32) -> bool {
        if self.peers.count() == 1 {
            return self.found.load(Relaxed);
        }
        let mut mine = vec![u8::from(self.found.load(Relaxed))];
        mine.extend_from_slice(&self.last_static_level.load(Relaxed).to_le_bytes());
        if level % 2 == 1 {
            self.wins_at(level, &mut mine);
        }
        let all = self.peers.all_gather(mine);
        let found = all.iter().any(|a| a[0] == 1);
        for (rank, a) in all.iter().enumerate() {
            self.note_static(u32::from_le_bytes(a[1..5].try_into().expect("a level")));
            if let (Some(won), Some((&tag, wins))) = (&self.won, a[5..].split_first()) {
                let words = wins
                    .chunks_exact(8)
                    .map(|w| u64::from_le_bytes(w.try_into().expect("a word")));
                match tag {
                    WINS_LISTED => {
                        for w in words {
                            won[(w & 1) as usize].set(((w >> 1) - self.part.start) as usize);
                        }
                    }
                    _ => {
                        // Shares start on whole words of the part's bitmaps.
                        let share = self.shares.of(rank);
                        let at = ((share.start - self.part.start) / 64) as usize;
                        let n = (share.end - share.start).div_ceil(64) as usize;
                        for (k, w) in words.enumerate() {
                            won[k / n].words()[at + k % n].fetch_or(w, Relaxed);
                        }
                    }
                }
            }
        }
        self.found.store(found, Relaxed);
        found
    }

    /// With checks, split: adds to `mine` the positions this process found won at `level`
    /// (odd): listed, a word each (index and side), or, where that is longer (the first
    /// levels of a table with many conversions), as bitmaps of its share, a bit each.
    fn wins_at(&self, level: u32, mine: &mut Vec<u8>) {
        if self.won.is_none() {
            return;
        }
        let (start, n) = (self.own.start, (self.own.end - self.own.start) as usize);
        let code = Dtm::from_plies(level).encode();
        let each = |f: &mut dyn FnMut(usize, usize)| {
            if (level as usize) + 1 < MARKED_LEVELS {
                // A position won at `level` is marked for the next.
                for side in 0..2 {
                    for block in (0..n).step_by(BLOCK) {
                        if self.marked(side, block, level + 1) {
                            for i in block..(block + BLOCK).min(n) {
                                if self.values[side][i].load(Relaxed) == code {
                                    f(side, i);
                                }
                            }
                        }
                    }
                }
            }
            // Beyond a byte, those found at this level are listed.
            for &(side, idx) in lock(&self.frontier).iter() {
                f(side as usize, (idx - start) as usize);
            }
        };
        let mut count = 0;
        each(&mut |_, _| count += 1);
        if count == 0 {
            return;
        }
        let words = n.div_ceil(64);
        if count < 2 * words {
            mine.push(WINS_LISTED);
            each(&mut |side, i| {
                let word = (start + i as u64) << 1 | side as u64;
                mine.extend_from_slice(&word.to_le_bytes());
            });
            return;
        }
        mine.push(WINS_MAPPED);
        let mut bits = vec![0u64; 2 * words];
        each(&mut |side, i| bits[side * words + i / 64] |= 1 << (i % 64));
        mine.extend(bits.iter().flat_map(|w| w.to_le_bytes()));
    }

    /// True when `(side, j)`, an index of the part, is won for its mover by a level before
    /// `level`.
    #[inline]
    fn won_by_now(&self, side: usize, j: u64, level: u32) -> bool {
        match &self.won {
            Some(won) => won[side].get((j - self.part.start) as usize),
            None => self.won_here(side, j, level),
        }
    }

    /// True when `(side, j)`, held here, is won for its mover by a level before `level`.
    #[inline]
    fn won_here(&self, side: usize, j: u64, level: u32) -> bool {
        matches!(self.plies_now(side, j), Some(p) if p % 2 == 1 && p < level)
    }

    /// How many slices of `SLICE` positions a side's scan takes, the same in every process.
    fn slices(&self) -> usize {
        match self.peers.count() {
            1 => 1,
            _ => (self.shares.largest() as usize).div_ceil(SLICE).max(1),
        }
    }

    /// Sets up the part and solves it level by level, naming passes after `label`.
    fn run(&self, max_plies: u32, observer: &dyn Observer, label: String) {
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
    fn finish(self) -> Solution {
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
            won,
            ..
        } = self;
        // The working state goes first: the exits are marked beside the values.
        drop((counters, changed, marks, won));
        let mut solution =
            Solution::from_parts(values.map(from_atomic), illegal.map(AtomicBits::into_words));
        solution.long =
            long.map(|l| LongDistances::new(l.into_inner().unwrap_or_else(|e| e.into_inner())));
        let listed = exits_beyond
            .map(|l| LongDistances::new(l.into_inner().unwrap_or_else(|e| e.into_inner())));
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

    /// Stores `idx`'s value before the levels start, marked to be taken back at the level
    /// after its own.
    fn preset(&self, side: usize, idx: u64, value: Dtm) {
        self.values[side][self.at(idx)].store(value.encode(), Relaxed);
        if let Some(p) = value.plies() {
            self.mark(side, idx, p + 1);
        }
    }

    /// The best fixed move and best exit of `idx`, a legal position, found from the
    /// moves that may be fixed only (`RetroGame::fixed_successors`).
    fn scan_fixed(&self, side: usize, idx: u64) -> Scan {
        let mut sum = Scan::default();
        self.game.fixed_successors(side, idx, &mut |s| {
            self.add_move(&mut sum, side, idx, s, None)
        });
        sum
    }

    /// Adds move `s` of `idx` to `sum` (with mail to `schedule` in, see `init`).
    #[inline]
    fn add_move(
        &self,
        sum: &mut Scan,
        side: usize,
        idx: u64,
        s: Successor,
        schedule: Option<&mut Mail>,
    ) {
        let earlier = |j: u64| {
            let e = self.earlier.as_ref();
            e.expect("a move into an earlier part reads its values")
                .value(1 - side, j)
        };
        let first = self.part.start;
        let fixed = match s {
            Successor::Table(j) if j < first => Some(earlier(j)),
            Successor::Either(j, alt) if j < first => Some(earlier(j).max(alt)),
            _ => None,
        };
        if let Some(d) = fixed {
            // Into an earlier part: the value found there, counted as a fixed move.
            sum.best = sum.best.max(Some(d.back()));
            return;
        }
        match s {
            Successor::Table(_) => sum.inside += 1,
            Successor::Fixed(d) => {
                let mine = d.back();
                if sum.best.is_none_or(|b| mine > b) {
                    sum.best = Some(mine);
                }
                sum.best_exit = sum.best_exit.max(Some(mine));
            }
            Successor::Either(j, alt) => {
                sum.inside += 1;
                // The opponent's extra option wins for him: this move loses by then.
                if let (Dtm::Win(w), Some(mail)) = (alt, schedule) {
                    let note = Note::MoveLosesAt(side as u8, idx, j, w + 1);
                    self.route(mail, note, 0);
                }
            }
        }
    }

    /// Sets up `idx` for both sides to move: its moves summed up, and its value where they
    /// decide it. A move whose extra option wins for the opponent is set to lose at its
    /// level here, once.
    fn init(&self, idx: u64, mail: &mut Mail) {
        let mut sums = [Scan::default(), Scan::default()];
        let mut any = [false; 2];
        let found = self.game.successors_counted_both(idx, &mut |side, s| {
            any[side] = true;
            self.add_move(&mut sums[side], side, idx, s, Some(&mut *mail));
        });
        for (side, (found, mut sum)) in found.into_iter().zip(sums).enumerate() {
            let scan = found.map(|(terminal, counted)| {
                sum.inside += counted;
                sum.no_moves = (!any[side] && counted == 0).then_some(terminal);
                sum
            });
            self.init_side(side, idx, scan);
        }
    }

    /// Sets up `idx` with `side` to move from the sum of its moves (None: not a legal
    /// position).
    fn init_side(&self, side: usize, idx: u64, scan: Option<Scan>) {
        let at = self.at(idx);
        let best_exit = scan.as_ref().and_then(|s| s.best_exit);
        match &scan {
            None => self.illegal[side].set(at),
            Some(Scan {
                no_moves: Some(t), ..
            }) => self.preset(side, idx, *t),
            Some(scan) => self.init_moves(side, idx, scan),
        }
        if let Some(classes) = &self.exit_class {
            classes[side].set(at, class_of(best_exit));
        }
        if let Some(p) = best_exit.and_then(Dtm::plies) {
            raise(&self.longest_exit, p);
            if p > SUMMARY_PLIES {
                lock(&self.exits_beyond[side]).push((idx, p));
            }
        }
    }

    /// Sets up `idx`, which has moves, from their sum `scan`.
    fn init_moves(&self, side: usize, idx: u64, scan: &Scan) {
        let at = self.at(idx);
        self.class[side].set(at, class_of(scan.best));
        match scan.best.and_then(Dtm::plies) {
            Some(p) if p > SUMMARY_PLIES => {
                self.defer(p, Deferred::Exit(side as u8, idx));
            }
            Some(p) => {
                self.note_static(p);
                if p % 2 == 1 {
                    // Provisional until level p (see the module doc).
                    self.preset(side, idx, Dtm::from_plies(p));
                    self.decided(side, at, scan);
                } else if scan.inside == 0 {
                    // Every move leaves the graph, the best losing: nothing can change it.
                    self.preset(side, idx, Dtm::from_plies(p));
                    self.decided(side, at, scan);
                }
            }
            None => {}
        }
        if self.search == LossSearch::Counters {
            let counter = u8::try_from(scan.inside).expect("fewer than 256 moves");
            self.counters[side][at].store(counter, Relaxed);
        }
    }

    /// Notes that `at`'s best fixed move has its value (as far as known: a move inside the
    /// graph that wins sooner takes it back, `set`): so has its best exit, if that is the
    /// best fixed move (`scan`).
    fn decided(&self, side: usize, at: usize, scan: &Scan) {
        if scan.best_exit == scan.best {
            self.decides[side].set(at);
        }
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
            self.game.predecessors(side, idx, &mut |p, alt| match alt {
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
            self.game.predecessors(side, idx, &mut |p, alt| match alt {
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

    /// A move of `idx` became a loss for it at `level`: with counters, one more move is
    /// known to lose, and at zero the position loses now unless a fixed move holds out
    /// longer; with checks, the position is marked to be checked at the end of the level.
    #[inline]
    fn lost_move(&self, side: usize, idx: u64, level: u32) {
        match self.search {
            LossSearch::Counters => {
                if self.counters[side][self.at(idx)].fetch_sub(1, Relaxed) == 1 {
                    self.resolve_loss(side, idx, level);
                }
            }
            LossSearch::Checks => self.touch(side, idx),
        }
    }

    /// Marks `idx` for the check at the end of the level, unless it is resolved or a fixed
    /// move keeps it from losing.
    #[inline]
    fn touch(&self, side: usize, idx: u64) {
        let at = self.at(idx);
        if self.values[side][at].load(Relaxed) != 0 || self.changed[side].get(at) {
            return;
        }
        if matches!(self.class[side].get(at), NO_FIXED | FIXED_LOSS) {
            self.changed[side].set(at);
        }
    }

    /// Checks every position marked at this level (`touch`), `level` being even.
    fn check_marked(&self, level: u32) {
        for (side, changed) in self.changed.iter().enumerate() {
            let words = changed.words();
            words
                .par_chunks(CHUNK / 64)
                .enumerate()
                .for_each(|(c, chunk)| {
                    for (k, word) in chunk.iter().enumerate() {
                        let mut bits = word.swap(0, Relaxed);
                        while bits != 0 {
                            let i = (c * CHUNK / 64 + k) * 64 + bits.trailing_zeros() as usize;
                            bits &= bits - 1;
                            self.check(side, self.own.start + i as u64, level);
                        }
                    }
                });
        }
    }

    /// Sets `idx` lost at `level` (`resolve_loss`) if it is unresolved and every move inside
    /// the graph loses by now.
    fn check(&self, side: usize, idx: u64, level: u32) {
        if self.values[side][self.at(idx)].load(Relaxed) != 0 {
            return;
        }
        let (first, other) = (self.part.start, 1 - side);
        // A move loses when the opponent has won there by the previous level, or may take
        // an extra option that wins by then.
        let all_lose = self.game.moves_inside(side, idx, &mut |j, alt| {
            j < first
                || matches!(alt, Some(Dtm::Win(w)) if w < level)
                || self.won_by_now(other, j, level)
        });
        if all_lose {
            self.resolve_loss(side, idx, level);
        }
    }

    /// Sets `idx`, none of whose moves inside the graph holds out, lost at `level` if its
    /// fixed moves allow it. A fixed move that loses later makes the loss that long, stored
    /// at once (beyond `SUMMARY_PLIES`, its deferred work resolves it then); one that wins
    /// or draws keeps it from losing.
    fn resolve_loss(&self, side: usize, idx: u64, level: u32) {
        let at = self.at(idx);
        match self.class[side].get(at) {
            NO_FIXED => {
                self.set(side, idx, level);
            }
            FIXED_LOSS if self.values[side][at].load(Relaxed) == 0 => {
                // Rare enough to find the fixed move again rather than keep its distance.
                let scan = self.scan_fixed(side, idx);
                let p = scan
                    .best
                    .and_then(Dtm::plies)
                    .expect("a fixed move that loses");
                // Later than `level`, the loss is due at p: nothing can change that (no
                // move is left to win).
                if (p <= level || p <= SUMMARY_PLIES)
                    && self.set(side, idx, level.max(p))
                    && p >= level
                {
                    self.decided(side, at, &scan);
                }
            }
            _ => {}
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;

    /// An explicit game graph: each position's moves, and who moves into whom.
    struct Graph {
        moves: [Vec<Vec<Successor>>; 2],
        preds: [Vec<Vec<u64>>; 2],
        parts: Vec<Range<u64>>,
    }

    impl Graph {
        fn new(moves: [Vec<Vec<Successor>>; 2]) -> Graph {
            let n = moves[0].len();
            let mut preds = [vec![Vec::new(); n], vec![Vec::new(); n]];
            for (side, side_moves) in moves.iter().enumerate() {
                for (i, list) in side_moves.iter().enumerate() {
                    for m in list {
                        if let Successor::Table(j) = m {
                            preds[1 - side][*j as usize].push(i as u64);
                        }
                    }
                }
            }
            Graph {
                moves,
                preds,
                parts: std::iter::once(0..n as u64).collect(),
            }
        }

        /// The best of the moves of `idx` that leave the graph, for its mover.
        fn best_fixed(&self, side: usize, idx: u64) -> Option<Dtm> {
            self.moves[side][idx as usize]
                .iter()
                .filter_map(|m| match m {
                    Successor::Fixed(d) => Some(d.back()),
                    _ => None,
                })
                .max()
        }

        /// True when `idx` has a move inside the graph.
        fn inside(&self, side: usize, idx: u64) -> bool {
            self.moves[side][idx as usize]
                .iter()
                .any(|m| matches!(m, Successor::Table(_)))
        }

        /// Distance to mate by its definition, level after level, looking forward at every
        /// position's moves (no un-moves, no counters).
        fn oracle(&self) -> [Vec<Dtm>; 2] {
            let n = self.moves[0].len();
            let mut val: [Vec<Option<Dtm>>; 2] = [vec![None; n], vec![None; n]];
            for (side, v) in val.iter_mut().enumerate() {
                for (i, x) in v.iter_mut().enumerate() {
                    if self.moves[side][i].is_empty() {
                        *x = Some(Dtm::Loss(0));
                    }
                }
            }
            for level in 1..=2000 {
                let before = val.clone();
                for side in 0..2 {
                    for i in 0..n {
                        if before[side][i].is_some() {
                            continue;
                        }
                        let outcomes: Vec<Option<Dtm>> = self.moves[side][i]
                            .iter()
                            .map(|m| match *m {
                                Successor::Table(j) => before[1 - side][j as usize].map(Dtm::back),
                                Successor::Fixed(d) => Some(d.back()),
                                Successor::Either(..) => unreachable!(),
                            })
                            .collect();
                        let wins = outcomes.contains(&Some(Dtm::Win(level)));
                        let loses = outcomes
                            .iter()
                            .all(|o| matches!(o, Some(Dtm::Loss(p)) if *p <= level));
                        if level % 2 == 1 && wins || level % 2 == 0 && loses {
                            val[side][i] = Some(Dtm::from_plies(level));
                        }
                    }
                }
            }
            val.map(|v| v.into_iter().map(|x| x.unwrap_or(Dtm::Draw)).collect())
        }
    }

    impl RetroGame for Graph {
        fn size(&self) -> u64 {
            self.moves[0].len() as u64
        }

        fn parts(&self) -> Vec<Range<u64>> {
            self.parts.clone()
        }

        fn successors(&self, side: usize, idx: u64, f: &mut impl FnMut(Successor)) -> Option<Dtm> {
            self.moves[side][idx as usize].iter().for_each(|&m| f(m));
            Some(Dtm::Loss(0))
        }

        fn predecessors(&self, side: usize, idx: u64, f: &mut impl FnMut(u64, Option<Dtm>)) {
            self.preds[side][idx as usize]
                .iter()
                .for_each(|&p| f(p, None));
        }
    }

    /// A chain of forced moves 700 plies long (position k moves to k - 1, 0 is mated), with
    /// side branches: losers that can step back up the chain, exits far beyond 250 plies
    /// both ways, and a loop that draws.
    fn long_chain() -> Graph {
        let n = 700u64;
        let moves = [0, 1].map(|side: u64| {
            (0..n)
                .map(|k| {
                    let mut m = Vec::new();
                    if k > 0 {
                        m.push(Successor::Table(k - 1));
                    }
                    if k % 3 == 0 && k + 1 < n {
                        m.push(Successor::Table(k + 1));
                    }
                    let even = (k as u32 + side as u32) & !1;
                    if k % 50 == 7 {
                        m.push(Successor::Fixed(Dtm::Loss(even + 290)));
                    }
                    if k % 70 == 11 {
                        m.push(Successor::Fixed(Dtm::Win(even + 301)));
                    }
                    if k % 97 == 5 {
                        m = vec![Successor::Table(k), Successor::Fixed(Dtm::Draw)];
                    }
                    m
                })
                .collect()
        });
        Graph::new(moves)
    }

    /// 1,200 positions in parts of 150, each with a few moves inside its part, into earlier
    /// parts, and out of the graph, drawn from a fixed pseudo-random sequence.
    fn parted_graph() -> Graph {
        let (n, part) = (1200u64, 150u64);
        let mut random = crate::testing::xorshift(0x2545_f491_4f6c_dd1d);
        let mut next = move |below: u64| random() % below;
        let moves = [0, 1].map(|_| {
            (0..n)
                .map(|k| {
                    let first = k / part * part;
                    let mut m = Vec::new();
                    for _ in 0..next(4) {
                        m.push(Successor::Table(first + next(part)));
                    }
                    if first > 0 && next(3) == 0 {
                        m.push(Successor::Table(next(first)));
                    }
                    match next(8) {
                        0 => m.push(Successor::Fixed(Dtm::Loss(2 * next(20) as u32))),
                        1 => m.push(Successor::Fixed(Dtm::Win(2 * next(20) as u32 + 1))),
                        2 => m.push(Successor::Fixed(Dtm::Draw)),
                        _ => {}
                    }
                    m
                })
                .collect()
        });
        let mut g = Graph::new(moves);
        g.parts = (0..n / part).map(|p| p * part..(p + 1) * part).collect();
        g
    }

    /// Solved part by part, a graph has the values its definition gives, and its best
    /// exits are its moves out of the graph alone.
    #[test]
    fn parts_solved_in_turn_match_the_definition() {
        let g = parted_graph();
        let expected = g.oracle();
        for solution in both_ways(&g) {
            let mut decided = 0;
            for (side, want) in expected.iter().enumerate() {
                for idx in 0..g.size() {
                    let (v, _) = solution.value(side, idx);
                    assert_eq!(v, want[idx as usize], "side {side} index {idx}");
                    decided += usize::from(v != Dtm::Draw);
                    assert_exits(&solution, side, idx, v, g.best_fixed(side, idx));
                }
            }
            assert!(decided > 600, "{decided} decided");
        }
    }

    /// Parts whose values no part left reads are packed and their pages given back; made
    /// whole again, a side at a time, the solution is the one solved without that. Moves
    /// into earlier parts go one or two parts back, so the first parts go early.
    #[test]
    fn parts_let_go_come_back_whole() {
        let g = parted_graph();
        let part = g.parts[0].end;
        let back = |first: u64, t: u64, steps: u64| first - steps * part + t % part;
        let moves = g.moves.clone().map(|side| {
            (0..g.size())
                .map(|i| {
                    let first = i / part * part;
                    let list = &side[i as usize];
                    (list.iter().enumerate())
                        .map(|(k, m)| match *m {
                            Successor::Table(t) if t < first => Successor::Table(back(
                                first,
                                t,
                                1 + (k as u64 % 2).min(first / part - 1),
                            )),
                            m => m,
                        })
                        .collect()
                })
                .collect()
        });
        let mut g2 = Graph::new(moves);
        g2.parts = g.parts.clone();
        let count = g2.parts.len();
        let mut last: Vec<usize> = (0..count).collect();
        for side in 0..2 {
            for (i, list) in g2.moves[side].iter().enumerate() {
                for m in list {
                    if let Successor::Table(t) = m {
                        let (from, to) = (i / part as usize, (*t / part) as usize);
                        last[to] = last[to].max(from);
                    }
                }
            }
        }
        assert!(last[0] + 2 < count, "{last:?}");
        let whole = solve_within(&g2, Dtm::MAX_PLIES, LossSearch::Counters, &Silent);
        let mut parts = PartByPart::new(&g2, Dtm::MAX_PLIES, LossSearch::Counters);
        let mut let_go = 0;
        for _ in 0..count {
            parts.solve_next(&g2, &Silent);
            parts.let_go_unread(&last);
            let_go = parts.let_go.iter().filter(|&&b| b).count();
        }
        assert!(let_go > 0, "some part let go before the end");
        let mut finished = [false; 2];
        let (mut sides, held) = parts.into_sides(|_, side| finished[side] = true);
        assert_eq!(finished, [true; 2]);
        assert_eq!(held.side(), 1);
        assert!(sides.values[1].is_empty());
        held.restore(&mut sides);
        assert_eq!(sides.values, whole.values);
        assert_eq!(sides.illegal, whole.illegal);
        assert_eq!(sides.exit_decides, whole.exit_decides);
        assert_eq!(sides.exit_same_wdl, whole.exit_same_wdl);
    }

    /// `g` solved by `count` processes (threads here), each part split across them, with
    /// `search`: what each process gets.
    fn split(g: &Graph, count: usize, search: LossSearch) -> Vec<Solution> {
        let group = crate::retro::peers::InProcess::group(count);
        std::thread::scope(|s| {
            let solves: Vec<_> = group
                .into_iter()
                .map(|p| {
                    s.spawn(move || {
                        let mut parts =
                            PartByPart::new(g, Dtm::MAX_PLIES, search).split_across(Arc::new(p));
                        for _ in 0..parts.count() {
                            parts.solve_next(g, &Silent);
                        }
                        let sent = parts.peers().bytes_sent();
                        (parts.into_solution(), sent)
                    })
                })
                .collect();
            let solved: Vec<_> = solves.into_iter().map(|h| h.join().unwrap()).collect();
            assert!(solved.iter().any(|&(_, sent)| sent > 0), "notes were sent");
            solved.into_iter().map(|(s, _)| s).collect()
        })
    }

    /// Split across two, three and five processes, with counters and with checks, in
    /// parts and whole, with distances beyond a byte: every process holds the solution
    /// one process finds, bit for bit, at the indices it keeps, its share of each part
    /// (`PartByPart::owned`), and every index is some process's.
    #[test]
    fn split_solves_equal_the_whole() {
        let mut whole = parted_graph();
        whole.parts = std::iter::once(0..whole.size()).collect();
        for g in [parted_graph(), whole, long_chain()] {
            for search in [LossSearch::Counters, LossSearch::Checks] {
                let one = solve_within(&g, Dtm::MAX_PLIES, search, &Silent);
                for count in [2, 3, 5] {
                    let (mut held, mut longest) = (0, 0);
                    let owners = Owners::new(&g.parts, count);
                    for (rank, s) in split(&g, count, search).into_iter().enumerate() {
                        let n = s.values[0].len() as u64;
                        match g.parts.len() {
                            1 => assert_eq!(s.first..s.first + n, owners.of(rank)[0]),
                            _ => assert_eq!(s.first..s.first + n, 0..g.size()),
                        }
                        for own in owners.of(rank) {
                            let at = own.start as usize..own.end as usize;
                            for side in 0..2 {
                                let what = format!("{count} {search:?} side {side}");
                                let i = |at: &Range<usize>, s: &Solution| {
                                    at.start - s.first as usize..at.end - s.first as usize
                                };
                                assert_eq!(
                                    s.values[side][i(&at, &s)],
                                    one.values[side][at.clone()],
                                    "{what}"
                                );
                                for idx in own.clone() {
                                    assert_eq!(s.is_illegal(side, idx), one.is_illegal(side, idx));
                                    assert_eq!(
                                        s.exit_decides(side, idx),
                                        one.exit_decides(side, idx)
                                    );
                                    let same =
                                        |s: &Solution| bit(&s.exit_same_wdl[side], idx - s.first);
                                    assert_eq!(same(&s), same(&one), "{what} index {idx}");
                                    assert_eq!(s.value(side, idx), one.value(side, idx));
                                }
                                let listed = s.long[side].entries();
                                let ours = listed.iter().filter(|(i, _)| own.contains(i));
                                let theirs = one.long[side].entries().iter();
                                assert!(ours.eq(theirs.filter(|(i, _)| own.contains(i))));
                            }
                            held += own.end - own.start;
                        }
                        longest = longest.max(s.longest_exit);
                    }
                    assert_eq!(held, g.size(), "every index held once");
                    assert_eq!(longest, one.longest_exit);
                }
            }
        }
    }

    /// Notes come back as they were written, units laid end to end.
    #[test]
    fn notes_decode_as_encoded() {
        let notes = [
            Note::Win(1, 7),
            Note::Lost(0, u64::MAX >> 1),
            Note::WinAt(1, 3, 300),
            Note::MoveLosesAt(0, 5, 9, 41),
            Note::Lost(1, 0),
        ];
        let mut units = Vec::new();
        notes.iter().for_each(|n| n.encode(&mut units));
        let decoded: Vec<Note> = (0..units.len() / UNIT)
            .filter_map(|u| Note::decode(&units, u))
            .collect();
        assert_eq!(decoded, notes);
    }

    /// `g` solved with counters and with checks.
    fn both_ways(g: &Graph) -> [Solution; 2] {
        [LossSearch::Counters, LossSearch::Checks]
            .map(|search| solve_within(g, Dtm::MAX_PLIES, search, &Silent))
    }

    /// Solved whole, the same graph has the values its definition gives, and its best exits
    /// are marked from their classes: fixed wins that a sooner move replaces, fixed losses
    /// that hold out longer than every move inside, fixed draws.
    #[test]
    fn a_graph_solved_whole_matches_the_definition() {
        let mut g = parted_graph();
        g.parts = std::iter::once(0..g.size()).collect();
        let expected = g.oracle();
        for solution in both_ways(&g) {
            let mut seen = [0; 3];
            for (side, want) in expected.iter().enumerate() {
                for idx in 0..g.size() {
                    let (v, _) = solution.value(side, idx);
                    assert_eq!(v, want[idx as usize], "side {side} index {idx}");
                    let best_fixed = g.best_fixed(side, idx);
                    assert_exits(&solution, side, idx, v, best_fixed);
                    match (best_fixed, v) {
                        (Some(Dtm::Win(f)), Dtm::Win(p)) if p < f => seen[0] += 1,
                        (Some(Dtm::Loss(f)), Dtm::Loss(p)) if p == f && g.inside(side, idx) => {
                            seen[1] += 1
                        }
                        (Some(Dtm::Draw), Dtm::Draw) => seen[2] += 1,
                        _ => {}
                    }
                }
            }
            assert!(seen.iter().all(|&k| k > 5), "cases seen: {seen:?}");
        }
    }

    /// A best exit decides a position's class under the 50-move rule only when it wins,
    /// draws or loses alike and is cursed (or blessed) alike.
    #[test]
    fn an_exit_has_the_class_only_if_cursed_alike() {
        let mut s = Solution::from_parts([vec![0; 4], vec![0; 4]], Default::default());
        // Index 0: exit of another WDL; 1: same WDL; 2: same WDL, both cursed; 3: same
        // WDL, only the exit cursed.
        s.exit_same_wdl = [vec![0b1110], vec![]];
        s.cursed = [vec![0b0100], vec![]];
        s.exit_cursed = [vec![0b1100], vec![]];
        let class = |i| Wdl5::new(Wdl::Win, bit(&s.cursed[0], i));
        let has = |i| s.exit_has_class(0, i, class(i));
        assert_eq!([0, 1, 2, 3].map(has), [false, true, true, false]);
        assert!(
            !s.exit_has_class(1, 1, Wdl5::Win),
            "an empty bitmap marks nothing"
        );
        // Draws are never cursed: the same WDL is the same class.
        assert!(s.exit_has_class(0, 3, Wdl5::Draw));
    }

    /// A part's bitmap lands at its offset in the whole's, at every alignment.
    #[test]
    fn bits_move_to_their_offset() {
        let len = 300u64;
        let src = bitmap(len as usize, |i| i % 7 == 0 || i % 11 == 3);
        for offset in [0u64, 1, 63, 64, 65, 150, 191] {
            let mut dst = vec![1u64 << 63; (offset + len + 70).div_ceil(64) as usize];
            let before = dst.clone();
            or_bits_at(&mut dst, offset, &src);
            for i in 0..dst.len() as u64 * 64 {
                let moved = (offset..offset + len).contains(&i) && bit(&src, i - offset);
                assert_eq!(
                    bit(&dst, i),
                    moved || bit(&before, i),
                    "offset {offset} bit {i}"
                );
            }
        }
    }

    #[test]
    fn distances_beyond_a_byte_match_the_definition() {
        let g = long_chain();
        let expected = g.oracle();
        for solution in both_ways(&g) {
            let (mut longest, mut longest_exit) = (0, 0);
            for (side, want) in expected.iter().enumerate() {
                for idx in 0..g.size() {
                    let (v, _) = solution.value(side, idx);
                    assert_eq!(v, want[idx as usize], "side {side} index {idx}");
                    longest = longest.max(v.plies().unwrap_or(0));
                    let best_fixed = g.best_fixed(side, idx);
                    assert_exits(&solution, side, idx, v, best_fixed);
                    longest_exit = longest_exit.max(best_fixed.and_then(Dtm::plies).unwrap_or(0));
                }
            }
            assert!(longest > 600, "the chain reaches {longest} plies");
            let beyond = |v: &Vec<Dtm>| {
                v.iter()
                    .filter(|d| d.plies() > Some(Dtm::BYTE_PLIES))
                    .count()
            };
            for (long, want) in solution.long.iter().zip(&expected) {
                assert_eq!(long.len(), beyond(want));
            }
            assert!(longest_exit > 250, "exits listed apart are marked too");
            assert_eq!(solution.longest_exit, longest_exit);
        }
    }

    /// The exit marks of `idx`, of value `v`, say what its best fixed move `best_fixed`
    /// gives: whether it reaches `v`, and whether it wins, draws or loses as `v` does.
    fn assert_exits(solution: &Solution, side: usize, idx: u64, v: Dtm, best_fixed: Option<Dtm>) {
        assert_eq!(
            solution.exit_decides(side, idx),
            best_fixed == Some(v),
            "side {side} index {idx}"
        );
        assert_eq!(
            bit(&solution.exit_same_wdl[side], idx),
            best_fixed.map(Dtm::wdl) == Some(v.wdl()),
            "side {side} index {idx}"
        );
    }
}
