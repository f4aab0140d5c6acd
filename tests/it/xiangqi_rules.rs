//! The Asian rules' loop judge (`retrobook::xiangqi::Loop`) against Fairy-Stockfish's
//! adjudication of repetitions (pyffish, which `scripts/install-python` installs into
//! `target/python`), on random loops from positions of the master archive: each side's
//! moves taken back in turn (a, b, a', b' or a1, b1, a2, b2, a2', b2', a1', b1'), three
//! in four of the moves drawn among those that add to the captures their side threatens. Where the
//! two differ, the difference must be one the rule text explains (`docs/xiangqi-rules.md`).

use crate::common::{run, Rng};
use crate::xiangqi_book::{archive_text, tag};
use retrobook::side::Side;
use retrobook::xiangqi::{Loop, Move, Position, Role, Ruling};
use std::io::Write;
use std::process::Stdio;

/// A move its side can take back with the reverse move: not a capture, not a soldier's.
fn reversible(pos: &Position, m: &Move) -> bool {
    pos.at(m.to).is_none() && pos.at(m.from).is_some_and(|p| p.role != Role::Soldier)
}

/// How many legal captures `side` would have on `pos` if it were to move: a move that
/// raises the count threatens something (or checks), whatever the judge makes of it.
fn captures(pos: &Position, side: Side) -> usize {
    let turned = pos.with_turn(side);
    let moves = turned.legal_moves();
    moves.iter().filter(|m| turned.at(m.to).is_some()).count()
}

fn reverse(m: Move) -> Move {
    Move {
        from: m.to,
        to: m.from,
    }
}

/// A random loop of `pairs` moves each way from `pos`, or None where none was found.
fn random_loop(pos: &Position, pairs: usize, rng: &mut Rng) -> Option<Vec<Move>> {
    let mut at = pos.clone();
    let mut out = Vec::new();
    for _ in 0..2 * pairs {
        let moves: Vec<Move> = (at.legal_moves().into_iter())
            .filter(|m| reversible(&at, m))
            .collect();
        let now = captures(&at, at.turn());
        let forcing: Vec<Move> = (moves.iter().copied())
            .filter(|&m| captures(&at.play(&m), at.turn()) > now)
            .collect();
        let from = if !forcing.is_empty() && rng.below(4) != 0 {
            forcing
        } else {
            moves
        };
        let m = *from.get(rng.below(from.len().max(1)))?;
        out.push(m);
        at = at.play(&m);
    }
    for j in (0..pairs).rev() {
        for m in [out[2 * j], out[2 * j + 1]] {
            let back = reverse(m);
            if !at.legal_moves().contains(&back) {
                return None;
            }
            out.push(back);
            at = at.play(&back);
        }
    }
    (at == *pos).then_some(out)
}

/// Random loops from positions of the master archive, with their FENs.
fn loops(count: usize) -> Vec<(Position, Vec<Move>)> {
    let text = archive_text();
    let mut rng = Rng(0x5eed);
    let mut out = Vec::new();
    for game in text.split("[Game ").skip(1).step_by(5) {
        let mut pos = Position::from_fen(tag(game, "FEN").unwrap()).unwrap();
        let stop = 10 + rng.below(70);
        let tokens = (game.lines().skip(1))
            .filter(|l| !l.starts_with('['))
            .flat_map(str::split_whitespace)
            .filter(|t| !t.ends_with('.') && !["1-0", "0-1", "1/2-1/2", "*"].contains(t));
        for (ply, token) in tokens.enumerate() {
            if ply == stop {
                break;
            }
            let Ok(m) = pos.parse_move(token) else { break };
            pos = pos.play(&m);
        }
        let pairs = 1 + rng.below(2);
        if let Some(moves) = random_loop(&pos, pairs, &mut rng) {
            out.push((pos, moves));
        }
        if out.len() == count {
            break;
        }
    }
    out
}

/// Fairy-Stockfish's ruling on each loop (played twice, so that its first position comes
/// a third time): "draw", "red" or "black" (the side that loses), or "none".
const FAIRY: &str = r#"
import sys, pyffish as sf
def fsf(m):  # its ranks run 1-10
    return m[0] + str(int(m[1]) + 1) + m[2] + str(int(m[3]) + 1)
for line in sys.stdin:
    fen, moves = line.rstrip("\n").split("|")
    loop = [fsf(m) for m in moves.split()]
    end, v = sf.is_optional_game_end("xiangqi", fen, loop * 2)
    mover = "red" if fen.split()[1] == "w" else "black"
    other = "black" if mover == "red" else "red"
    print("none" if not end else "draw" if v == 0 else mover if v < 0 else other)
"#;

