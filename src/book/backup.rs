//! Backing values up through the book graph (`book backup`): the value of every position the
//! book reaches from the start position, by negamax over the book's moves with repetitions
//! scored as draws, stored in the book's entries with a path-dependence mark.
//!
//! The graph: one node per position with its own entry (move 0) in the book, transpositions
//! merged (one node per Polyglot key), found by walking forward from the start position; an
//! edge per move entry that decodes to a legal move. A move to a position without its own
//! entry ends in a leaf scored by the move entry's statistics; a position without moves is a
//! leaf scored by its own entry's statistics. A leaf's score is (wins + draws / 2) / games
//! for the side to move, in per-mille (0..=1000, rounded to nearest; 500 without games).
//! Internal nodes take the best of their moves for the side to move (negamax; internally
//! white maximises the score for white), and a move that reaches a position already on the
//! path scores a draw (500); in a xiangqi book it scores as the Asian rules' loop judge rules
//! the loop it closes ([`crate::xiangqi::Loop`]: a loss for the side that checks or chases
//! perpetually, else a draw). The graph is solved by the repetition-aware solver of
//! [`crate::ghi`], whose marks say when some path in the book graph reaching a position,
//! taken as history, changes its value. The mark is conservative for games from the start
//! position: the path that changes the value need not begin there.
//!
//! With `min_games` above 1, only moves played in at least that many games are edges (the
//! others get no value), so that the values rest on moves with a sample behind them rather
//! than on single games.
//!
//! Positions the walk does not reach (from games that began at a FEN) get no value. The book
//! is rewritten through a temporary file and renamed over the old one, so a failure leaves
//! the old book as it was.
//!
//! Not here: choosing moves by the values (probing reads them back), or any statistics of
//! its own (the values come from the book's counts).

use super::error::BookError;
use super::format::{Backup, Entry};
use super::graph::{walk, xiangqi_position, BookGraph, NO_EDGE};
use super::reader::Book;
use super::rules::{BookRules, Chess, Xiangqi};
use super::writer::BookWriter;
use crate::game::Game;
use crate::ghi::{solve_with, ByLoop, ByMover, Kind, Moves};
use crate::progress::Observer;
use crate::side::Side;
use crate::xiangqi::{self, Loop, Ruling};
use std::path::Path;
use std::time::Instant;

/// The draw score, also the score of a repetition, in per-mille.
const DRAW: u16 = 500;
/// Per-mille of a win.
const WIN: u16 = 1000;

/// What a back-up found and wrote.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BackupSummary {
    /// Positions of the book reached from the start position (each valued).
    pub positions: u64,
    /// Positions with their own entry that the walk did not reach (left without value).
    pub unreached: u64,
    /// Moves of the reached positions that became edges (to a position, or to a leaf).
    pub edges: u64,
    /// Of those, moves to a position without its own entry (leaves scored by the move).
    pub leaf_moves: u64,
    /// Strongly connected components of the graph with a cycle.
    pub cyclic_components: u64,
    /// Positions of the largest of them (0 without cycles).
    pub largest_component: u64,
    /// Reached positions whose value depends on the path.
    pub path_dependent: u64,
    /// Entries given a value.
    pub entries_valued: u64,
    /// The start position's value for the first player (white, or Red in xiangqi), in
    /// per-mille, if the book has it.
    pub start_value: Option<u16>,
    /// Size of the rewritten book in bytes.
    pub bytes: u64,
    /// Wall time of the whole back-up.
    pub seconds: f64,
}

/// (wins + draws / 2) / games for the entry's side to move, in per-mille, rounded to
/// nearest; a draw without games.
pub fn score_permille(e: &Entry) -> u16 {
    if e.games == 0 {
        return DRAW;
    }
    let (points, games) = (
        2 * u64::from(e.win) + u64::from(e.draw),
        2 * u64::from(e.games),
    );
    ((points * u64::from(WIN) + games / 2) / games).min(u64::from(WIN)) as u16
}

/// A score for `side` from a score for white.
fn for_side(white_score: u16, side: bool) -> u16 {
    if side {
        white_score
    } else {
        WIN - white_score
    }
}

/// The value for Red of a repetition in a xiangqi book: the loop of positions `cycle` (in
/// order, the last one's move going back to the first) as the Asian rules' judge rules it.
fn judged(book: &Book, g: &BookGraph, cycle: &[u32]) -> u16 {
    let mut pos = xiangqi_position(book, g, cycle[0] as usize);
    let first = pos.turn();
    let coloured = (0..cycle.len())
        .map(|j| {
            let (p, c) = (cycle[j] as usize, cycle[(j + 1) % cycle.len()] as usize);
            let code = book.entry(g.move_to(p, c, book.len())).mv;
            let m = Xiangqi::decode(&pos, code).expect("the walk played it");
            let colour = xiangqi::colour(&pos, m);
            pos = pos.play(&m);
            (m, colour)
        })
        .collect();
    match Loop::of_coloured(first, coloured).ruling() {
        Ruling::Draw => DRAW,
        Ruling::Loses {
            side: Side::White, ..
        } => 0,
        Ruling::Loses { .. } => WIN,
    }
}

