//! What the processes a part is split across tell each other: notes of un-moves into
//! positions another holds (`Note`), and, each level, whether it found a position and,
//! with checks, its wins.
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

use super::{lock, Deferred, RetroGame, State, BLOCK, CHUNK, MARKED_LEVELS};
use crate::peers::{each, nth, put_all, Peers, Reader, Shares, Wire};
use crate::retro::bits::AtomicBits;
use crate::value::Dtm;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Mutex;

/// The processes a part is split across, as its solve sees them: who holds which indices,
/// the notes waiting for each, and, split with checks, every process's wins.
pub(super) struct Exchange<'g> {
    peers: &'g dyn Peers,
    shares: Shares,
    /// Per process, the notes for it not yet sent (`Note`).
    outbox: Vec<Mutex<Vec<u8>>>,
    /// Split across processes, with checks: per side, the part's positions won by the
    /// levels ended (by every process), which the checks read.
    won: Option<[AtomicBits; 2]>,
}

impl<'g> Exchange<'g> {
    /// The exchange of `part` split across `peers`, keeping every process's wins where
    /// losses are found by `checks`.
    pub(super) fn new(part: &Range<u64>, peers: &'g dyn Peers, checks: bool) -> Exchange<'g> {
        let whole = (part.end - part.start) as usize;
        let split = peers.count() > 1;
        Exchange {
            peers,
            shares: Shares::new(part.clone(), peers.count()),
            outbox: (0..peers.count()).map(|_| Mutex::default()).collect(),
            won: (split && checks).then(|| [0, 1].map(|_| AtomicBits::new(whole))),
        }
    }

    /// The indices of the part this process holds.
    pub(super) fn own(&self) -> Range<u64> {
        self.shares.of(self.peers.rank())
    }
}

/// An un-move's effect on a position that another process may hold (see the module doc).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Note {
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

/// A unit of a note: a tag and a word. A note takes one unit, deferred work two or three
/// (the units after the first tagged `CONTINUED`).
type Unit = (u8, u64);

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
        let mut unit = |tag: u8, word: u64| (tag, word).put(out);
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
        let unit = |k: usize| nth::<Unit>(units, u + k);
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
pub(super) struct Mail(Vec<Vec<u8>>);

/// Positions of a side a process scans between two exchanges of notes, when split: bounds
/// the notes held at once.
const SLICE: usize = 1 << 22;

impl<'g, G: RetroGame> State<'g, G> {
    /// An empty mail for the notes of one task.
    pub(super) fn mail(&self) -> Mail {
        Mail(vec![Vec::new(); self.exchange.peers.count()])
    }

    /// Applies `note` here if this process holds its target, else writes it to `mail`.
    #[inline]
    pub(super) fn route(&self, mail: &mut Mail, note: Note, level: u32) {
        let target = note.target();
        if self.own.contains(&target) {
            self.apply(note, level);
        } else {
            note.encode(&mut mail.0[self.exchange.shares.owner(target)]);
        }
    }

    /// What `note` does to the position it targets, held here, at `level`.
    pub(super) fn apply(&self, note: Note, level: u32) {
        match note {
            Note::Win(side, p) => self.resolve_win(side as usize, p, level),
            Note::Lost(side, p) => self.lost_move(side as usize, p, level),
            Note::WinAt(side, p, at) => self.defer(at, Deferred::Win(side, p)),
            Note::MoveLosesAt(side, i, j, at) => self.defer(at, Deferred::MoveLoses(side, i, j)),
        }
    }

    /// Adds `mail`'s notes to the outbox.
    pub(super) fn post(&self, mail: Mail) {
        for (to, notes) in mail.0.into_iter().enumerate() {
            if !notes.is_empty() {
                lock(&self.exchange.outbox[to]).extend_from_slice(&notes);
            }
        }
    }

