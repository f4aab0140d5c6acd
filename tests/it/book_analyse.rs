//! `book analyse` against the engine alone: Debian's Stockfish (`scripts/install-engines`)
//! run by python-chess's UCI client (`scripts/install-python`), a fresh engine per position,
//! must give the score and best move the book's evals hold; a killed run resumes to the
//! bytes of an uninterrupted one; engines that crash, hang or babble are survived.

use crate::common::{game_program, python, run, run_ok};
use retrobook::book::Book;
use retrobook::chess::Position;
use serde_json::Value;
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const DEPTH: &str = "10";

/// A book of the sample archive's first 12 plies, in `dir`.
fn small_book(dir: &Path) -> PathBuf {
    let book = dir.join("b.rbb");
    let archive = concat!(env!("CARGO_MANIFEST_DIR"), "/books/masters-3000.pgn.zst");
    let book_arg = book.to_str().unwrap();
    run_ok(&[
        "book",
        "build",
        archive,
        "--out",
        book_arg,
        "--max-ply",
        "12",
    ]);
    book
}

/// `fen` with the move counts of a game's start, as the book's values are of positions.
fn counts_reset(fen: &str) -> String {
    let fields: Vec<&str> = fen.split(' ').take(4).collect();
    format!("{} 0 1", fields.join(" "))
}

/// The positions of `book` reached from the start by its moves with at least `min_games`
/// games, found here by walking the book's answers; their move counts as at a game's start
/// (what the book's engine values are of: its key leaves them out).
fn positions_with(book: &Book, min_games: u32) -> Vec<String> {
    let (mut seen, mut out) = (HashSet::new(), Vec::new());
    let mut stack = vec![Position::start()];
    while let Some(pos) = stack.pop() {
        let answer = book.probe(&pos);
        if !seen.insert(answer.key) {
            continue;
        }
        if answer.games >= min_games {
            out.push(counts_reset(&pos.to_string()));
        }
        stack.extend(answer.moves.iter().map(|m| pos.play(&m.mv)));
    }
    out
}

/// `book analyse` of `book` by the program `engine`, with the arguments `more`.
fn run_analyse(book: &Path, engine: &Path, more: &[&str]) -> Output {
    let (book, engine) = (book.to_str().unwrap(), engine.to_str().unwrap());
    let mut args = vec!["book", "analyse", "--book", book, "--engine", engine];
    args.extend(more);
    run(&args)
}

