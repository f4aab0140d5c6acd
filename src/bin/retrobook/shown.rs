//! How each game's positions are read and its moves named, and a book's answer as JSON:
//! one shape for the command line and the server.

use retrobook::book::evals::Evals;
use retrobook::book::rules::{BookRules, Chess, Xiangqi};
use retrobook::book::{Backup, BookAnswer};
use retrobook::chess::{Move, Position};
use retrobook::engine::Score;
use retrobook::xiangqi::{self, Script};
use serde::Serialize;
use std::collections::BTreeMap;

/// How the command line and the server show a game's positions and moves.
pub trait Shown: BookRules {
    /// The position of a FEN.
    fn read(fen: &str) -> Result<Self::Position, String>;
    /// The move's names in JSON: UCI (UCCI) coordinates first.
    fn names(pos: &Self::Position, m: &Self::Move) -> Vec<(&'static str, String)>;
    /// The move as the text output shows it.
    fn text(pos: &Self::Position, m: &Self::Move) -> String;
}

impl Shown for Chess {
    fn read(fen: &str) -> Result<Position, String> {
        fen.parse()
            .map_err(|e: retrobook::chess::FenError| e.to_string())
    }
    fn names(pos: &Position, m: &Move) -> Vec<(&'static str, String)> {
        vec![("uci", m.to_string()), ("san", pos.san(m))]
    }
    fn text(pos: &Position, m: &Move) -> String {
        pos.san(m)
    }
}

impl Shown for Xiangqi {
    fn read(fen: &str) -> Result<xiangqi::Position, String> {
        xiangqi::Position::from_fen(fen).map_err(|e| e.to_string())
    }
    fn names(pos: &xiangqi::Position, m: &xiangqi::Move) -> Vec<(&'static str, String)> {
        vec![
            ("uci", m.to_string()),
            ("wxf", pos.wxf(m, Script::Chinese)),
            ("wxf_ascii", pos.wxf(m, Script::Ascii)),
        ]
    }
    fn text(pos: &xiangqi::Position, m: &xiangqi::Move) -> String {
        format!(
            "{} {} {}",
            pos.wxf(m, Script::Chinese),
            pos.wxf(m, Script::Ascii),
            m
        )
    }
}

/// A book's answer for a position as JSON (`book probe --json` and the server's `/book`).
#[derive(Serialize)]
pub struct BookResponse {
    pub fen: String,
    /// The position's Polyglot key, in hexadecimal.
    pub key: String,
    /// Games through the position.
    pub games: u32,
    /// Games in which it came a third time.
    pub threefold: u32,
    #[serde(flatten)]
    pub backup: BackupResponse,
    /// The engine's value (`book analyse`), null where the position was not analysed.
    pub eval: Option<EvalResponse>,
    pub moves: Vec<BookMoveResponse>,
}

/// An engine's value of a book position.
#[derive(Serialize)]
pub struct EvalResponse {
    /// `{"cp": n}` or `{"mate": n}`, from the side to move's view (mate: moves, positive
    /// where the side to move mates).
    #[serde(serialize_with = "score_json")]
    pub score: Score,
    pub depth: u16,
    /// The best move in UCI (UCCI) coordinates.
    pub best: String,
    /// The engine's line, as far as its moves are legal.
    pub line: Vec<String>,
    /// The engine and the limit of its search.
    pub engine: String,
    pub limit: String,
}

/// A back-up through the book graph, of a position or of the position a move leads to.
#[derive(Serialize)]
pub struct BackupResponse {
    /// The backed-up value, 0 to 1 for the side to move (null where none was computed).
    pub value: Option<f64>,
    /// Whether that value depends on the path (a repetition decided it).
    pub path_dependent: Option<bool>,
}

impl From<Option<Backup>> for BackupResponse {
    fn from(b: Option<Backup>) -> BackupResponse {
        BackupResponse {
            value: b.map(|b| b.value()),
            path_dependent: b.map(|b| b.path_dependent),
        }
    }
}

/// A move of a book's answer.
#[derive(Serialize)]
pub struct BookMoveResponse {
    /// The move's names: UCI (UCCI) coordinates, and SAN or WXF by the game.
    #[serde(flatten)]
    pub names: BTreeMap<&'static str, String>,
    pub games: u32,
    pub win: u32,
    pub draw: u32,
    pub loss: u32,
    /// Win and half the draws, over the games, for the side that plays it.
    pub score: f64,
    pub goodness: f64,
    /// Games in which the move repeated a position.
    pub repetitions: u32,
    /// The back-up after the move.
    #[serde(flatten)]
    pub backup: BackupResponse,
}

/// A book's answer for `pos` (given as `fen`), as `BookResponse`.
pub fn book_json<R: Shown>(
    fen: &str,
    pos: &R::Position,
    a: &BookAnswer<R::Move>,
    evals: Option<&Evals>,
) -> BookResponse {
    let moves = (a.moves.iter())
        .map(|m| BookMoveResponse {
            names: R::names(pos, &m.mv).into_iter().collect(),
            games: m.entry.games,
            win: m.entry.win,
            draw: m.entry.draw,
            loss: m.entry.loss,
            score: m.score(),
            goodness: m.goodness(),
            repetitions: m.entry.repeats,
            backup: m.entry.backup.into(),
        })
        .collect();
    BookResponse {
        fen: fen.to_string(),
        key: format!("0x{:016x}", a.key),
        games: a.games,
        threefold: a.threefold,
        backup: a.backup.into(),
        eval: evals.and_then(|evals| eval_json::<R>(pos, a.key, evals)),
        moves,
    }
}

/// A score as `{"cp": n}` or `{"mate": n}`.
fn score_json<S: serde::Serializer>(score: &Score, s: S) -> Result<S::Ok, S::Error> {
    let (kind, n) = match *score {
        Score::Centipawns(cp) => ("cp", cp),
        Score::Mate(n) => ("mate", n),
    };
    BTreeMap::from([(kind, n)]).serialize(s)
}

/// The engine's value of `pos` (key `key`) in `evals`, its moves named in coordinates.
fn eval_json<R: BookRules>(pos: &R::Position, key: u64, evals: &Evals) -> Option<EvalResponse> {
    let e = evals.get(key)?;
    let mut at = pos.clone();
    let mut line = Vec::new();
    for &code in &e.line {
        let Some(m) = R::decode(&at, code) else { break };
        line.push(m.to_string());
        at = R::play(&at, &m);
    }
    Some(EvalResponse {
        score: e.score,
        depth: e.depth,
        best: R::decode(pos, e.best)?.to_string(),
        line,
        engine: evals.of().engine.clone(),
        limit: evals.of().limit.to_string(),
    })
}

impl std::fmt::Display for BookResponse {
    /// One line of JSON, as the command line prints it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let line = serde_json::to_string(self).map_err(|_| std::fmt::Error)?;
        f.write_str(&line)
    }
}