fn fairy(loops: &[(Position, Vec<Move>)]) -> Vec<String> {
    let python = crate::common::python("pyffish");
    let mut child = std::process::Command::new(python)
        .args(["-c", FAIRY])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for (pos, moves) in loops {
        let text: Vec<String> = moves.iter().map(Move::to_string).collect();
        writeln!(stdin, "{}|{}", pos.to_fen(), text.join(" ")).unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "pyffish ran");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

fn ours(ruling: Ruling) -> &'static str {
    match ruling {
        Ruling::Draw => "draw",
        Ruling::Loses {
            side: Side::White, ..
        } => "red",
        Ruling::Loses { .. } => "black",
    }
}

/// The loops where the judge and Fairy-Stockfish differ, each explained by the rule text
/// in `docs/xiangqi-rules.md` ("Against Fairy-Stockfish"): FEN, moves, our ruling, theirs.
const DIFFERENCES: [(&str, &str, &str, &str); 3] = [
    // The horse steps into the file of the black rook, which steps along it: no new threat.
    (
        "3k1ab2/4a4/n2cb4/pcp2RC1p/6r2/4P4/P7P/B5N2/4A4/3AK4 w - - 0 1",
        "g2h4 g5g4 h4g2 g4g5",
        "draw",
        "black",
    ),
    // The black rook steps off the square that served a red cannon as its screen for
    // protecting the soldier on c5, which the rook attacks from there: the elephant
    // attacks the soldier with gain when the rook has gone (rules' appendix; R33).
    (
        "3ak1b2/4a4/4b4/pR6p/2P4n1/6r2/P1CrP3P/2N1N4/4A4/2B1KA3 w - - 0 1",
        "b6d6 g4c4 d6b6 c4g4",
        "black",
        "draw",
    ),
    // The black rook steps along the rank on which it attacks the horse: no new threat.
    (
        "1r2kab2/3Ca1R2/4bc3/pC3R2p/6p2/9/P3P1n1P/4B1Nr1/9/3AKAB2 b - - 0 1",
        "h2i2 g2h0 i2h2 h0g2",
        "draw",
        "black",
    ),
];

#[test]
fn the_loop_judge_agrees_with_fairy_stockfish_on_random_loops_from_master_games() {
    let loops = loops(3000);
    assert_eq!(loops.len(), 3000, "loops found in the archive");
    let theirs = fairy(&loops);
    assert_eq!(theirs.len(), loops.len());
    let (mut decided, mut differences) = (0, Vec::new());
    for ((pos, moves), fsf) in loops.iter().zip(&theirs) {
        let us = ours(Loop::new(pos, moves).unwrap().ruling());
        let text: Vec<String> = moves.iter().map(Move::to_string).collect();
        match us == fsf {
            true => decided += usize::from(us != "draw"),
            false => differences.push((pos.to_fen(), text.join(" "), us, fsf.as_str())),
        }
    }
    let known: Vec<_> = (DIFFERENCES.iter())
        .map(|&(fen, moves, us, fsf)| (fen.to_string(), moves.to_string(), us, fsf))
        .collect();
    assert_eq!(differences, known, "differences the docs do not explain");
    // Enough of the loops break the rule for the agreement to say something (13 do).
    assert!(
        decided >= 10,
        "{decided} loops won or lost by the rule, both agreeing"
    );
}

/// Two games: the red rook chases the unprotected black cannon round a loop twice (moves
/// in UCCI), then checks round another, its result in its tag alone (no termination
/// marker); the second game repeats nothing.
const GAMES: &str = "[Game \"Chinese Chess\"]\n[Red \"A\"]\n[Black \"B\"]\n[Result \"0-1\"]\n\
[FEN \"4k4/9/1c7/7R1/9/9/9/9/9/3K5 w - - 0 1\"]\n\n\
1. h6h7 b7b6 2. h7h6 b6b7 3. h6h7 b7b6 4. h7h6 b6a6 5. h6h9 e9e8 6. h9h8 e8e9 7. h8h9\n\n\
[Game \"Chinese Chess\"]\n[Result \"1/2-1/2\"]\n\n1. h2e2 h9g7 1/2-1/2\n";

