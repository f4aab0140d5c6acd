//! Book answers for a position: its moves with statistics, best first by a goodness that
//! accounts for the sample size (the Wilson lower bound of the score).

use super::format::{Backup, Entry};
use super::reader::Book;
use super::rules::{BookRules, Chess};
use crate::chess::{Move, Position};

/// One book move of a position (a chess move unless another game's is named).
#[derive(Clone, Debug, PartialEq)]
pub struct BookMove<M = Move> {
    /// The move (legal in the position probed).
    pub mv: M,
    /// Its counts (side to move's view), repetitions, and back-up value (for the side that
    /// plays the move) with its path-dependence mark.
    pub entry: Entry,
}

impl<M> BookMove<M> {
    /// Score (wins + draws / 2) / games.
    pub fn score(&self) -> f64 {
        let e = &self.entry;
        (e.win as f64 + e.draw as f64 / 2.0) / (e.games.max(1) as f64)
    }

    /// Lower bound of the 95% Wilson interval of the score: a move scored on few games ranks
    /// below one with the same score on many.
    pub fn goodness(&self) -> f64 {
        let n = self.entry.games as f64;
        if n == 0.0 {
            return 0.0;
        }
        let (p, z) = (self.score(), 1.96f64);
        let z2 = z * z;
        (p + z2 / (2.0 * n) - z * ((p * (1.0 - p) + z2 / (4.0 * n)) / n).sqrt()) / (1.0 + z2 / n)
    }
}

/// What the book knows of a position.
#[derive(Clone, Debug, PartialEq)]
pub struct BookAnswer<M = Move> {
    /// Key of the position (Polyglot's for chess).
    pub key: u64,
    /// Games that reached the position (0 if unknown).
    pub games: u32,
    /// Of those, games that ended by threefold repetition.
    pub threefold: u32,
    /// The position's back-up value (for the side to move) and path-dependence mark, if the
    /// book has been backed up.
    pub backup: Option<Backup>,
    /// Moves, best first.
    pub moves: Vec<BookMove<M>>,
}

impl Book {
    /// The moves the (chess) book knows for `pos`, best first (by goodness, then games).
    pub fn probe(&self, pos: &Position) -> BookAnswer {
        self.probe_by::<Chess>(pos)
    }

    /// The moves the book knows for `pos` by the rules `R`, best first (by goodness, then
    /// games). The caller checks that the book is of `R`'s game (`info().game`).
    pub fn probe_by<R: BookRules>(&self, pos: &R::Position) -> BookAnswer<R::Move> {
        let key = R::key(pos);
        let (mut games, mut threefold, mut backup) = (0, 0, None);
        let mut moves = Vec::new();
        for e in self.entries(key) {
            if e.mv == 0 {
                (games, threefold, backup) = (e.games, e.repeats, e.backup);
            } else if let Some(mv) = R::decode(pos, e.mv) {
                moves.push(BookMove { mv, entry: e });
            }
        }
        moves.sort_by(|a, b| {
            b.goodness()
                .total_cmp(&a.goodness())
                .then(b.entry.games.cmp(&a.entry.games))
        });
        BookAnswer {
            key,
            games,
            threefold,
            backup,
            moves,
        }
    }
}
