//! `retrobook judge`: the referee's report on every repetition of a Chinese chess archive,
//! as lines of text or one JSON object, with counts at the end.

use crate::cli::said::merge;
use crate::output::{runtime, write_failed, Failure};
use retrobook::referee::{judge_archive, judge_loop, Coloured, JudgedGame, Repetition};
use retrobook::side::Side;
use retrobook::xiangqi::{side_name, Move, Position, Role, Ruling, Square};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// Who must change, by which rule: ("draw" | "red" | "black", rule name or None).
fn verdict(r: &Repetition) -> (Option<Side>, Option<&'static str>) {
    match r.ruling {
        Ruling::Draw => (None, None),
        Ruling::Loses { side, rule } => (Some(side), Some(rule.name())),
    }
}

/// How the recorded result went for `side`: "lost", "drew", "won" or "unfinished".
fn outcome(result: Option<&str>, side: Side) -> &'static str {
    match (result, side) {
        (Some("1-0"), Side::White) | (Some("0-1"), Side::Black) => "won",
        (Some("1-0"), Side::Black) | (Some("0-1"), Side::White) => "lost",
        (Some("1/2-1/2"), _) => "drew",
        _ => "unfinished",
    }
}

/// One line of text for a repetition of `g`.
fn text_line(g: &JudgedGame, r: &Repetition) -> String {
    let names = format!(
        "{} - {}, {}",
        g.red.as_deref().unwrap_or("?"),
        g.black.as_deref().unwrap_or("?"),
        g.result.as_deref().unwrap_or("*")
    );
    let ruling = ruling_words(r);
    format!(
        "game {} (line {}, {names}): from move {}, a loop of {} plies (plies {}-{}, repeated to ply {}): {ruling}",
        g.game,
        g.line,
        r.move_number(),
        r.moves.len(),
        r.start_ply,
        r.start_ply + r.moves.len(),
        r.last_ply
    )
}

fn json_loop(g: &JudgedGame, r: &Repetition) -> Value {
    let mut o = json!({
        "game": g.game,
        "line": g.line,
        "red": g.red,
        "black": g.black,
        "result": g.result,
        "move": r.move_number(),
    });
    merge(&mut o, json_ruling(r));
    o
}

/// A loop's ruling and what it rests on, in JSON.
fn json_ruling(r: &Repetition) -> Value {
    let (side, rule) = verdict(r);
    json!({
        "start_ply": r.start_ply,
        "fen": r.start.to_fen(),
        "plies": r.moves.len(),
        "last_ply": r.last_ply,
        "moves": r.moves.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
        "must_change": side.map(side_name),
        "rule": rule,
        "hunted": pieces(&r.hunted),
        "colours": r.colours.iter().map(|c| match c {
            Coloured::Idle => json!({"colour": "idle"}),
            Coloured::Check => json!({"colour": "check"}),
            Coloured::Chase(chased) => json!({"colour": "chase", "chased": pieces(chased)}),
        }).collect::<Vec<_>>(),
    })
}

/// Pieces in words: "cannon on b7, horse on c5".
fn pieces_named(list: &[(Square, Role)]) -> String {
    let named: Vec<String> = (list.iter())
        .map(|(sq, role)| format!("{} on {sq}", role.name()))
        .collect();
    named.join(", ")
}

/// Pieces in JSON: `[{"square", "piece"}]`.
fn pieces(list: &[(Square, Role)]) -> Vec<Value> {
    (list.iter())
        .map(|(sq, role)| json!({"square": sq.to_string(), "piece": role.name()}))
        .collect()
}

/// The ruling in words: "draw", or who must change by which rule (and the pieces hunted).
fn ruling_words(r: &Repetition) -> String {
    match verdict(r) {
        (Some(side), Some(rule)) => {
            let of = match r.hunted.is_empty() {
                true => String::new(),
                false => format!(" of the {}", pieces_named(&r.hunted)),
            };
            format!("{} must change ({rule}{of})", side_name(side))
        }
        _ => "draw".to_string(),
    }
}

/// `judge --game xiangqi --fen FEN --moves MOVES`: the ruling on one loop, each move with
/// its colour; a loop the judge cannot rule on is said to be so (exit status 1).
pub fn cmd_judge_loop(fen: &str, moves: &str, json: bool) -> Result<(), Failure> {
    let start = Position::from_fen(fen)
        .map_err(|e| runtime(format!("{fen:?} is not a Chinese chess FEN: {e}")))?;
    let moves: Vec<Move> = (moves.split_whitespace())
        .map(|m| m.parse().map_err(|e| runtime(format!("{m:?}: {e}"))))
        .collect::<Result<_, _>>()?;
    let r = judge_loop(&start, &moves).map_err(|e| runtime(format!("{fen}: {e}")))?;
    let mut out = std::io::stdout().lock();
    if json {
        return writeln!(out, "{}", json_ruling(&r)).map_err(write_failed);
    }
    let plies = r.moves.len();
    writeln!(
        out,
        "{}: a loop of {plies} plies: {}",
        r.start.to_fen(),
        ruling_words(&r)
    )
    .map_err(write_failed)?;
    let mut mover = r.start.turn();
    for (m, c) in r.moves.iter().zip(&r.colours) {
        let colour = match c {
            Coloured::Idle => "idle".to_string(),
            Coloured::Check => "check".to_string(),
            Coloured::Chase(chased) => format!("chase: {}", pieces_named(chased)),
        };
        writeln!(out, "  {m}  {:<5}  {colour}", side_name(mover)).map_err(write_failed)?;
        mover = !mover;
    }
    Ok(())
}

/// Rules every repetition of the archive at `path` and prints the report.
pub fn cmd_judge(path: &Path, json: bool) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    let mut loops = Vec::new();
    let (mut games_with, mut written) = (0u64, Ok(()));
    // Counts: rulings by rule, and how the games went for the side that must change.
    let mut rulings: BTreeMap<&str, u64> = BTreeMap::new();
    let mut results: BTreeMap<&str, u64> = BTreeMap::new();
    let summary = judge_archive(path, |g| {
        games_with += 1;
        for r in &g.repetitions {
            let (side, rule) = verdict(r);
            *rulings.entry(rule.unwrap_or("draw")).or_default() += 1;
            if let Some(side) = side {
                *results
                    .entry(outcome(g.result.as_deref(), side))
                    .or_default() += 1;
            }
            match json {
                true => loops.push(json_loop(g, r)),
                false if written.is_ok() => written = writeln!(out, "{}", text_line(g, r)),
                false => {}
            }
        }
    })
    .map_err(runtime)?;
    written.map_err(write_failed)?;
    let total: u64 = rulings.values().sum();
    if json {
        let o = json!({
            "games": summary.games,
            "skipped": summary.skipped,
            "games_with_repetitions": games_with,
            "loops": loops,
            "rulings": rulings,
            "results_of_the_side_that_must_change": results,
        });
        writeln!(out, "{o}").map_err(write_failed)?;
    } else {
        let counts: Vec<String> = rulings.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let went: Vec<String> = results.iter().map(|(k, v)| format!("{k} {v}")).collect();
        writeln!(
            out,
            "{} games read, {} skipped; {games_with} with a repetition, {total} loops: {}; the side that must change {}",
            summary.games,
            summary.skipped,
            counts.join(", "),
            if went.is_empty() { "-".to_string() } else { went.join(", ") }
        )
        .map_err(write_failed)?;
    }
    if let Some(why) = &summary.first_skipped {
        eprintln!(
            "retrobook: {} game(s) skipped, the first at line {}: {}",
            summary.skipped, why.line, why.detail
        );
    }
    Ok(())
}
