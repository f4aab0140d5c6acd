//! Solving a game part by part (`RetroGame::parts`), each part split across processes.
//!
//! Parts (`RetroGame::parts`): a game whose moves between ranges of indices all lead to an
//! earlier range (chess: pawn moves) is solved one range after another. A move into an
//! earlier part has the value found there, fixed like a move that leaves the graph, and the
//! un-moves out of the part are left to the later parts that hold them, so the working
//! state is held for one part at a time.

use super::game::{LossSearch, RetroGame};
use super::packed::{Packed, PackedSide};
use super::solution::{or_bits_at, Solution};
use super::state::{Earlier, State};
use crate::peers::{each, put_all, put_block, Alone, Owners, Peers, Reader, Shares, Wire};
use crate::progress::Observer;
use crate::side::{BySide, Side};
use crate::value::LongDistances;
use crate::zeroed::release_pages;
use std::ops::Range;
use std::sync::Arc;

/// A game solved one part (`RetroGame::parts`) at a time, so that its caller can act
/// between parts: class the part's positions under another rule while its values are at
/// hand, let go of what the parts left no longer read (a chess table's promotions are
/// played only from the first parts). Each part may be solved with a different instance
/// of the game, as long as they number and move alike.
pub(crate) struct PartByPart {
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
    long: BySide<Vec<(u64, u32)>>,
    /// Of a game of several parts, per side, the first index and bitmaps (illegal, exit
    /// decides, exit same class) of each part's share this process holds (the whole part
    /// alone), held compressed: no part reads another's, and only the writer needs them,
    /// at the indices each process keeps.
    marks: BySide<Vec<(u64, [Packed; 3])>>,
    /// Per side, the values of the parts that no part left to solve reads, held
    /// compressed, their pages given back (`let_go_unread`).
    unread: BySide<Vec<(Range<usize>, Packed)>>,
    /// Which parts are in `unread`.
    pub(super) let_go: Vec<bool>,
    /// The processes each part is split across.
    peers: Arc<dyn Peers>,
}