/// Backs up values through the book at `path`, following moves played in at least
/// `min_games` games, and rewrites it with them (see the module documentation). Errors name
/// the file.
pub fn backup(
    path: &Path,
    min_games: u32,
    progress: &dyn Observer,
) -> Result<BackupSummary, BookError> {
    let clock = Instant::now();
    let book = Book::open(path)?;
    let g = match book.info().game {
        Game::Chess => walk::<Chess>(&book, min_games, progress, &mut |_, _, _| {})?,
        Game::Xiangqi => walk::<Xiangqi>(&book, min_games, progress, &mut |_, _, _| {})?,
    };
    let positions = g.first.len();
    let nodes = positions + g.leaves as usize;

    // The game graph for the solver: scores for white; white maximises.
    progress.pass("solve", 1);
    let mut kinds: Vec<Kind<u16>> = Vec::with_capacity(nodes);
    let edges = g.child.iter().filter(|&&c| c != NO_EDGE).count();
    let mut moves = Moves::with_capacity(nodes, edges);
    let mut leaf_scores: Vec<u16> = Vec::with_capacity(g.leaves as usize);
    let mut summary = BackupSummary::default();
    for p in 0..positions {
        let start = g.first[p] as usize;
        let end = g.first.get(p + 1).map_or(book.len(), |&f| f as usize);
        let own = book.entry(start);
        if !g.reached[p] {
            summary.unreached += 1;
            kinds.push(Kind::Terminal(DRAW)); // never read
            moves.push([]);
            continue;
        }
        summary.positions += 1;
        // The moves of p lie before the next position's own entry (entries of keys without
        // an own entry in between are never edges).
        let targets = (start + 1..end).filter_map(|i| {
            let c = g.child[i];
            (c != NO_EDGE).then_some(c as usize)
        });
        moves.push(targets);
        let edges = moves.of(p).len();
        summary.edges += edges as u64;
        for i in start + 1..end {
            if g.child[i] != NO_EDGE && g.child[i] as usize >= positions {
                leaf_scores.push(for_side(score_permille(&book.entry(i)), g.white[p]));
            }
        }
        kinds.push(match (edges, g.white[p]) {
            (0, side) => Kind::Terminal(for_side(score_permille(&own), side)),
            (_, true) => Kind::Max,
            (_, false) => Kind::Min,
        });
    }
    summary.leaf_moves = leaf_scores.len() as u64;
    for s in leaf_scores {
        kinds.push(Kind::Terminal(s));
        moves.push([]);
    }
    let solved = match book.info().game {
        Game::Chess => solve_with(&kinds, &moves, ByMover(|_| DRAW)),
        Game::Xiangqi => solve_with(
            &kinds,
            &moves,
            ByLoop(|cycle: &[u32]| judged(&book, &g, cycle)),
        ),
    };
    drop((kinds, moves));
    progress.advance(1);
    summary.cyclic_components = solved.cyclic_components as u64;
    summary.largest_component = solved.largest_component as u64;
    summary.path_dependent = (0..positions)
        .filter(|&p| g.reached[p] && solved.path_dependent[p])
        .count() as u64;

    // Rewrite: every entry of a reached position gets the value of where it leads, for the
    // position's side to move.
    progress.pass("write", book.len() as u64);
    let fail = |e| BookError::write(path, e);
    let mut writer = BookWriter::create(path).map_err(fail)?;
    writer.set_sources(book.sources().map(<[_]>::to_vec).unwrap_or_default());
    let written = (|| -> std::io::Result<u64> {
        let mut valued = 0;
        // The last position whose own entry came (number and key), and the next one's number.
        let (mut current, mut next): (Option<(usize, u64)>, usize) = (None, 0);
        for (i, e) in book.iter().enumerate() {
            if next < positions && g.first[next] as usize == i {
                current = Some((next, e.key));
                next += 1;
            }
            let backup = match current {
                Some((p, key)) if key == e.key && g.reached[p] => {
                    let target = match e.mv {
                        0 => Some(p),
                        _ => Some(g.child[i])
                            .filter(|&c| c != NO_EDGE)
                            .map(|c| c as usize),
                    };
                    target.map(|t| Backup {
                        value_permille: for_side(solved.values[t], g.white[p]),
                        path_dependent: solved.path_dependent[t],
                    })
                }
                _ => None,
            };
            valued += u64::from(backup.is_some());
            writer.push(&Entry { backup, ..e })?;
            if i % 65536 == 65535 {
                progress.advance(65536);
            }
        }
        Ok(valued)
    })();
    let valued = match written {
        Ok(v) => v,
        // The writer, dropped unfinished, removes its temporary.
        Err(e) => return Err(fail(e)),
    };
    writer.mark_backed_up();
    summary.bytes = writer.finish(book.info()).map_err(fail)?;
    summary.entries_valued = valued;
    summary.start_value = g.start.map(|p| solved.values[p]);
    summary.seconds = clock.elapsed().as_secs_f64();
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_round_to_the_nearest_per_mille() {
        let e = |win, draw, loss| Entry {
            games: win + draw + loss,
            win,
            draw,
            loss,
            ..Entry::default()
        };
        assert_eq!(score_permille(&e(1, 0, 0)), 1000);
        assert_eq!(score_permille(&e(0, 1, 0)), 500);
        assert_eq!(score_permille(&e(0, 0, 1)), 0);
        assert_eq!(score_permille(&e(1, 0, 2)), 333);
        assert_eq!(score_permille(&e(2, 0, 1)), 667);
        assert_eq!(score_permille(&e(0, 1, 2)), 167);
        assert_eq!(score_permille(&e(1, 1, 14)), 94); // 93.75 rounds up
        assert_eq!(score_permille(&e(0, 0, 0)), 500);
        let big = u32::MAX / 3;
        assert_eq!(score_permille(&e(big, big, big)), 500);
    }
}