/// `book analyse --json` of `book` by `engine`, with `more`: its summary, once it succeeded.
fn analysed_by(book: &Path, engine: &Path, more: &[&str]) -> Value {
    let out = run_analyse(book, engine, &[more, &["--json"]].concat());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `analysed_by` Stockfish.
fn analyse(book: &Path, more: &[&str]) -> Value {
    analysed_by(book, &game_program("stockfish"), more)
}

/// Stockfish alone on each FEN, through python-chess: one thread, 16 MiB of hash, depth
/// `DEPTH`, a fresh process per position; per line the score ("cp N" or "mate N", the side
/// to move's) and the best move.
const ALONE: &str = r#"
import sys, chess, chess.engine
program, depth = sys.argv[1], int(sys.argv[2])
for line in sys.stdin:
    fen = line.strip()
    with chess.engine.SimpleEngine.popen_uci(program) as engine:
        engine.configure({"Threads": 1, "Hash": 16})
        played = engine.play(chess.Board(fen), chess.engine.Limit(depth=depth), info=chess.engine.INFO_ALL)
        score = played.info["score"].relative
        text = f"mate {score.mate()}" if score.is_mate() else f"cp {score.score()}"
        print(text, played.move.uci(), flush=True)
"#;

/// The engine `engine` alone on each of `fens` at depth `depth`, by the Python program
/// `script` (`ALONE`, `FAIRY_ALONE`): a line each.
fn alone(script: &str, engine: &str, depth: &str, fens: &[String]) -> Vec<String> {
    let program = game_program(engine);
    let mut child = Command::new(python("python-chess"))
        .args(["-c", script, program.to_str().unwrap(), depth])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for fen in fens {
        writeln!(stdin, "{fen}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let lines: Vec<String> = (String::from_utf8(out.stdout).unwrap().lines())
        .map(str::to_string)
        .collect();
    assert_eq!(lines.len(), fens.len());
    lines
}

#[test]
fn each_position_has_the_score_and_move_stockfish_gives_alone() {
    let dir = tempfile::tempdir().unwrap();
    let book = small_book(dir.path());
    let summary = analyse(
        &book,
        &["--depth", DEPTH, "--min-games", "40", "--threads", "2"],
    );
    let fens = positions_with(&Book::open(&book).unwrap(), 40);
    assert!(fens.len() > 50, "{}", fens.len());
    assert_eq!(summary["positions"], fens.len());
    assert_eq!(summary["analysed"], fens.len());
    assert_eq!(
        (summary["skipped"].as_u64(), summary["retried"].as_u64()),
        (Some(0), Some(0))
    );
    assert_eq!(summary["limit"], "depth 10");
    assert!(summary["engine"].as_str().unwrap().starts_with("Stockfish"));
    // Every position reached has its value; a sample is held to the engine alone.
    let mut args = vec!["book", "probe", "--json", "--book", book.to_str().unwrap()];
    args.extend(fens.iter().map(String::as_str));
    let probed: Vec<Value> = run_ok(&args)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let sample: Vec<usize> = (0..fens.len()).step_by(fens.len() / 12).collect();
    let sampled: Vec<String> = sample.iter().map(|&i| fens[i].clone()).collect();
    let alone = alone(ALONE, "stockfish", DEPTH, &sampled);
    for (p, eval) in probed.iter().map(|p| (p, &p["eval"])) {
        assert_eq!(eval["depth"], 10, "{p}");
        assert_eq!(eval["line"][0], eval["best"], "{p}");
    }
    for (&i, theirs) in sample.iter().zip(&alone) {
        let eval = &probed[i]["eval"];
        let (kind, n) = eval["score"].as_object().unwrap().iter().next().unwrap();
        let ours = format!("{kind} {n} {}", eval["best"].as_str().unwrap());
        assert_eq!(&ours, theirs, "{}", fens[i]);
    }
}

#[test]
fn a_killed_run_resumes_to_the_file_of_a_whole_run() {
    let dir = tempfile::tempdir().unwrap();
    let book = small_book(dir.path());
    let whole_dir = tempfile::tempdir().unwrap();
    let whole = whole_dir.path().join("b.rbb");
    std::fs::copy(&book, &whole).unwrap();
    let settings = ["--depth", "8", "--min-games", "60", "--threads", "1"];
    let done = analyse(&whole, &settings);
    let evals = |b: &Path| PathBuf::from(format!("{}.evals", b.display()));
    let journal = PathBuf::from(format!("{}.evals.part", book.display()));
    // Killed once a few positions are in the journal.
    let stockfish = game_program("stockfish");
    let mut child = Command::new(env!("CARGO_BIN_EXE_retrobook"))
        .args(["book", "analyse", "--book", book.to_str().unwrap()])
        .args(["--engine", stockfish.to_str().unwrap()])
        .args(settings)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(60);
    while std::fs::metadata(&journal).map_or(0, |m| m.len()) < 128 + 5 * 44 {
        assert!(Instant::now() < until, "no journal grew");
        std::thread::sleep(Duration::from_millis(20));
    }
    // A second run on the same book meanwhile is refused, the first's journal named.
    let out = run_analyse(&book, &stockfish, &settings);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("b.rbb.evals.part: another run is analysing"),
        "{err}"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!evals(&book).exists());
    let resumed = analyse(&book, &settings);
    assert!(resumed["earlier"].as_u64().unwrap() >= 5, "{resumed}");
    assert_eq!(
        resumed["earlier"].as_u64().unwrap() + resumed["analysed"].as_u64().unwrap(),
        done["analysed"].as_u64().unwrap()
    );
    assert_eq!(
        std::fs::read(evals(&book)).unwrap(),
        std::fs::read(evals(&whole)).unwrap()
    );
    assert!(!journal.exists());
    // Another depth over the same evals file is refused, naming it and the depths.
    let out = run_analyse(&book, &stockfish, &["--depth", "9", "--min-games", "60"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("b.rbb.evals") && err.contains("depth 8, not depth 9"),
        "{err}"
    );
}

/// A UCI engine that answers the handshake, then fails at `go` as `argv[1]` says: "crash"
/// (exits), "hang" (answers nothing), "garbage" (a best move out of form), "illegal" (a
/// best move not legal), "flaky" (crashes at every other `go`, counting in the file
/// `argv[2]`, and otherwise answers with the first legal move, by python-chess).
const FAKE: &str = r#"
import os, sys, time, chess
mode = sys.argv[1]
fen = chess.STARTING_FEN
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        print("id name Fake\nuciok", flush=True)
    elif words[0] == "isready":
        print("readyok", flush=True)
    elif words[:2] == ["position", "fen"]:
        fen = " ".join(words[2:])
    elif words[0] == "go":
        if mode == "flaky":
            n = int(open(sys.argv[2]).read()) if os.path.exists(sys.argv[2]) else 0
            open(sys.argv[2], "w").write(str(n + 1))
            mode_now = "crash" if n % 2 == 0 else "fine"
        else:
            mode_now = mode
        if mode_now == "crash":
            sys.exit(3)
        if mode_now == "hang":
            time.sleep(3600)
        if mode_now == "garbage":
            print("info depth 1 score cp 5 pv e2e4\nbestmove", flush=True)
        if mode_now == "illegal":
            print("info depth 1 score cp 5 pv e1e5\nbestmove e1e5", flush=True)
        if mode_now == "fine":
            move = min(m.uci() for m in chess.Board(fen).legal_moves)
            print(f"info depth 1 score cp 7 pv {move}\nbestmove {move}", flush=True)
    elif words[0] == "quit":
        break
"#;

#[test]
fn engines_that_crash_hang_or_babble_are_survived() {
    let dir = tempfile::tempdir().unwrap();
    let book = small_book(dir.path());
    let fake = dir.path().join("fake.py");
    std::fs::write(&fake, FAKE).unwrap();
    let python = python("python-chess");
    let count = dir.path().join("count");
    let positions = positions_with(&Book::open(&book).unwrap(), 300).len();
    assert!((2..=12).contains(&positions), "{positions}");
    for mode in ["crash", "hang", "garbage", "illegal", "flaky"] {
        // The flaky engine's count is not for two at once.
        let threads = if mode == "flaky" { "1" } else { "2" };
        // Long enough for Python to start, but for the engine that hangs.
        let timeout = if mode == "hang" { "0.5" } else { "20" };
        let fake = fake.to_str().unwrap();
        let count = count.to_str().unwrap();
        let s = analysed_by(
            &book,
            &python,
            &[
                "--engine-arg",
                fake,
                "--engine-arg",
                mode,
                "--engine-arg",
                count,
                "--min-games",
                "300",
                "--timeout",
                timeout,
                "--threads",
                threads,
            ],
        );
        assert_eq!(s["positions"], positions, "{mode}");
        assert_eq!(s["retried"], positions, "{mode}: {s}");
        let (analysed, skipped) = match mode {
            "flaky" => (positions, 0),
            _ => (0, positions),
        };
        assert_eq!(
            (s["analysed"].as_u64(), s["skipped"].as_u64()),
            (Some(analysed as u64), Some(skipped as u64)),
            "{mode}: {s}"
        );
        let failure = s["first_failure"].as_str().unwrap();
        let expected = match mode {
            "hang" => "gave no bestmove within 0.5 s",
            "garbage" => "no best move",
            "illegal" => "\"e1e5\" is not legal",
            _ => "stopped",
        };
        assert!(failure.contains(expected), "{mode}: {failure}");
        std::fs::remove_file(format!("{}.evals", book.display())).unwrap();
    }
    // A search without a limit (an engine takes depth 0 so) is refused before it starts.
    for zero in [["--depth", "0"], ["--nodes", "0"]] {
        let out = run_analyse(&book, &game_program("stockfish"), &zero);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("must be at least 1"), "{err}");
    }
    // An engine that cannot start, or never finishes its handshake, ends the run clearly.
    for (engine, said) in [
        (
            "/nonexistent/engine",
            "cannot start engine /nonexistent/engine",
        ),
        ("/bin/cat", "gave no uciok within 0.5 s"),
    ] {
        let out = run_analyse(&book, Path::new(engine), &["--timeout", "0.5"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains(said) && !err.contains("panicked"), "{err}");
    }
}

/// Fairy-Stockfish alone on each xiangqi FEN, spoken to here line by line: set to xiangqi,
/// one thread, 16 MiB of hash, depth `argv[2]`, a fresh process per position; per line
/// the last exact score before `bestmove` and the best move in UCCI coordinates (its ranks
/// counted from 0, where Fairy-Stockfish counts from 1).
const FAIRY_ALONE: &str = r#"
import re, subprocess, sys
program, depth = sys.argv[1], sys.argv[2]
for line in sys.stdin:
    fen = line.strip()
    p = subprocess.Popen([program], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    p.stdin.write("uci\nsetoption name UCI_Variant value xiangqi\nsetoption name Threads value 1\n"
        f"setoption name Hash value 16\nisready\nposition fen {fen}\ngo depth {depth}\n")
    p.stdin.flush()
    score = None
    for out in p.stdout:
        words = out.split()
        if words[:1] == ["info"] and "score" in words and "pv" in words \
                and "lowerbound" not in words and "upperbound" not in words:
            i = words.index("score")
            score = f"{words[i + 1]} {words[i + 2]}"
        if words[:1] == ["bestmove"]:
            best = re.sub(r"\d+", lambda m: str(int(m.group()) - 1), words[1])
            break
    p.stdin.write("quit\n")
    p.stdin.close()
    p.wait()
    print(score, best, flush=True)
"#;

#[test]
fn a_xiangqi_book_has_the_values_fairy_stockfish_gives_alone() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("x.rbb");
    let archive = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/books/xiangqi-masters-2000.pgn.zst"
    );
    let book_arg = book.to_str().unwrap();
    run_ok(&[
        "book",
        "build",
        "--game",
        "xiangqi",
        archive,
        "--out",
        book_arg,
        "--max-ply",
        "8",
    ]);
    let fairy = game_program("fairy-stockfish");
    let summary = analysed_by(&book, &fairy, &["--depth", "8", "--min-games", "150"]);
    let analysed = summary["analysed"].as_u64().unwrap();
    assert!(analysed >= 5, "{summary}");
    assert_eq!(
        (summary["skipped"].as_u64(), summary["positions"].as_u64()),
        (Some(0), Some(analysed))
    );
    // The start and the positions after first moves played in at least 150 games.
    let start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
    let first: Value = serde_json::from_str(&run_ok(&[
        "book", "probe", "--json", "--book", book_arg, start,
    ]))
    .unwrap();
    let mut fens = vec![start.to_string()];
    let played = first["moves"].as_array().unwrap().iter();
    for m in played.filter(|m| m["games"].as_u64() >= Some(150)).take(3) {
        let uci = m["uci"].as_str().unwrap();
        let pos = retrobook::xiangqi::Position::from_fen(start).unwrap();
        let next = pos.play(&pos.parse_move(uci).unwrap()).to_fen();
        fens.push(counts_reset(&next));
    }
    let mut probe = vec!["book", "probe", "--json", "--book", book_arg];
    probe.extend(fens.iter().map(String::as_str));
    let probed: Vec<Value> = run_ok(&probe)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(fens.len() >= 3, "{fens:?}");
    let alone = alone(FAIRY_ALONE, "fairy-stockfish", "8", &fens);
    for ((fen, p), theirs) in fens.iter().zip(&probed).zip(&alone) {
        let eval = &p["eval"];
        assert!(!eval.is_null(), "{fen}: not analysed");
        let (kind, n) = eval["score"].as_object().unwrap().iter().next().unwrap();
        let ours = format!("{kind} {n} {}", eval["best"].as_str().unwrap());
        assert_eq!(&ours, theirs, "{fen}");
    }
}
