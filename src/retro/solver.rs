//! The game-generic retrograde solver: distance to mate for every position of a game graph
//! whose positions are numbered densely for each of two sides to move.
//!
//! Level by level (level = plies to mate), positions found at the previous level are taken
//! back by un-moves: the predecessors of a loss in n-1 plies win in n; each predecessor of a
//! win in n-1 has one more move known to lose, counted down in a per-position counter of its
//! moves inside the graph, and loses in n when that counter reaches zero. Moves that leave the
//! graph (captures and promotions into sub-tables) have fixed values, summarized once per
//! position before the levels start. Whatever is never resolved is a draw.
//!
//! Memory: three bytes per position and side to move (value, fixed-move summary, move
//! counter), as relaxed atomics: the value is set once by compare-and-swap, and the counter's
//! atomic decrement tells exactly one thread that it reached zero. No locks on the hot path.

use crate::value::{Dtm, Wdl5};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::Mutex;

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
    fn successors(&self, side: usize, idx: u64, f: &mut dyn FnMut(Successor)) -> Option<Dtm>;

    /// Calls `f` for every legal position of the other side to move with a move into `idx`
    /// that the successors of that position report as `Table(idx)` (alternative None) or
    /// `Either(idx, alt)` (alternative Some(alt)).
    fn predecessors(&self, side: usize, idx: u64, f: &mut dyn FnMut(u64, Option<Dtm>));
}

/// Told about the solver's progress (for progress bars); positions are counted over both
/// sides to move.
pub trait Observer: Sync {
    /// A pass over `total` positions begins.
    fn pass(&self, name: &str, total: u64);
    /// `n` more positions of the current pass are done.
    fn advance(&self, n: u64);
}

/// Ignores progress.
pub struct Silent;

impl Observer for Silent {
    fn pass(&self, _: &str, _: u64) {}
    fn advance(&self, _: u64) {}
}

// Summary of a position's fixed moves, one byte.
const C_NONE: u8 = 0; // no fixed move
const C_DRAW: u8 = 1; // the best fixed move draws
const C_TERMINAL: u8 = 254; // no move at all
const C_ILLEGAL: u8 = 255; // not a legal position

fn summary_code(best: Dtm) -> u8 {
    match best {
        Dtm::Draw => C_DRAW,
        // Capped keeping the parity, so that a win stays a win.
        d => {
            let p = d.plies().unwrap_or(0);
            (p.min(250 - p % 2) + 2) as u8
        }
    }
}

/// A summary code as `Solution::exits` holds it.
fn exit_code(summary: u8) -> u8 {
    match summary {
        C_DRAW => Dtm::Draw.encode(),
        c => match summary_plies(c) {
            Some(p) if p % 2 == 1 => Dtm::Win(p).encode(),
            Some(p) => Dtm::Loss(p).encode(),
            None => NO_EXIT,
        },
    }
}

fn summary_plies(code: u8) -> Option<u32> {
    match code {
        C_NONE | C_DRAW | C_TERMINAL | C_ILLEGAL => None,
        c => Some(c as u32 - 2),
    }
}

const CHUNK: usize = 1 << 12;

/// Work for a later level, for the rare moves with an extra option (`Successor::Either`).
#[derive(Copy, Clone)]
enum Deferred {
    /// `(side, idx)` wins at that level if still unresolved.
    Win(u8, u64),
    /// The move of `(side, idx)` into `j` loses at that level through its extra option,
    /// unless its indexed part already lost earlier.
    MoveLoses(u8, u64, u64),
}

fn atomic_bytes(n: usize) -> Vec<AtomicU8> {
    // AtomicU8 has the size and alignment of u8, and zeroed memory is a valid AtomicU8(0);
    // building the vector this way lets the allocator hand out zeroed pages directly.
    let mut v = std::mem::ManuallyDrop::new(vec![0u8; n]);
    let (ptr, len, cap) = (v.as_mut_ptr(), v.len(), v.capacity());
    // SAFETY: same layout, ownership moves from the u8 vector to the atomic one.
    unsafe { Vec::from_raw_parts(ptr as *mut AtomicU8, len, cap) }
}

