//! The referee of Chinese chess games (`retrobook judge`): every repetition in the games of
//! an archive, ruled by the Asian rules' loop judge ([`xiangqi::Loop`]).
//!
//! A repetition is a run of positions each of which stood on the board before, since the
//! last capture or soldier's step forward. Its loop is the play from the first of them
//! back to it, the shortest loop there is at that moment; the run may go round it, or round
//! others, many times, and is reported once, by its first loop.

use crate::book::pgn::{PgnReader, Skipped};
use crate::book::rules::{replay_from, BookRules, Xiangqi};
use crate::book::{open_archive, Tally};
use crate::game::Game;
use crate::side::Side;
use crate::xiangqi::{
    Colour, Loop, LoopError, Move, Position, Role, Rule, Ruling, Square, Squares,
};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One repetition of a game and the judge's ruling on its first loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repetition {
    /// The ply of the loop's first position (0: the game's start).
    pub start_ply: usize,
    /// That position.
    pub start: Position,
    /// The moves of the loop, from that position back to it.
    pub moves: Vec<Move>,
    /// The ply of the last position of the run that repeats an earlier one.
    pub last_ply: usize,
    /// The ruling on the loop.
    pub ruling: Ruling,
    /// Where the ruling is a perpetual chase: the pieces the side that must change chases
    /// at every move, by their squares at the loop's first position.
    pub hunted: Vec<(Square, Role)>,
    /// Each move's colour where it is played: check, idle, or the pieces it chases (their
    /// squares then, with their kinds), what the ruling rests on.
    pub colours: Vec<Coloured>,
}

/// A move's colour as the referee reports it: the chased pieces named by square and kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Coloured {
    /// Neither checks nor chases.
    Idle,
    /// Gives check.
    Check,
    /// Chases these pieces (squares in the position before the move).
    Chase(Vec<(Square, Role)>),
}

impl Repetition {
    /// The number of the move the loop starts with, counted as PGN counts (a move of each
    /// side per number, from 1, Red's first).
    pub fn move_number(&self) -> usize {
        // Black began the game where it is to move after an even number of plies.
        let black_began = (self.start.turn() == Side::Black) == (self.start_ply % 2 == 0);
        (self.start_ply + usize::from(black_began)) / 2 + 1
    }
}

/// The ruling on the loop of `moves` played from `start`, with what it rests on (each
/// move's colour, the pieces hunted), as a repetition that begins the game (plies from 0);
/// a loop the judge cannot rule on (a move not legal, moves that do not come back) is an
/// error that says so.
pub fn judge_loop(start: &Position, moves: &[Move]) -> Result<Repetition, LoopError> {
    let judged = Loop::new(start, moves)?;
    let ruling = judged.ruling();
    let hunted = match ruling {
        Ruling::Loses {
            side,
            rule: Rule::PerpetualChase,
        } => judged.hunted(side),
        _ => Squares::EMPTY,
    };
    let named = |at: &Position, squares: Squares| {
        (squares.iter())
            .filter_map(|sq| at.at(sq).map(|p| (sq, p.role)))
            .collect()
    };
    let mut at = start.clone();
    let colours = (judged.colours().zip(moves))
        .map(|(c, m)| {
            let coloured = match c {
                Colour::Idle => Coloured::Idle,
                Colour::Check => Coloured::Check,
                Colour::Chase(chased) => Coloured::Chase(named(&at, chased)),
            };
            at = at.play(m);
            coloured
        })
        .collect();
    Ok(Repetition {
        start_ply: 0,
        start: start.clone(),
        moves: moves.to_vec(),
        last_ply: moves.len(),
        ruling,
        hunted: named(start, hunted),
        colours,
    })
}

/// The repetitions of the game of `moves` from `start` (legal moves, in order).
pub fn repetitions(start: &Position, moves: &[Move]) -> Vec<Repetition> {
    let mut positions = vec![start.clone()];
    for m in moves {
        let next = positions.last().expect("a position").play(m);
        positions.push(next);
    }
    // The ply of the last capture or soldier's step forward: nothing before it comes back.
    let mut since = 0;
    let mut out: Vec<Repetition> = Vec::new();
    let mut in_run = false;
    for ply in 1..positions.len() {
        let (before, m) = (&positions[ply - 1], &moves[ply - 1]);
        if Xiangqi::irreversible(before, m) {
            since = ply;
        }
        let earlier = (since..ply).rev().find(|&i| positions[i] == positions[ply]);
        match (earlier, in_run) {
            (Some(_), true) => out.last_mut().expect("a run").last_ply = ply,
            (Some(i), false) => {
                let mut found = judge_loop(&positions[i], &moves[i..ply]).expect("a game's loop");
                (found.start_ply, found.last_ply) = (i, ply);
                out.push(found);
            }
            (None, _) => {}
        }
        in_run = earlier.is_some();
    }
    out
}