    /// Sends the outbox's notes to their processes and applies those the others sent this
    /// one, at `level` (collective).
    pub(super) fn exchange(&self, level: u32) {
        let outgoing = self
            .exchange
            .outbox
            .iter()
            .map(|o| std::mem::take(&mut *lock(o)));
        for received in self.exchange.peers.all_to_all(outgoing.collect()) {
            let units = received.len() / Unit::BYTES;
            (0..units).into_par_iter().step_by(CHUNK).for_each(|first| {
                for u in first..(first + CHUNK).min(units) {
                    if let Some(note) = Note::decode(&received, u) {
                        self.apply(note, level);
                    }
                }
            });
        }
    }

    /// Whether any process found a position at `level`, and the last level a fixed value
    /// reaches in any, both kept here; with checks, each process's wins of the level (when
    /// odd) noted in every one (collective).
    pub(super) fn agree(&self, level: u32) -> bool {
        let mut mine = Vec::new();
        u8::from(self.found.load(Relaxed)).put(&mut mine);
        self.last_static_level.load(Relaxed).put(&mut mine);
        if level % 2 == 1 {
            self.wins_at(level, &mut mine);
        }
        let all = self.exchange.peers.all_gather(mine);
        let mut found = false;
        for (rank, a) in all.iter().enumerate() {
            let mut said = Reader::new(a);
            found |= said.take::<u8>() == 1;
            self.note_static(said.take::<u32>());
            if let (Some(won), Some((&tag, wins))) = (&self.exchange.won, said.rest().split_first())
            {
                let words = each::<u64>(wins);
                match tag {
                    WINS_LISTED => {
                        for w in words {
                            won[(w & 1) as usize].set(((w >> 1) - self.part.start) as usize);
                        }
                    }
                    _ => {
                        // Shares start on whole words of the part's bitmaps.
                        let share = self.exchange.shares.of(rank);
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
    pub(super) fn wins_at(&self, level: u32, mine: &mut Vec<u8>) {
        if self.exchange.won.is_none() {
            return;
        }
        let (start, n) = (self.own.start, (self.own.end - self.own.start) as usize);
        let code = Dtm::from_plies(level).encode();
        let for_each_win = |f: &mut dyn FnMut(usize, usize)| {
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
        for_each_win(&mut |_, _| count += 1);
        if count == 0 {
            return;
        }
        let words = n.div_ceil(64);
        if count < 2 * words {
            WINS_LISTED.put(mine);
            for_each_win(&mut |side, i| ((start + i as u64) << 1 | side as u64).put(mine));
            return;
        }
        WINS_MAPPED.put(mine);
        let mut bits = vec![0u64; 2 * words];
        for_each_win(&mut |side, i| bits[side * words + i / 64] |= 1 << (i % 64));
        put_all(mine, bits);
    }

    /// True when `(side, j)`, an index of the part, is won for its mover by a level before
    /// `level`.
    #[inline]
    pub(super) fn won_by_now(&self, side: usize, j: u64, level: u32) -> bool {
        match &self.exchange.won {
            Some(won) => won[side].get((j - self.part.start) as usize),
            None => self.won_here(side, j, level),
        }
    }

    /// True when `(side, j)`, held here, is won for its mover by a level before `level`.
    #[inline]
    pub(super) fn won_here(&self, side: usize, j: u64, level: u32) -> bool {
        matches!(self.plies_now(side, j), Some(p) if p % 2 == 1 && p < level)
    }

    /// How many slices of `SLICE` positions a side's scan takes, the same in every process:
    /// one alone, whose notes are applied as they are made and never held.
    pub(super) fn slices(&self) -> usize {
        match self.exchange.peers.count() {
            1 => 1,
            _ => (self.exchange.shares.largest() as usize)
                .div_ceil(SLICE)
                .max(1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let decoded: Vec<Note> = (0..units.len() / Unit::BYTES)
            .filter_map(|u| Note::decode(&units, u))
            .collect();
        assert_eq!(decoded, notes);
    }
}
