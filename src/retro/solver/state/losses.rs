//! Finding losses.
//!
//! Losses are found one of two ways (`LossSearch`). With counters, each predecessor of a
//! win in n-1 has one more move known to lose, counted down in a per-position counter of its
//! moves inside the graph, and loses in n when that counter reaches zero. With checks, the
//! predecessors are marked (a bit), and once the level has marked them all, each is checked
//! forward: it loses in n when every move inside the graph leads to a win found by now
//! (`RetroGame::moves_inside`, which stops at the first move that holds out). A check at
//! level n is exact whenever it runs: every win of n-1 plies or fewer is found before the
//! level starts, and no win is found during an even level. Checks keep a bit per position
//! instead of a byte and take more time (`docs/measurements.md` has the figures).

use super::*;

impl<'g, G: RetroGame> State<'g, G> {
    /// A move of `idx` became a loss for it at `level`: with counters, one more move is
    /// known to lose, and at zero the position loses now unless a fixed move holds out
    /// longer; with checks, the position is marked to be checked at the end of the level.
    #[inline]
    pub(super) fn lost_move(&self, side: usize, idx: u64, level: u32) {
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
    pub(super) fn touch(&self, side: usize, idx: u64) {
        let at = self.at(idx);
        if self.values[side][at].load(Relaxed) != 0 || self.changed[side].get(at) {
            return;
        }
        if matches!(self.class[side].get(at), NO_FIXED | FIXED_LOSS) {
            self.changed[side].set(at);
        }
    }

    /// Checks every position marked at this level (`touch`), `level` being even.
    pub(super) fn check_marked(&self, level: u32) {
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
    pub(super) fn check(&self, side: usize, idx: u64, level: u32) {
        if self.values[side][self.at(idx)].load(Relaxed) != 0 {
            return;
        }
        let (first, other) = (self.part.start, 1 - side);
        // A move loses when the opponent has won there by the previous level, or may take
        // an extra option that wins by then.
        let all_lose = self
            .game
            .moves_inside(Side::from_index(side), idx, &mut |j, alt| {
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
    pub(super) fn resolve_loss(&self, side: usize, idx: u64, level: u32) {
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
}