impl PartByPart {
    /// Ready to solve the parts of `game` up to `max_plies`, finding losses by `search`.
    pub(crate) fn new<G: RetroGame>(game: &G, max_plies: u32, search: LossSearch) -> PartByPart {
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
    pub(crate) fn split_across(self, peers: Arc<dyn Peers>) -> PartByPart {
        PartByPart { peers, ..self }
    }

    /// The processes each part is split across.
    #[cfg(test)]
    pub(crate) fn peers(&self) -> Arc<dyn Peers> {
        self.peers.clone()
    }

    /// How many parts there are.
    pub(crate) fn count(&self) -> usize {
        self.parts.len()
    }

    /// How many parts are solved.
    pub(crate) fn solved(&self) -> usize {
        self.solved
    }

    /// The parts, in solving order.
    pub(crate) fn parts(&self) -> &[Range<u64>] {
        &self.parts
    }

    /// Solves the next part with `game` (after the parts before it) and returns its
    /// number.
    pub(crate) fn solve_next<G: RetroGame>(&mut self, game: &G, observer: &dyn Observer) -> usize {
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
                BySide::new_with(|_| vec![0; n as usize]),
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
            illegal: BySide {
                white: i0,
                black: i1,
            },
            exit_decides:
                BySide {
                    white: d0,
                    black: d1,
                },
            exit_same_wdl:
                BySide {
                    white: s0,
                    black: s1,
                },
            long: local_long,
            longest_exit,
            ..
        } = local;
        // The bitmaps of this process's share: only the writer reads them, and it reads
        // each process's own indices there.
        self.marks
            .white
            .push((first, [i0, d0, s0].map(Packed::pack_words)));
        self.marks
            .black
            .push((first, [i1, d1, s1].map(Packed::pack_words)));
        // The values of the whole part: the parts to come read them.
        let BySide { white, black } = &mut out.values;
        let whole = BySide::from([&mut white[at.clone()], &mut black[at]]);
        let (local_long, longest_exit) = match peers.count() {
            1 => {
                for (side, w) in whole {
                    w.copy_from_slice(&values[side]);
                }
                (local_long.map(|l| l.entries().to_vec()), longest_exit)
            }
            _ => gather_values(peers, values, &local_long, longest_exit, whole),
        };
        for (side, long) in self.long.iter_mut() {
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
    pub(crate) fn solution_mut(&mut self) -> &mut Solution {
        self.out.as_mut().expect("a part is solved")
    }

    /// The solution of the parts solved so far (the others' values are 0); of a game of
    /// several parts, its values and long distances only, until `into_solution`; of a game
    /// of one part split across processes, this process's share (`held`).
    pub(crate) fn solution(&self) -> &Solution {
        self.out.as_ref().expect("a part is solved")
    }

    /// True when each process holds its share of the solution, not the whole: a game of
    /// one part split across processes (no later part reads its values).
    pub(crate) fn holds_share(&self) -> bool {
        self.parts.len() == 1 && self.peers.count() > 1
    }

    /// Packs the values of the solved parts that no part left to solve reads, `last_readers`
    /// naming for each part the last that does (`TableIndex::last_readers`), and gives
    /// their pages back: a pawn table's later parts read only the parts one and two pawn
    /// steps ahead. Nothing happens once every part is solved.
    pub(crate) fn let_go_unread(&mut self, last_readers: &[usize]) {
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
            for (side, unread) in self.unread.iter_mut() {
                let values = &mut out.values[side][at.clone()];
                unread.push((at.clone(), Packed::take_from(values)));
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
    pub(crate) fn held(&self) -> Range<u64> {
        let n = self.parts.last().map_or(0, |p| p.end);
        match self.holds_share() {
            true => Shares::new(0..n, self.peers.count()).of(self.peers.rank()),
            false => 0..n,
        }
    }

    /// The indices this process keeps of the solution once every part is solved, a
    /// range per part: its share of each (`peers::Owners`), every index alone. The
    /// writer reads these alone, the values of the others' shares given back.
    pub(crate) fn owned(&self) -> Vec<Range<u64>> {
        Owners::new(&self.parts, self.peers.count()).of(self.peers.rank())
    }

    /// Packs side `side`'s values of the solved parts still held and gives their pages
    /// back.
    fn pack_held(&mut self, side: Side) -> Vec<(Range<usize>, Packed)> {
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
    /// joined (split across processes: at the indices this process keeps).
    fn make_whole(&mut self, out: &mut Solution, side: Side) {
        self.values_whole(out, side);
        if self.marks[side].is_empty() {
            return;
        }
        let words = out.values[side].len().div_ceil(64);
        let [illegal, decides, same] = self.take_marks(side).map(|m| joined(words, m));
        out.illegal[side] = illegal;
        out.exit_decides[side] = decides;
        out.exit_same_wdl[side] = same;
    }

    /// Puts side `side`'s values let go back into `out`.
    fn values_whole(&mut self, out: &mut Solution, side: Side) {
        for (at, packed) in self.unread[side].drain(..) {
            packed.unpack_into(&mut out.values[side][at]);
        }
    }

    /// Side `side`'s bitmaps of each part, by kind: illegal, exit decides, exit same
    /// class, each with the first index of its part's share.
    fn take_marks(&mut self, side: Side) -> [Vec<(u64, Packed)>; 3] {
        let mut kinds: [Vec<(u64, Packed)>; 3] = Default::default();
        for (first, packed) in self.marks[side].drain(..) {
            for (kind, p) in kinds.iter_mut().zip(packed) {
                kind.push((first, p));
            }
        }
        kinds
    }

    /// The solution, every part solved (split across processes: at the indices this
    /// process keeps, `owned`).
    pub(crate) fn into_solution(mut self) -> Solution {
        assert_eq!(self.solved, self.parts.len(), "every part is solved");
        if self.parts.len() > 1 {
            self.release_held_others();
        }
        let mut out = self.out.take().expect("a part is solved");
        for side in Side::ALL {
            self.make_whole(&mut out, side);
        }
        out
    }

    /// The solution, every part solved, a side at a time, side 1 first: its values and
    /// illegal bits made whole and given to `count` (to count them and add what else it
    /// holds), then its values and exit decides bits given to `trial`, then the side
    /// packed. Its other bitmaps are packed whenever not read. Returns the solution, both
    /// sides let go, and the sides packed: a pawn table's side whole with every bitmap,
    /// beside its DTZ distances held packed, was the most its build held.
    pub(crate) fn into_sides(
        mut self,
        mut count: impl FnMut(&mut Solution, Side),
        mut trial: impl FnMut(&mut Solution, Side),
    ) -> (Solution, BySide<PackedSide>) {
        assert_eq!(self.solved, self.parts.len(), "every part is solved");
        self.release_held_others();
        // Side 0's parts still held go packed too while side 1 is made whole.
        let held = self.pack_held(Side::White);
        self.unread.white.extend(held);
        let mut out = self.out.take().expect("a part is solved");
        let mut pack = |side: Side| {
            let words = out.values[side].len().div_ceil(64);
            let [illegal, decides, same] = self.take_marks(side);
            let same = Packed::pack_words(joined(words, same));
            self.values_whole(&mut out, side);
            out.illegal[side] = joined(words, illegal);
            count(&mut out, side);
            let illegal = Packed::pack_words(std::mem::take(&mut out.illegal[side]));
            out.exit_decides[side] = joined(words, decides);
            trial(&mut out, side);
            PackedSide::take_with(&mut out, side, [illegal, same])
        };
        let black = pack(Side::Black);
        let white = pack(Side::White);
        (out, BySide { white, black })
    }
}

/// A bitmap of `words` words from the packed bitmaps of parts, each at its first index
/// (zeroed by the allocator: `or_bits_at` writes only the words with bits set), letting
/// each part's go once joined.
fn joined(words: usize, parts: Vec<(u64, Packed)>) -> Vec<u64> {
    let mut whole = crate::zeroed::zeroed(words);
    for (start, packed) in parts {
        or_bits_at(&mut whole, start, &packed.unpack_words());
    }
    whole
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
    for (_, values) in out.values.iter_mut() {
        release_pages(&mut values[part.start as usize..own.start]);
        release_pages(&mut values[own.end..part.end as usize]);
    }
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
    mine: BySide<Vec<u8>>,
    long: &BySide<LongDistances>,
    longest_exit: u32,
    whole: BySide<&mut [u8]>,
) -> (BySide<Vec<(u64, u32)>>, u32) {
    let mut bytes = Vec::with_capacity(2 * mine.white.len() + 64);
    for side in Side::ALL {
        put_block(&mut bytes, &mine[side]);
        let long = long[side].entries();
        (long.len() as u64).put(&mut bytes);
        put_all(&mut bytes, long.iter().copied());
    }
    longest_exit.put(&mut bytes);
    drop(mine);
    let mut long: BySide<Vec<(u64, u32)>> = Default::default();
    let mut whole = whole.into_array();
    let mut longest = 0;
    let mut at = 0;
    // A share at a time: the part whole once, and one share beside it.
    let mut bytes = Some(bytes);
    for root in 0..peers.count() {
        let mine = (root == peers.rank()).then(|| bytes.take()).flatten();
        let share = peers.broadcast(root, mine.unwrap_or_default());
        let mut said = Reader::new(&share);
        let mut len = 0;
        for ((_, long), whole) in long.iter_mut().zip(&mut whole) {
            let values = said.block();
            len = values.len();
            whole[at..at + len].copy_from_slice(values);
            let entries = said.take::<u64>() as usize;
            long.extend(each::<(u64, u32)>(
                said.bytes(entries * <(u64, u32)>::BYTES),
            ));
        }
        longest = longest.max(said.take::<u32>());
        at += len;
    }
    (long, longest)
}