fn into_bytes(v: Vec<AtomicU8>) -> Vec<u8> {
    let mut v = std::mem::ManuallyDrop::new(v);
    let (ptr, len, cap) = (v.as_mut_ptr(), v.len(), v.capacity());
    // SAFETY: same layout; no other reference remains.
    unsafe { Vec::from_raw_parts(ptr as *mut u8, len, cap) }
}

struct State<'g, G: RetroGame> {
    game: &'g G,
    values: [Vec<AtomicU8>; 2],
    summary: [Vec<AtomicU8>; 2],
    /// Moves inside the graph not yet known to lose for the mover (at most 255: a chess
    /// position of 5 pieces has far fewer moves).
    counters: [Vec<AtomicU8>; 2],
    pending: Mutex<Vec<Vec<Deferred>>>,
    last_static_level: AtomicU32,
    found: AtomicU64,
}

/// The solver's output: one encoded value (see `Dtm::encode`) per index and side to move;
/// illegal and broken indices hold 0 and are marked in `illegal`.
pub struct Solution {
    /// Values with side 0 and side 1 to move.
    pub values: [Vec<u8>; 2],
    /// One bit per index (bit `i % 64` of word `i / 64`), set where the index is not a legal
    /// position of the graph: its value is never read, so a writer may store anything there.
    pub illegal: [Vec<u64>; 2],
    /// For each index, the best value among its moves that leave the graph
    /// (`Successor::Fixed`), as `Dtm::encode` gives it, or `NO_EXIT`; read it with
    /// `best_exit`.
    pub exits: [Vec<u8>; 2],
    /// One bit per index, set where the win or loss does not hold under the 50-move rule
    /// (a cursed win or a blessed loss); empty until the rule is applied (`fifty::apply`).
    pub cursed: [Vec<u64>; 2],
    /// One bit per index, set where the best exit under the 50-move rule is a cursed win
    /// or a blessed loss; empty until the rule is applied.
    pub exit_cursed: [Vec<u64>; 2],
}

/// Bit `idx` of a bitmap of one bit per index; an empty bitmap holds no bit.
#[inline]
pub(crate) fn bit(bits: &[u64], idx: u64) -> bool {
    bits.get((idx / 64) as usize)
        .is_some_and(|w| w >> (idx % 64) & 1 == 1)
}

/// `Solution::exits` of a position without a move that leaves the graph.
pub const NO_EXIT: u8 = 255;

impl Solution {
    /// A solution from its parts (for writers fed from elsewhere than `solve`).
    pub fn from_parts(
        values: [Vec<u8>; 2],
        illegal: [Vec<u64>; 2],
        exits: [Vec<u8>; 2],
    ) -> Solution {
        Solution {
            values,
            illegal,
            exits,
            cursed: Default::default(),
            exit_cursed: Default::default(),
        }
    }

    /// True when index `idx` with `side` to move is not a legal position.
    #[inline]
    pub fn is_illegal(&self, side: usize, idx: u64) -> bool {
        bit(&self.illegal[side], idx)
    }

    /// The value of `idx` with its class under the 50-move rule.
    #[inline]
    pub fn value(&self, side: usize, idx: u64) -> (Dtm, Wdl5) {
        let v = Dtm::decode(self.values[side][idx as usize]);
        (v, Wdl5::new(v.wdl(), bit(&self.cursed[side], idx)))
    }

    /// The class under the 50-move rule of the best exit under that rule (None without an
    /// exit).
    #[inline]
    pub fn best_exit_class(&self, side: usize, idx: u64) -> Option<Wdl5> {
        self.best_exit(side, idx)
            .map(|e| Wdl5::new(e.wdl(), bit(&self.exit_cursed[side], idx)))
    }