#[test]
fn the_referee_names_who_must_change_by_which_rule_from_which_move() {
    use crate::common::{run, run_ok};
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("games.pgn");
    std::fs::write(&pgn, GAMES).unwrap();
    let path = pgn.to_str().unwrap();
    let text = run_ok(&["judge", "--game", "xiangqi", path]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            "game 1 (line 1, A - B, 0-1): from move 1, a loop of 4 plies (plies 0-4, repeated \
             to ply 7): red must change (perpetual-chase of the cannon on b7)",
            "game 1 (line 1, A - B, 0-1): from move 5, a loop of 4 plies (plies 9-13, repeated \
             to ply 13): red must change (perpetual-check)",
            "2 games read, 0 skipped; 1 with a repetition, 2 loops: perpetual-chase 1, \
             perpetual-check 1; the side that must change lost 2",
        ]
    );
    let json: serde_json::Value =
        serde_json::from_str(&run_ok(&["judge", "--game", "xiangqi", path, "--json"])).unwrap();
    assert_eq!(
        (json["games"].as_u64(), json["skipped"].as_u64()),
        (Some(2), Some(0))
    );
    assert_eq!(json["games_with_repetitions"], 1);
    let chase = &json["loops"][0];
    assert_eq!(chase["must_change"], "red");
    assert_eq!(chase["rule"], "perpetual-chase");
    assert_eq!(
        chase["moves"],
        serde_json::json!(["h6h7", "b7b6", "h7h6", "b6b7"])
    );
    assert_eq!(
        chase["hunted"],
        serde_json::json!([{"square": "b7", "piece": "cannon"}])
    );
    // What the ruling rests on, move by move: the rook chases the cannon where it stands.
    let cannon_on = |sq: &str| serde_json::json!({"colour": "chase", "chased": [{"square": sq, "piece": "cannon"}]});
    let idle = serde_json::json!({"colour": "idle"});
    assert_eq!(
        chase["colours"],
        serde_json::json!([cannon_on("b7"), idle, cannon_on("b6"), idle])
    );
    assert_eq!(
        (chase["start_ply"].as_u64(), chase["last_ply"].as_u64()),
        (Some(0), Some(7))
    );
    assert_eq!(json["loops"][1]["rule"], "perpetual-check");
    assert_eq!(
        json["rulings"],
        serde_json::json!({"perpetual-chase": 1, "perpetual-check": 1})
    );
    // Chess has no such rules; a file that is not there is named.
    let chess = run(&["judge", path]);
    assert_eq!(chess.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&chess.stderr).contains("give --game xiangqi"));
    let missing = dir.path().join("none.pgn");
    let out = run(&["judge", "--game", "xiangqi", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("none.pgn"));
}

/// One loop given by its position and moves: the ruling and each move's colour, in text
/// and JSON, the same as the referee gives the loop in a game; a loop the judge cannot rule
/// on is said to be so, never guessed.
#[test]
fn the_judge_rules_one_loop_given_on_the_command_line() {
    // R18: a rook may not chase an unprotected cannon; the cannon's moves are idle.
    let fen = "4k4/9/1c7/7R1/9/9/9/9/9/3K5 w";
    let moves = "h6h7 b7b6 h7h6 b6b7";
    let judge = |fen: &str, moves: &str, json: bool| {
        let mut args = vec!["judge", "--game", "xiangqi", "--fen", fen, "--moves", moves];
        if json {
            args.push("--json");
        }
        run(&args)
    };
    let text = judge(fen, moves, false);
    assert!(text.status.success());
    let text = String::from_utf8(text.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            "4k4/9/1c7/7R1/9/9/9/9/9/3K5 w - - 0 1: a loop of 4 plies: red must change \
             (perpetual-chase of the cannon on b7)",
            "  h6h7  red    chase: cannon on b7",
            "  b7b6  black  idle",
            "  h7h6  red    chase: cannon on b6",
            "  b6b7  black  idle",
        ]
    );
    let json: serde_json::Value = serde_json::from_slice(&judge(fen, moves, true).stdout).unwrap();
    assert_eq!(
        (&json["must_change"], &json["rule"], &json["plies"]),
        (&"red".into(), &"perpetual-chase".into(), &4.into())
    );
    assert_eq!(
        json["hunted"],
        serde_json::json!([{"square": "b7", "piece": "cannon"}])
    );
    // Protected by the rook on b9, the same loop draws (R17).
    let protected = judge("1r2k4/9/1c7/7R1/9/9/9/9/9/3K5 w", moves, true);
    let json: serde_json::Value = serde_json::from_slice(&protected.stdout).unwrap();
    assert_eq!(
        (&json["must_change"], &json["rule"]),
        (&serde_json::Value::Null, &serde_json::Value::Null)
    );
    // Loops the judge cannot rule on, and input that is no loop at all.
    for (fen, moves, needle) in [
        (fen, "h6h7 b7b6 h7h6", "the 3 moves do not come back"),
        (
            fen,
            "h6h7 b7b6 h7a0 b6b7",
            "move 3 of the loop, h7a0, is not legal there",
        ),
        (fen, "h6h7 zz", "\"zz\" is not a UCCI move"),
        (
            "8/8/8/8/8/3k4/8/K1R5 w - - 0 1",
            "a1a2",
            "not a Chinese chess FEN",
        ),
    ] {
        let out = judge(fen, moves, false);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{moves}: {err}");
        assert!(err.contains(needle), "{moves}: {err}");
        assert!(out.stdout.is_empty());
    }
    let chess = run(&["judge", "--fen", fen, "--moves", moves]);
    assert_eq!(chess.status.code(), Some(2));
    let neither = run(&["judge", "--game", "xiangqi"]);
    assert_eq!(neither.status.code(), Some(2));
}
