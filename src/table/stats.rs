//! Table statistics in the counting convention of `docs/design.md`, Values (the one Syzygy
//! publishes): legal positions per side to move, each symmetry class once, identical pieces
//! told apart; win/draw/loss from the side to move's view; and the longest mate over both sides to move.

use crate::index::TableIndex;
use crate::retro::bit;
use crate::side::{BySide, Side};
use crate::value::Dtm;
use rayon::prelude::*;
use serde::Serialize;
use std::ops::Range;

/// Counts for one side to move.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SideStats {
    /// Legal positions (one per symmetry class).
    pub positions: u64,
    /// Won for the side to move.
    pub win: u64,
    /// Drawn.
    pub draw: u64,
    /// Lost for the side to move.
    pub loss: u64,
    /// Wins (counted in `win`) that the 50-move rule draws.
    pub cursed_win: u64,
    /// Losses (counted in `loss`) that the 50-move rule draws: blessed losses.
    pub blessed_loss: u64,
}

impl SideStats {
    fn add(&mut self, o: &SideStats) {
        self.positions += o.positions;
        self.win += o.win;
        self.draw += o.draw;
        self.loss += o.loss;
        self.cursed_win += o.cursed_win;
        self.blessed_loss += o.blessed_loss;
    }
}

/// Statistics of a whole table.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TableStats {
    /// White to move (index 0) and black to move (index 1).
    pub sides: [SideStats; 2],
    /// Longest mate in plies over both sides to move (0 if the table has no mate).
    pub max_plies: u32,
    /// Side to move (0 white, 1 black) of a position reaching `max_plies`.
    pub max_side: u8,
    /// Record number of that position (`TableIndex::record_number`), the lowest of them.
    pub max_index: u64,
}

#[derive(Copy, Clone, Default)]
struct Partial {
    stats: SideStats,
    longest: Option<(u32, u64)>, // (plies, record number): most plies, lowest number on ties
}

impl Partial {
    /// Counts index `idx` of `index`, of weight `w` and value `v`, cursed or blessed if
    /// `spoilt`.
    #[inline]
    fn add(&mut self, w: u64, v: Dtm, spoilt: bool, idx: u64, index: &TableIndex) {
        self.stats.positions += w;
        match v {
            Dtm::Win(_) => {
                self.stats.win += w;
                self.stats.cursed_win += w * u64::from(spoilt);
            }
            Dtm::Draw => self.stats.draw += w,
            Dtm::Loss(_) => {
                self.stats.loss += w;
                self.stats.blessed_loss += w * u64::from(spoilt);
            }
        }
        match v.plies() {
            Some(p) if self.longest.is_none_or(|(most, _)| p >= most) => {
                let record = index.record_number(idx);
                self.longest = better(self.longest, Some((p, record)));
            }
            _ => {}
        }
    }

    fn join(mut self, other: Partial) -> Partial {
        self.stats.add(&other.stats);
        self.longest = better(self.longest, other.longest);
        self
    }
}

/// Indices per unit of parallel work in `compute`.
const STATS_CHUNK: u64 = 1 << 14;

fn better(a: Option<(u32, u64)>, b: Option<(u32, u64)>) -> Option<(u32, u64)> {
    match (a, b) {
        (Some(x), Some(y)) => Some(
            if (y.0, std::cmp::Reverse(y.1)) > (x.0, std::cmp::Reverse(x.1)) {
                y
            } else {
                x
            },
        ),
        (x, None) => x,
        (None, y) => y,
    }
}

/// The value of each index of one side to move.
pub(super) type SideValues<'a> = &'a (dyn Fn(u64) -> Dtm + Sync);

/// How many positions `idx` counts for (0: none, not a legal position).
fn weight(index: &TableIndex, idx: u64, turn: Side) -> u64 {
    match index.decode(idx, turn) {
        Some(pos) if !pos.opponent_in_check() => index.class_weight(idx, &pos),
        _ => 0,
    }
}

/// Counts the statistics of `values` (one per side to move), whose cursed wins and blessed
/// losses are the bits of `cursed` (empty: none). With `illegal` (a solver's bitmaps of the
/// indices that are no legal position), most positions are counted without decoding them;
/// without it, each index is decoded and checked.
pub fn compute(
    index: &TableIndex,
    values: BySide<SideValues>,
    cursed: BySide<&[u64]>,
    illegal: Option<BySide<&[u64]>>,
) -> TableStats {
    let count = |side: Side| {
        count_side(
            index,
            side,
            values[side],
            cursed[side],
            illegal.map(|b| b[side]),
        )
    };
    combine(BySide::new_with(count))
}