/// A game of an archive with repetitions.
#[derive(Clone, Debug)]
pub struct JudgedGame {
    /// Its place in the archive, from 1.
    pub game: u64,
    /// The line of the archive where it starts.
    pub line: u64,
    /// Its `Red` and `Black` tags, and its result as recorded (`RawGame::recorded_result`).
    pub red: Option<String>,
    /// See `red`.
    pub black: Option<String>,
    /// See `red`.
    pub result: Option<String>,
    /// Its repetitions, in order.
    pub repetitions: Vec<Repetition>,
}

/// What the referee read of an archive.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Games read.
    pub games: u64,
    /// Games that could not be replayed (another game, a bad FEN or move).
    pub skipped: u64,
    /// The first game skipped, and why.
    pub first_skipped: Option<Skipped>,
}

/// What stops the referee.
#[derive(Debug, thiserror::Error)]
pub enum RefereeError {
    /// The archive cannot be read.
    #[error("{}: {source}", path.display())]
    Read {
        /// The archive.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Reads the Chinese chess games of the PGN archive `path` (plain, `.zst`, or `-` for
/// stdin; UTF-8 or Big5) and calls `each` with every game that has a repetition.
pub fn judge_archive(
    path: &Path,
    mut each: impl FnMut(&JudgedGame),
) -> Result<Summary, RefereeError> {
    let fail = |source| RefereeError::Read {
        path: path.to_path_buf(),
        source,
    };
    let input = open_archive(path, Arc::new(Tally::default()), Game::Xiangqi).map_err(fail)?;
    let mut reader = PgnReader::new(std::io::BufReader::new(input));
    let mut summary = Summary::default();
    while let Some(raw) = reader.next_game().map_err(fail)? {
        if !raw.looks_like_a_game() {
            continue;
        }
        summary.games += 1;
        let mut moves = Vec::new();
        let replayed = Xiangqi::setup(raw).and_then(|start| {
            replay_from::<Xiangqi>(raw, start.clone(), |_, m, _| moves.push(*m))?;
            Ok(start)
        });
        let start = match replayed {
            Ok(start) => start,
            Err(why) => {
                summary.skipped += 1;
                summary.first_skipped.get_or_insert(why);
                continue;
            }
        };
        let found = repetitions(&start, &moves);
        if found.is_empty() {
            continue;
        }
        each(&JudgedGame {
            game: summary.games,
            line: raw.line,
            red: raw.tag("Red").map(String::from),
            black: raw.tag("Black").map(String::from),
            result: raw.recorded_result().map(String::from),
            repetitions: found,
        });
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(pos: &Position, text: &str) -> Vec<Move> {
        let mut at = pos.clone();
        text.split(' ')
            .map(|t| {
                let m: Move = t.parse().unwrap();
                assert!(at.legal_moves().contains(&m), "{t}");
                at = at.play(&m);
                m
            })
            .collect()
    }

    #[test]
    fn a_run_of_repeated_positions_is_one_repetition_ruled_by_its_first_loop() {
        // The red rook chases the unprotected cannon round twice, then black takes another
        // way, and later a loop of checks comes.
        let start = Position::from_fen("4k4/9/1c7/7R1/9/9/9/9/9/3K5 w").unwrap();
        let played = "h6h7 b7b6 h7h6 b6b7 h6h7 b7b6 h7h6 b6a6 h6h9 e9e8 h9h8 e8e9 h8h9 e9e8";
        let found = repetitions(&start, &moves(&start, played));
        assert_eq!(found.len(), 2, "{found:?}");
        // Where the loop starts, its length, where the run ends; the ruling.
        let seen = |r: &Repetition| (r.start_ply, r.moves.len(), r.last_ply, r.ruling);
        let red = |rule| Ruling::Loses {
            side: Side::White,
            rule,
        };
        let (chase, check) = (&found[0], &found[1]);
        assert_eq!(seen(chase), (0, 4, 7, red(Rule::PerpetualChase)));
        assert_eq!(chase.hunted, vec![("b7".parse().unwrap(), Role::Cannon)]);
        let cannon_on = |sq: &str| Coloured::Chase(vec![(sq.parse().unwrap(), Role::Cannon)]);
        let idle = Coloured::Idle;
        let each = [cannon_on("b7"), idle.clone(), cannon_on("b6"), idle];
        assert_eq!(chase.colours, each);
        assert_eq!(check.colours[..2], [Coloured::Idle, Coloured::Check]);
        assert_eq!(chase.move_number(), 1);
        assert_eq!(seen(check), (9, 4, 14, red(Rule::PerpetualCheck)));
        assert!(check.hunted.is_empty());
        assert_eq!(check.move_number(), 5);
        // Had Black begun, the ninth ply would be Red's sixth move.
        let black_began = Repetition {
            start: check.start.with_turn(Side::White),
            ..check.clone()
        };
        assert_eq!(black_began.move_number(), 6);
    }

    #[test]
    fn a_loop_after_a_capture_starts_after_it() {
        // The rook takes the soldier on c6 and goes back and forth; the cannon likewise.
        let start = Position::from_fen("4k4/9/1c7/2p4R1/9/9/9/9/9/3K5 w").unwrap();
        let found = repetitions(&start, &moves(&start, "h6c6 b7b6 c6h6 b6b7 h6c6"));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].start_ply, found[0].last_ply), (1, 5));
    }
}
