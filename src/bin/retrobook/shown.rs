//! How each game's positions are read and its moves named, and a book's answer as JSON:
//! one shape for the command line and the server.

use retrobook::book::rules::{BookRules, Chess, Xiangqi};
use retrobook::book::{Backup, BookAnswer};
use retrobook::chess::{Move, Position};
use retrobook::xiangqi::{self, Script};
use serde_json::json;

/// A back-up as JSON: the value as a fraction (0..1) and the mark, or nulls.
fn backup_json(b: Option<Backup>) -> (serde_json::Value, serde_json::Value) {
    match b {
        Some(b) => (json!(b.value()), json!(b.path_dependent)),
        None => (serde_json::Value::Null, serde_json::Value::Null),
    }
}

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
pub fn book_json<R: Shown>(
    fen: &str,
    pos: &R::Position,
    a: &BookAnswer<R::Move>,
) -> serde_json::Value {
    let moves: Vec<serde_json::Value> = a
        .moves
        .iter()
        .map(|m| {
            let (value, path_dependent) = backup_json(m.entry.backup);
            let mut o = json!({
                "games": m.entry.games,
                "win": m.entry.win,
                "draw": m.entry.draw,
                "loss": m.entry.loss,
                "score": m.score(),
                "goodness": m.goodness(),
                "repetitions": m.entry.repeats,
                "value": value,
                "path_dependent": path_dependent,
            });
            for (name, text) in R::names(pos, &m.mv) {
                o[name] = json!(text);
            }
            o
        })
        .collect();
    let (value, path_dependent) = backup_json(a.backup);
    json!({
        "fen": fen,
        "key": format!("0x{:016x}", a.key),
        "games": a.games,
        "threefold": a.threefold,
        "value": value,
        "path_dependent": path_dependent,
        "moves": moves,
    })
}