    /// The best value, for the side to move, among the moves of `idx` that leave the graph
    /// (chess: captures and promotions), or None if it has none. Values beyond 250 plies
    /// read as 250 or 249 plies.
    #[inline]
    pub fn best_exit(&self, side: usize, idx: u64) -> Option<Dtm> {
        match self.exits[side][idx as usize] {
            NO_EXIT => None,
            c => Some(Dtm::decode(c)),
        }
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

fn illegal_bitmap(summary: &[AtomicU8]) -> Vec<u64> {
    bitmap(summary.len(), |i| summary[i].load(Relaxed) == C_ILLEGAL)
}

/// Solves `game`: distance to mate for every position, both sides to move.
pub fn solve<G: RetroGame>(game: &G, observer: &dyn Observer) -> Solution {
    solve_within(game, Dtm::MAX_PLIES, observer)
}

/// Solves `game` up to `max_plies`: wins and losses that take longer stay draws.
pub fn solve_within<G: RetroGame>(game: &G, max_plies: u32, observer: &dyn Observer) -> Solution {
    let n = game.size() as usize;
    let st = State {
        game,
        values: [atomic_bytes(n), atomic_bytes(n)],
        summary: [atomic_bytes(n), atomic_bytes(n)],
        counters: [atomic_bytes(n), atomic_bytes(n)],
        pending: Mutex::new(vec![Vec::new(); Dtm::MAX_PLIES as usize + 2]),
        last_static_level: AtomicU32::new(0),
        found: AtomicU64::new(0),
    };
    observer.pass("setting up", 2 * n as u64);
    for side in 0..2 {
        (0..n).into_par_iter().step_by(CHUNK).for_each(|start| {
            for idx in start..(start + CHUNK).min(n) {
                st.init(side, idx as u64);
            }
            observer.advance((CHUNK.min(n - start)) as u64);
        });
    }
    let mut idle = 0;
    for level in 1..=max_plies.min(Dtm::MAX_PLIES) {
        st.found.store(0, Relaxed);
        observer.pass(&format!("ply {level}"), 2 * n as u64);
        for side in 0..2 {
            (0..n).into_par_iter().step_by(CHUNK).for_each(|start| {
                for idx in start..(start + CHUNK).min(n) {
                    st.visit(side, idx as u64, level);
                }
                observer.advance((CHUNK.min(n - start)) as u64);
            });
        }
        let pending = std::mem::take(
            &mut st.pending.lock().unwrap_or_else(|e| e.into_inner())[level as usize],
        );
        pending
            .into_par_iter()
            .for_each(|d| st.run_deferred(d, level));
        if st.found.load(Relaxed) > 0 {
            idle = 0;
        } else {
            idle += 1;
            // Two empty levels in a row end the search once no fixed value can still matter.
            if idle >= 2 && level > st.last_static_level.load(Relaxed) {
                break;
            }
        }
    }
    let illegal = [
        illegal_bitmap(&st.summary[0]),
        illegal_bitmap(&st.summary[1]),
    ];
    let [v0, v1] = st.values;
    let exits = st.summary.map(|s| {
        let mut e = into_bytes(s);
        e.par_iter_mut().for_each(|c| *c = exit_code(*c));
        e
    });
    Solution::from_parts([into_bytes(v0), into_bytes(v1)], illegal, exits)
}

impl<G: RetroGame> State<'_, G> {
    fn note_static(&self, level: u32) {
        self.last_static_level.fetch_max(level, Relaxed);
    }

    fn defer(&self, level: u32, work: Deferred) {
        if level <= Dtm::MAX_PLIES {
            self.note_static(level);
            self.pending.lock().unwrap_or_else(|e| e.into_inner())[level as usize].push(work);
        }
    }

    fn run_deferred(&self, work: Deferred, level: u32) {
        match work {
            Deferred::Win(side, idx) => self.resolve_win(side as usize, idx, level),
            Deferred::MoveLoses(side, idx, j) => {
                let code = self.values[1 - side as usize][j as usize].load(Relaxed);
                let indexed_part_won =
                    code != 0 && (code - 1) % 2 == 1 && ((code - 1) as u32) < level;
                if !indexed_part_won {
                    self.count_down(side as usize, idx, level);
                }
            }
        }
    }

    fn init(&self, side: usize, idx: u64) {
        let mut best: Option<Dtm> = None;
        let mut any = false;
        let mut inside = 0u32;
        let terminal = self.game.successors(side, idx, &mut |s| {
            any = true;
            match s {
                Successor::Table(_) => inside += 1,
                Successor::Fixed(d) => {
                    let mine = d.back();
                    if best.is_none_or(|b| mine > b) {
                        best = Some(mine);
                    }
                }
                Successor::Either(j, alt) => {
                    inside += 1;
                    // The opponent's extra option wins for him: this move loses by then.
                    if let Dtm::Win(w) = alt {
                        self.defer(w + 1, Deferred::MoveLoses(side as u8, idx, j));
                    }
                }
            }
        });
        let summary = match terminal {
            None => C_ILLEGAL,
            Some(t) if !any => {
                self.values[side][idx as usize].store(t.encode(), Relaxed);
                C_TERMINAL
            }
            Some(_) => match best {
                None => C_NONE,
                Some(b) => {
                    if let Some(p) = b.plies() {
                        self.note_static(p);
                    }
                    summary_code(b)
                }
            },
        };
        self.summary[side][idx as usize].store(summary, Relaxed);
        self.counters[side][idx as usize].store(inside.min(255) as u8, Relaxed);
    }

    /// One position during the pass for `level`: take back its moves if it was resolved at
    /// the previous level, and resolve it if its fixed moves decide it at this level.
    #[inline]
    fn visit(&self, side: usize, idx: u64, level: u32) {
        let code = self.values[side][idx as usize].load(Relaxed);
        if code as u32 == level {
            let other = 1 - side;
            let prev = level - 1; // plies of `idx`
            if level % 2 == 1 {
                // `idx` is lost: every move into it wins.
                self.game.predecessors(side, idx, &mut |p, alt| match alt {
                    None => self.resolve_win(other, p, level),
                    // The opponent may take his extra option instead: the move wins only if
                    // that loses too, and as late as the longer of the two.
                    Some(Dtm::Loss(e)) if e <= prev => self.resolve_win(other, p, level),
                    Some(Dtm::Loss(e)) => self.defer(e + 1, Deferred::Win(other as u8, p)),
                    Some(_) => {}
                });
            } else {
                // `idx` is won: one more losing move for each predecessor, unless the move
                // already lost earlier through an extra option.
                self.game.predecessors(side, idx, &mut |p, alt| match alt {
                    Some(Dtm::Win(w)) if w < prev => {}
                    _ => self.count_down(other, p, level),
                });
            }
        }
        if code == 0 {
            let summary = self.summary[side][idx as usize].load(Relaxed);
            if summary_plies(summary) == Some(level) {
                if level % 2 == 1 {
                    self.resolve_win(side, idx, level);
                } else if self.counters[side][idx as usize].load(Relaxed) == 0 {
                    self.resolve_loss(side, idx, level, summary);
                }
            }
        }
    }

    fn resolve_win(&self, side: usize, idx: u64, level: u32) {
        let summary = self.summary[side][idx as usize].load(Relaxed);
        if summary == C_ILLEGAL || summary == C_TERMINAL {
            return;
        }
        self.set(side, idx, level);
    }

    /// One more move of `idx` is known to lose; at zero the position loses now, unless a
    /// fixed move holds out longer (then the summary scan resolves it at that level).
    fn count_down(&self, side: usize, idx: u64, level: u32) {
        if self.counters[side][idx as usize].fetch_sub(1, Relaxed) == 1 {
            let summary = self.summary[side][idx as usize].load(Relaxed);
            self.resolve_loss(side, idx, level, summary);
        }
    }

    fn resolve_loss(&self, side: usize, idx: u64, level: u32, summary: u8) {
        let ok = match summary {
            C_NONE => true,
            c => matches!(summary_plies(c), Some(p) if p % 2 == 0 && p <= level),
        };
        if ok {
            self.set(side, idx, level);
        }
    }

    fn set(&self, side: usize, idx: u64, level: u32) {
        let cell = &self.values[side][idx as usize];
        if cell.load(Relaxed) == 0
            && cell
                .compare_exchange(0, (level + 1) as u8, Relaxed, Relaxed)
                .is_ok()
        {
            self.found.fetch_add(1, Relaxed);
        }
    }
}