/// One side's statistics, and its longest value (plies, record number), counted as `compute` counts
/// them: for a caller that holds one side at a time.
pub fn count_side(
    index: &TableIndex,
    side: Side,
    values: SideValues,
    cursed: &[u64],
    illegal: Option<&[u64]>,
) -> SideCount {
    count_side_of(index, side, 0..index.size(), 0, values, cursed, illegal)
}

/// One side's statistics and longest value, as `count_side`, of the indices `held` alone
/// (a process's share), the bitmaps holding the indices from `first`: the counts of
/// the shares add up (`add_counts`).
pub fn count_side_of(
    index: &TableIndex,
    turn: Side,
    held: Range<u64>,
    first: u64,
    values: SideValues,
    cursed: &[u64],
    illegal: Option<&[u64]>,
) -> SideCount {
    let at = |bits: &[u64], i: u64| bit(bits, i - first);
    // Chunks of indices, each cut into runs of one king pair, whose weight is found
    // once (positions are looked at only where that leaves it open).
    let (start, n) = (held.start, held.end);
    let part = (0..(n - start).div_ceil(STATS_CHUNK))
        .into_par_iter()
        .fold(Partial::default, |mut acc, c| {
            let end = (start + (c + 1) * STATS_CHUNK).min(n);
            let mut idx = start + c * STATS_CHUNK;
            while idx < end {
                let run_end = index.king_pair_run_end(idx).min(end);
                let fast = illegal.and_then(|_| index.weight_without_position(idx));
                for i in idx..run_end {
                    let w = match illegal {
                        Some(bits) if at(bits, i) => 0,
                        _ => fast.unwrap_or_else(|| weight(index, i, turn)),
                    };
                    if w > 0 {
                        acc.add(w, values(i), at(cursed, i), i, index);
                    }
                }
                idx = run_end;
            }
            acc
        })
        .reduce(Partial::default, Partial::join);
    (part.stats, part.longest)
}

/// One side's counts (`count_side`): its statistics, and its longest value (plies, record
/// number).
pub type SideCount = (SideStats, Option<(u32, u64)>);

/// The counts of two sets of indices together.
pub fn add_counts(a: SideCount, b: SideCount) -> SideCount {
    let mut stats = a.0;
    stats.add(&b.0);
    (stats, better(a.1, b.1))
}

/// The table's statistics from its two sides' (`count_side`, side 0 first).
pub fn combine(sides: BySide<SideCount>) -> TableStats {
    let mut out = TableStats::default();
    let mut best: Option<(u32, u8, u64)> = None;
    for (side, (stats, longest)) in sides {
        out.sides[side.index()] = stats;
        if let Some((p, i)) = longest {
            if best.is_none_or(|(bp, _, _)| p > bp) {
                best = Some((p, side.index() as u8, i));
            }
        }
    }
    if let Some((p, s, i)) = best {
        out.max_plies = p;
        out.max_side = s;
        out.max_index = i;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;
    use crate::retro::AllDrawn;
    use crate::retro::{solve, ChessGame};

    /// Counting from the solver's bitmaps of illegal indices gives what decoding every
    /// index gives: identical pieces, kings on the diagonal, pawns.
    #[test]
    fn counts_from_bitmaps_equal_counts_from_positions() {
        for sig in ["KRRvK", "KBvKN", "KPvKP", "KNNvK"] {
            let index = TableIndex::new(sig.parse().unwrap());
            let game = ChessGame::new(index.clone(), &AllDrawn);
            let s = &solve(&game, &Silent);
            let value = |side: Side| move |idx: u64| s.value(side, idx).0;
            let (white, black) = (value(Side::White), value(Side::Black));
            let values: BySide<SideValues> = BySide::from([&white as SideValues, &black]);
            let none: BySide<&[u64]> = BySide::from([&[][..], &[]]);
            let decoded = compute(&index, values, none, None);
            let bitmaps = BySide::from([&s.illegal.white[..], &s.illegal.black[..]]);
            assert_eq!(
                compute(&index, values, none, Some(bitmaps)),
                decoded,
                "{sig}"
            );
            assert!(decoded.sides[0].positions > 0, "{sig}");
            // Writers read an illegal index's value as a draw, without the bitmap.
            for (side, values) in s.values.iter() {
                for (idx, &code) in values.iter().enumerate() {
                    if s.is_illegal(side, idx as u64) {
                        assert_eq!(code, 0, "{sig} side {side:?} index {idx}");
                    }
                }
            }
        }
    }
}
